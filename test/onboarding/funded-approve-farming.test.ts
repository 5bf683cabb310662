// Farming funded approves (issue #33, item 2): a token-only payer signs its approve at the caps /config publishes, far
// above what the approve costs, keeps what the approve does not burn, sweeps it, and is funded again at its next
// approve. The chain's balances and receipts judge what it kept; the service must refuse approves priced far above
// the live fee, count what the payer kept against it and against the budget, stop it at its cap, and show it.
import { afterAll, describe, expect, test } from "bun:test";
import { type Address, type Hex, keccak256, parseGwei } from "viem";
import { configFromManifest } from "../../scripts/devnet/service-config";
import type { Config } from "../../src/config/schema";
import type { FundingStore } from "../../src/onboarding/funding-store";
import { chainOf, randomAddress, tokenBalance } from "../support/chain";
import { DASHBOARD_KEY, postgresService } from "../support/dashboard";
import { getTestDevnet } from "../support/devnet";
import { createTestDatabase } from "../support/postgres";
import { trackServices } from "../support/service";
import {
  type Net,
  nativeBalance,
  permit2Payment,
  plainRequirements,
  plainToken,
  signApprove,
  sponsoredBody,
  tokenOnlyPayer,
} from "./funded-approve-support";

type Service = {
  post: (path: string, body: unknown) => Promise<{ status: number; body: any }>;
  get: (path: string, headers?: Record<string, string>) => Promise<{ status: number; body: any }>;
  services: { stores: { fundedApprovals: FundingStore } };
};

const price = 10n ** 18n;
/** The farmer's price within the bounds: just under k (2) × the devnet's live fee (~1 gwei), the most it may keep. */
const FARM_FEE = parseGwei("1.9");
const FARM_GAS = 70_000n;
const keyed = { "x-dashboard-api-key": DASHBOARD_KEY };
/**
 * The payers' cap of these services, under the default (0.001): two cycles at the farmer's price fit (each funding
 * ~1.33e14, of which it keeps ~0.87e14, plus ~0.21e14 of funding gas), a third would pass it.
 */
const PAYER_CAP = 3n * 10n ** 14n;
const withPayerCap = (config: Config) => {
  for (const network of Object.values(config.networks)) if (network) network.fundedApprove.payerCapWei = PAYER_CAP;
};

/** The live fee as the bound reads it: base fee plus the node's priority fee, or the gas price where there is no base fee. */
async function liveFee(network: Net) {
  const chain = chainOf(network).public;
  const { baseFeePerGas } = await chain.getBlock({ blockTag: "latest" });
  if (!baseFeePerGas) return chain.getGasPrice();
  return baseFeePerGas + (await chain.estimateMaxPriorityFeePerGas());
}

const feeOf = async (network: Net, hash: Hex) => {
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash });
  return receipt.gasUsed * receipt.effectiveGasPrice;
};

/** The payer sends all it holds but the transfer's gas away, as a farmer sweeps what it kept. */
async function sweep(network: Net, key: Hex, from: Address, nonce: number) {
  const c = chainOf(network);
  const fees = await c.public.estimateFeesPerGas();
  const balance = await nativeBalance(network, from);
  const hash = await c.walletFor(key).sendTransaction({
    to: randomAddress(),
    value: balance - 21_000n * fees.maxFeePerGas,
    nonce,
    gas: 21_000n,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/**
 * One payer, three payment cycles: each first tries the published caps, then the largest price the bounds allow.
 * Answers what the chain says the payer kept and what its fundings cost (funding + the funding's gas).
 */
async function farm(service: Service, network: Net) {
  const c = chainOf(network);
  const published = (await service.get("/config")).body.networks[network].fundedApprove;
  const live = await liveFee(network);
  // The published max fee is far above the live fee; the farmer's stays under k × live.
  expect(BigInt(published.maxFeePerGas)).toBeGreaterThan(2n * live);
  expect(FARM_FEE).toBeLessThan(2n * live);
  const payer = await tokenOnlyPayer(network);
  const store = service.services.stores.fundedApprovals;
  const totals = { kept: 0n, fundingGas: 0n, approveGas: 0n, spent: 0n, fundings: 0 };
  let counted = 0n;
  let nonce = 0;
  let capped = false;
  for (let cycle = 1; cycle <= 3; cycle++) {
    const requirements = plainRequirements(network, price);
    const payment = await permit2Payment(payer.key, requirements);
    const settle = async (gas: bigint, maxFeePerGas: bigint) => {
      const raw = await signApprove(payer.key, network, { amount: price, nonce, gas, maxFeePerGas });
      return { raw, body: (await service.post("/settle", sponsoredBody(payment, requirements, raw))).body };
    };
    const before = await nativeBalance(network, payer.address);

    const atCaps = await settle(BigInt(published.maxGas), BigInt(published.maxFeePerGas));
    expect(atCaps.body).toMatchObject({ success: false, errorReason: "erc20_approval_fee_too_high" });
    const gasAtCap = await settle(BigInt(published.maxGas), FARM_FEE);
    expect(gasAtCap.body).toMatchObject({ success: false, errorReason: "erc20_approval_gas_limit_too_high" });
    expect(await nativeBalance(network, payer.address)).toBe(before);
    expect(await store.find(network, payer.address, nonce)).toBeUndefined();

    const funding = FARM_GAS * FARM_FEE - before;
    const bounded = await settle(FARM_GAS, FARM_FEE);
    if (counted + funding > PAYER_CAP) {
      // What it kept so far and this whole funding would pass its cap: refused, nothing sent.
      expect(bounded.body).toMatchObject({ success: false, errorReason: "erc20_approval_payer_cap_reached" });
      expect(await nativeBalance(network, payer.address)).toBe(before);
      expect(await store.find(network, payer.address, nonce)).toBeUndefined();
      capped = true;
      break;
    }
    expect(bounded.body).toMatchObject({ success: true });
    expect(await tokenBalance(network, plainToken(), requirements.payTo as Address)).toBe(price);
    const record = await store.find(network, payer.address, nonce);
    if (!record?.fundingTxHash) throw new Error("no funding recorded");
    const fundingTx = await c.public.getTransaction({ hash: record.fundingTxHash as Hex });
    expect(fundingTx.value).toBe(funding);
    const fundingGas = await feeOf(network, fundingTx.hash);
    const approveGas = await feeOf(network, keccak256(bounded.raw));
    const kept = (await nativeBalance(network, payer.address)) - before;
    expect(kept).toBe(funding - approveGas);
    expect(record).toMatchObject({
      keptWei: kept.toString(),
      fundingFeeWei: fundingGas.toString(),
      approveCostWei: approveGas.toString(),
    });
    counted += kept + fundingGas;
    totals.kept += kept;
    totals.fundingGas += fundingGas;
    totals.approveGas += approveGas;
    totals.spent += funding + fundingGas;
    totals.fundings += 1;

    await sweep(network, payer.key, payer.address, nonce + 1);
    nonce += 2;
  }
  expect({ capped, fundings: totals.fundings }).toEqual({ capped: true, fundings: 2 });
  return { payer: payer.address, ...totals };
}

function checks(label: string, service: () => Service) {
  for (const network of ["bsc", "base"] as Net[]) {
    test(`${label} ${network}: approves far above the live fee are refused; what the payer kept counts against it and the budget, its cap stops it, the dashboard shows it`, async () => {
      const farmed = await farm(service(), network);
      const summary = (await service().get(`/dashboard/api/summary?range=hour&network=${network}`, keyed)).body;
      expect(summary.onboarding).toHaveLength(1);
      expect(summary.onboarding[0]).toMatchObject({
        network,
        payersFunded: 1,
        fundings: 2,
        fundingGas: { wei: farmed.fundingGas.toString(), known: 2, unknown: 0 },
        approveGas: { wei: farmed.approveGas.toString(), known: 2, unknown: 0 },
        kept: { wei: farmed.kept.toString(), known: 2, unknown: 0 },
        payersKept: [{ payer: farmed.payer, fundings: 2, keptWei: farmed.kept.toString() }],
        budget: { spentWei: farmed.spent.toString() },
      });
    }, 60_000);
  }
}

describe("SQLite", () => {
  const services = trackServices();
  afterAll(() => services.stopAll());
  const service = services.start({ dashboardApiKey: DASHBOARD_KEY }, withPayerCap);
  checks("SQLite", () => service as unknown as Service);
});

describe("PostgreSQL", () => {
  let service: Awaited<ReturnType<typeof postgresService>> | undefined;
  afterAll(() => service?.stop());
  test("starts on its own database", async () => {
    const config = configFromManifest(getTestDevnet().devnet.manifest, {
      dashboardApiKey: DASHBOARD_KEY,
      rateLimitPerMinute: 1_000_000,
      logRequests: false,
      databasePath: ":memory:",
    });
    withPayerCap(config);
    service = await postgresService(config, await createTestDatabase("funded_approve_farming"));
  });
  checks("PostgreSQL", () => service as unknown as Service);
});
