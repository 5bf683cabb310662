import { type Address, toHex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "../../src/settlement/typed-data";

/** A fresh /verify or /settle body on bsc's devnet: `payer` pays `value` of `token` to a new address. */
export async function eoaPaymentBody(payer: PrivateKeyAccount, relayer: Address, token: Address, value = 1000n) {
  const now = Math.floor(Date.now() / 1000);
  const message = {
    token,
    from: payer.address,
    to: privateKeyToAccount(generatePrivateKey()).address,
    value,
    validAfter: BigInt(now - 60),
    validBefore: BigInt(now + 3600),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await payer.signTypedData({
    domain: { name: "relay402", version: "1", chainId: 56, verifyingContract: relayer },
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
    paymentRequirements: { network: "bsc", relayerContract: relayer },
  });
}
