import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRelay402Client, getNetworkConfig, pay, type Relay402Client } from "@relay402/client";
import { erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import {
  type Address,
  decodeFunctionData,
  getAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  type PublicClient,
  parseGwei,
  parseTransaction,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type PaymentContext, payWithinLimits } from "../../packages/client/src/mcp/agent-payment";
import { chainFactsFrom } from "../../packages/client/src/mcp/chain-facts";
import { SpendLedger } from "../../packages/client/src/mcp/spend-ledger";
import { PERMIT2 } from "../../src/x402/permit2";
import { signedPayment } from "../support/authorization";
import { chainOf, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { mintTo, type Net, nativeBalance, plainToken, signApprove, tokenOnlyPayer } from "./funded-approve-support";
import { EXECUTORS, executorsNative, permitToken } from "./permit-support";

const services = trackServices();
const relay = services.start();
/** The service on HTTP for @relay402/client, and a second one whose bsc funds no approve. */
const listen = (service: ReturnType<typeof services.start>) => {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => service.app.handle(request) });
  return { server, client: createRelay402Client({ url: server.url.origin }) };
};
const served = listen(relay);
const unfunded = listen(
  services.start({}, (config) => {
    if (config.networks.bsc) config.networks.bsc.fundedApprove.enabled = false;
  }),
);
afterAll(() => {
  served.server.stop(true);
  unfunded.server.stop(true);
  services.stopAll();
});
const c = chainOf("bsc");
const price = 10n ** 18n;
const relayer = c.info.relayer as Address;

/** What the approve's signer pays at most (gas limit × max fee), and what it did pay once mined. */
const maxCost = (raw: Hex) => {
  const tx = parseTransaction(raw);
  return (tx.gas as bigint) * (tx.maxFeePerGas as bigint);
};
const paidCost = async (raw: Hex) => {
  const receipt = await c.public.getTransactionReceipt({ hash: keccak256(raw) });
  return receipt.gasUsed * receipt.effectiveGasPrice;
};

/** A relay402 EOA payment of a token-only payer on bsc, with its signed approve of the relayer. */
async function fundedPayment(options: { spender?: Address; gas?: bigint; maxFeePerGas?: bigint } = {}) {
  const payer = await tokenOnlyPayer("bsc");
  const payTo = randomAddress();
  const body = await signedPayment({ network: "bsc", key: payer.key, to: payTo, value: price });
  const { gas, maxFeePerGas } = options;
  const raw = await signApprove(payer.key, "bsc", { spender: options.spender ?? relayer, gas, maxFeePerGas });
  const withApproval = { ...body, paymentPayload: { ...body.paymentPayload, approval: { signedTransaction: raw } } };
  return { payer, payTo, body, raw, withApproval };
}
describe("relay402's EOA flow with a funded approve(relayer): a payer with only TestUSDT and no native coins pays", () => {
  test("verify, then settle: the payee gets the value, the payer loses it and only it, funded exactly its approve's cost; its next payment needs no approve", async () => {
    const { payer, payTo, raw, withApproval } = await fundedPayment();
    const tokensBefore = await tokenBalance("bsc", plainToken(), payer.address);
    expect((await relay.post("/verify", withApproval)).body).toMatchObject({ isValid: true, payer: payer.address });
    expect(await nativeBalance("bsc", payer.address)).toBe(0n);

    const settled = await relay.post("/settle", withApproval);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ success: true });
    expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(price);
    expect(await tokenBalance("bsc", plainToken(), payer.address)).toBe(tokensBefore - price);
    const left = maxCost(raw) - (await paidCost(raw));
    expect(await nativeBalance("bsc", payer.address)).toBe(left);

    const next = await signedPayment({ network: "bsc", key: payer.key, to: payTo, value: price });
    expect((await relay.post("/settle", next)).body).toMatchObject({ success: true });
    expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(2n * price);
    expect(await nativeBalance("bsc", payer.address)).toBe(left);
  });

  test("ten concurrent settles: one funding, one approve, one settlement transaction", async () => {
    const { payer, payTo, raw, withApproval } = await fundedPayment();
    const answers = await Promise.all(Array.from({ length: 10 }, () => relay.post("/settle", withApproval)));
    const succeeded = answers.filter((answer) => (answer.body as { success?: boolean }).success);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    expect(new Set(succeeded.map((answer) => (answer.body as { transaction: string }).transaction)).size).toBe(1);
    expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(price);
    expect(await c.public.getTransactionCount({ address: payer.address })).toBe(1);
    expect(await nativeBalance("bsc", payer.address)).toBe(maxCost(raw) - (await paidCost(raw)));
  });

  test("an approve of another spender (Permit2, not the relayer) is refused with the field to fix, nobody funded", async () => {
    const { payer, payTo, withApproval } = await fundedPayment({ spender: PERMIT2 });
    const verdict = await relay.post("/verify", withApproval);
    expect(verdict.body).toMatchObject({ isValid: false });
    const settled = await relay.post("/settle", withApproval);
    expect(settled.status).toBe(400);
    expect(settled.body).toMatchObject({
      code: "payment_verification_error",
      details: { field: "paymentPayload.approval.signedTransaction", reason: "spender" },
    });
    expect(await nativeBalance("bsc", payer.address)).toBe(0n);
    expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(0n);
  });

  test("an approve at the caps /config publishes, far above what it costs, is refused with the field to fix, nobody funded", async () => {
    const caps = (await relay.get("/config")).body.networks.bsc.fundedApprove;
    const cases = [
      { reason: "fee", gas: BigInt(caps.maxGas), maxFeePerGas: BigInt(caps.maxFeePerGas) },
      { reason: "gas_limit", gas: BigInt(caps.maxGas), maxFeePerGas: parseGwei("1") },
    ];
    for (const { reason, ...approvePrice } of cases) {
      const { payer, payTo, withApproval } = await fundedPayment(approvePrice);
      expect((await relay.post("/verify", withApproval)).body).toMatchObject({ isValid: false });
      const settled = await relay.post("/settle", withApproval);
      expect({ reason, status: settled.status, body: settled.body }).toMatchObject({
        reason,
        status: 400,
        body: {
          code: "payment_verification_error",
          details: { field: "paymentPayload.approval.signedTransaction", reason },
        },
      });
      expect(await nativeBalance("bsc", payer.address)).toBe(0n);
      expect(await tokenBalance("bsc", plainToken(), payTo)).toBe(0n);
    }
  });
});

/** Every transaction our executors sent on `network` after block `from`, with what each cost them (value + gas). */
async function executorTransactions(network: Net, from: bigint) {
  const client = chainOf(network).public;
  const latest = await client.getBlockNumber();
  const sent: { to: Address; value: bigint; input: Hex; cost: bigint }[] = [];
  for (let number = from + 1n; number <= latest; number++) {
    const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
    for (const transaction of block.transactions) {
      if (!EXECUTORS.some((executor) => isAddressEqual(executor, transaction.from))) continue;
      const receipt = await client.getTransactionReceipt({ hash: transaction.hash });
      sent.push({
        to: getAddress(transaction.to ?? "0x"),
        value: transaction.value,
        input: transaction.input,
        cost: transaction.value + receipt.gasUsed * receipt.effectiveGasPrice,
      });
    }
  }
  return sent;
}

const payOn = (
  network: Net,
  client: Relay402Client,
  key: Hex,
  token: Address,
  value: bigint,
  options: { to?: Address; approveAmount?: bigint } = {},
) =>
  pay(client, {
    signer: chainOf(network).walletFor(key),
    publicClient: chainOf(network).public as PublicClient,
    network,
    token,
    to: options.to ?? randomAddress(),
    value,
    ...(options.approveAmount ? { approveAmount: options.approveAmount } : {}),
  });

describe("@relay402/client's pay for a payer with 0 native coins: a permit on PUSD, a funded approve on USDT", () => {
  for (const network of NETWORK_NAMES) {
    test(`${network}: each payee gets the value, the payer loses it and keeps only its funding's unspent gas; our executors send the permit settle, the exact funding and the settle`, async () => {
      const chain = chainOf(network);
      const pusd = permitToken(network).address;
      const usdt = plainToken();
      const pusdValue = 400_000n; // 0.4 PUSD (6 decimals)
      const payer = await tokenOnlyPayer(network);
      await mintTo(network, pusd, payer.address, pusdValue);
      const usdtBefore = await tokenBalance(network, usdt, payer.address);
      const from = await chain.public.getBlockNumber();
      const executorsBefore = await executorsNative(network);

      const byPermit = await payOn(network, served.client, payer.key, pusd, pusdValue);
      expect(byPermit.onboarding).toBe("permit");
      expect(byPermit.settlement.success).toBe(true);
      expect(await tokenBalance(network, pusd, byPermit.body.paymentRequirements.relayerContract)).toBe(0n);
      expect(await nativeBalance(network, payer.address)).toBe(0n);

      const payTo = randomAddress();
      const funded = await payOn(network, served.client, payer.key, usdt, price, {
        to: payTo,
        approveAmount: 2n * price,
      });
      expect(funded.onboarding).toBe("fundedApprove");
      expect(funded.settlement.success).toBe(true);
      const raw = funded.body.paymentPayload.approval?.signedTransaction as Hex;
      expect(funded.approval).toBe(keccak256(raw));
      // The approve as signed: the relayer for approveAmount, at nonce 0, within /config's caps.
      const approve = parseTransaction(raw);
      expect(getAddress(approve.to ?? "0x")).toBe(usdt);
      expect(decodeFunctionData({ abi: erc20Abi, data: approve.data ?? "0x" }).args).toEqual([
        chain.info.relayer,
        2n * price,
      ]);
      expect(approve.nonce).toBe(0);
      const caps = (await getNetworkConfig(served.client, network)).fundedApprove;
      expect(caps).toMatchObject({ enabled: true });
      expect(approve.gas as bigint).toBeLessThanOrEqual(BigInt(caps?.maxGas ?? 0));
      expect(approve.maxFeePerGas as bigint).toBeLessThanOrEqual(BigInt(caps?.maxFeePerGas ?? 0));
      const fundedCost = (approve.gas as bigint) * (approve.maxFeePerGas as bigint);
      const receipt = await chain.public.getTransactionReceipt({ hash: keccak256(raw) });
      expect(receipt.status).toBe("success");

      // Chain balances: the payees got the values, the payer lost them and holds only the approve's unspent gas.
      expect(await tokenBalance(network, pusd, byPermit.body.paymentPayload.payload.authorization.to)).toBe(pusdValue);
      expect(await tokenBalance(network, pusd, payer.address)).toBe(0n);
      expect(await tokenBalance(network, usdt, payTo)).toBe(price);
      expect(await tokenBalance(network, usdt, payer.address)).toBe(usdtBefore - price);
      const leftover = fundedCost - receipt.gasUsed * receipt.effectiveGasPrice;
      expect(await nativeBalance(network, payer.address)).toBe(leftover);
      expect(await chain.public.getTransactionCount({ address: payer.address })).toBe(1);

      // Our executors sent exactly: the permit settle, the funding of exactly the approve's cost, the USDT settle.
      const sent = await executorTransactions(network, from);
      const relayerCall = (input: Hex) => decodeFunctionData({ abi: relayerAbi, data: input }).functionName;
      expect(
        sent.map((transaction) => [
          transaction.to,
          transaction.to === chain.info.relayer ? relayerCall(transaction.input) : transaction.value,
        ]),
      ).toEqual([
        [chain.info.relayer, "transferWithAuthorizationWithPermit"],
        [payer.address, fundedCost],
        [chain.info.relayer, "transferWithAuthorization"],
      ]);
      const spent = sent.reduce((sum, transaction) => sum + transaction.cost, 0n);
      expect(executorsBefore - (await executorsNative(network))).toBe(spent);

      // The next payment finds its allowance: nothing to sign, nothing funded.
      const again = await payOn(network, served.client, payer.key, usdt, price, { to: payTo });
      expect(again.onboarding).toBe("none");
      expect(again.body.paymentPayload.approval).toBeUndefined();
      expect(await tokenBalance(network, usdt, payTo)).toBe(2n * price);
      expect(await nativeBalance(network, payer.address)).toBe(leftover);
    });
  }

  test("bsc: where the service funds no approve, or below the token's minimum, pay refuses before anything is signed or sent", async () => {
    const payer = await tokenOnlyPayer("bsc");
    const executorsBefore = await executorsNative("bsc");
    const unfundedConfig = await getNetworkConfig(unfunded.client, "bsc");
    expect(unfundedConfig.fundedApprove?.enabled).toBe(false);
    await expect(payOn("bsc", unfunded.client, payer.key, plainToken(), price)).rejects.toMatchObject({
      name: "Relay402ClientError",
      code: "insufficient_gas",
      details: { address: payer.address, reason: "funded_approve_disabled" },
    });
    const minimum = BigInt(
      (await getNetworkConfig(served.client, "bsc")).tokens.find((token) => token.address === plainToken())
        ?.fundedApproveMinPayment ?? "0",
    );
    expect(minimum).toBe(10n ** 17n); // the documented default: 0.1 token
    await expect(payOn("bsc", served.client, payer.key, plainToken(), minimum - 1n)).rejects.toMatchObject({
      code: "insufficient_gas",
      details: { reason: "below_funded_approve_minimum", minimum: minimum.toString() },
    });
    expect(await c.public.getTransactionCount({ address: payer.address })).toBe(0);
    expect(await nativeBalance("bsc", payer.address)).toBe(0n);
    expect(await executorsNative("bsc")).toBe(executorsBefore);
  });
});

describe("an MCP agent's key holding only USDT", () => {
  test("payWithinLimits pays through a funded approve, within the operator's limits", async () => {
    const payer = await tokenOnlyPayer("bsc");
    const dataDir = mkdtempSync(join(tmpdir(), "relay402-agent-"));
    const to = randomAddress();
    const context: PaymentContext = {
      settings: {
        url: served.server.url.origin,
        account: privateKeyToAccount(payer.key),
        rpcUrls: { bsc: c.info.rpcUrl },
        limits: [{ network: "bsc", token: plainToken(), perPayment: "1" }],
        dataDir,
      },
      relay402: served.client,
      ledger: new SpendLedger(join(dataDir, "spent.jsonl")),
      chain: chainFactsFrom({ bsc: c.info.rpcUrl }),
      clientsFor: async () => ({ signer: c.walletFor(payer.key), publicClient: c.public as PublicClient }),
      logFile: join(dataDir, "payments.log"),
    };
    const before = await tokenBalance("bsc", plainToken(), payer.address);
    const outcome = await payWithinLimits(context, "relay402_pay", {
      network: "bsc",
      token: plainToken(),
      to,
      amount: "1",
      idempotencyKey: "funded-approve-agent",
    });
    expect(outcome).toMatchObject({ status: "paid", amountBaseUnits: price.toString(), repeated: false });
    expect(await tokenBalance("bsc", plainToken(), to)).toBe(price);
    expect(await tokenBalance("bsc", plainToken(), payer.address)).toBe(before - price);
    // Its one transaction is the approve the service funded and broadcast.
    expect(await c.public.getTransactionCount({ address: payer.address })).toBe(1);
    const allowance = await c.public.readContract({
      address: plainToken(),
      abi: erc20Abi,
      functionName: "allowance",
      args: [payer.address, relayer],
    });
    expect(allowance).toBe(0n);
  });
});
