import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { numberToHex, toHex } from "viem";
import { PURGE_GRACE_SECONDS } from "../../src/userops/issued-user-op-purge";
import { startTestService } from "../support/service";
import { deployFundedWallet, expectRefusal, randomAddress, settleBody, units, verifyBody } from "./support";

const service = startTestService();
afterAll(() => service.stop());

const network = "bsc";
const ATTACK_ROWS = 50_000;
const EXPIRED_ROWS = 5_000;
/** Flips the last hex digit: same length, different value. */
const flipLast = (hex: string) => hex.slice(0, -1) + (hex.endsWith("0") ? "1" : "0");

/** What verify leaves behind, written straight into the service's SQLite file in one transaction. */
function insertIssued(
  count: number,
  row: { sender: string; owner: string; userOp: Record<string, string>; expiresAt: (i: number) => number },
) {
  const sqlite = new Database(service.databasePath);
  try {
    sqlite.run("PRAGMA busy_timeout = 5000");
    const insert = sqlite.prepare(
      `INSERT INTO issued_user_ops (user_op_hash, network, kind, sender, owner, user_op, context, status, expires_at, created_at, updated_at)
       VALUES (?, ?, 'payment', ?, ?, ?, '{}', 'issued', ?, ?, ?)`,
    );
    const createdAt = new Date(Date.now() - 60_000).toISOString();
    sqlite.transaction(() => {
      for (let i = 0; i < count; i++) {
        // Each one a distinct UserOp of the same wallet (another nonce), as repeated /wallet/verify calls leave.
        const userOp = JSON.stringify({ ...row.userOp, nonce: numberToHex(BigInt(row.userOp.nonce!) + BigInt(i + 1)) });
        insert.run(
          toHex(crypto.getRandomValues(new Uint8Array(32))),
          network,
          row.sender.toLowerCase(),
          row.owner.toLowerCase(),
          userOp,
          row.expiresAt(i),
          createdAt,
          createdAt,
        );
      }
    })();
  } finally {
    sqlite.close();
  }
}

const countRows = (where: string, ...params: (string | number)[]) =>
  service.db.$client
    .query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM issued_user_ops WHERE ${where}`)
    .get(...params)?.n;

describe("issued UserOps under load (one sender, 50,000 rows)", () => {
  let issued: Awaited<ReturnType<typeof prepare>>;

  async function prepare() {
    const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
    const to = randomAddress();
    const verified = await service.post(
      "/wallet/verify",
      verifyBody(network, wallet, [{ to, amount: units(network, 1n) }]),
    );
    expect(verified.status).toBe(200);
    const record = await service.services.wallets.store.find(verified.body.userOpHash);
    expect(record).toBeDefined();
    // Older than the real one and still unexpired: nothing the purge may take, all of them candidates before the fix.
    insertIssued(ATTACK_ROWS, {
      sender: wallet,
      owner: owner.address,
      userOp: verified.body.userOp,
      expiresAt: (i) => record!.expiresAt - 1 - (i % 100),
    });
    return { owner, wallet, verified: verified.body, expiresAt: record!.expiresAt };
  }

  beforeAll(async () => {
    issued = await prepare();
  }, 60_000);

  test("a settle that matches no issued UserOp answers its 400 in well under 100 ms, naming the changed field", async () => {
    expect(countRows("sender = ? AND status = 'issued'", issued.wallet.toLowerCase())).toBe(ATTACK_ROWS + 1);
    const body = await settleBody(issued.verified, issued.owner);
    const tampered = {
      userOp: { ...body.userOp, callData: flipLast(issued.verified.userOp.callData!) },
      signature: body.signature,
    };

    const timings: number[] = [];
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      const response = await service.post("/wallet/settle", tampered);
      timings.push(performance.now() - started);
      expectRefusal(response, 400, "validation_error", "userOp.callData");
      expect(response.body.details.fields).toEqual(["userOp.callData"]);
    }
    // (The first may pay for warm-up.) Before the bound every one read, parsed and diffed all 50,001 rows: ~1.5 s.
    console.log(`bad settle with ${ATTACK_ROWS} issued rows: ${timings.map((t) => t.toFixed(1)).join(", ")} ms`);
    // Bounds far above the figure (a few ms) and far below the bug's, so a loaded CI machine does not flake.
    expect(Math.max(...timings.slice(1))).toBeLessThan(750);

    // Five at once leave the rest of the service responsive.
    const started = performance.now();
    const [config] = await Promise.all([
      service.get("/config"),
      ...Array.from({ length: 5 }, () => service.post("/wallet/settle", tampered)),
    ]);
    expect(config.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2_000); // before the bound: 6.5 s
  }, 30_000);

  test("expired issued UserOps are purged; settled ones stay and still answer replays", async () => {
    const body = await settleBody(issued.verified, issued.owner);
    const settled = await service.post("/wallet/settle", body);
    expect(settled.status).toBe(200);
    expect(settled.body.success).toBe(true);

    const longAgo = Math.floor(Date.now() / 1000) - PURGE_GRACE_SECONDS - 60;
    insertIssued(EXPIRED_ROWS, {
      sender: issued.wallet,
      owner: issued.owner.address,
      userOp: { ...issued.verified.userOp, nonce: numberToHex(10_000_000n) },
      expiresAt: () => longAgo,
    });
    // The settled UserOp's paymaster window is long over too: it must stay all the same.
    service.db.$client.run("UPDATE issued_user_ops SET expires_at = ? WHERE user_op_hash = ?", [
      longAgo,
      issued.verified.userOpHash.toLowerCase(),
    ]);
    expect((await service.services.wallets.store.find(issued.verified.userOpHash))?.expiresAt).toBe(longAgo);

    expect(await service.services.issuedPurge.run()).toBe(EXPIRED_ROWS);
    expect(
      countRows("sender = ? AND expires_at < ? AND status = 'issued'", issued.wallet.toLowerCase(), longAgo + 1),
    ).toBe(0);
    expect(countRows("sender = ? AND status = 'issued'", issued.wallet.toLowerCase())).toBe(ATTACK_ROWS);
    expect((await service.services.wallets.store.find(issued.verified.userOpHash))?.status).toBe("success");

    const replay = await service.post("/wallet/settle", body);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(settled.body);
  }, 30_000);
});
