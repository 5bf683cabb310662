// bench:x402's two facilitators, each in a child process of its own behind its own counting JSON-RPC proxy:
// relay402 with the bench's service config, the x402 reference with a funded key of the test mnemonic.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestClient, http, toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { buildBinary } from "../binary";
import { devnetChain } from "../devnet/chain";
import { DEVNET_MNEMONIC } from "../devnet/keys";
import type { DevnetManifest } from "../devnet/start";
import { benchServiceConfig, type Cleanups } from "./bench-devnet";
import { type Child, startBinaryChild, startChild } from "./child";
import { startRpcCounter } from "./rpc-counter";
import type { Side } from "./vs-x402-report";

/** The reference's signer: the first key of the test mnemonic after every key the devnet gives a role. */
const REFERENCE_KEY_INDEX = 24;

export async function startFacilitators(options: {
  manifest: DevnetManifest;
  dir: string;
  cleanups: Cleanups;
  referencePollingMs: string;
  /**
   * "binary": the single binary with the config in a file, as an operator deploys it; "source": the service's code
   * run by Bun from the repository (relay402-process.ts). The binary is one bundled module where the source is
   * each file a module of its own (docs/benchmarks.md gives both figures).
   */
  relay402From: "binary" | "source";
  /** relay402 without incognito on base (no pool, so no leaf indexer): what the indexer costs while idle. */
  withoutIncognito?: boolean;
}) {
  const { manifest, dir, cleanups } = options;
  const network = manifest.networks.base;
  const counters = { relay402: startRpcCounter(network.rpcUrl), reference: startRpcCounter(network.rpcUrl) };
  cleanups.push(() => counters.relay402.stop());
  cleanups.push(() => counters.reference.stop());

  const config = await benchServiceConfig(manifest, "base", counters.relay402.url, join(dir, "relay402.sqlite"));
  if (options.withoutIncognito)
    delete (config.networks.base as { contracts: { privacyPool?: string } }).contracts.privacyPool;
  // The sponsored lanes fund a new payer's approve per settle, more per hour than the default budget (0.01 ETH).
  Object.assign(config.networks.base as object, { fundedApprove: { budgetWei: (10n ** 18n).toString() } });

  const referenceKey = toHex(
    mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: REFERENCE_KEY_INDEX }).getHdKey().privateKey as Uint8Array,
  );
  const referenceAddress = privateKeyToAccount(referenceKey).address;
  const chain = devnetChain(network.chainId, "base", network.rpcUrl);
  await createTestClient({ chain, transport: http(network.rpcUrl), mode: "anvil" }).setBalance({
    address: referenceAddress,
    value: 10n ** 21n,
  });

  const relay402Child =
    options.relay402From === "binary"
      ? startBinaryChild([buildBinary(join(dir, "relay402")), "start"], writeConfig(join(dir, "relay402.json"), config))
      : startChild(join(import.meta.dir, "relay402-process.ts"), { RELAY402_BENCH_CONFIG: JSON.stringify(config) });
  const referenceChild = startChild(join(import.meta.dir, "x402-reference-process.ts"), {
    REFERENCE_RPC_URL: counters.reference.url,
    REFERENCE_KEY: referenceKey,
    REFERENCE_POLLING_MS: options.referencePollingMs,
  });
  // Both starts are awaited before either can throw, so that a started child is always stopped.
  const started = await Promise.allSettled([relay402Child, referenceChild]);
  for (const result of started) if (result.status === "fulfilled") cleanups.push(() => result.value.stop());
  for (const result of started) if (result.status === "rejected") throw result.reason;
  const children: Record<Side, Child> = {
    relay402: (started[0] as PromiseFulfilledResult<Child>).value,
    reference: (started[1] as PromiseFulfilledResult<Child>).value,
  };
  return { counters, children, referenceAddress };
}

function writeConfig(path: string, config: object): string {
  writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
  return path;
}
