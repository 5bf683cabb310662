import type { Address, Hex, PrivateKeyAccount, PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { toReadError, UnknownSenderError } from "./errors";
import type { PreparedTransaction } from "./types";

/** A nonce below `nextNonce` that the chain will not get unless we put a transaction there. */
export interface NonceGap {
  /** A signed original the node may still take (its sender was told "pending"); offered before any filler. */
  raw?: Hex;
  /** The last filler the node accepted. */
  filler?: PreparedTransaction;
  fillerSentAt?: number;
  /** A filler broadcast is under way: the nonce must not be handed out again meanwhile. */
  busy?: boolean;
}

export interface ExecutorKey {
  readonly account: PrivateKeyAccount;
  /** Transactions prepared with this key whose `send` has not settled yet. */
  inFlight: number;
  /** Next nonce to hand out; undefined until read from the chain. */
  nextNonce: number | undefined;
  nonceLoading: Promise<void> | undefined;
  /** Nonces handed out whose `send` has not ended. */
  outstanding: Set<number>;
  /** Nonces whose `send` ended without a verdict (receipt timeout, RPC failure), with the latest raw signed. */
  unconfirmed: Map<number, Hex>;
  gaps: Map<number, NonceGap>;
  /** One above the highest nonce seen mined by this process. */
  minedThrough: number;
}

export interface KeyPool {
  readonly addresses: Address[];
  readonly keys: readonly ExecutorKey[];
  /**
   * Reserves the least busy usable key (round-robin on ties), skipping keys with a nonce gap while another usable
   * key has none; pair with `release`. Throws the pool's `noKey` error when no key is usable (none leased).
   */
  reserve(): ExecutorKey;
  release(key: ExecutorKey): void;
  /** The key `reserve` would pick now, without reserving it (the same error when there is none). */
  peek(): ExecutorKey;
  /** Whether the key may be handed out now: always without leases, else while this instance holds its lease. */
  usable(key: ExecutorKey): boolean;
  /**
   * Forgets the key's nonce bookkeeping (next nonce, gaps, unconfirmed originals), so that its next nonce is read
   * from the chain's pending count: after another holder sent with the key (a lease lost or taken over).
   * Transactions still in flight keep their nonces and are awaited as before.
   */
  resetNonces(key: ExecutorKey): void;
  byAddress(address: Address): ExecutorKey;
  /** Hands out the key's next nonce; the first call per key reads the pending count once. */
  takeNonce(key: ExecutorKey): Promise<number>;
  pendingNonce(key: ExecutorKey): Promise<number>;
  /** The number of the key's mined transactions (the next nonce the chain will mine). */
  minedNonce(key: ExecutorKey): Promise<number>;
}

const hasGap = (key: ExecutorKey) => key.gaps.size > 0;

export type KeyPoolOptions = {
  /** Which keys may be handed out now (the executor key leases this instance holds); default every key. */
  usable?: (key: ExecutorKey) => boolean;
  /** The error `reserve` and `peek` throw when no key is usable. */
  noKey?: () => Error;
};

export function createKeyPool(client: PublicClient, privateKeys: Hex[], options: KeyPoolOptions = {}): KeyPool {
  if (privateKeys.length === 0) throw new Error("at least one executor private key is required");
  const keys: ExecutorKey[] = privateKeys.map((privateKey) => ({
    account: privateKeyToAccount(privateKey),
    inFlight: 0,
    nextNonce: undefined,
    nonceLoading: undefined,
    outstanding: new Set(),
    unconfirmed: new Map(),
    gaps: new Map(),
    minedThrough: 0,
  }));
  const byLowercaseAddress = new Map(keys.map((key) => [key.account.address.toLowerCase(), key]));
  let cursor = 0;
  const usable = options.usable ?? (() => true);
  const noKey = options.noKey ?? (() => new Error("no executor key is usable"));

  /** The index of the key to hand out; undefined when no key is usable. */
  function pick(): number | undefined {
    // Behind a gap, a new transaction would wait until the gap is filled: use a healthy key when there is one.
    const skipGapped = keys.some((key) => usable(key) && !hasGap(key));
    let best: number | undefined;
    for (let step = 0; step < keys.length; step++) {
      const index = (cursor + step) % keys.length;
      const key = keys[index] as ExecutorKey;
      if (!usable(key) || (skipGapped && hasGap(key))) continue;
      if (best === undefined || key.inFlight < (keys[best] as ExecutorKey).inFlight) best = index;
    }
    return best;
  }

  function reserve(): ExecutorKey {
    const index = pick();
    if (index === undefined) throw noKey();
    cursor = (index + 1) % keys.length;
    const key = keys[index] as ExecutorKey;
    key.inFlight++;
    return key;
  }

  function byAddress(address: Address): ExecutorKey {
    const key = byLowercaseAddress.get(address.toLowerCase());
    if (!key) throw new UnknownSenderError(address);
    return key;
  }

  const countAt = (blockTag: "pending" | "latest") => async (key: ExecutorKey) => {
    try {
      return await client.getTransactionCount({ address: key.account.address, blockTag });
    } catch (error) {
      throw toReadError(error);
    }
  };
  const pendingNonce = countAt("pending");

  async function takeNonce(key: ExecutorKey): Promise<number> {
    if (key.nextNonce === undefined) {
      key.nonceLoading ??= pendingNonce(key)
        .then((nonce) => {
          // Above any nonce still handed out here (signed before a lease loss reset the key, not yet sent): the
          // chain's pending count does not include a transaction the node has not seen.
          let floor = nonce;
          for (const outstanding of key.outstanding) floor = Math.max(floor, outstanding + 1);
          key.nextNonce ??= floor;
        })
        .finally(() => {
          key.nonceLoading = undefined;
        });
      await key.nonceLoading;
    }
    // Synchronous from here: no other caller can observe the same value.
    const nonce = key.nextNonce as number;
    key.nextNonce = nonce + 1;
    key.outstanding.add(nonce);
    return nonce;
  }

  return {
    addresses: keys.map((key) => key.account.address),
    keys,
    reserve,
    release: (key) => {
      key.inFlight = Math.max(0, key.inFlight - 1);
    },
    peek: () => {
      const index = pick();
      if (index === undefined) throw noKey();
      return keys[index] as ExecutorKey;
    },
    usable,
    resetNonces(key) {
      key.nextNonce = undefined;
      key.gaps.clear();
      key.unconfirmed.clear();
    },
    byAddress,
    takeNonce,
    pendingNonce,
    minedNonce: countAt("latest"),
  };
}

/**
 * Gives back refused nonces at the top of the key's range (nothing was handed out above them), so they are
 * reused instead of filled. Stops at a gap that holds, or may hold, a transaction in the node.
 */
export function trimRefusedTop(key: ExecutorKey): void {
  while (key.nextNonce !== undefined) {
    const top = key.nextNonce - 1;
    const gap = key.gaps.get(top);
    if (!gap || gap.raw || gap.filler || gap.busy || key.outstanding.has(top)) return;
    key.gaps.delete(top);
    key.nextNonce = top;
  }
}

/** The node refused the transaction at `nonce`: it will never be mined, so the nonce is free again. */
export function markRefused(key: ExecutorKey, nonce: number): void {
  key.outstanding.delete(nonce);
  key.unconfirmed.delete(nonce);
  if (key.nextNonce === undefined || nonce >= key.nextNonce) return;
  const gap = key.gaps.get(nonce);
  if (gap) gap.raw = undefined;
  else key.gaps.set(nonce, {});
  trimRefusedTop(key);
}

/**
 * Brings the key's nonce bookkeeping in line with the chain: `mined` and `pending` are its transaction counts
 * at the latest block and in the node's pool. Nonces from `pending` up to the highest one still alive here
 * (in flight, or sent without a verdict) that nothing will fill become gaps; a dropped original is offered
 * again rather than replaced; above the last live nonce the local nonce falls back to the chain's.
 */
export function resyncNonces(key: ExecutorKey, mined: number, pending: number): void {
  if (key.nextNonce === undefined) return;
  const minedFloor = Math.max(mined, key.minedThrough);
  for (const nonce of key.gaps.keys()) if (nonce < minedFloor) key.gaps.delete(nonce);
  for (const nonce of key.unconfirmed.keys()) if (nonce < minedFloor) key.unconfirmed.delete(nonce);
  const floor = Math.max(pending, minedFloor);
  if (key.nextNonce < floor) key.nextNonce = floor;

  const holdsTransaction = (nonce: number) => {
    const gap = key.gaps.get(nonce);
    return Boolean(gap?.raw || gap?.filler || gap?.busy);
  };
  const alive = (nonce: number) => key.outstanding.has(nonce) || key.unconfirmed.has(nonce) || holdsTransaction(nonce);
  let highestAlive = floor - 1;
  for (let nonce = key.nextNonce - 1; nonce >= floor; nonce--) {
    if (alive(nonce)) {
      highestAlive = nonce;
      break;
    }
  }
  for (let nonce = floor; nonce < highestAlive; nonce++) {
    if (key.outstanding.has(nonce)) continue;
    const raw = key.unconfirmed.get(nonce);
    const gap = key.gaps.get(nonce);
    if (!gap) key.gaps.set(nonce, raw ? { raw } : {});
    else if (raw && !gap.filler) gap.raw = raw;
  }
  // The highest live nonce is offered again too when it is an original the node no longer holds.
  const topRaw = key.unconfirmed.get(highestAlive);
  if (topRaw && highestAlive >= pending && !key.gaps.has(highestAlive)) key.gaps.set(highestAlive, { raw: topRaw });
  for (const nonce of key.gaps.keys()) if (nonce > highestAlive && !holdsTransaction(nonce)) key.gaps.delete(nonce);
  key.nextNonce = Math.max(highestAlive + 1, floor);
}
