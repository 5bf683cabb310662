// `bun run bench:webhooks`: what signed webhooks cost the settle path and how their events arrive, against a
// fresh devnet, relay402 in a child process of its own (its CPU read from /proc) on SQLite, receivers in this
// process (Bun.serve, every delivery verified with the `standardwebhooks` library). Prints:
//   1. /settle at concurrency 1 on automine with no webhook endpoint, with three, and with three over an outbox of
//      10^6 events (+ one delivery each), lanes interleaved round by round: p50, p99, CPU and RPC round trips per
//      settle, and how long each event took from its settle's answer to each receiver;
//   2. one receiver down for 60 s while a settle a second goes on, with the default retry schedule: when each of
//      its events arrived after it came back;
//   3. the purge of that outbox at the start of a service with the default retention (7 days): its time, rows/s,
//      the counts before and after, and settles meanwhile.
// Each phase prints the host's load (the machine may be shared): how busy its cores were, and how much of that was
// other processes than the devnet, the service and this bench.
//   bun run bench:webhooks [-- --settles 60 --rounds 3 --outbox 1000000 --outage-seconds 60]
import "../../src/production-env";
import { statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { devnetKeys } from "../devnet/keys";
import { type Cleanups, cleanUpOnExit, progress, startBenchDevnet } from "./bench-devnet";
import { eoaPaymentBody } from "./eoa-payment-body";
import { percentile } from "./stats";
import { fillOutbox, outboxReader } from "./webhook-outbox";
import { newWebhookSecret, startReceivers } from "./webhook-receiver";
import { type Lane, laneKit, ms } from "./webhooks-lanes";
import { outagePhase, purgePhase } from "./webhooks-phases";

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    settles: { type: "string", default: "60" },
    rounds: { type: "string", default: "3" },
    outbox: { type: "string", default: "1000000" },
    "outage-seconds": { type: "string", default: "60" },
  },
});
const SETTLES = Number(flags.settles);
const ROUNDS = Number(flags.rounds);
const OUTBOX = Number(flags.outbox);
const OUTAGE_S = Number(flags["outage-seconds"]);
/** Of the filled outbox, the share older than the default retention (7 days): what the purge deletes. */
const OLD_SHARE = 0.6;
const RETENTION_S = 604_800;

const log = progress();
const cleanups: Cleanups = [];
const cleanUp = cleanUpOnExit(cleanups);

await bench().then(
  () => cleanUp().then(() => process.exit(0)),
  (error) => {
    console.error(error);
    return cleanUp().then(() => process.exit(1));
  },
);

async function bench() {
  const { createPublicClient, createTestClient, createWalletClient, http } = await import("viem");
  const { generatePrivateKey, privateKeyToAccount } = await import("viem/accounts");
  const { erc20Abi } = await import("@relay402/client/wire/abis");
  const { devnetChain } = await import("../devnet/chain");

  log("starting the devnet");
  const { devnet, dir } = await startBenchDevnet("webhooks", cleanups);
  const network = devnet.manifest.networks.bsc;
  const chain = devnetChain(network.chainId, "bsc", network.rpcUrl);
  const transport = http(network.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const token = network.tokens.USDT?.address as `0x${string}`;
  const payer = privateKeyToAccount(generatePrivateKey());
  const wallet = createWalletClient({ chain, transport, account: payer });
  await createTestClient({ chain, transport, mode: "anvil" }).setBalance({ address: payer.address, value: 10n ** 20n });
  for (const [functionName, args] of [
    ["mint", [payer.address, 10n ** 30n]],
    ["approve", [network.relayer, 10n ** 30n]],
  ] as const) {
    const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName, args } as never);
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }
  const payment = () => eoaPaymentBody(payer, network.relayer, token);

  const secrets = ["a", "b", "c"].map(() => newWebhookSecret());
  const { pid: receiversPid, receivers } = await startReceivers(secrets, cleanups);
  const endpoints = receivers.map((receiver, i) => ({ id: `shop-${i + 1}`, url: receiver.url, secret: secrets[i] }));
  const noneDb = join(dir, "no-endpoint.sqlite");
  const smallDb = join(dir, "three-endpoints.sqlite");
  const bigDb = join(dir, "outbox-1e6.sqlite");
  // Two executor keys per service running side by side.
  const keys = (lane: number) => devnetKeys.executors.slice(2 * lane, 2 * lane + 2);

  const kit = laneKit({ devnet, payment, cleanups, benchPids: [process.pid, receiversPid] });

  const three = { endpoints };
  // The big outbox's database: migrated and given real events by a first service, then filled while no service runs.
  if (OUTBOX > 0) {
    log(`preparing the outbox of ${OUTBOX} events`);
    const first = await kit.service(bigDb, three, keys(2));
    await first.stop();
    const reader = outboxReader(bigDb);
    const payload = reader.payload();
    reader.close();
    if (!payload) throw new Error("no event was fanned out by the first service");
    const fillS = fillOutbox(bigDb, { events: OUTBOX, oldShare: OLD_SHARE, payload, endpoint: "shop-1" });
    const mib = statSync(bigDb).size / 2 ** 20;
    log(`filled ${OUTBOX} events and their deliveries in ${fillS.toFixed(1)} s (${mib.toFixed(0)} MiB)`);
  }

  const lanes: Record<string, Lane[]> = { none: [], three: [], big: [] };
  const setups = [
    ["none", "no webhook endpoint", noneDb, undefined],
    ["three", "three endpoints", smallDb, three],
    ["big", `three endpoints, outbox of ${OUTBOX} events`, bigDb, { ...three, retentionSeconds: 315_360_000 }],
  ] as const;
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round}/${ROUNDS}: starting the services`);
    const specs = [];
    for (const [index, [key, label, database, webhooks]] of setups.entries()) {
      if (key === "big" && OUTBOX === 0) continue;
      const service = await kit.service(database, webhooks, keys(index));
      specs.push({ key, label: `round ${round}, ${label}`, service, expecting: webhooks ? receivers : [] });
    }
    log(`round ${round}/${ROUNDS}: ${SETTLES} settles per lane, the lanes taking turns`);
    const results = await kit.settleLanes(specs, SETTLES);
    for (const spec of specs) await spec.service.stop();
    for (const [index, lane] of results.entries()) {
      kit.printLane(lane);
      lanes[specs[index]?.key ?? ""]?.push(lane);
    }
  }

  const phase = { kit, executorKeys: keys(3), database: smallDb, webhooks: three, receivers, payment, log };
  if (OUTAGE_S > 0) {
    log(`one receiver down for ${OUTAGE_S} s, default retry schedule`);
    await outagePhase(phase, OUTAGE_S);
  }
  if (OUTBOX > 0) {
    log("purge of the outbox at a start with the default retention");
    await purgePhase({ ...phase, database: bigDb }, SETTLES, RETENTION_S, cleanups);
  }

  const median = (values: number[]) => percentile(values, 50);
  console.log(
    `\nsummary: /settle x${SETTLES} at concurrency 1 on automine, each figure the median of ${ROUNDS} rounds`,
  );
  console.log(
    "| lane | settle p50 | settle p99 | the service's own time, mean | CPU per settle | RPC round trips per settle | event after the answer, p50 / p99 |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const list of Object.values(lanes)) {
    if (list.length === 0) continue;
    const delivery = list.flatMap((lane) => lane.delivery);
    const of = (figure: (lane: Lane) => number) => ms(median(list.map(figure)));
    console.log(
      `| ${list[0]?.label.replace(/^round \d+, /, "")} | ${of((l) => l.p50)} | ${of((l) => l.p99)} | ${of((l) => l.serverMean)} | ${of((l) => l.cpuPerSettle)} | ${median(list.map((l) => l.roundTrips)).toFixed(2)} | ${delivery.length ? `${ms(percentile(delivery, 50))} / ${ms(percentile(delivery, 99))}` : "-"} |`,
    );
  }
}
