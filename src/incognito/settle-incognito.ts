import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { fieldToHex } from "@relay402/client/wire/incognito/protocol";
import type { IncognitoSettleResponseSchema } from "@relay402/client/wire/incognito/schemas";
import type { Static } from "@sinclair/typebox";
import { type Address, getAddress } from "viem";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { eventsIn } from "../userops/events";
import type { ChainLog } from "../userops/outcome";
import { createUserOpSettler, type SettleDeps, type SettlingUserOp } from "../userops/settle-user-op";
import { assertBalanceStillCovers } from "../userops/wallet-state";
import { incognitoNetworkOf } from "./incognito-network";
import { invalid } from "./verify-incognito";
import type { ShieldContext } from "./verify-shield";
import type { UnshieldContext } from "./verify-unshield";

export type IncognitoSettleResponse = Static<typeof IncognitoSettleResponseSchema>;
export type IncognitoResult = IncognitoSettleResponse["incognito"];

type Context = ShieldContext | UnshieldContext;

/**
 * What the pool recorded for this UserOp: its Shielded or Unshielded event among the UserOp's own logs (never
 * another UserOp's in the same bundle), so the answer is the chain's, not the request's.
 */
export function incognitoResultIn(logs: readonly ChainLog[], pool: Address): IncognitoResult | null {
  for (const event of eventsIn(logs, privacyPoolAbi, { emitter: pool })) {
    if (event.eventName === "Shielded") {
      return {
        type: "shield",
        token: getAddress(event.args.token),
        amount: event.args.amount.toString(),
        commitment: fieldToHex(event.args.commitment),
        leafIndex: Number(event.args.leafIndex),
      };
    }
    if (event.eventName === "Unshielded") {
      return {
        type: "unshield",
        token: getAddress(event.args.token),
        amount: event.args.withdrawAmount.toString(),
        commitment: fieldToHex(event.args.changeCommitment),
        leafIndex: Number(event.args.changeLeafIndex),
        nullifierHash: fieldToHex(event.args.nullifierHash),
        recipient: getAddress(event.args.recipient),
      };
    }
  }
  return null;
}

/** Whether a commitment is already a leaf of a network's pool, by the leaf store synced with the pool first. */
export type LeafInPool = (network: string, pool: Address, commitment: string) => Promise<boolean>;

const leafRefusal = (context: Context) =>
  context.type === "shield"
    ? invalid("precommitment", "this note was inserted into the pool meanwhile")
    : invalid(
        "changeCommitment",
        "the change note was inserted into the pool meanwhile; prove again with fresh change secrets",
      );

/**
 * Before the first send, what verify saw must still hold, or the paymaster would pay for a revert: a shield's wallet
 * still holds amount + fee; an unshield's root is still in the pool's history and its nullifier unspent; the leaf
 * the UserOp inserts is not in the pool yet (another UserOp, or a direct call, may have inserted it since).
 */
async function stillValid(
  leafInPool: LeafInPool,
  { network, record, context }: SettlingUserOp<Context>,
): Promise<void> {
  const { pool } = incognitoNetworkOf(network.runtime);
  const leaf = context.type === "shield" ? context.commitment : context.changeCommitment;
  const inserted = () => leafInPool(network.runtime.name, pool.address, leaf);
  if (context.type === "shield") {
    if (await inserted()) throw leafRefusal(context);
    return assertBalanceStillCovers(network.runtime.client, {
      wallet: record.sender as Address,
      token: context.token,
      amount: BigInt(context.totalAmount),
    });
  }
  let state: { rootKnown: boolean; nullifierSpent: boolean };
  try {
    state = await pool.spendState(BigInt(context.root), BigInt(context.nullifierHash));
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read the privacy pool", { reason: shortReason(error) });
  }
  if (state.nullifierSpent) {
    throw invalid("nullifierHash", "this note was unshielded meanwhile");
  }
  if (!state.rootKnown) {
    throw invalid("root", "the root left the pool's history since verify; prove against a newer root");
  }
  // After the nullifier: an unshield executed by someone else inserted this change too, and its spend says more.
  if (await inserted()) throw leafRefusal(context);
}

/** /wallet/incognito/settle: the kernel's settle of an "incognito" UserOp, answered from the pool's event. */
export const createIncognitoSettler = (deps: SettleDeps & { leafInPool: LeafInPool }) =>
  createUserOpSettler<IncognitoSettleResponse, Context>(deps, {
    kind: "incognito",
    issuedBy: "/wallet/incognito/verify",
    beforeSend: (settling) => stillValid(deps.leafInPool, settling),
    respond: ({ hash, network }, outcome) => {
      const pool = incognitoNetworkOf(network.runtime).pool.address;
      const incognito = incognitoResultIn(outcome.logs, pool);
      // The UserOp executed, so the pool call in it succeeded and emitted its event; its absence is a bug here.
      if (!incognito) throw new Error(`no pool event in the logs of UserOp ${hash}`);
      return { success: true, txHash: outcome.transactionHash, userOpHash: hash, incognito };
    },
  });
