import { type Address, type Hex, toHex } from "viem";
import type { NetworkConfig } from "./get-config.js";
import type { PaymentPayload, SignerClient } from "./types.js";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "./wire/transfer-typed-data.js";

export const transferWithAuthorizationTypes = TRANSFER_WITH_AUTHORIZATION_TYPES;

export type SignAuthorizationParameters = {
  signer: SignerClient;
  /** The network's entry of /config: its relayer domain is what is signed over. */
  config: Pick<NetworkConfig, "limits"> & { eip712Domain: NonNullable<NetworkConfig["eip712Domain"]> };
  token: Address;
  to: Address;
  value: bigint;
  /** Unix seconds; default ten minutes from now (the service wants at least `validBeforeMarginSeconds`). */
  validBefore?: number;
  validAfter?: number;
  /** Default: 32 random bytes. */
  nonce?: Hex;
};

/** A validBefore well past the service's margin: ten minutes from now, or twice the margin if that is longer. */
export const defaultValidBefore = (config: Pick<NetworkConfig, "limits">) =>
  Math.floor(Date.now() / 1000) + Math.max(600, config.limits.validBeforeMarginSeconds * 2);

/** The payer's EIP-712 TransferWithAuthorization on the relayer's domain, as /verify, /settle and /deploy/* take it. */
export async function signTransferAuthorization(parameters: SignAuthorizationParameters): Promise<PaymentPayload> {
  const { signer, config } = parameters;
  const authorization = {
    from: signer.account.address,
    to: parameters.to,
    value: parameters.value.toString(),
    validAfter: parameters.validAfter ?? 0,
    validBefore: parameters.validBefore ?? defaultValidBefore(config),
    nonce: parameters.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  };
  const signature = await signer.signTypedData({
    account: signer.account,
    domain: config.eip712Domain,
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      ...authorization,
      token: parameters.token,
      value: parameters.value,
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return { token: parameters.token, payload: { authorization, signature } };
}
