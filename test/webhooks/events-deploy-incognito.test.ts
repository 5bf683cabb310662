// The events of deployments (/deploy/settle: the fee is an EOA payment through the relayer; /deploy/wallet/settle:
// one UserOp pays the fee and the fundings) and of incognito shields (/wallet/incognito/settle), for each way a
// settle ends: success; pending then success; a revert on-chain; a nonce used first by another payment. The payment
// is the deployment's fee payment (its id, or the fee UserOp's hash); the receiver gets exactly the documented events
// with the lookup's record, and the record is the chain's. Real devnet, bundler and SQLite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildTree, randomFieldElement, unshieldInput } from "@relay402/client/wire/incognito/notes";
import { proveUnshield } from "@relay402/client/wire/incognito/proof";
import type { Address, Hex } from "viem";
import { adminHeaders, entryPointNonce, eoaDeployment, randomSalt, walletDeployment } from "../deploy/support";
import { signedPayment, submitAhead } from "../support/authorization";
import { chainOf, pendingTransactionTo, randomAddress, tokenBalance, withBlocksStopped } from "../support/chain";
import {
  body as incognitoBody,
  incognitoClientOf,
  incognitoNetwork,
  unshieldData,
  unshieldMinimum,
} from "../support/incognito-service";
import { createTestDatabase } from "../support/postgres";
import { until } from "../support/until";
import { deployFundedWallet, drainWallet } from "../support/wallet";
import { settleBody, units, verifyBody } from "../wallets/support";
import {
  eventOf,
  eventTestbed,
  expectExactlyEvents,
  expectUserOpRecordOnChain,
  settleSwallowed,
  shield,
  type Testbed,
} from "./events-userops-support";

const testbed = eventTestbed();
afterAll(async () => {
  for (const network of ["bsc", "base"] as const) await chainOf(network).test.setAutomine(true);
  await testbed.stop();
});
const prompt = testbed.start();
const slow = testbed.start({ pendingAfterSeconds: 1, receiptTimeoutMs: 1_500 });

describe("/wallet/incognito/settle: the events of a shield's endings", () => {
  test("bsc, success: payment.settled once; the pool got the note's amount, the record is the UserOp's receipt", async () => {
    const network = "bsc";
    const { pool, balance } = incognitoNetwork(network);
    const shielding = await shield(prompt, network);
    const poolBefore = await balance(pool);
    const settled = await prompt.service.post("/wallet/incognito/settle", shielding.body);
    expect(settled.status).toBe(200);

    const record = await expectExactlyEvents(prompt, shielding.hash, ["payment.settled"]);
    expect(record).toMatchObject({
      status: "settled",
      flow: "incognito",
      payer: shielding.wallet,
      amount: shielding.verified.totalAmount,
      transaction: settled.body.txHash,
    });
    await expectUserOpRecordOnChain(prompt, network, shielding.hash, record);
    expect(await balance(pool)).toBe(poolBefore + shielding.note.amount);
  }, 60_000);

  test("base, pending then success: payment.pending, then payment.settled; the note lands once", async () => {
    const network = "base";
    const { pool, balance } = incognitoNetwork(network);
    const shielding = await shield(slow, network);
    const poolBefore = await balance(pool);
    const settle = () => slow.service.post("/wallet/incognito/settle", shielding.body);
    await settleSwallowed(testbed.stalls[network], settle, shielding.hash);
    expect(await eventOf(slow, "payment.pending", shielding.hash)).toMatchObject({
      status: "pending",
      flow: "incognito",
    });

    const settled = await settle();
    expect(settled.status).toBe(200);
    const record = await expectExactlyEvents(slow, shielding.hash, ["payment.pending", "payment.settled"]);
    await expectUserOpRecordOnChain(slow, network, shielding.hash, record);
    expect(await balance(pool)).toBe(poolBefore + shielding.note.amount);
  }, 60_000);

  test("bsc, a shield that reverts on-chain (the wallet emptied as it is sent): payment.failed, the pool got nothing", async () => {
    const network = "bsc";
    const { pool, balance } = incognitoNetwork(network);
    const shielding = await shield(prompt, network);
    const poolBefore = await balance(pool);
    testbed.stalls[network].beforeSend = () => drainWallet(network, shielding.wallet);
    const settled = await prompt.service.post("/wallet/incognito/settle", shielding.body);
    expect(settled.status).toBe(500);
    expect(settled.body.details).toMatchObject({ status: "reverted", paymentId: shielding.hash });

    const record = await expectExactlyEvents(prompt, shielding.hash, ["payment.failed"]);
    const event = await expectUserOpRecordOnChain(prompt, network, shielding.hash, record);
    expect(event.success).toBe(false);
    expect(await balance(pool)).toBe(poolBefore);
  }, 60_000);
  test("bsc, an unshield's success: payment.settled, its record the withdrawal to the recipient and the fee", async () => {
    const network = "bsc";
    const { c, token, pool, feeRecipient, balance } = incognitoNetwork(network);
    const shielding = await shield(prompt, network);
    expect((await prompt.service.post("/wallet/incognito/settle", shielding.body)).status).toBe(200);
    const { leavesOf, circuitFiles } = incognitoClientOf(prompt.service);
    const withdrawAmount = units(network, 4n);
    const fee = unshieldMinimum(withdrawAmount, c.token.decimals);
    const recipient = randomAddress();
    const input = unshieldInput({
      note: shielding.note,
      tree: buildTree(await leavesOf(network)),
      withdrawAmount,
      fee,
      recipient,
      feeRecipient,
      change: { nullifier: randomFieldElement(), secret: randomFieldElement() },
    });
    const { wasm, zkey } = await circuitFiles();
    const { proof } = await proveUnshield(input.input, wasm, zkey);
    const { owner, wallet } = await deployFundedWallet(network, 0n);
    const verified = await prompt.service.post(
      "/wallet/incognito/verify",
      incognitoBody(network, wallet, unshieldData(token, { ...input, withdrawAmount, fee, recipient, proof })),
    );
    expect(verified.status).toBe(200);
    const hash = verified.body.userOpHash as Hex;
    const poolBefore = await balance(pool);
    const settled = await prompt.service.post("/wallet/incognito/settle", await settleBody(verified.body, owner));
    expect(settled.status).toBe(200);

    const record = await expectExactlyEvents(prompt, hash, ["payment.settled"]);
    expect(record).toMatchObject({
      status: "settled",
      flow: "incognito",
      payer: wallet,
      payee: recipient,
      payees: [recipient],
      amount: withdrawAmount.toString(),
      fee: fee.toString(),
      transaction: settled.body.txHash,
    });
    await expectUserOpRecordOnChain(prompt, network, hash, record);
    expect(await balance(recipient)).toBe(withdrawAmount);
    expect(await balance(pool)).toBe(poolBefore - withdrawAmount - fee);
  }, 120_000);
});

const feeRecipientOf = (network: "bsc" | "base") => chainOf(network).info.feeRecipient as Address;

/** A wallet-paid deployment with one funded wallet settled on `bed`: exactly payment.settled, the record the chain's. */
async function deploymentSettled(bed: Testbed, network: "bsc" | "base") {
  const c = chainOf(network);
  const funding = units(network, 2n);
  const deployment = await walletDeployment(bed.service, network, [funding]);
  const feeBefore = await tokenBalance(network, c.token.address, feeRecipientOf(network));
  const settled = await bed.service.post("/deploy/wallet/settle", deployment.body, adminHeaders(bed.service));
  expect(settled.status).toBe(200);
  expect(settled.body).toMatchObject({ paymentSuccess: true, paymentId: deployment.hash });

  const record = await expectExactlyEvents(bed, deployment.hash, ["payment.settled"]);
  const wallet = (deployment.wallets[0] as { address: Address }).address;
  expect(record).toMatchObject({
    status: "settled",
    flow: "deployment",
    payer: deployment.payer,
    token: c.token.address,
    // The fee and the fundings left the paying wallet in this UserOp; the fee alone is the service's.
    amount: deployment.total.toString(),
    fee: deployment.fee.toString(),
    payee: feeRecipientOf(network),
    payees: [feeRecipientOf(network), wallet],
    transaction: settled.body.paymentTxHash,
  });
  await expectUserOpRecordOnChain(bed, network, deployment.hash, record);
  expect(await tokenBalance(network, c.token.address, feeRecipientOf(network))).toBe(feeBefore + deployment.fee);
  expect(await tokenBalance(network, c.token.address, wallet)).toBe(funding);
}

describe("/deploy/wallet/settle: the events of the fee UserOp's endings", () => {
  test(
    "base, success: payment.settled under the fee UserOp's hash; its record says what the UserOp paid",
    () => deploymentSettled(prompt, "base"),
    60_000,
  );

  test("bsc, pending then success: payment.pending, then payment.settled; the fee is taken once", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const deployment = await walletDeployment(slow.service, network, [0n]);
    const feeBefore = await tokenBalance(network, c.token.address, feeRecipientOf(network));
    const settle = () => slow.service.post("/deploy/wallet/settle", deployment.body, adminHeaders(slow.service));
    await settleSwallowed(testbed.stalls[network], settle, deployment.hash);
    expect(await eventOf(slow, "payment.pending", deployment.hash)).toMatchObject({ flow: "deployment" });

    expect((await settle()).status).toBe(200);
    const record = await expectExactlyEvents(slow, deployment.hash, ["payment.pending", "payment.settled"]);
    await expectUserOpRecordOnChain(slow, network, deployment.hash, record);
    expect(await tokenBalance(network, c.token.address, feeRecipientOf(network))).toBe(feeBefore + deployment.fee);
  }, 60_000);

  test("base, a fee UserOp that reverts on-chain (the paying wallet emptied as it is sent): payment.failed, nothing deployed", async () => {
    const network = "base";
    const c = chainOf(network);
    const deployment = await walletDeployment(prompt.service, network, [0n]);
    testbed.stalls[network].beforeSend = () => drainWallet(network, deployment.payer);
    const settled = await prompt.service.post("/deploy/wallet/settle", deployment.body, adminHeaders(prompt.service));
    expect(settled.status).toBe(500);
    expect(settled.body).toMatchObject({ code: "payment_settlement_error", details: { paymentId: deployment.hash } });

    const record = await expectExactlyEvents(prompt, deployment.hash, ["payment.failed"]);
    const event = await expectUserOpRecordOnChain(prompt, network, deployment.hash, record);
    expect(event.success).toBe(false);
    expect(
      await c.public.getCode({ address: (deployment.wallets[0] as { address: Address }).address }),
    ).toBeUndefined();
  }, 60_000);

  test("bsc, the paying wallet's nonce used first by a payment of its own: payment.failed, no fee taken", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const deployment = await walletDeployment(prompt.service, network, [0n]);
    const other = await prompt.service.post(
      "/wallet/verify",
      verifyBody(network, deployment.payer, [{ to: randomAddress(), amount: units(network, 1n) }]),
    );
    expect(other.body.userOp.nonce).toBe(deployment.body.userOp.nonce);
    expect(
      (await prompt.service.post("/wallet/settle", await settleBody(other.body, deployment.payerOwner))).status,
    ).toBe(200);
    const feeBefore = await tokenBalance(network, c.token.address, feeRecipientOf(network));
    const settled = await prompt.service.post("/deploy/wallet/settle", deployment.body, adminHeaders(prompt.service));
    expect(settled.status).toBe(400);
    expect(settled.body.code).toBe("userop_error");

    const record = await expectExactlyEvents(prompt, deployment.hash, ["payment.failed"]);
    expect(record).toMatchObject({ status: "failed", transaction: null, failureReason: "userop_error" });
    expect(await tokenBalance(network, c.token.address, feeRecipientOf(network))).toBe(feeBefore);
  }, 60_000);
  test("base, the paying wallet emptied before the settle: payment.failed (the batch failed, its wallets freed), nothing sent", async () => {
    const network = "base";
    const c = chainOf(network);
    const deployment = await walletDeployment(prompt.service, network, [0n]);
    await drainWallet(network, deployment.payer);
    const nonceBefore = await entryPointNonce(network, deployment.payer);
    const settled = await prompt.service.post("/deploy/wallet/settle", deployment.body, adminHeaders(prompt.service));
    expect(settled.status).toBe(400);
    expect(settled.body).toMatchObject({ code: "validation_error", details: { field: "balance" } });

    const record = await expectExactlyEvents(prompt, deployment.hash, ["payment.failed"]);
    expect(record).toMatchObject({
      status: "failed",
      transaction: null,
      sentAt: null,
      failureReason: "validation_error",
    });
    expect(await entryPointNonce(network, deployment.payer)).toBe(nonceBefore);
    expect(
      await c.public.getCode({ address: (deployment.wallets[0] as { address: Address }).address }),
    ).toBeUndefined();
  }, 60_000);
});

describe("/deploy/settle: the events of the EOA fee payment's endings", () => {
  /** The settle body of a batch: what the client signed plus the wallets /deploy/verify answered. */
  const deploySettleBody = async ({ service }: Testbed, body: object) => ({
    ...body,
    wallets: (await service.post("/deploy/verify", body, adminHeaders(service))).body.wallets,
  });

  test("bsc, success: payment.settled under the fee payment's id; its record is the fee's transaction", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const flow = await eoaDeployment(prompt.service, { network, salts: [randomSalt()], funding: [units(network, 1n)] });
    const feeBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);
    const settled = await prompt.service.post(
      "/deploy/settle",
      await deploySettleBody(prompt, flow.body),
      adminHeaders(prompt.service),
    );
    expect(settled.status).toBe(200);
    const paymentId = settled.body.paymentId as Hex;

    const record = await expectExactlyEvents(prompt, paymentId, ["payment.settled"]);
    expect(record).toMatchObject({
      status: "settled",
      payer: flow.payer.address,
      payee: c.info.feeRecipient,
      amount: flow.fee.toString(),
      transaction: settled.body.paymentTxHash,
    });
    const receipt = await c.public.getTransactionReceipt({ hash: record.transaction });
    expect(receipt.status).toBe("success");
    expect(record).toMatchObject({ block: Number(receipt.blockNumber), gasUsed: receipt.gasUsed.toString() });
    expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(feeBefore + flow.fee);
  }, 60_000);

  test("base, pending then success: payment.pending while the fee is unmined, then payment.settled", async () => {
    const network = "base";
    const c = chainOf(network);
    const flow = await eoaDeployment(slow.service, { network, salts: [randomSalt()] });
    const body = await deploySettleBody(slow, flow.body);
    const settle = () => slow.service.post("/deploy/settle", body, adminHeaders(slow.service));
    const paymentId: Hex = await withBlocksStopped(network, async () => {
      const pending = await settle();
      expect(pending.status).toBe(202);
      expect(await eventOf(slow, "payment.pending", pending.body.paymentId)).toMatchObject({ status: "pending" });
      await c.test.mine({ blocks: 1 });
      return pending.body.paymentId;
    });
    const settled = await settle();
    expect(settled.status).toBe(200);
    const record = await expectExactlyEvents(slow, paymentId, ["payment.pending", "payment.settled"]);
    expect(record).toMatchObject({ status: "settled", transaction: settled.body.paymentTxHash });
    const receipt = await c.public.getTransactionReceipt({ hash: record.transaction });
    expect(record.block).toBe(Number(receipt.blockNumber));
  }, 60_000);

  test("base, the fee's nonce used first by another authorization of the payer: payment.failed, nothing charged", async () => {
    const network = "base";
    const c = chainOf(network);
    const flow = await eoaDeployment(prompt.service, { network, salts: [randomSalt()] });
    const fee = flow.body.paymentPayload[0] as { payload: { authorization: { nonce: Hex } } };
    const accomplice = randomAddress();
    const ahead = await signedPayment({
      network,
      key: flow.payer.key,
      to: accomplice,
      value: 1n,
      nonce: fee.payload.authorization.nonce,
    });
    const feeBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);
    const body = await deploySettleBody(prompt, flow.body);
    const settled = await withBlocksStopped(network, async () => {
      const settling = prompt.service.post("/deploy/settle", body, adminHeaders(prompt.service));
      await until("the fee's transaction in the pool", () => pendingTransactionTo(network, c.info.relayer));
      await submitAhead(flow.payer.key, ahead);
      await c.test.mine({ blocks: 1 });
      return settling;
    });
    expect(settled.status).toBe(400);
    expect(settled.body.code).toBe("nonce_error");
    const paymentId = settled.body.details.paymentId as Hex;

    const record = await expectExactlyEvents(prompt, paymentId, ["payment.failed"]);
    expect(record).toMatchObject({
      status: "failed",
      payer: flow.payer.address,
      failureReason: "nonce used by a different authorization",
    });
    expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(feeBefore);
    expect(await tokenBalance(network, c.token.address, accomplice)).toBe(1n);
  }, 60_000);
});

describe("on PostgreSQL: the same events from the twin's triggers", () => {
  let onPostgres: Testbed;
  beforeAll(async () => {
    onPostgres = await testbed.startOnPostgres(await createTestDatabase("deploy_incognito_events"));
  });

  test(
    "bsc, /deploy/wallet/settle success: payment.settled, its record says what the UserOp paid",
    () => deploymentSettled(onPostgres, "bsc"),
    60_000,
  );

  test("base, /wallet/incognito/settle whose shield reverts on-chain: payment.failed, the pool got nothing", async () => {
    const network = "base";
    const { pool, balance } = incognitoNetwork(network);
    const shielding = await shield(onPostgres, network);
    const poolBefore = await balance(pool);
    testbed.stalls[network].beforeSend = () => drainWallet(network, shielding.wallet);
    expect((await onPostgres.service.post("/wallet/incognito/settle", shielding.body)).status).toBe(500);

    const record = await expectExactlyEvents(onPostgres, shielding.hash, ["payment.failed"]);
    expect((await expectUserOpRecordOnChain(onPostgres, network, shielding.hash, record)).success).toBe(false);
    expect(await balance(pool)).toBe(poolBefore);
  }, 60_000);
});
