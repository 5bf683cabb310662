import type { Hash, Hex } from "viem";
import type { Relay402Client } from "./client.js";
import { getNetworkConfig } from "./get-config.js";
import type { NetworkName, SignerClient } from "./types.js";
import { relayerAbi } from "./wire/abis.js";
import { CANCEL_AUTHORIZATION_TYPES } from "./wire/transfer-typed-data.js";

export const cancelAuthorizationTypes = CANCEL_AUTHORIZATION_TYPES;

export type CancelAuthorizationParameters = { signer: SignerClient; network: NetworkName; nonce: Hex };

/**
 * Cancels a signed but unsettled authorization: signs CancelAuthorization on the relayer's domain and submits it
 * to the relayer from the caller's own wallet client (the service has no cancel endpoint; the caller pays the gas).
 * Returns the transaction hash; once mined, /verify and /settle of that nonce answer `nonce_error`.
 */
export async function cancelAuthorization(
  client: Relay402Client,
  { signer, network, nonce }: CancelAuthorizationParameters,
): Promise<Hash> {
  const config = await getNetworkConfig(client, network);
  const authorizer = signer.account.address;
  const signature = await signer.signTypedData({
    account: signer.account,
    domain: config.eip712Domain,
    types: cancelAuthorizationTypes,
    primaryType: "CancelAuthorization",
    message: { authorizer, nonce },
  });
  return signer.writeContract({
    account: signer.account,
    chain: signer.chain,
    address: config.contracts.relayer,
    abi: relayerAbi,
    functionName: "cancelAuthorization",
    args: [authorizer, nonce, signature],
  });
}
