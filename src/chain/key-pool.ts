import type { Address, Hex, PrivateKeyAccount, PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { toReadError, UnknownSenderError } from "./errors";

export interface ExecutorKey {
  readonly account: PrivateKeyAccount;
  /** Transactions prepared with this key whose `send` has not settled yet. */
  inFlight: number;
  /** Next nonce to hand out; undefined until read from the chain. */
  nextNonce: number | undefined;
  nonceLoading: Promise<void> | undefined;
}

export interface KeyPool {
  readonly addresses: Address[];
  /** Reserves the least busy key (round-robin on ties); pair with `release`. */
  reserve(): ExecutorKey;
  release(key: ExecutorKey): void;
  byAddress(address: Address): ExecutorKey;
  /** Hands out the key's next nonce; the first call per key reads the pending count once. */
  takeNonce(key: ExecutorKey): Promise<number>;
  pendingNonce(key: ExecutorKey): Promise<number>;
}

export function createKeyPool(client: PublicClient, privateKeys: Hex[]): KeyPool {
  if (privateKeys.length === 0) throw new Error("at least one executor private key is required");
  const keys: ExecutorKey[] = privateKeys.map((privateKey) => ({
    account: privateKeyToAccount(privateKey),
    inFlight: 0,
    nextNonce: undefined,
    nonceLoading: undefined,
  }));
  const byLowercaseAddress = new Map(keys.map((key) => [key.account.address.toLowerCase(), key]));
  let cursor = 0;

  function reserve(): ExecutorKey {
    let best = cursor;
    for (let step = 1; step < keys.length; step++) {
      const index = (cursor + step) % keys.length;
      if ((keys[index] as ExecutorKey).inFlight < (keys[best] as ExecutorKey).inFlight) best = index;
    }
    cursor = (best + 1) % keys.length;
    const key = keys[best] as ExecutorKey;
    key.inFlight++;
    return key;
  }

  function byAddress(address: Address): ExecutorKey {
    const key = byLowercaseAddress.get(address.toLowerCase());
    if (!key) throw new UnknownSenderError(address);
    return key;
  }

  async function pendingNonce(key: ExecutorKey): Promise<number> {
    try {
      return await client.getTransactionCount({ address: key.account.address, blockTag: "pending" });
    } catch (error) {
      throw toReadError(error);
    }
  }

  async function takeNonce(key: ExecutorKey): Promise<number> {
    if (key.nextNonce === undefined) {
      key.nonceLoading ??= pendingNonce(key)
        .then((nonce) => {
          key.nextNonce ??= nonce;
        })
        .finally(() => {
          key.nonceLoading = undefined;
        });
      await key.nonceLoading;
    }
    // Synchronous from here: no other caller can observe the same value.
    const nonce = key.nextNonce as number;
    key.nextNonce = nonce + 1;
    return nonce;
  }

  return {
    addresses: keys.map((key) => key.account.address),
    reserve,
    release: (key) => {
      key.inFlight = Math.max(0, key.inFlight - 1);
    },
    byAddress,
    takeNonce,
    pendingNonce,
  };
}
