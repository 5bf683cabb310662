import { type Call, encodeBatchExecution } from "@relay402/client/wire/execution";
import { type RpcUserOp, toRpcUserOp, userOpHash } from "@relay402/client/wire/user-operation";
import type { Address, Hex } from "viem";
import type { IssuedUserOp } from "../db/schema";
import { assertOwnerNotDenied, type DenyCounters } from "../deny/deny-counters";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { refuse } from "./invalid";
import type { AsyncIssuedUserOpStore, NewIssuedUserOp } from "./issued-user-op-store";
import { revertRefusal, SimulatedRevertError, simulateUserOpCalls } from "./simulate";
import { buildSponsoredUserOp, EstimateFailedError } from "./sponsor";
import type { UserOpNetwork } from "./user-op-network";
import { readWalletState, type WalletState } from "./wallet-state";

export type IssueUserOpDeps = { store: AsyncIssuedUserOpStore; deny: DenyCounters; validitySeconds: number };

export type IssueUserOpRequest = {
  network: UserOpNetwork;
  /** The paying wallet: one of our factory's accounts, deployed. */
  sender: Address;
  /** What the calls take out of the wallet: it must hold at least this much when the UserOp is built. */
  spends: { token: Address; amount: bigint };
  calls: readonly Call[];
  kind: IssuedUserOp["kind"];
  /** The flow's own record of what was asked, kept with the UserOp (as JSON) and handed back at settle. */
  context: object;
  /**
   * Request fields a refusal names: the one holding the sender, the one to blame for a short balance, the one the
   * calls came from (named by a simulated revert; default the sender's).
   */
  fields: { sender: string; balance: string; calls?: string };
  /**
   * The flow's own check (a swap's minimum against its quote), run once the wallet passed the kernel's checks and
   * before the simulation, the bundler or the paymaster sees anything: what it throws is the answer.
   */
  beforeSponsor?: (state: WalletState & { owner: Address }) => Promise<void>;
  /** The flow's answer to calls whose simulation reverts (a swap's `isValid: false`); default revertRefusal. */
  refuseRevert?: (revert: SimulatedRevertError, owner: Address) => unknown;
  /** Call gas over the bundler's estimate, in percent, for calls whose cost moves with the chain's state. */
  callGasMarginPercent?: number;
  /**
   * How the signed UserOp is recorded, when the flow needs a condition checked in the same step as the insert
   * (an unshield: unless its note is already being spent); what it throws is the answer. Default: the store's issue.
   */
  record?: (record: NewIssuedUserOp) => Promise<void>;
};

export type IssuedTicket = { userOp: RpcUserOp; userOpHash: Hex; owner: Address };

/** The verify answer of every flow that charges a fee (`/wallet/verify`, incognito): what to sign and what it costs. */
export const verifiedAnswer = (issued: IssuedTicket, feeAmount: string, totalAmount: string) => ({
  isValid: true as const,
  payer: issued.owner,
  userOp: issued.userOp,
  userOpHash: issued.userOpHash,
  feeAmount,
  totalAmount,
});

/**
 * The kernel's first step, shared by every UserOp flow: read the wallet (deployed, ours, its owner not denied,
 * enough balance: one round trip), batch the flow's calls and simulate them (one eth_call), have the bundler
 * estimate and the paymaster sign (within the caps), and remember the UserOp as issued so that settle accepts
 * only it, unchanged.
 */
export async function issueUserOp(deps: IssueUserOpDeps, request: IssueUserOpRequest): Promise<IssuedTicket> {
  const { network, sender, fields } = request;
  const name = network.runtime.name;
  let state: WalletState;
  try {
    state = await readWalletState(network.runtime.client, {
      wallet: sender,
      token: request.spends.token,
      entryPoint: network.entryPoint,
      factory: network.factory,
    });
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read on-chain state", { reason: shortReason(error) });
  }
  if (!state.deployed) throw refuse(fields.sender, `no wallet deployed at ${sender} on ${name}`);
  // Only our own accounts: any other contract could accept the sponsorship and do nothing with it.
  if (!state.fromFactory || !state.owner) {
    throw refuse(fields.sender, `${sender} is not a relay402 wallet (deployed by the factory)`);
  }
  await assertOwnerNotDenied(deps.deny, name, state.owner, fields.sender);
  if (state.balance < request.spends.amount) {
    throw refuse(fields.balance, `insufficient token balance: ${state.balance} < ${request.spends.amount} needed`, {
      balance: state.balance.toString(),
      totalAmount: request.spends.amount.toString(),
    });
  }
  const owner = state.owner;
  await request.beforeSponsor?.({ ...state, owner });
  const callData = encodeBatchExecution(request.calls);
  // The paymaster signs only calls that execute against the latest state (settle simulates them again).
  await simulateUserOpCalls(network, sender, callData).catch((error: unknown) => {
    if (!(error instanceof SimulatedRevertError)) throw error;
    throw request.refuseRevert?.(error, owner) ?? revertRefusal(error, fields.calls ?? fields.sender);
  });

  let sponsored: Awaited<ReturnType<typeof buildSponsoredUserOp>>;
  try {
    sponsored = await buildSponsoredUserOp(
      { sender, nonce: state.nonce, callData },
      {
        bundler: network.bundler,
        chainId: network.runtime.config.chainId,
        paymaster: network.paymaster,
        paymasterSigner: network.paymasterSigner,
        validitySeconds: deps.validitySeconds,
        caps: network.caps,
        callGasMarginPercent: request.callGasMarginPercent,
      },
    );
  } catch (error) {
    throw new EstimateFailedError(error);
  }
  const hash = userOpHash(sponsored.userOp, network.runtime.config.chainId, network.entryPoint);
  const userOp = toRpcUserOp(sponsored.userOp);
  const record = request.record ?? ((issue: NewIssuedUserOp) => deps.store.issue(issue));
  await record({
    userOpHash: hash,
    network: name,
    kind: request.kind,
    sender,
    owner: state.owner,
    userOp: JSON.stringify(userOp),
    context: JSON.stringify(request.context),
    expiresAt: sponsored.validUntil,
  });
  return { userOp, userOpHash: hash, owner: state.owner };
}
