import type { Async } from "../db/async-port";

/** One insert into the pool's tree, as its `LeafInserted` event says. Hex fields are 0x-prefixed 32 bytes. */
export type Leaf = { leafIndex: number; commitment: string; root: string; blockNumber: number };

/**
 * The pool's leaves per network, and where their indexer resumes: SQLite here (createLeafStore), PostgreSQL in
 * leaf-store-postgres.ts. Several instances on one database each run an indexer on the same rows, so every write
 * is a compare-and-set on the cursor in one transaction: a range is stored once, by whichever instance comes
 * first, and a range read before another instance's rewind is refused instead of stored past it. Invariant: the
 * stored leaves are the indices 0..total-1 without gaps, and every leaf of a block before the cursor is stored.
 */
export type LeafStore = {
  /** The first block not read yet, or undefined before the first sync of this pool. */
  nextBlock(network: string, pool: string): number | undefined;
  /**
   * Stores the leaves read from blocks [fromBlock, nextBlock - 1] (those from index `total` on) and moves the
   * cursor to `nextBlock`, in one transaction, only if the cursor is still at `fromBlock` (no cursor yet counts
   * as `fromBlock`) and the first leaf is the next index: answers whether it did. False, with nothing stored,
   * when another instance stored this range first or rewound meanwhile: the caller goes on from `nextBlock()`.
   */
  append(network: string, pool: string, leaves: readonly Leaf[], fromBlock: number, nextBlock: number): boolean;
  /**
   * Forgets the leaves of blocks from `fromBlock` on and rewinds the cursor there (a reorg replaced them), never
   * forward: a cursor another instance rewound further back stays where it is.
   */
  rewind(network: string, pool: string, fromBlock: number): void;
  total(network: string, pool: string): number;
  /** Leaves from index `from` on, at most `limit`, in order. */
  page(network: string, pool: string, from: number, limit: number): Leaf[];
  /** The last stored leaf (its root is the pool's root after `total` inserts). */
  last(network: string, pool: string): Leaf | undefined;
  /** Whether `commitment` (0x hex, any case) is a stored leaf of this pool: read off incognito_leaves_commitment. */
  contains(network: string, pool: string, commitment: string): boolean;
  /**
   * The last leaf and a page, read together (one snapshot): never a page of one tree with the root of another,
   * whatever another instance appends or rewinds meanwhile.
   */
  view(network: string, pool: string, from: number, limit: number): { last: Leaf | undefined; leaves: Leaf[] };
};

/** The leaf store the flows take: SQLite's through asAsync, or PostgreSQL's. */
export type AsyncLeafStore = Async<LeafStore>;
