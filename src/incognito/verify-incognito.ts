import type {
  IncognitoDataSchema,
  IncognitoVerifyBodySchema,
  IncognitoVerifyResponseSchema,
} from "@relay402/client/wire/incognito/schemas";
import type { Static } from "@sinclair/typebox";
import type { ApiError } from "../errors";
import { invalidUnder } from "../userops/invalid";
import type { IssueUserOpDeps } from "../userops/issue-user-op";
import type { IncognitoKeys, NewIssuedUserOp, Reservation } from "../userops/issued-user-op-store";

export type IncognitoData = Static<typeof IncognitoDataSchema>;
export type IncognitoRequest = Pick<Static<typeof IncognitoVerifyBodySchema>, "walletAddress" | "incognitoData">;
export type IncognitoVerifyResponse = Static<typeof IncognitoVerifyResponseSchema>;

/** A refusal naming the `incognitoData` field at fault. */
export const invalid = invalidUnder("incognitoData");

/** A field the operation's type needs (the schema has them all optional: one flat object for both types). */
export function required<K extends keyof IncognitoData>(data: IncognitoData, field: K): NonNullable<IncognitoData[K]> {
  const value = data[field];
  if (value === undefined || value === null) throw invalid(String(field), `required for type "${data.type}"`);
  return value as NonNullable<IncognitoData[K]>;
}

export type ReserveDeps = Pick<IssueUserOpDeps, "store"> & {
  /**
   * Serialises this process's verifies of one key: the second waits and is refused by the reservation check
   * before the bundler and the paymaster are asked. Across instances the store's issueUnlessReserved decides.
   */
  withLock: <T>(key: string, task: () => Promise<T>) => Promise<T>;
  now: () => number;
};

/**
 * Issues an incognito UserOp holding its keys (nullifier, leaf) until it fails or expires: one issued, unexpired
 * UserOp per key on every instance, since two would both pass verify (the bundler simulates each alone, even two
 * in one bundle) and the later one would revert on-chain at the paymaster's cost. `issue` gets the recorder to
 * hand the kernel; `refuse` is the answer when a key is already held.
 */
export function issueReserved<T>(
  deps: ReserveDeps,
  network: string,
  keys: IncognitoKeys,
  refuse: (held: Reservation) => ApiError,
  issue: (record: (record: NewIssuedUserOp) => Promise<void>) => Promise<T>,
): Promise<T> {
  const run = async () => {
    // Refused before the bundler and the paymaster are asked; the record below checks again in the same step as
    // its insert, for a verify of the same keys on another instance.
    const held = await deps.store.reservation(network, keys, deps.now());
    if (held) throw refuse(held);
    return issue(async (record) => {
      const holder = await deps.store.issueUnlessReserved(record, keys, deps.now());
      if (holder) throw refuse(holder);
    });
  };
  // The nullifier's lock first, then the leaf's: every verify takes them in this order.
  const leafLocked = () => deps.withLock(`${network}:leaf:${keys.leaf}`, run);
  return keys.nullifierHash ? deps.withLock(`${network}:${keys.nullifierHash}`, leafLocked) : leafLocked();
}
