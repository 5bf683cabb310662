import { paymentIdOf } from "@relay402/client";
import type { Address, Hex } from "viem";
import type { Config } from "../config/schema";

// A journal row's payment id is written by its claim, from the id its settle computed. These give one to a row from
// before that (payment_id NULL), from the network's current relayer: the start's backfill (payment-id-backfill.ts).
// The same row gets the same id from any instance, so two instances filling at once write the same value.

/** The journals whose rows get an id, and where each row's nonce lives: the relayer, or the row's own `contract`. */
export const ID_SOURCES = [
  { table: "eoa_settlements", nonceSpace: "relayer" },
  { table: "swap_settlements", nonceSpace: "relayer" },
  { table: "x402_settlements", nonceSpace: "contract" },
] as const;

/** Rows filled per source and statement: a backlog (rows from before the claim wrote the id) is filled page by page. */
export const FILL_PAGE = 500;

export type UnfilledRow = { id: number; network: string; payer: string; nonce: string; contract?: string };

/** The statement reading a source's rows without an id, on the networks that can give them one. */
export function unfilledQuery(source: (typeof ID_SOURCES)[number], networks: readonly string[]) {
  const contract = source.nonceSpace === "contract" ? ", contract" : "";
  const list = networks.map(() => "?").join(", ");
  return {
    text: `SELECT id, network, payer, nonce${contract} FROM ${source.table} WHERE payment_id IS NULL AND network IN (${list}) LIMIT ${FILL_PAGE}`,
    params: [...networks],
  };
}

export const fillStatement = (table: string) =>
  `UPDATE ${table} SET payment_id = ? WHERE id = ? AND payment_id IS NULL`;

/**
 * The networks whose rows of a source can be given an id: configured, and for the relayer's nonce space with a
 * relayer (a row of a network no longer configured keeps no id and is found by its transaction).
 */
export function idNetworks(config: Config, source: (typeof ID_SOURCES)[number]): string[] {
  return Object.entries(config.networks)
    .filter(([, network]) => network && (source.nonceSpace === "contract" || network.contracts?.relayer))
    .map(([name]) => name);
}

/** A row's payment id, with the network's chain id and the contract whose nonce space it uses. */
export function paymentIdOfRow(config: Config, source: (typeof ID_SOURCES)[number], row: UnfilledRow): Hex {
  const network = config.networks[row.network as keyof Config["networks"]];
  if (!network) throw new Error(`network ${row.network} is not configured`);
  const contract = source.nonceSpace === "contract" ? row.contract : network.contracts?.relayer;
  if (!contract) throw new Error(`no nonce space for ${source.table} row ${row.id}`);
  return paymentIdOf({
    chainId: network.chainId,
    contract: contract as Address,
    payer: row.payer as Address,
    nonce: BigInt(row.nonce),
  });
}
