// A journal row carries its payment id from the insert that claims it: every read of the row while its settle is in
// flight, and the first read after the answer, shows the id the answer names; nothing fills it later. A row from
// before that (payment_id NULL) is given its id by the one backfill at start, on SQLite and on PostgreSQL.

import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress } from "../support/chain";
import { postgresService } from "../support/dashboard";
import { getTestDevnet } from "../support/devnet";
import { createTestDatabase } from "../support/postgres";
import { startTestService } from "../support/service";
import { until } from "../support/until";
import { authorizationOf, baseRequirements, x402Buyer } from "../x402/support";

type Post = (path: string, body: unknown) => Promise<{ status: number; body: any }>;
/** The payment ids of a payer's rows in a journal, as the database holds them now. */
type ReadIds = (table: string, payer: string) => Promise<(string | null)[]>;
/** A payment signed and ready: its journal, its payer, its settle, and the id its answer names. */
type Ready = {
  table: string;
  payer: string;
  settle(): Promise<{ status: number; body: any }>;
  idOf(body: any): string;
};

async function eoaPayment(post: Post): Promise<Ready> {
  const c = chainOf("bsc");
  const payer = await freshPayer("bsc");
  const value = 2n * 10n ** BigInt(c.token.decimals);
  await approveRelayer("bsc", payer.key, value);
  const body = await signedPayment({ network: "bsc", key: payer.key, to: randomAddress(), value });
  return {
    table: "eoa_settlements",
    payer: payer.address.toLowerCase(),
    settle: () => post("/settle", body),
    idOf: (answer) => answer.paymentId,
  };
}

async function x402Payment(post: Post): Promise<Ready> {
  const requirements = baseRequirements(1_250_000n);
  const payment = await (await x402Buyer()).pay(requirements);
  const { authorization } = authorizationOf(payment);
  return {
    table: "x402_settlements",
    payer: authorization.from.toLowerCase(),
    settle: () => post("/settle", { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements }),
    idOf: (answer) => answer.extra.paymentId,
  };
}

/** Settles `ready` while reading its rows at every turn of the event loop; what each read saw, and the answer. */
async function settleWatched(ready: Ready, read: ReadIds) {
  const seen: (string | null)[] = [];
  let settling = true;
  const watching = (async () => {
    while (settling) {
      seen.push(...(await read(ready.table, ready.payer)));
      await Bun.sleep(0);
    }
  })();
  try {
    return { answer: await ready.settle(), seen };
  } finally {
    settling = false;
    await watching;
  }
}

function checks(label: string, service: () => { post: Post }, read: () => ReadIds) {
  for (const [kind, ready] of [
    ["an EOA payment", eoaPayment],
    ["an x402 payment", x402Payment],
  ] as const) {
    test(`${label}: ${kind}'s row holds the answer's payment id from its claim on, with no wait`, async () => {
      const payment = await ready(service().post);
      const { answer, seen } = await settleWatched(payment, read());
      expect(answer.status).toBe(200);
      const paymentId = payment.idOf(answer.body);
      expect(paymentId).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await read()(payment.table, payment.payer)).toEqual([paymentId]);
      // The watch saw the row in flight (claimed before its transaction was mined), never without its id.
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((id) => id !== paymentId)).toEqual([]);
    });
  }
}

/** The rows of a journal read and cleared on a connection of the test's own. */
type Journal = { read: ReadIds; clear(table: string, payer: string): Promise<unknown> };

/**
 * Payments settled by a first start, their rows' ids cleared as a row from before the claim wrote them has none,
 * then a second start on the same database: its backfill gives each row the id the settle answered.
 */
async function legacyRowsFilled(
  start: (logSink: (line: string) => void) => Promise<{ post: Post; stop(): unknown }>,
  journal: Journal,
) {
  const first = await start(() => {});
  const payments: { ready: Ready; paymentId: string }[] = [];
  try {
    for (const ready of [await eoaPayment(first.post), await x402Payment(first.post)]) {
      const answer = await ready.settle();
      expect(answer.status).toBe(200);
      payments.push({ ready, paymentId: ready.idOf(answer.body) });
    }
  } finally {
    await first.stop();
  }
  for (const { ready } of payments) {
    await journal.clear(ready.table, ready.payer);
    expect(await journal.read(ready.table, ready.payer)).toEqual([null]);
  }
  const logs: string[] = [];
  const restarted = await start((line) => logs.push(line));
  try {
    for (const { ready, paymentId } of payments)
      await until(`${ready.table}'s legacy row filled at start`, async () => {
        const [id] = await journal.read(ready.table, ready.payer);
        return id === paymentId;
      });
    const events = () => logs.map((line) => JSON.parse(line)).filter((line) => line.event === "payment_ids_backfilled");
    await until("the backfill logged", () => events().length === 2);
    expect(events().map((line) => [line.table, line.rows >= 1])).toEqual([
      ["eoa_settlements", true],
      ["x402_settlements", true],
    ]);
  } finally {
    await restarted.stop();
  }
}

describe("SQLite", () => {
  const service = startTestService();
  afterAll(() => service.stop());
  const read: ReadIds = async (table, payer) =>
    service.db.$client
      .query<{ payment_id: string | null }, [string]>(`SELECT payment_id FROM ${table} WHERE payer = ?`)
      .all(payer)
      .map((row) => row.payment_id);
  checks(
    "SQLite",
    () => service,
    () => read,
  );

  test("SQLite: a row from before the claim wrote its id is filled by the start's backfill", async () => {
    const databasePath = join(mkdtempSync(join(tmpdir(), "relay402-legacy-ids-")), "relay402.sqlite");
    let db: Database | undefined;
    const connection = () => {
      db ??= new Database(databasePath);
      return db;
    };
    try {
      await legacyRowsFilled(async (logSink) => startTestService({ databasePath }, undefined, logSink), {
        read: async (table, payer) =>
          connection()
            .query<{ payment_id: string | null }, [string]>(`SELECT payment_id FROM ${table} WHERE payer = ?`)
            .all(payer)
            .map((row) => row.payment_id),
        clear: async (table, payer) =>
          connection().query(`UPDATE ${table} SET payment_id = NULL WHERE payer = ?`).run(payer),
      });
    } finally {
      db?.close();
    }
  });
});

describe("PostgreSQL", () => {
  let url = "";
  let sql: SQL | undefined;
  let service: Awaited<ReturnType<typeof postgresService>> | undefined;
  const config = () =>
    configFromManifest(getTestDevnet().devnet.manifest, {
      rateLimitPerMinute: 1_000_000,
      logRequests: false,
      databasePath: ":memory:",
    });
  afterAll(async () => {
    await service?.stop();
    await sql?.close();
  });
  const read: ReadIds = async (table, payer) =>
    (
      (await sql!.unsafe(`SELECT payment_id FROM ${table} WHERE payer = $1`, [payer])) as {
        payment_id: string | null;
      }[]
    ).map((row) => row.payment_id);

  test("starts on its own database", async () => {
    url = await createTestDatabase("payment-id-at-claim");
    sql = new SQL(url, { max: 1 });
    service = await postgresService(config(), url);
  });
  checks(
    "PostgreSQL",
    () => service!,
    () => read,
  );

  test("PostgreSQL: a row from before the claim wrote its id is filled by the start's backfill", async () => {
    const own = await createTestDatabase("payment-id-backfill");
    const client = new SQL(own, { max: 1 });
    try {
      await legacyRowsFilled((logSink) => postgresService(config(), own, logSink), {
        read: async (table, payer) =>
          (
            (await client.unsafe(`SELECT payment_id FROM ${table} WHERE payer = $1`, [payer])) as {
              payment_id: string | null;
            }[]
          ).map((row) => row.payment_id),
        clear: (table, payer) => client.unsafe(`UPDATE ${table} SET payment_id = NULL WHERE payer = $1`, [payer]),
      });
    } finally {
      await client.close();
    }
  });
});
