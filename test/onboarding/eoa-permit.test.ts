import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createRelay402Client,
  getNetworkConfig,
  type PaymentBody,
  pay,
  Relay402ClientError,
  settlePayment,
  signTransferAuthorization,
  verifyPayment,
} from "@relay402/client";
import { erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import { eip2612Abi } from "@relay402/client/wire/eip2612-permit";
import { decodeFunctionData, getAddress, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type PaymentContext, payWithinLimits } from "../../packages/client/src/mcp/agent-payment";
import { chainFactsFrom } from "../../packages/client/src/mcp/chain-facts";
import { SpendLedger } from "../../packages/client/src/mcp/spend-ledger";
import { chainOf, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { tokenOnlyPayer } from "./funded-approve-support";
import { EXECUTORS, executorsNative, gasCost, permitToken, signPermit } from "./permit-support";

// relay402's own EOA flow for a payer holding only a token with EIP-2612 permit and no native coin: its permit to
// the relayer goes on-chain with the payment (Relayer.transferWithAuthorizationWithPermit), on our executors' gas.

const services = trackServices();
const service = services.start();
const server = Bun.serve({ port: 0, fetch: (request) => service.app.handle(request) });
afterAll(() => {
  server.stop(true);
  services.stopAll();
});
const relay402 = createRelay402Client({ url: server.url.origin });
const VALUE = 400_000n; // 0.4 of the 6-decimal permit token

/** The relayer function a transaction called, and who sent it. */
async function relayerCall(network: "bsc" | "base", hash: Hex) {
  const transaction = await chainOf(network).public.getTransaction({ hash });
  expect(getAddress(transaction.to ?? "0x")).toBe(getAddress(chainOf(network).info.relayer));
  return {
    from: getAddress(transaction.from),
    name: decodeFunctionData({ abi: relayerAbi, data: transaction.input }).functionName,
  };
}

describe("EOA payments with an EIP-2612 permit: a payer with no native coin pays through relay402/client's pay", () => {
  for (const network of NETWORK_NAMES) {
    test(`${network}: pay() signs a permit on its own; exact balances, our executors pay the one transaction`, async () => {
      const c = chainOf(network);
      const token = permitToken(network).address;
      const payer = await tokenOnlyPayer(network, VALUE * 3n, token);
      const to = randomAddress();
      const executorsBefore = await executorsNative(network);

      const result = await pay(relay402, {
        signer: c.walletFor(payer.key),
        publicClient: c.public,
        network,
        token,
        to,
        value: VALUE,
      });
      expect(result.onboarding).toBe("permit");
      expect(result.approval).toBeUndefined();
      expect(result.settlement.success).toBe(true);

      expect(await tokenBalance(network, token, to)).toBe(VALUE);
      expect(await tokenBalance(network, token, payer.address)).toBe(VALUE * 2n);
      expect(await c.public.getBalance({ address: payer.address })).toBe(0n);
      const call = await relayerCall(network, result.settlement.transaction);
      expect(call.name).toBe("transferWithAuthorizationWithPermit");
      const { gasUsed } = await c.public.getTransactionReceipt({ hash: result.settlement.transaction });
      console.log(`${network}: EOA transferWithAuthorizationWithPermit gasUsed ${gasUsed}`);
      expect(EXECUTORS).toContain(call.from);
      expect(executorsBefore - (await executorsNative(network))).toBe(
        await gasCost(network, result.settlement.transaction),
      );
      // The permit granted exactly the payment, which it spent.
      const allowance = await c.public.readContract({
        address: token,
        abi: erc20Abi,
        functionName: "allowance",
        args: [payer.address, c.info.relayer],
      });
      expect(allowance).toBe(0n);
    });
  }
});

describe("EOA permit refusals and races (bsc)", () => {
  const network = "bsc" as const;
  const c = chainOf(network);
  const token = () => permitToken(network).address;

  /** A token-only payer, its signed authorization of VALUE and a body without permit yet. */
  async function unsigned() {
    const payer = await tokenOnlyPayer(network, VALUE * 4n, token());
    const config = await getNetworkConfig(relay402, network);
    const to = randomAddress();
    const paymentPayload = await signTransferAuthorization({
      signer: c.walletFor(payer.key),
      config,
      token: token(),
      to,
      value: VALUE,
    });
    const body: PaymentBody = { paymentPayload, paymentRequirements: { network, relayerContract: c.info.relayer } };
    return { payer, to, body };
  }
  const withPermit = (body: PaymentBody, permit: { value: bigint; deadline: bigint; signature: Hex }): PaymentBody => ({
    ...body,
    paymentPayload: {
      ...body.paymentPayload,
      permit: { value: permit.value.toString(), deadline: permit.deadline.toString(), signature: permit.signature },
    },
  });

  test("no permit, a smaller value, another nonce, another spender, an expiring deadline: refused naming the field, no gas spent", async () => {
    const { payer, to, body } = await unsigned();
    const executorsBefore = await executorsNative(network);
    const refusal = (b: PaymentBody) => settlePayment(relay402, b).catch((error) => error as Relay402ClientError);
    const permit = async (change: { value?: bigint; nonce?: bigint; spender?: Hex; deadline?: bigint }) => {
      const value = change.value ?? VALUE;
      const signed = await signPermit(network, payer.key, {
        token: token(),
        spender: change.spender ?? c.info.relayer,
        value,
        ...(change.nonce !== undefined ? { nonce: change.nonce } : {}),
        ...(change.deadline !== undefined ? { deadline: change.deadline } : {}),
      });
      return withPermit(body, { value, deadline: signed.deadline, signature: signed.signature });
    };

    expect(await refusal(body)).toMatchObject({ code: "payment_verification_error", status: 400 });
    const cases: [PaymentBody, string][] = [
      [await permit({ value: VALUE - 1n }), "paymentPayload.permit.value"],
      [await permit({ nonce: 7n }), "paymentPayload.permit.signature"],
      [await permit({ spender: randomAddress() }), "paymentPayload.permit.signature"],
      [await permit({ deadline: BigInt(Math.floor(Date.now() / 1000) + 2) }), "paymentPayload.permit.deadline"],
    ];
    for (const [refused, field] of cases) {
      const error = await refusal(refused);
      expect(error).toBeInstanceOf(Relay402ClientError);
      expect(error).toMatchObject({ code: "payment_verification_error", status: 400, details: { field } });
      await expect(verifyPayment(relay402, refused)).rejects.toMatchObject({ code: "payment_verification_error" });
    }
    const malformed = withPermit(body, { value: VALUE, deadline: 10n ** 12n, signature: "0x1234" });
    expect(await refusal(malformed)).toMatchObject({
      code: "signature_error",
      status: 400,
      details: { field: "paymentPayload.permit.signature" },
    });
    expect(await executorsNative(network)).toBe(executorsBefore);
    expect(await tokenBalance(network, token(), to)).toBe(0n);
    expect(await tokenBalance(network, token(), payer.address)).toBe(VALUE * 4n);
  });

  test("ten concurrent settles of one payment carrying its permit: one transaction with the permit, paid once", async () => {
    const { payer, to, body } = await unsigned();
    const signed = await signPermit(network, payer.key, { token: token(), spender: c.info.relayer, value: VALUE });
    const sponsored = withPermit(body, { value: VALUE, deadline: signed.deadline, signature: signed.signature });
    const executorsBefore = await executorsNative(network);
    const answers = await Promise.all(Array.from({ length: 10 }, () => settlePayment(relay402, sponsored)));
    const transactions = new Set(answers.map((answer) => answer.transaction));
    expect(transactions.size).toBe(1);
    const [transaction] = [...transactions] as [Hex];
    expect((await relayerCall(network, transaction)).name).toBe("transferWithAuthorizationWithPermit");
    expect(executorsBefore - (await executorsNative(network))).toBe(await gasCost(network, transaction));
    expect(await tokenBalance(network, token(), to)).toBe(VALUE);
    expect(await tokenBalance(network, token(), payer.address)).toBe(VALUE * 3n);
    expect(await c.public.getBalance({ address: payer.address })).toBe(0n);
  });

  test("the permit submitted first by a stranger, then ten concurrent settles: one transaction without the permit, paid once", async () => {
    const { payer, to, body } = await unsigned();
    const signed = await signPermit(network, payer.key, { token: token(), spender: c.info.relayer, value: VALUE });
    const sponsored = withPermit(body, { value: VALUE, deadline: signed.deadline, signature: signed.signature });
    const stranger = generatePrivateKey();
    await c.test.setBalance({ address: privateKeyToAccount(stranger).address, value: 10n ** 18n });
    const s = signed.signature;
    const hash = await c.walletFor(stranger).writeContract({
      address: token(),
      abi: eip2612Abi,
      functionName: "permit",
      args: [
        payer.address,
        c.info.relayer,
        VALUE,
        signed.deadline,
        Number.parseInt(s.slice(130, 132), 16),
        `0x${s.slice(2, 66)}`,
        `0x${s.slice(66, 130)}`,
      ],
    });
    expect((await c.public.waitForTransactionReceipt({ hash })).status).toBe("success");

    const executorsBefore = await executorsNative(network);
    const answers = await Promise.all(Array.from({ length: 10 }, () => settlePayment(relay402, sponsored)));
    const transactions = new Set(answers.map((answer) => answer.transaction));
    expect(transactions.size).toBe(1);
    const [transaction] = [...transactions] as [Hex];
    expect((await relayerCall(network, transaction)).name).toBe("transferWithAuthorization");
    const { gasUsed } = await c.public.getTransactionReceipt({ hash: transaction });
    console.log(`bsc: EOA transferWithAuthorization after a foreign permit gasUsed ${gasUsed}`);
    expect(executorsBefore - (await executorsNative(network))).toBe(await gasCost(network, transaction));
    expect(await tokenBalance(network, token(), to)).toBe(VALUE);
    expect(await tokenBalance(network, token(), payer.address)).toBe(VALUE * 3n);

    // The same body replayed answers the first result (the interface's idempotent replay); its permit, used, is
    // refused with a new payment since the allowance it granted is spent.
    expect((await settlePayment(relay402, sponsored)).transaction).toBe(transaction);
    const config = await getNetworkConfig(relay402, network);
    const second = await signTransferAuthorization({
      signer: c.walletFor(payer.key),
      config,
      token: token(),
      to,
      value: VALUE,
    });
    const reused = withPermit(
      { ...body, paymentPayload: second },
      { value: VALUE, deadline: signed.deadline, signature: signed.signature },
    );
    await expect(verifyPayment(relay402, reused)).rejects.toMatchObject({ code: "payment_verification_error" });
    expect(await executorsNative(network)).toBe(executorsBefore - (await gasCost(network, transaction)));
  });
});

describe("an MCP agent's key holding only the permit token", () => {
  test("payWithinLimits pays with a permit, within the operator's limits, on our executors' gas", async () => {
    const network = "base" as const;
    const c = chainOf(network);
    const token = permitToken(network).address;
    const payer = await tokenOnlyPayer(network, VALUE * 2n, token);
    const dataDir = mkdtempSync(join(tmpdir(), "relay402-agent-"));
    const account = privateKeyToAccount(payer.key);
    const to = randomAddress();
    const context: PaymentContext = {
      settings: {
        url: server.url.origin,
        account,
        rpcUrls: { [network]: c.info.rpcUrl },
        limits: [{ network, token, perPayment: "1" }],
        dataDir,
      },
      relay402,
      ledger: new SpendLedger(join(dataDir, "spent.jsonl")),
      chain: chainFactsFrom({ [network]: c.info.rpcUrl }),
      clientsFor: async () => ({ signer: c.walletFor(payer.key), publicClient: c.public as PublicClient }),
      logFile: join(dataDir, "payments.log"),
    };
    const executorsBefore = await executorsNative(network);
    const outcome = await payWithinLimits(context, "relay402_pay", {
      network,
      token,
      to,
      amount: "0.4",
      idempotencyKey: "zero-gas-agent",
    });
    expect(outcome).toMatchObject({ status: "paid", amountBaseUnits: VALUE.toString(), repeated: false });
    const transaction = (outcome as { transaction: Hex }).transaction;
    expect((await relayerCall(network, transaction)).name).toBe("transferWithAuthorizationWithPermit");
    expect(await tokenBalance(network, token, to)).toBe(VALUE);
    expect(await tokenBalance(network, token, payer.address)).toBe(VALUE);
    expect(await c.public.getBalance({ address: payer.address })).toBe(0n);
    expect(executorsBefore - (await executorsNative(network))).toBe(await gasCost(network, transaction));
  });
});
