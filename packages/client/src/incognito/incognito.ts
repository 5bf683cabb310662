import type { Static } from "@sinclair/typebox";
import { type Address, getAddress, type Hex, isAddressEqual } from "viem";
import type { Relay402Client } from "../client.js";
import { Relay402ClientError } from "../errors.js";
import { getConfig, type NetworkConfig, type TokenConfig, tokenOf } from "../get-config.js";
import type { NetworkName, SignerClient } from "../types.js";
import { signedUserOp } from "../wallet-payment.js";
import { unshieldMinimumFee } from "../wire/incognito/fees.js";
import {
  fieldToHex,
  type Note,
  newNote,
  noteCommitment,
  notePrecommitment,
  randomFieldElement,
  unshieldInput,
} from "../wire/incognito/notes.js";
import { proveUnshield, type SolidityProof } from "../wire/incognito/proof.js";
import type { IncognitoSettleResponseSchema } from "../wire/incognito/schemas.js";
import type { RpcUserOp } from "../wire/user-operation.js";
import { walletPaymentFee } from "../wire/wallet-fee.js";
import { assertUserOpIsShield, assertUserOpIsUnshield } from "./check-incognito-user-op.js";
import { type NoteStorage, putNote, type StoredNote, storedNote } from "./incognito-notes.js";
import { type CircuitArtifacts, reconcileNotes, servedCircuit, syncLeaves } from "./incognito-pool-data.js";
import { packagedCircuit } from "./packaged-circuit.js";

export {
  type CircuitArtifacts,
  type CircuitSummary,
  type LeavesPage,
  reconcileNotes,
  servedCircuit,
  syncLeaves,
} from "./incognito-pool-data.js";

export type IncognitoVerifyResult = {
  isValid: boolean;
  payer: string;
  userOp: RpcUserOp;
  userOpHash: Hex;
  feeAmount: string;
  totalAmount: string;
};
export type IncognitoSettleResult = Static<typeof IncognitoSettleResponseSchema>;

/** One network of /config with incognito on: its pool, the fee recipient the proof must name, its tokens. */
export type IncognitoNetwork = NetworkConfig & { incognito: { pool: Address; circuitId: string } };

export async function getIncognitoNetwork(client: Relay402Client, network: NetworkName): Promise<IncognitoNetwork> {
  const config = (await getConfig(client)).networks[network];
  if (!config) throw new Relay402ClientError("unexpected_response", `network ${network} is not enabled on the service`);
  if (!config.incognito) {
    throw new Relay402ClientError("validation_error", `incognito is off on ${network}`, { field: "network" });
  }
  return config as IncognitoNetwork;
}

/** The smallest unshield fee the service takes for `withdrawAmount` of this token (/config's fees). */
export function unshieldFee(token: TokenConfig, withdrawAmount: bigint): bigint {
  const { unshieldFeeBps, unshieldMinFee } = token.fees;
  if (unshieldFeeBps === undefined || unshieldMinFee === undefined) {
    throw new Relay402ClientError("unexpected_response", `/config has no unshield fees for ${token.address}`);
  }
  return unshieldMinimumFee(withdrawAmount, { unshieldFeeBps, unshieldMinFee: BigInt(unshieldMinFee) });
}

/**
 * The largest withdrawal of `amount` whose minimum fee still fits (`withdrawAmount + fee = amount`, change 0):
 * what "unshield everything" means. The fee is then `amount - withdrawAmount` (at least the minimum).
 */
export function maxWithdrawal(token: TokenConfig, amount: bigint): bigint {
  // withdraw + fee(withdraw) grows with withdraw: binary search for the largest that fits.
  const fits = (withdraw: bigint) => withdraw + unshieldFee(token, withdraw) <= amount;
  let low = 0n;
  let high = amount;
  while (low < high) {
    const middle = (low + high + 1n) / 2n;
    if (fits(middle)) low = middle;
    else high = middle - 1n;
  }
  if (low === 0n) throw new RangeError("the note does not cover the minimum unshield fee");
  return low;
}

export type ShieldParameters = {
  /** The wallet's owner: signs the userOpHash. */
  owner: SignerClient;
  /** A deployed wallet of the project's factory holding `amount` + the fee. */
  wallet: Address;
  network: NetworkName;
  token: Address;
  amount: bigint;
  /** Where the new note is kept (stored before signing). Without it, keep `note` from the result yourself. */
  storage?: NoteStorage;
  /** A note made by the caller (default: fresh random secrets). */
  note?: Note;
};

export type ShieldResult = { note: StoredNote; verify: IncognitoVerifyResult; settlement: IncognitoSettleResult };

/**
 * Shields `amount` of `token` from a smart wallet: makes a note, asks /wallet/incognito/verify for the sponsored
 * UserOp, refuses it unless its callData is exactly approve + shield(token, amount, the note's precommitment) +
 * the fee of /config (a service that put in its own precommitment would own the deposit), stores the note, then
 * the owner signs and /wallet/incognito/settle sends it. Only the precommitment leaves the client.
 */
export async function shield(client: Relay402Client, parameters: ShieldParameters): Promise<ShieldResult> {
  const config = await getIncognitoNetwork(client, parameters.network);
  const token = tokenOf(config, parameters.token);
  const note = parameters.note ?? newNote(getAddress(parameters.token), parameters.amount);
  if (!isAddressEqual(note.token, parameters.token) || note.amount !== parameters.amount) {
    throw new Relay402ClientError("validation_error", "the note is for another token or amount", { field: "note" });
  }
  const precommitment = notePrecommitment(note);
  const verify = await client.post<IncognitoVerifyResult>("/wallet/incognito/verify", {
    walletAddress: parameters.wallet,
    incognitoData: {
      type: "shield",
      token: note.token,
      amount: note.amount.toString(),
      precommitment: fieldToHex(precommitment),
      commitment: fieldToHex(noteCommitment(note)),
    },
    paymentRequirements: { network: parameters.network },
  });
  const fee = walletPaymentFee(note.amount, { feeBps: token.fees.feeBps, minFee: BigInt(token.fees.minFee) });
  assertUserOpIsShield(verify.userOp, verify.userOpHash, {
    sender: parameters.wallet,
    pool: config.incognito.pool,
    paymaster: config.contracts.paymaster,
    entryPoint: config.contracts.entryPoint,
    chainId: config.chainId,
    token: note.token,
    amount: note.amount,
    precommitment,
    feeRecipient: config.feeRecipient,
    fee,
  });
  if (BigInt(verify.feeAmount) !== fee || BigInt(verify.totalAmount) !== note.amount + fee) {
    throw new Relay402ClientError("unexpected_response", "the service states another fee than its UserOp pays", {
      field: "feeAmount",
    });
  }
  const stored = storedNote(parameters.network, note, "pending");
  if (parameters.storage) await putNote(parameters.storage, stored);
  const settlement = await client.post<IncognitoSettleResult>(
    "/wallet/incognito/settle",
    await signedUserOp(parameters.owner, verify.userOp, verify.userOpHash),
    { idempotent: true },
  );
  if (settlement.incognito.commitment?.toLowerCase() !== stored.commitment.toLowerCase()) {
    throw new Relay402ClientError("unexpected_response", "the settled shield reports another commitment", {
      field: "incognito.commitment",
    });
  }
  stored.status = "shielded";
  stored.leafIndex = settlement.incognito.leafIndex;
  stored.txHash = settlement.txHash as Hex;
  if (parameters.storage) await putNote(parameters.storage, stored);
  return { note: stored, verify, settlement };
}

/** The package's own circuit when it is the setup the pool verifies (no download), else the one the service serves. */
async function circuitFor(client: Relay402Client, circuitId: string): Promise<CircuitArtifacts> {
  const packaged = await packagedCircuit().catch(() => undefined);
  return packaged?.id === circuitId ? packaged : servedCircuit(client, circuitId);
}

export type ProveUnshieldParameters = {
  network: NetworkName;
  /** The note to spend (in the tree). */
  note: Note;
  withdrawAmount: bigint;
  recipient: Address;
  /** Default: the minimum of /config for withdrawAmount. */
  fee?: bigint;
  /** Leaves synced earlier: only newer ones are fetched. */
  leaves?: readonly bigint[];
  /** Local wasm and zkey; default: the package's (`packagedCircuit`) when it is the pool's setup, else the service's. */
  artifacts?: CircuitArtifacts;
};

export type PreparedUnshield = {
  incognitoData: {
    type: "unshield";
    token: Address;
    withdrawAmount: string;
    fee: string;
    recipient: Address;
    root: Hex;
    nullifierHash: Hex;
    changeCommitment: Hex;
    proof: SolidityProof;
  };
  /** The change note (`amount - withdrawAmount - fee`, also 0): fresh secrets, inserted by the unshield. */
  change: Note;
  fee: bigint;
  root: bigint;
  nullifierHash: bigint;
  changeCommitment: bigint;
  proof: SolidityProof;
  leaves: bigint[];
  config: IncognitoNetwork;
};

/**
 * Proves an unshield on the client: syncs the tree from the service's leaves, builds the circuit input (the
 * note's path, a change note with fresh secrets) and proves with snarkjs. Nothing secret is sent anywhere; the
 * service later sees only the public values (root, nullifierHash, amounts, recipient, change commitment).
 */
export async function proveUnshieldNote(
  client: Relay402Client,
  parameters: ProveUnshieldParameters,
): Promise<PreparedUnshield> {
  const config = await getIncognitoNetwork(client, parameters.network);
  const { note } = parameters;
  const token = tokenOf(config, note.token);
  const fee = parameters.fee ?? unshieldFee(token, parameters.withdrawAmount);
  if (parameters.withdrawAmount + fee > note.amount) {
    throw new Relay402ClientError(
      "validation_error",
      `withdrawAmount ${parameters.withdrawAmount} + fee ${fee} exceeds the note's ${note.amount}`,
      { field: "withdrawAmount" },
    );
  }
  const { leaves, pool, tree } = await syncLeaves(client, parameters.network, parameters.leaves);
  if (!isAddressEqual(pool, config.incognito.pool)) {
    throw new Relay402ClientError("unexpected_response", `leaves of pool ${pool}, /config names another`);
  }
  if (!leaves.includes(noteCommitment(note))) {
    throw new Relay402ClientError("validation_error", "the note is not in the pool's tree (not shielded yet?)", {
      field: "note",
    });
  }
  const input = unshieldInput({
    note,
    tree,
    withdrawAmount: parameters.withdrawAmount,
    fee,
    recipient: parameters.recipient,
    feeRecipient: config.feeRecipient,
    change: { nullifier: randomFieldElement(), secret: randomFieldElement() },
  });
  const artifacts = parameters.artifacts ?? (await circuitFor(client, config.incognito.circuitId));
  const { proof } = await proveUnshield(input.input, artifacts.wasm, artifacts.zkey);
  return {
    incognitoData: {
      type: "unshield",
      token: getAddress(note.token),
      withdrawAmount: parameters.withdrawAmount.toString(),
      fee: fee.toString(),
      recipient: getAddress(parameters.recipient),
      root: fieldToHex(input.root),
      nullifierHash: fieldToHex(input.nullifierHash),
      changeCommitment: fieldToHex(input.changeCommitment),
      proof,
    },
    change: input.changeNote,
    fee,
    root: input.root,
    nullifierHash: input.nullifierHash,
    changeCommitment: input.changeCommitment,
    proof,
    leaves,
    config,
  };
}

export type UnshieldParameters = ProveUnshieldParameters & {
  /** The owner of the wallet that sends the unshield: best a fresh one, unrelated to the shield's wallet. */
  owner: SignerClient;
  /** Any deployed wallet of the project's factory; it needs no balance (the paymaster pays the gas). */
  wallet: Address;
  /** Where the change note is kept (stored before signing) and the spent note marked spent. */
  storage?: NoteStorage;
};

export type UnshieldResult = {
  change: StoredNote;
  verify: IncognitoVerifyResult;
  settlement: IncognitoSettleResult;
  prepared: PreparedUnshield;
};

/**
 * Unshields `withdrawAmount` of a note to `recipient`, the fee to the service's fee recipient and the rest to a
 * change note: proves locally, asks /wallet/incognito/verify for the sponsored UserOp from `wallet`, refuses it
 * unless it is exactly the pool's `unshield` with this proof, stores the change note, signs, settles.
 */
export async function unshield(client: Relay402Client, parameters: UnshieldParameters): Promise<UnshieldResult> {
  const { storage } = parameters;
  if (storage) await reconcileNotes(storage, parameters.network, parameters.leaves ?? []);
  const prepared = await proveUnshieldNote(client, parameters);
  const { config } = prepared;
  const verify = await client.post<IncognitoVerifyResult>("/wallet/incognito/verify", {
    walletAddress: parameters.wallet,
    incognitoData: prepared.incognitoData,
    paymentRequirements: { network: parameters.network },
  });
  assertUserOpIsUnshield(verify.userOp, verify.userOpHash, {
    sender: parameters.wallet,
    pool: config.incognito.pool,
    paymaster: config.contracts.paymaster,
    entryPoint: config.contracts.entryPoint,
    chainId: config.chainId,
    token: getAddress(parameters.note.token),
    withdrawAmount: parameters.withdrawAmount,
    recipient: parameters.recipient,
    feeRecipient: config.feeRecipient,
    fee: prepared.fee,
    root: prepared.root,
    nullifierHash: prepared.nullifierHash,
    changeCommitment: prepared.changeCommitment,
    proof: prepared.proof,
  });
  const change = storedNote(parameters.network, prepared.change, "pending");
  if (storage) await putNote(storage, change);
  const settlement = await client.post<IncognitoSettleResult>(
    "/wallet/incognito/settle",
    await signedUserOp(parameters.owner, verify.userOp, verify.userOpHash),
    { idempotent: true },
  );
  if (settlement.incognito.commitment?.toLowerCase() !== change.commitment.toLowerCase()) {
    throw new Relay402ClientError("unexpected_response", "the settled unshield reports another change note", {
      field: "incognito.commitment",
    });
  }
  change.status = "shielded";
  change.leafIndex = settlement.incognito.leafIndex;
  change.txHash = settlement.txHash as Hex;
  if (storage) {
    await putNote(storage, change);
    const spent = storedNote(parameters.network, parameters.note, "spent");
    await putNote(storage, { ...spent, txHash: settlement.txHash as Hex });
  }
  return { change, verify, settlement, prepared };
}
