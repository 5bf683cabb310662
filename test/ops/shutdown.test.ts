import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { relayerAbi } from "@relay402/client/wire/abis";
import { type Address, getAddress, type Hex } from "viem";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { type ServiceProcess, startServiceProcess } from "./service-process";

const network = "bsc" as const;
const c = chainOf(network);
const unit = 10n ** BigInt(c.token.decimals);
const dir = mkdtempSync(join(tmpdir(), "relay402-shutdown-"));
const started: ServiceProcess[] = [];

afterEach(async () => {
  await c.test.setAutomine(true);
  for (const service of started.splice(0)) await service.kill();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(databasePath: string, shutdownTimeoutMs: number) {
  const service = await startServiceProcess(dir, { databasePath, shutdownTimeoutMs, logRequests: false });
  started.push(service);
  return service;
}

type Payment = { payer: Address; to: Address; value: bigint; body: Awaited<ReturnType<typeof signedPayment>> };

async function payments(count: number): Promise<Payment[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const payer = await freshPayer(network);
      await approveRelayer(network, payer.key, 100n * unit);
      const to = randomAddress();
      const value = BigInt(i + 1) * unit;
      return { payer: payer.address, to, value, body: await signedPayment({ network, key: payer.key, to, value }) };
    }),
  );
}

const settle = (service: ServiceProcess, body: unknown) =>
  fetch(`${service.url}/settle`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function poolPending(): Promise<number> {
  const status = (await c.public.request({ method: "txpool_status" as never })) as { pending: Hex | number };
  return Number(status.pending);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const authorizationUsed = (payment: Payment) =>
  c.public.readContract({
    address: c.info.relayer,
    abi: relayerAbi,
    functionName: "authorizationState",
    args: [payment.payer, payment.body.paymentPayload.payload.authorization.nonce as Hex],
  });

/** Each payment moved exactly once: the payee holds exactly its value and the payer lost exactly it. */
async function expectPaidOnce(list: Payment[]) {
  for (const payment of list) {
    expect(await tokenBalance(network, c.token.address, payment.to)).toBe(payment.value);
    expect(await tokenBalance(network, c.token.address, payment.payer)).toBe(1000n * unit - payment.value);
    expect(await authorizationUsed(payment)).toBe(true);
  }
}

test("while draining, every route that may send is 503 with Retry-After (root and /api/v1); reads and verifies still answer", async () => {
  const service = startTestService();
  try {
    service.services.drain.start();
    const sending = [
      "/settle",
      "/wallet/settle",
      "/swap/settle",
      "/wallet/swap/settle",
      "/wallet/incognito/settle",
      "/deploy/settle",
      "/deploy/wallet/settle",
      "/wallet/claim",
    ];
    for (const path of [...sending, ...sending.map((p) => `/api/v1${p}`)]) {
      const refused = await service.post(path, {});
      expect([path, refused.status, refused.headers.get("retry-after"), refused.body.code]).toEqual([
        path,
        503,
        "5",
        "service_unavailable",
      ]);
    }
    expect(service.services.drain.active).toBe(0);
    const health = await service.get("/health");
    expect([health.status, health.body.status]).toEqual([503, "draining"]);
    // Not a settle: answered as ever (an empty body is a validation error, not a refusal to work).
    expect((await service.post("/verify", {})).status).toBe(400);
    expect((await service.post("/deploy/quote", {})).status).toBe(400);
    expect((await service.get("/config")).status).toBe(200);
  } finally {
    service.stop();
  }
});

describe("graceful shutdown of the service process", () => {
  test("SIGTERM with settles in flight: they finish, new settles get 503, /health says draining, exit 0", async () => {
    const inFlight = await payments(3);
    const [late] = await payments(1);
    const service = await start(join(dir, "drain.sqlite"), 20_000);
    await c.test.setAutomine(false);
    const answers = inFlight.map((payment) => settle(service, payment.body));
    await until(async () => (await poolPending()) === inFlight.length, "the settles' transactions in the mempool");

    const signalled = Date.now();
    service.child.kill("SIGTERM");
    await until(async () => {
      const health = await fetch(`${service.url}/health`).catch(() => null);
      return health?.status === 503 && ((await health.json()) as { status: string }).status === "draining";
    }, "/health draining");
    const refused = await settle(service, late?.body);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toMatchObject({ code: "service_unavailable", details: { retryAfterSeconds: 5 } });
    // Still draining: the settles wait for their block, the process waits for them.
    await Bun.sleep(500);
    expect(service.child.exitCode).toBeNull();

    await c.test.setAutomine(true);
    await c.test.mine({ blocks: 1 });
    const settled = await Promise.all(answers);
    for (const response of settled) {
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ success: true, network });
    }
    const exit = await service.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(20_000);
    expect(service.output()).toContain('"event":"shutdown_complete","finished":true,"left":0');
    await expectPaidOnce(inFlight);
    // The refused settle sent nothing.
    expect(await tokenBalance(network, c.token.address, late?.to as Address)).toBe(0n);
    expect(await authorizationUsed(late as Payment)).toBe(false);
  }, 60_000);

  for (const stop of ["SIGTERM past its timeout", "SIGKILL"] as const) {
    test(`${stop} with settles in flight: the next start finishes each exactly once from its records`, async () => {
      const list = await payments(2);
      const databasePath = join(dir, `${stop.split(" ")[0]}.sqlite`);
      const first = await start(databasePath, 1_000);
      await c.test.setAutomine(false);
      const answers = list.map((payment) => settle(first, payment.body).catch(() => null));
      await until(async () => (await poolPending()) === list.length, "the settles' transactions in the mempool");

      const signalled = Date.now();
      first.child.kill(stop === "SIGKILL" ? "SIGKILL" : "SIGTERM");
      const exit = await first.exited;
      if (stop === "SIGKILL") expect(exit.signal).toBe("SIGKILL");
      else {
        // Exit 0 once the timeout (1 s) and the server's close (at most 1 s more) have passed.
        expect(exit).toEqual({ code: 0, signal: null });
        expect(Date.now() - signalled).toBeLessThan(5_000);
        expect(first.output()).toContain('"event":"shutdown_timeout","inFlight":2');
      }
      await Promise.all(answers);
      // The node forgets them too: only the records' signed transactions can finish these payments now.
      await c.public.request({ method: "anvil_dropAllTransactions" as never });
      expect(await poolPending()).toBe(0);
      await c.test.setAutomine(true);
      for (const payment of list) expect(await authorizationUsed(payment)).toBe(false);

      const second = await start(databasePath, 20_000);
      await until(
        async () => (await Promise.all(list.map(authorizationUsed))).every(Boolean),
        "reconciliation to settle the records",
        30_000,
      );
      for (const payment of list) {
        const again = await settle(second, payment.body);
        expect(again.status).toBe(200);
        expect(await again.json()).toMatchObject({ success: true, payer: getAddress(payment.payer) });
      }
      await expectPaidOnce(list);
      second.child.kill("SIGTERM");
      expect(await second.exited).toEqual({ code: 0, signal: null });
    }, 90_000);
  }
});
