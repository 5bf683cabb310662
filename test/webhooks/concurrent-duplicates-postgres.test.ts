// Concurrent duplicates across instances: two service processes (`bun src/main.ts`) on one PostgreSQL and one devnet,
// each leasing an executor key of its own and running its own webhook worker to the same receiver, on both networks
// (concurrent-duplicates-support.ts says what each race must show). One transaction per payment, named by the final
// answer on every instance; one payment.settled, whichever instance fans it out and delivers it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { devnetKeys } from "../../scripts/devnet/keys";
import { freePort } from "../../scripts/devnet/ports";
import { configFromManifest } from "../../scripts/devnet/service-config";
import { encodeConfig } from "../../src/config/load";
import { startServer } from "../../src/server";
import { type ServiceProcess, startServiceProcess } from "../ops/service-process";
import { chainOf, NETWORK_NAMES } from "../support/chain";
import { getTestDevnet } from "../support/devnet";
import { jsonRpcProxy } from "../support/json-rpc-proxy";
import { createTestDatabase } from "../support/postgres";
import { requestsTo } from "../support/service-of";
import { until } from "../support/until";
import { bscRequirements, permit2Buyer } from "../x402/support";
import { type Answer, executorsOf, RACES, type Racers, sentBy } from "./concurrent-duplicates-support";
import { expectEvents, receiverWithEndpoint } from "./events-support";

const dir = mkdtempSync(join(tmpdir(), "relay402-concurrent-duplicates-"));
const instances: ServiceProcess[] = [];
const { receiver, webhooks } = receiverWithEndpoint();
let databaseUrl = "";

/**
 * bsc's node for an instance whose chain reads are slow: while `held` is set, every eth_call (the settle's checks
 * and simulation) waits until it is released, then reads the chain as it is by then.
 */
const gate = { held: false, waiting: 0, release: () => {}, released: Promise.resolve() };
const slowNode = jsonRpcProxy(chainOf("bsc").info.rpcUrl, {
  answer: async (call) => {
    if (!gate.held || call.method !== "eth_call") return undefined;
    gate.waiting += 1;
    await gate.released;
    return undefined;
  },
});
const holdReads = () => {
  gate.released = new Promise((release) => {
    gate.release = () => {
      gate.held = false;
      release();
    };
  });
  gate.held = true;
  gate.waiting = 0;
};
let slowInstance: Awaited<ReturnType<typeof startServer>> | undefined;

/** Every instance's settings: the shared database, one executor key leased each, the one receiver's endpoint. */
const instanceSettings = () => ({
  databaseUrl,
  keyLeaseMs: 15_000,
  keyLeasesPerInstance: 1,
  logRequests: false,
  rateLimitPerMinute: 1_000_000,
  webhooks: webhooks(),
});

beforeAll(async () => {
  databaseUrl = await createTestDatabase("concurrent_duplicates");
  // One after the other: each leases the executor key the previous one left free.
  for (let i = 0; i < 2; i++)
    instances.push(await startServiceProcess(dir, { ...instanceSettings(), networks: networksWaiting(1_500) }));
}, 60_000);
afterAll(async () => {
  gate.release();
  await slowInstance?.stop();
  slowNode.stop();
  for (const instance of instances.splice(0)) await instance.kill();
  receiver.stop();
  rmSync(dir, { recursive: true, force: true });
});

const postTo =
  (instance: ServiceProcess) =>
  async (path: string, body: unknown): Promise<Answer> => {
    const response = await fetch(`${instance.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  };

/** The devnet's networks with a receipt wait of `ms`: a settle on stopped blocks answers 202 that soon. */
function networksWaiting(ms: number) {
  const { networks } = encodeConfig(configFromManifest(getTestDevnet().devnet.manifest));
  for (const network of Object.values(networks)) if (network) Object.assign(network, { receiptTimeoutMs: ms });
  return networks;
}

const racers = (): Racers => ({
  posts: instances.map(postTo),
  // Each instance signs with the key it leased: every key of the devnet counts.
  executors: executorsOf(devnetKeys.executors),
  receiver,
});

for (const network of NETWORK_NAMES) {
  describe(`${network}: concurrent duplicates on two instances sharing PostgreSQL`, () => {
    // Both instances wait 1.5 s for a receipt: the stalled race needs no other racers.
    for (const { name, race } of RACES) test(name, () => race(racers(), network), 30_000);
  });
}

describe("bsc: a duplicate whose checks read the chain after another instance settled the payment", () => {
  test("answers invalid_exact_evm_nonce_already_used naming that transaction (not the payer's permit2_invalid_nonce)", async () => {
    // A third instance (the devnet's third executor key) whose bsc node answers its checks late.
    const config = configFromManifest(getTestDevnet().devnet.manifest, {
      port: await freePort(),
      ...instanceSettings(),
    });
    (config.networks.bsc as { rpcUrls: string[] }).rpcUrls = [slowNode.url];
    slowInstance = await startServer(config, { silent: true });
    const postSlow = requestsTo(slowInstance.app);
    const buyer = await permit2Buyer();
    const requirements = bscRequirements(2n * 10n ** 18n);
    const body = { x402Version: 2, paymentPayload: await buyer.pay(requirements), paymentRequirements: requirements };
    const executors = executorsOf(devnetKeys.executors);
    const sentBefore = await sentBy("bsc", executors);

    holdReads();
    // The slow instance finds no record of the payment and waits on its checks...
    const late = postSlow("POST", "/settle", body);
    await until("the slow instance's checks at its node", () => gate.waiting > 0);
    // ...while another instance settles it.
    const first = await postTo(instances[0] as ServiceProcess)("/settle", body);
    expect(first.body).toMatchObject({ success: true });
    gate.release();
    const answer = await late;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
      transaction: first.body.transaction,
      extra: { paymentId: first.body.extra.paymentId },
    });
    expect(await sentBy("bsc", executors)).toBe(sentBefore + 1);
    await expectEvents(receiver, first.body.extra.paymentId, ["payment.settled"]);
  }, 30_000);
});
