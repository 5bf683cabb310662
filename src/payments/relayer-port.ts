import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, type PublicClient } from "viem";
import { relayerAbi } from "../chain/abis";
import type { Authorization } from "./authorization";

/** Status codes of Relayer.checkAuthorization, in the order the checks run. */
export const AUTHORIZATION_STATUS = {
  ok: 0,
  badSignature: 1,
  nonceUsed: 2,
  notYetValid: 3,
  expired: 4,
  tokenNotWhitelisted: 5,
  paused: 6,
  insufficientBalance: 7,
  insufficientAllowance: 8,
} as const;

export type AuthorizationCheck = { status: number; balance: bigint; allowance: bigint };

/** The narrow view of the chain that EOA payments need. */
export type RelayerPort = {
  /** Every /verify check in one eth_call, evaluated at `now` (unix seconds). */
  checkAuthorization(authorization: Authorization, now: bigint): Promise<AuthorizationCheck>;
  transferCallData(authorization: Authorization): Hex;
  authorizationState(from: Address, nonce: Hex): Promise<boolean>;
};

const args = (a: Authorization) =>
  [a.token, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature] as const;

export function createRelayerPort(client: PublicClient, relayer: Address): RelayerPort {
  return {
    async checkAuthorization(authorization, now) {
      // The block time is overridden with the service clock so that the window check means "now",
      // not "when the last block was mined" (an idle chain's latest block can be minutes old).
      const { data } = await client.call({
        to: relayer,
        data: encodeFunctionData({ abi: relayerAbi, functionName: "checkAuthorization", args: args(authorization) }),
        blockOverrides: { time: now },
      });
      const [status, balance, allowance] = decodeFunctionResult({
        abi: relayerAbi,
        functionName: "checkAuthorization",
        data: data ?? "0x",
      });
      return { status, balance, allowance };
    },
    transferCallData: (authorization) =>
      encodeFunctionData({ abi: relayerAbi, functionName: "transferWithAuthorization", args: args(authorization) }),
    authorizationState: (from, nonce) =>
      client.readContract({
        address: relayer,
        abi: relayerAbi,
        functionName: "authorizationState",
        args: [from, nonce],
      }),
  };
}
