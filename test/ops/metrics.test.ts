import { afterAll, describe, expect, test } from "bun:test";
import { entryPointAbi } from "@relay402/client/wire/abis";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress } from "../support/chain";
import { trackServices } from "../support/service";
import { deployFundedWallet, settleBody, units, verifyBody } from "../wallets/support";

const services = trackServices();
afterAll(() => services.stopAll());

const network = "bsc" as const;
const c = chainOf(network);
const unit = 10n ** BigInt(c.token.decimals);

type Sample = { name: string; labels: Record<string, string>; value: string };

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const LABELS = `\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=${LABEL_VALUE}(?:,[a-zA-Z_][a-zA-Z0-9_]*=${LABEL_VALUE})*)?\\}`;
const VALUE = "(?:[-+]?(?:[0-9]+(?:\\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\\.[0-9]+)|[-+]?Inf|NaN)";
const SAMPLE = new RegExp(`^(${NAME})(${LABELS})? (${VALUE})(?: -?[0-9]+)?$`);
const HELP = new RegExp(`^# HELP (${NAME}) .*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);

/**
 * Parses the text exposition strictly: every line is a sample, a # HELP or a # TYPE (nothing else, no blank line),
 * every sample belongs to a family declared before it, and each family is declared once.
 */
function parseExposition(text: string): Sample[] {
  expect(text.endsWith("\n")).toBe(true);
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    const help = HELP.exec(line);
    if (help) continue;
    const type = TYPE.exec(line);
    if (type) {
      expect(types.has(type[1] as string)).toBe(false);
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a valid exposition line: ${line}`);
    const name = sample[1] as string;
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
    expect(types.has(family)).toBe(true);
    if (family !== name) expect(types.get(family)).toBe("histogram");
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key as string] = (value as string).replace(/\\(.)/g, (_, ch) => (ch === "n" ? "\n" : ch));
    }
    samples.push({ name, labels, value: sample[3] as string });
  }
  return samples;
}

const matches = (sample: Sample, name: string, labels: Record<string, string>) =>
  sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value);

function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => matches(s, name, labels)).reduce((sum, s) => sum + Number(s.value), 0);
}

async function readyPayment(value: bigint) {
  const payer = await freshPayer(network);
  await approveRelayer(network, payer.key, 1000n * unit);
  return signedPayment({ network, key: payer.key, to: randomAddress(), value });
}

describe("GET /metrics", () => {
  const service = services.start();
  const key = service.config.adminApiKey;
  const scrape = async () => {
    // Elysia counts a request after its answer (onAfterResponse runs in a setImmediate): let it run first.
    await Bun.sleep(5);
    const response = await service.get("/metrics", { authorization: `Bearer ${key}` });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    return parseExposition(response.body as string);
  };

  test("needs the admin key, as x-admin-api-key or Authorization: Bearer; the key never appears in it", async () => {
    const none = await service.get("/metrics");
    expect(none.status).toBe(401);
    expect(none.body.code).toBe("unauthorized");
    expect((await service.get("/metrics", { authorization: "Bearer wrong-key-wrong-key" })).status).toBe(401);
    expect((await service.get("/metrics", { "x-admin-api-key": `${key}x` })).status).toBe(401);
    const byHeader = await service.get("/api/v1/metrics", { "x-admin-api-key": key });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body as string).not.toContain(key);
    for (const secret of service.config.networks.bsc?.executorKeys ?? []) {
      expect(byHeader.body as string).not.toContain(secret.slice(2));
    }
  });

  test("a settle moves the request counter and the settle histogram; labels are route patterns", async () => {
    const body = await readyPayment(3n * unit);
    const before = await scrape();
    const settled = await service.post("/settle", body);
    expect(settled.status).toBe(200);
    await service.get(`/wallet/${randomAddress()}?network=bsc`);
    await service.get(`/no-such-route/${randomAddress()}`);
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(delta("relay402_http_requests_total", { route: "/settle", method: "POST", status: "200" })).toBe(1);
    expect(delta("relay402_settle_duration_seconds_count", { flow: "eoa", status: "200" })).toBe(1);
    expect(delta("relay402_settle_duration_seconds_bucket", { flow: "eoa", status: "200", le: "+Inf" })).toBe(1);
    expect(delta("relay402_settle_duration_seconds_sum", { flow: "eoa", status: "200" })).toBeGreaterThan(0);
    // One executor transaction, one receipt.
    expect(delta("relay402_receipt_lag_seconds_count", { network })).toBe(1);
    // Raw paths never become label values: the wallet lookup (an owner with no wallet: 404) is its pattern, the
    // unknown path "unmatched".
    expect(delta("relay402_http_requests_total", { route: "/wallet/:owner", method: "GET", status: "404" })).toBe(1);
    expect(delta("relay402_http_requests_total", { route: "unmatched", method: "GET", status: "404" })).toBe(1);
    expect(after.some((s) => Object.values(s.labels).some((v) => v.includes("no-such-route")))).toBe(false);

    // Histogram buckets are cumulative and end at the count.
    const buckets = after.filter((s) =>
      matches(s, "relay402_settle_duration_seconds_bucket", { flow: "eoa", status: "200" }),
    );
    const counts = buckets.map((s) => Number(s.value));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)).toBe(total(after, "relay402_settle_duration_seconds_count", { flow: "eoa", status: "200" }));
  });

  test("each settle route is its own flow; an x402 body on /settle is x402, not eoa", async () => {
    const before = await scrape();
    // Refused bodies still count: x402 answers in its own shape (200), the others with the envelope (400).
    const x402 = await service.post("/settle", { x402Version: 2, paymentPayload: {}, paymentRequirements: {} });
    expect(x402.status).toBe(200);
    expect((await service.post("/wallet/settle", { userOp: {} })).status).toBe(400);
    expect((await service.post("/api/v1/swap/settle", {})).status).toBe(400);
    const after = await scrape();
    const delta = (labels: Record<string, string>) =>
      total(after, "relay402_settle_duration_seconds_count", labels) -
      total(before, "relay402_settle_duration_seconds_count", labels);
    expect(delta({ flow: "x402", status: "200" })).toBe(1);
    expect(delta({ flow: "eoa" })).toBe(0);
    expect(delta({ flow: "wallet", status: "400" })).toBe(1);
    expect(delta({ flow: "swap", status: "400" })).toBe(1);
    // Reads are not settles.
    expect(after.some((s) => s.name.startsWith("relay402_settle_duration") && s.labels.flow === undefined)).toBe(false);
  });

  test("a smart-wallet settle is flow wallet, and its UserOp's receipt lag is observed", async () => {
    const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
    const verified = await service.post(
      "/wallet/verify",
      verifyBody(network, wallet, [{ to: randomAddress(), amount: units(network, 1n) }]),
    );
    expect(verified.status).toBe(200);
    const before = await scrape();
    const settled = await service.post("/wallet/settle", await settleBody(verified.body, owner));
    expect(settled.status).toBe(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      total(after, name, labels) - total(before, name, labels);
    expect(delta("relay402_settle_duration_seconds_count", { flow: "wallet", status: "200" })).toBe(1);
    expect(delta("relay402_userop_receipt_lag_seconds_count", { network })).toBe(1);
    expect(delta("relay402_userop_receipt_lag_seconds_sum", { network })).toBeGreaterThan(0);
    // The bundler sent it, not an executor.
    expect(delta("relay402_receipt_lag_seconds_count", { network })).toBe(0);
  });

  test("in-flight transactions per key: a settle waiting for its block counts on its key, and its receipt lag is observed", async () => {
    const body = await readyPayment(2n * unit);
    const before = await scrape();
    await c.test.setAutomine(false);
    let settle: Promise<{ status: number }> | undefined;
    try {
      settle = service.post("/settle", body);
      let inFlight = 0;
      for (let attempt = 0; attempt < 100 && inFlight === 0; attempt++) {
        await Bun.sleep(50);
        inFlight = total(await scrape(), "relay402_executor_in_flight_transactions", { network });
      }
      expect(inFlight).toBe(1);
      const perKey = (await scrape()).filter((s) =>
        matches(s, "relay402_executor_in_flight_transactions", { network }),
      );
      expect(perKey.map((s) => s.labels.address).sort()).toEqual(
        [...service.services.networks.get(network).executor.addresses].sort(),
      );
      await Bun.sleep(600);
      await c.test.mine({ blocks: 1 });
    } finally {
      await c.test.setAutomine(true);
    }
    expect((await settle).status).toBe(200);
    const after = await scrape();
    expect(total(after, "relay402_executor_in_flight_transactions", { network })).toBe(0);
    const lagCount =
      total(after, "relay402_receipt_lag_seconds_count", { network }) -
      total(before, "relay402_receipt_lag_seconds_count", { network });
    expect(lagCount).toBe(1);
    // The transaction waited at least the 600 ms the chain did not mine.
    const lagSum =
      total(after, "relay402_receipt_lag_seconds_sum", { network }) -
      total(before, "relay402_receipt_lag_seconds_sum", { network });
    expect(lagSum).toBeGreaterThanOrEqual(0.6);
  });
});

test("a request refused before routing (429) counts under its sending route's path, any other under unmatched", async () => {
  const service = services.start({ rateLimitPerMinute: 1 });
  const key = { "x-admin-api-key": service.config.adminApiKey };
  const scrape = async () => {
    await Bun.sleep(5);
    return parseExposition((await service.get("/metrics", key)).body as string);
  };
  const before = await scrape();
  expect((await service.post("/settle", {})).status).toBe(400);
  expect((await service.post("/settle", {})).status).toBe(429);
  expect((await service.get(`/wallet/${randomAddress()}`)).status).toBe(429);
  const after = await scrape();
  const delta = (labels: Record<string, string>) =>
    total(after, "relay402_http_requests_total", labels) - total(before, "relay402_http_requests_total", labels);
  expect(delta({ route: "/settle", method: "POST", status: "429" })).toBe(1);
  expect(delta({ route: "unmatched", method: "GET", status: "429" })).toBe(1);
});

describe("balances in /metrics", () => {
  test("executor balances and the paymaster deposit equal the chain's, per network", async () => {
    // A service of its own: its balance cache is empty, so this scrape reads the chain now.
    const service = services.start();
    const response = await service.get("/metrics", { "x-admin-api-key": service.config.adminApiKey });
    const samples = parseExposition(response.body as string);
    for (const name of ["bsc", "base"] as const) {
      const chain = chainOf(name);
      const executors = service.services.networks.get(name).executor.addresses;
      for (const address of executors) {
        const sample = samples.find((s) => matches(s, "relay402_executor_balance_wei", { network: name, address }));
        expect(sample).toBeDefined();
        expect(BigInt(sample?.value as string)).toBe(await chain.public.getBalance({ address }));
      }
      const deposit = samples.find((s) => matches(s, "relay402_paymaster_deposit_wei", { network: name }));
      expect(deposit?.labels.paymaster).toBe(chain.info.paymaster);
      expect(BigInt(deposit?.value as string)).toBe(
        await chain.public.readContract({
          address: chain.info.entryPoint,
          abi: entryPointAbi,
          functionName: "balanceOf",
          args: [chain.info.paymaster],
        }),
      );
      expect(total(samples, "relay402_balances_read_ok", { network: name })).toBe(1);
    }
    expect(total(samples, "relay402_draining")).toBe(0);
  });

  test("scrapes within the cache window share one chain read per network", async () => {
    const service = services.start();
    const network = service.services.networks.get("bsc");
    let reads = 0;
    const original = network.client.multicall.bind(network.client);
    (network.client as { multicall: typeof original }).multicall = ((...args: Parameters<typeof original>) => {
      reads += 1;
      return original(...args);
    }) as typeof original;
    const key = { "x-admin-api-key": service.config.adminApiKey };
    const answers = await Promise.all(Array.from({ length: 20 }, () => service.get("/metrics", key)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await service.get("/metrics", key);
    expect(reads).toBe(1);
  });
});
