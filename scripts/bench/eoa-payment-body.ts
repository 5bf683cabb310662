import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@relay402/client/wire/transfer-typed-data";
import { type Address, toHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";

/** Where an EOA payment goes: bsc's devnet unless said otherwise, a new payee unless `to` is given. */
export type EoaPaymentTarget = { network?: "bsc" | "base"; chainId?: number; to?: Address; value?: bigint };

/** A fresh /verify or /settle body of relay402's own format: `payer` pays `value` of `token` through `relayer`. */
export async function eoaPaymentBody(
  payer: PrivateKeyAccount,
  relayer: Address,
  token: Address,
  target: EoaPaymentTarget = {},
) {
  const { network = "bsc", chainId = 56, value = 1000n } = target;
  const now = Math.floor(Date.now() / 1000);
  const message = {
    token,
    from: payer.address,
    to: target.to ?? privateKeyToAccount(generatePrivateKey()).address,
    value,
    validAfter: BigInt(now - 60),
    validBefore: BigInt(now + 3600),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await payer.signTypedData({
    domain: { name: "relay402", version: "1", chainId, verifyingContract: relayer },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return JSON.stringify({
    paymentPayload: {
      token,
      payload: {
        authorization: {
          ...message,
          value: value.toString(),
          validAfter: Number(message.validAfter),
          validBefore: Number(message.validBefore),
        },
        signature,
      },
    },
    paymentRequirements: { network, relayerContract: relayer },
  });
}
