// A known set of real payments on the devnet (an EOA payment per network, an x402 payment on base, a sponsored
// smart-wallet payment on bsc), settled through a service, and what the chain says they paid and cost: what the
// dashboard's figures must equal.
import { expect } from "bun:test";
import { entryPointAbi } from "@relay402/client/wire/abis";
import { parseEventLogs } from "viem";
import type { Config } from "../../src/config/schema";
import { openPostgres } from "../../src/db/postgres/open";
import { createPostgresStores } from "../../src/db/postgres/stores";
import { createApp } from "../../src/http/app";
import { createLogger } from "../../src/logger";
import { createServices, denyPolicyOf } from "../../src/services";
import { settleBody, units, verifyBody } from "../wallets/support";
import { authorizationOf, baseRequirements, x402Buyer } from "../x402/support";
import { signedPayment } from "./authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress } from "./chain";
import { requestsTo } from "./service-of";
import { deployFundedWallet } from "./wallet";

export const DASHBOARD_KEY = "dashboard-key-for-tests-0001";

type Post = (path: string, body: unknown) => Promise<{ status: number; body: any }>;

/** What one network and flow must show after the payments: counts, sums and gas, exact. */
export type Expected = {
  network: string;
  flow: string;
  success: number;
  volume: Record<string, bigint>;
  fees: Record<string, bigint>;
  gasWei: bigint;
  sponsoredWei: bigint;
  txHashes: string[];
};

/** Settles the known payments through `post` and answers what each network and flow must show. */
export async function settleKnownPayments(post: Post): Promise<Expected[]> {
  const expected: Expected[] = [];
  const entry = (network: string, flow: string) => {
    let found = expected.find((each) => each.network === network && each.flow === flow);
    if (!found) {
      found = { network, flow, success: 0, volume: {}, fees: {}, gasWei: 0n, sponsoredWei: 0n, txHashes: [] };
      expected.push(found);
    }
    return found;
  };
  const add = (map: Record<string, bigint>, token: string, amount: bigint) => {
    map[token.toLowerCase()] = (map[token.toLowerCase()] ?? 0n) + amount;
  };

  for (const network of NETWORK_NAMES) {
    const c = chainOf(network);
    const payer = await freshPayer(network);
    const value = 3n * 10n ** BigInt(c.token.decimals) + 7n;
    await approveRelayer(network, payer.key, value);
    const settled = await post("/settle", await signedPayment({ network, key: payer.key, to: randomAddress(), value }));
    expect(settled.status).toBe(200);
    const receipt = await c.public.getTransactionReceipt({ hash: settled.body.transaction });
    const row = entry(network, "eoa");
    row.success += 1;
    add(row.volume, c.token.address, value);
    row.gasWei += receipt.gasUsed * receipt.effectiveGasPrice;
    row.txHashes.push(receipt.transactionHash);
  }

  const buyer = await x402Buyer();
  const requirements = baseRequirements(1_250_000n);
  const payment = await buyer.pay(requirements);
  const x402 = await post("/settle", { x402Version: 2, paymentPayload: payment, paymentRequirements: requirements });
  expect(x402.body).toMatchObject({ success: true });
  const x402Receipt = await chainOf("base").public.getTransactionReceipt({ hash: x402.body.transaction });
  const x402Row = entry("base", "x402");
  x402Row.success += 1;
  add(x402Row.volume, requirements.asset, BigInt(authorizationOf(payment).authorization.value as string));
  x402Row.gasWei += x402Receipt.gasUsed * x402Receipt.effectiveGasPrice;
  x402Row.txHashes.push(x402Receipt.transactionHash);

  const c = chainOf("bsc");
  const { owner, wallet } = await deployFundedWallet("bsc", units("bsc", 100n));
  const verified = await post(
    "/wallet/verify",
    verifyBody("bsc", wallet, [{ to: randomAddress(), amount: units("bsc", 2n) }]),
  );
  expect(verified.status).toBe(200);
  const settled = await post("/wallet/settle", await settleBody(verified.body, owner));
  expect(settled.status).toBe(200);
  const receipt = await c.public.getTransactionReceipt({ hash: settled.body.txHash });
  const [event] = parseEventLogs({ abi: entryPointAbi, eventName: "UserOperationEvent", logs: receipt.logs }).filter(
    (log) => log.args.userOpHash === verified.body.userOpHash,
  );
  const walletRow = entry("bsc", "smart-wallet");
  walletRow.success += 1;
  add(walletRow.volume, c.token.address, BigInt(verified.body.totalAmount));
  add(walletRow.fees, c.token.address, BigInt(verified.body.feeAmount));
  walletRow.sponsoredWei += event?.args.actualGasCost ?? -1n;
  walletRow.txHashes.push(receipt.transactionHash);
  return expected;
}

/** The dashboard's figures of one network and flow equal what the chain and the payments say. */
export function expectFigures(flows: any[], expected: Expected[]) {
  expect(flows.map((each) => `${each.network} ${each.flow}`).sort()).toEqual(
    expected.map((each) => `${each.network} ${each.flow}`).sort(),
  );
  for (const want of expected) {
    const got = flows.find((each) => each.network === want.network && each.flow === want.flow);
    expect(got.settlements).toEqual({ total: want.success, success: want.success, failed: 0, pending: 0 });
    expect(got.successRate).toBe(1);
    const sums = (list: { token: string; amount: string }[]) =>
      Object.fromEntries(list.map((each) => [each.token.toLowerCase(), BigInt(each.amount)]));
    expect(sums(got.volume)).toEqual(want.volume);
    expect(sums(got.fees)).toEqual(want.fees);
    expect(BigInt(got.gas.wei)).toBe(want.gasWei);
    expect(BigInt(got.sponsored.wei)).toBe(want.sponsoredWei);
    expect(BigInt(got.spentWei)).toBe(want.gasWei + want.sponsoredWei);
    expect(got.gas.unknown + got.sponsored.unknown).toBe(0);
    expect(got.latencyMs.samples).toBe(want.success);
  }
}

/** The service of `config` on a PostgreSQL database of its own (several instances' stores), driven through app.handle. */
export async function postgresService(config: Config, url: string, logSink?: (line: string) => void) {
  const db = await openPostgres(url);
  const services = createServices(
    config,
    createLogger(logSink ? { sink: logSink } : { silent: true }),
    undefined,
    await createPostgresStores(db, denyPolicyOf(config)),
  );
  await services.networks.start();
  const app = createApp(services);
  const request = requestsTo(app);
  return {
    services,
    db,
    post: (path: string, body: unknown, headers?: Record<string, string>) => request("POST", path, body, headers),
    get: (path: string, headers?: Record<string, string>) => request("GET", path, undefined, headers),
    stop: () => services.stop(),
  };
}
