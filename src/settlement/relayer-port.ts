import { relayerAbi } from "@relay402/client/wire/abis";
import {
  type Address,
  concatHex,
  decodeAbiParameters,
  encodeAbiParameters,
  encodeFunctionData,
  getAbiItem,
  type Hex,
  isAddressEqual,
  type PublicClient,
  toFunctionSelector,
} from "viem";
import { batchedCall } from "../chain/batched-call";
import type { NetworkRuntime } from "../chain/networks";
import { relayerOf } from "../config/capabilities";
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

/** The relayer's EIP-712 domain (EIP-5267), the one every TransferWithAuthorization must be signed for. */
export type RelayerDomain = { name: string; version: string; chainId: number; verifyingContract: Address };

/** The narrow view of the chain that EOA payments need. */
export type RelayerPort = {
  /** Every /verify check in one eth_call, evaluated at `now` (unix seconds). */
  checkAuthorization(authorization: Authorization, now: bigint): Promise<AuthorizationCheck>;
  transferCallData(authorization: Authorization): Hex;
  authorizationState(from: Address, nonce: Hex): Promise<boolean>;
  /** Read once and cached; a failed read is retried on the next call. */
  domain(): Promise<RelayerDomain>;
  /**
   * The transaction that used this (from, nonce), looking back from `toBlock` (anyone may submit a signed
   * authorization, so it may not be ours, and it may not even be the same authorization: compare what it paid
   * with `isSameUse`). Null when it was not used in that range (or was canceled).
   */
  findAuthorizationUse(from: Address, nonce: Hex, toBlock: bigint): Promise<AuthorizationUse | null>;
};

/** One execution of a (from, nonce), as the relayer's AuthorizationUsed event tells it. */
export type AuthorizationUse = {
  transactionHash: Hex;
  blockNumber: bigint;
  token: Address;
  to: Address;
  value: bigint;
};

/** Whether an execution paid what this authorization says: only then is it this payment. */
export const isSameUse = (use: Pick<AuthorizationUse, "token" | "to" | "value">, authorization: Payment) =>
  isAddressEqual(use.token, authorization.token as Address) &&
  isAddressEqual(use.to, authorization.to as Address) &&
  use.value === BigInt(authorization.value);

type Payment = { token: string; to: string; value: bigint | string };

/** How far back an authorization's use is looked for: far beyond any receipt timeout on either chain. */
const USE_LOOKBACK_BLOCKS = 5_000n;

const args = (a: Authorization) =>
  [a.token, a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature] as const;

/** An eth_call at the latest block with block time `time`, to `to` (the verify's batch, or the client's call). */
export type TimedCall = (to: Address, data: Hex, time: bigint) => Promise<Hex>;

const CHECK_AUTHORIZATION = getAbiItem({ abi: relayerAbi, name: "checkAuthorization" });
const CHECK_AUTHORIZATION_SELECTOR = toFunctionSelector(CHECK_AUTHORIZATION);

const clientCall =
  (client: PublicClient): TimedCall =>
  async (to, data, time) =>
    (await client.call({ to, data, blockOverrides: { time } })).data ?? "0x";

/**
 * `call` runs checkAuthorization (default: the client's own eth_call); the selector and ABI item are looked up once,
 * not per verify as encodeFunctionData and decodeFunctionResult by name would.
 */
export function createRelayerPort(
  client: PublicClient,
  relayer: Address,
  call: TimedCall = clientCall(client),
): RelayerPort {
  let domain: Promise<RelayerDomain> | undefined;
  return {
    domain() {
      if (!domain) {
        domain = client
          .readContract({ address: relayer, abi: relayerAbi, functionName: "eip712Domain" })
          .then(([, name, version, chainId, verifyingContract]) => ({
            name,
            version,
            chainId: Number(chainId),
            verifyingContract,
          }));
        domain.catch(() => {
          domain = undefined;
        });
      }
      return domain;
    },
    async checkAuthorization(authorization, now) {
      // The block time is overridden with the service clock so that the window check means "now",
      // not "when the last block was mined" (an idle chain's latest block can be minutes old).
      const data = concatHex([
        CHECK_AUTHORIZATION_SELECTOR,
        encodeAbiParameters(CHECK_AUTHORIZATION.inputs, args(authorization)),
      ]);
      const [status, balance, allowance] = decodeAbiParameters(
        CHECK_AUTHORIZATION.outputs,
        await call(relayer, data, now),
      );
      return { status, balance, allowance };
    },
    transferCallData: (authorization) =>
      encodeFunctionData({ abi: relayerAbi, functionName: "transferWithAuthorization", args: args(authorization) }),
    async findAuthorizationUse(from, nonce, toBlock) {
      const fromBlock = toBlock > USE_LOOKBACK_BLOCKS ? toBlock - USE_LOOKBACK_BLOCKS : 0n;
      const [log] = await client.getContractEvents({
        address: relayer,
        abi: relayerAbi,
        eventName: "AuthorizationUsed",
        args: { authorizer: from, nonce },
        fromBlock,
        toBlock,
      });
      return log
        ? {
            transactionHash: log.transactionHash,
            blockNumber: log.blockNumber,
            token: log.args.token as Address,
            to: log.args.to as Address,
            value: log.args.value as bigint,
          }
        : null;
    },
    authorizationState: (from, nonce) =>
      client.readContract({
        address: relayer,
        abi: relayerAbi,
        functionName: "authorizationState",
        args: [from, nonce],
      }),
  };
}

/** One relayer port per network, made on first use and kept (its EIP-712 domain is read once). */
export function relayerPorts(): (network: NetworkRuntime) => RelayerPort {
  const ports = new Map<string, RelayerPort>();
  return (network) => {
    let port = ports.get(network.name);
    if (!port) {
      const call: TimedCall = (to, data, time) => batchedCall(network, to, data, time);
      port = createRelayerPort(network.client, relayerOf(network), call);
      ports.set(network.name, port);
    }
    return port;
  };
}
