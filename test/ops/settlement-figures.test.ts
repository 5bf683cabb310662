// What each settlement records of its transaction (docs/operating.md, "What each settlement records"), judged by
// the chain: an EOA payment, an x402 payment (settled at once, and resumed after it was left unmined), a sponsored
// smart-wallet payment and an EOA deployment's two steps, each settled by the service on the devnet with its SQLite file. The stored gas_used and
// effective_gas_price must be the receipt's (eth_getTransactionReceipt), the UserOp's sponsored cost its
// UserOperationEvent's actualGasCost, which is also exactly what the paymaster's EntryPoint deposit lost.
import { afterAll, describe, expect, test } from "bun:test";
import { entryPointAbi } from "@relay402/client/wire/abis";
import { eq } from "drizzle-orm";
import { type Hex, parseEventLogs, type TransactionReceipt } from "viem";
import { deploymentWallets, issuedUserOps, x402Settlements } from "../../src/db/schema";
import { adminHeaders, eoaDeployment, randomSalt } from "../deploy/support";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress } from "../support/chain";
import { trackServices } from "../support/service";
import { deployFundedWallet, paymasterDeposit, settleBody, units, verifyBody } from "../wallets/support";
import { authorizationOf, baseRequirements, x402Buyer } from "../x402/support";

const services = trackServices();
afterAll(() => services.stopAll());
const service = services.start({}, (config) => {
  // Short enough that the x402 payment left unmined answers pending quickly (and is resumed by the next settle).
  if (config.networks.base) config.networks.base.receiptTimeoutMs = 500;
});

type Figures = {
  gasUsed: string | null;
  effectiveGasPrice: string | null;
  sentAt: string | null;
  minedAt: string | null;
};

const isIso = (value: string | null) => value !== null && new Date(value).toISOString() === value;

/** The record's figures are the receipt's, exactly; it was sent, then seen mined, within the test's own time. */
function expectReceiptFigures(record: Figures | undefined, receipt: TransactionReceipt, startedAt: string) {
  expect(record).toBeDefined();
  const row = record as Figures;
  expect(row.gasUsed).toBe(receipt.gasUsed.toString());
  expect(row.effectiveGasPrice).toBe(receipt.effectiveGasPrice.toString());
  expect(receipt.gasUsed).toBeGreaterThan(21_000n);
  expect(receipt.effectiveGasPrice).toBeGreaterThan(0n);
  expect(isIso(row.sentAt) && isIso(row.minedAt)).toBe(true);
  const [sent, mined] = [Date.parse(row.sentAt as string), Date.parse(row.minedAt as string)];
  expect(sent).toBeGreaterThanOrEqual(Date.parse(startedAt));
  expect(mined).toBeGreaterThanOrEqual(sent);
  expect(mined).toBeLessThanOrEqual(Date.now());
}

for (const network of NETWORK_NAMES) {
  test(`${network}: an EOA payment (/settle) records its transaction's gas used and price as the receipt says`, async () => {
    const c = chainOf(network);
    const payer = await freshPayer(network);
    const value = 3n * 10n ** BigInt(c.token.decimals);
    await approveRelayer(network, payer.key, value);
    const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value });
    const startedAt = new Date().toISOString();
    const settled = await service.post("/settle", body);
    expect(settled.status).toBe(200);
    const receipt = await c.public.getTransactionReceipt({ hash: settled.body.transaction });
    const record = service.store.find({
      network,
      payer: payer.address,
      nonce: body.paymentPayload.payload.authorization.nonce,
    });
    expect(record?.status).toBe("success");
    expect(record?.txHash).toBe(receipt.transactionHash);
    expectReceiptFigures(record, receipt, startedAt);
  });
}

describe("base: x402 settlements", () => {
  const c = chainOf("base");
  const x402Body = (paymentPayload: unknown, paymentRequirements: unknown) => ({
    x402Version: 2,
    paymentPayload,
    paymentRequirements,
  });
  const recordOf = (nonce: Hex) =>
    service.db.select().from(x402Settlements).where(eq(x402Settlements.nonce, nonce)).get();

  test("settled at once: the receipt's gas used and price", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(1_250_000n);
    const payment = await buyer.pay(requirements);
    const startedAt = new Date().toISOString();
    const settled = await service.post("/settle", x402Body(payment, requirements));
    expect(settled.body).toMatchObject({ success: true });
    const receipt = await c.public.getTransactionReceipt({ hash: settled.body.transaction });
    const record = recordOf(authorizationOf(payment).authorization.nonce as Hex);
    expect(record?.txHash).toBe(receipt.transactionHash);
    expectReceiptFigures(record, receipt, startedAt);
  });

  test("sent while the chain did not mine, concluded by the next settle: sent time kept, figures from the late receipt", async () => {
    const buyer = await x402Buyer();
    const requirements = baseRequirements(1_250_000n);
    const payment = await buyer.pay(requirements);
    const nonce = authorizationOf(payment).authorization.nonce as Hex;
    const startedAt = new Date().toISOString();
    await c.test.setAutomine(false);
    let pending: Awaited<ReturnType<typeof service.post>>;
    try {
      pending = await service.post("/settle", x402Body(payment, requirements));
    } finally {
      await c.test.setAutomine(true);
    }
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
    const sent = recordOf(nonce);
    expect(sent).toMatchObject({ status: "sent", gasUsed: null, effectiveGasPrice: null, minedAt: null });
    expect(isIso(sent?.sentAt ?? null)).toBe(true);
    await c.test.mine({ blocks: 1 });
    const final = await service.post("/settle", x402Body(payment, requirements));
    expect(final.body).toMatchObject({ success: true, transaction: pending.body.transaction });
    const receipt = await c.public.getTransactionReceipt({ hash: final.body.transaction });
    const record = recordOf(nonce);
    expect(record?.sentAt).toBe(sent?.sentAt ?? "");
    expectReceiptFigures(record, receipt, startedAt);
  });
});

for (const network of NETWORK_NAMES) {
  test(`${network}: a sponsored smart-wallet payment records the bundle's receipt and what the paymaster paid`, async () => {
    const c = chainOf(network);
    const { owner, wallet } = await deployFundedWallet(network, units(network, 100n));
    const verified = await service.post(
      "/wallet/verify",
      verifyBody(network, wallet, [{ to: randomAddress(), amount: units(network, 2n) }]),
    );
    expect(verified.status).toBe(200);
    const depositBefore = await paymasterDeposit(network);
    const startedAt = new Date().toISOString();
    const settled = await service.post("/wallet/settle", await settleBody(verified.body, owner));
    expect(settled.status).toBe(200);
    const depositAfter = await paymasterDeposit(network);

    const receipt = await c.public.getTransactionReceipt({ hash: settled.body.txHash });
    const [event] = parseEventLogs({ abi: entryPointAbi, eventName: "UserOperationEvent", logs: receipt.logs }).filter(
      (log) => log.args.userOpHash === verified.body.userOpHash,
    );
    expect(event?.args.success).toBe(true);
    const record = service.db
      .select()
      .from(issuedUserOps)
      .where(eq(issuedUserOps.userOpHash, verified.body.userOpHash))
      .get();
    expect(record?.status).toBe("success");
    expectReceiptFigures(record, receipt, startedAt);
    expect(record?.actualGasCost).toBe(event?.args.actualGasCost.toString());
    expect(record?.actualGasUsed).toBe(event?.args.actualGasUsed.toString());
    // The chain's other witness: the paymaster's deposit went down by exactly the sponsored cost.
    expect((depositBefore - depositAfter).toString()).toBe(record?.actualGasCost ?? "");
    expect(BigInt(record?.actualGasCost ?? "0")).toBeGreaterThan(0n);
  });
}

test("bsc: an EOA deployment of two funded wallets records each step's transaction (one for both wallets) as its receipt says", async () => {
  const network = "bsc";
  const c = chainOf(network);
  const unit = 10n ** BigInt(c.token.decimals);
  const flow = await eoaDeployment(service, {
    network,
    salts: [randomSalt(), randomSalt()],
    funding: [unit, 2n * unit],
  });
  const verified = await service.post("/deploy/verify", flow.body, adminHeaders(service));
  expect(verified.status).toBe(200);
  const startedAt = new Date().toISOString();
  const settled = await service.post(
    "/deploy/settle",
    { ...flow.body, wallets: verified.body.wallets },
    adminHeaders(service),
  );
  expect(settled.body).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
  const [first] = settled.body.wallets as { deploymentTxHash: Hex; fundingTxHash: Hex }[];
  const deployment = await c.public.getTransactionReceipt({ hash: first?.deploymentTxHash as Hex });
  const funding = await c.public.getTransactionReceipt({ hash: first?.fundingTxHash as Hex });
  for (const wallet of flow.wallets) {
    const row = service.db
      .select()
      .from(deploymentWallets)
      .where(eq(deploymentWallets.walletAddress, wallet.address.toLowerCase()))
      .get();
    expect(row?.deploymentTxHash).toBe(deployment.transactionHash);
    expectReceiptFigures(
      row && {
        gasUsed: row.deploymentGasUsed,
        effectiveGasPrice: row.deploymentEffectiveGasPrice,
        sentAt: row.deploymentSentAt,
        minedAt: row.deploymentMinedAt,
      },
      deployment,
      startedAt,
    );
    expect(row?.fundingTxHash).toBe(funding.transactionHash);
    expectReceiptFigures(
      row && {
        gasUsed: row.fundingGasUsed,
        effectiveGasPrice: row.fundingEffectiveGasPrice,
        sentAt: row.fundingSentAt,
        minedAt: row.fundingMinedAt,
      },
      funding,
      startedAt,
    );
  }
});
