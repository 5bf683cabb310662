import { afterAll, describe, expect, test } from "bun:test";
import { erc20Abi, relayerAbi } from "@relay402/client/wire/abis";
import { type Address, type Hex, maxUint256, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import { devnetKeys } from "../../scripts/devnet/keys";
import type { NetworkName } from "../../scripts/devnet/start";
import { openDatabase } from "../../src/db/open";
import { createSqliteDenyCounters } from "../../src/deny/sqlite-deny-counters";
import { denyPolicyOf } from "../../src/services";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, NETWORK_NAMES, randomAddress, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import { deployFundedWallet } from "../support/wallet";

// Attacks that made the executors pay gas for payments that could never pay anything: each one must be
// refused before a transaction is signed, so the executors' nonces and balances are the judge.

const tracked = trackServices();
afterAll(() => tracked.stopAll());

const MIN_PAYMENT = 1000n;
const service = tracked.start({}, (config) => {
  for (const network of NETWORK_NAMES) {
    for (const token of config.networks[network]?.tokens ?? []) token.minPaymentValue = MIN_PAYMENT;
  }
});

const unit = (network: NetworkName) => 10n ** BigInt(chainOf(network).token.decimals);
const now = () => Math.floor(Date.now() / 1000);

/** Pending nonce and balance of every executor key: unchanged means nothing was sent. */
async function executorState(network: NetworkName) {
  const c = chainOf(network);
  return Promise.all(
    devnetKeys.executors.map(async (key) => {
      const address = privateKeyToAccount(key).address;
      const [nonce, balance] = await Promise.all([
        c.public.getTransactionCount({ address, blockTag: "pending" }),
        c.public.getBalance({ address }),
      ]);
      return { nonce, balance };
    }),
  );
}

async function readyPayer(network: NetworkName) {
  const payer = await freshPayer(network);
  await approveRelayer(network, payer.key, 1000n * unit(network));
  return payer;
}

function expectInvalid(response: { status: number; body: any }, message: RegExp) {
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({ isValid: false, invalidReason: "payment_verification_error" });
  expect(response.body.invalidMessage).toMatch(message);
}

function expectRefused(response: { status: number; body: any }, message: RegExp) {
  expect(response.status).toBe(400);
  expect(response.body.code).toBe("payment_verification_error");
  expect(response.body.message).toMatch(message);
}

const authorizationUsed = (network: NetworkName, body: Awaited<ReturnType<typeof signedPayment>>) =>
  chainOf(network).public.readContract({
    address: chainOf(network).info.relayer,
    abi: relayerAbi,
    functionName: "authorizationState",
    args: [body.paymentPayload.payload.authorization.from, body.paymentPayload.payload.authorization.nonce as Hex],
  });

/** A contract payer that accepts its owner's signature only when tx.gasprice is 0 (contracts/test-helpers). */
async function gasPriceGatedWallet(network: NetworkName) {
  const c = chainOf(network);
  const owner = await freshPayer(network, { tokens: 0n });
  const client = c.walletFor(owner.key);
  const deployed = await c.public.waitForTransactionReceipt({
    hash: await client.deployContract({
      abi: parseAbi(["constructor(address owner_)"]),
      bytecode: forgeArtifact("GasPriceGatedWallet.sol", "GasPriceGatedWallet").bytecode,
      args: [owner.address],
    }),
    pollingInterval: 50,
  });
  const wallet = deployed.contractAddress as Address;
  for (const hash of [
    await client.writeContract({
      address: c.token.address,
      abi: erc20Abi,
      functionName: "mint",
      args: [wallet, 100n * unit(network)],
    }),
    await client.writeContract({
      address: wallet,
      abi: parseAbi(["function approve(address token, address spender, uint256 amount)"]),
      functionName: "approve",
      args: [c.token.address, c.info.relayer, maxUint256],
    }),
  ]) {
    expect((await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");
  }
  return { owner, wallet };
}

for (const network of NETWORK_NAMES) {
  describe(`${network}: payments that would only spend the executors' gas`, () => {
    test("a zero value from a key with no tokens, no approval and no gas is refused at /verify and /settle, nothing sent", async () => {
      const stranger = await freshPayer(network, { tokens: 0n, gas: false });
      const body = await signedPayment({ network, key: stranger.key, to: randomAddress(), value: 0n });
      const before = await executorState(network);

      expectInvalid(await service.post("/verify", body), /value must be above zero/);
      expectRefused(await service.post("/settle", body), /value must be above zero/);

      expect(await executorState(network)).toEqual(before);
      expect(await authorizationUsed(network, body)).toBe(false);
    });

    test("a value below the token's minPaymentValue is refused at /verify and /settle, nothing sent", async () => {
      const payer = await readyPayer(network);
      const to = randomAddress();
      const body = await signedPayment({ network, key: payer.key, to, value: MIN_PAYMENT - 1n });
      const before = await executorState(network);

      expectInvalid(await service.post("/verify", body), new RegExp(`at least ${MIN_PAYMENT}`));
      // Needs the settler to pass the network's rules to verifyPayment (see report).
      expectRefused(await service.post("/settle", body), new RegExp(`at least ${MIN_PAYMENT}`));

      expect(await executorState(network)).toEqual(before);
      expect(await tokenBalance(network, chainOf(network).token.address, to)).toBe(0n);
      // The minimum itself is accepted.
      const exact = await signedPayment({ network, key: payer.key, to, value: MIN_PAYMENT });
      expect((await service.post("/verify", exact)).body).toEqual({ isValid: true, payer: payer.address });
    });

    test("validBefore = now, or inside the margin, is refused at /verify and /settle, nothing sent", async () => {
      const payer = await readyPayer(network);
      const atNow = await signedPayment({
        network,
        key: payer.key,
        to: randomAddress(),
        value: unit(network),
        validBefore: now(),
      });
      // Default margin 6 s: 3 s ahead still passes the relayer's own window check but would expire before mining.
      const soon = await signedPayment({
        network,
        key: payer.key,
        to: randomAddress(),
        value: unit(network),
        validBefore: now() + 3,
      });
      const before = await executorState(network);

      expectInvalid(await service.post("/verify", soon), /authorization expires too soon/);
      expectRefused(await service.post("/settle", soon), /authorization expires too soon/);
      expectInvalid(await service.post("/verify", atNow), /authorization expires too soon|authorization expired/);
      expectRefused(await service.post("/settle", atNow), /authorization expires too soon|authorization expired/);

      expect(await executorState(network)).toEqual(before);
      expect(await authorizationUsed(network, soon)).toBe(false);
      expect(await authorizationUsed(network, atNow)).toBe(false);
    });

    test("a contract payer whose signature holds only at gas price zero is refused at /settle, nothing sent", async () => {
      const { owner, wallet } = await gasPriceGatedWallet(network);
      const to = randomAddress();
      const body = await signedPayment({ network, key: owner.key, from: wallet, to, value: unit(network) });
      const before = await executorState(network);

      const verify = await service.post("/verify", body);
      expect(verify.status).toBe(200);
      // Whatever /verify said, the exact transaction is simulated before signing: it would revert, so nothing is sent.
      // Needs the settler's simulation (src/chain/durable-send.ts, see report).
      expectRefused(await service.post("/settle", body), /would revert/);

      expect(await executorState(network)).toEqual(before);
      expect(await authorizationUsed(network, body)).toBe(false);
      expect(await tokenBalance(network, chainOf(network).token.address, to)).toBe(0n);
    });
  });

  describe(`${network}: payers and wallet owners whose settlements keep reverting`, () => {
    const DAY = 86_400;
    /** The service's own deny store, on its SQLite file, but with a clock of our choosing. */
    const countersAt = (clock: () => number) => {
      const db = openDatabase(service.databasePath);
      return {
        counters: createSqliteDenyCounters(db, { ...denyPolicyOf(service.config), now: clock }),
        close: () => db.$client.close(),
      };
    };
    const recordReverts = async (kind: "payer" | "owner", address: Address, clock: () => number) => {
      const { counters, close } = countersAt(clock);
      try {
        for (let i = 0; i < service.config.denyAfterReverts; i++) {
          await counters.recordRevert(network, kind, address, "settlement reverted");
        }
      } finally {
        close();
      }
    };

    test("a payer with denyAfterReverts reverts is refused at /verify and /settle, nothing sent", async () => {
      const payer = await readyPayer(network);
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) });
      // One revert short of the threshold: still served.
      const { counters, close } = countersAt(now);
      for (let i = 1; i < service.config.denyAfterReverts; i++)
        await counters.recordRevert(network, "payer", payer.address, "x");
      close();
      expect((await service.post("/verify", body)).body).toEqual({ isValid: true, payer: payer.address });

      await service.services.deny.recordRevert(network, "payer", payer.address, "settlement reverted");
      const before = await executorState(network);
      expectInvalid(await service.post("/verify", body), /payer refused after repeated failed settlements/);
      // Needs the settler to pass the network's rules to verifyPayment (see report).
      expectRefused(await service.post("/settle", body), /payer refused after repeated failed settlements/);
      expect(await executorState(network)).toEqual(before);
      expect(await authorizationUsed(network, body)).toBe(false);
      // Per network: the same payer is served on the other one.
      const other = network === "bsc" ? "base" : "bsc";
      expect(await service.services.deny.isDenied(other, "payer", payer.address)).toBe(false);
    });

    test("the refusal decays denyWindowSeconds after the last revert", async () => {
      const payer = await readyPayer(network);
      const body = await signedPayment({ network, key: payer.key, to: randomAddress(), value: unit(network) });
      await recordReverts("payer", payer.address, () => now() - DAY - 60);
      expect((await service.post("/verify", body)).body).toEqual({ isValid: true, payer: payer.address });
      await recordReverts("payer", payer.address, () => now() - DAY + 600);
      expectInvalid(await service.post("/verify", body), /payer refused/);
    });

    test("a denied owner's wallet is refused at /wallet/verify and /deploy/wallet/verify (validation_error on the paying wallet)", async () => {
      const c = chainOf(network);
      const { owner, wallet } = await deployFundedWallet(network, 100n * unit(network));
      const walletVerify = {
        walletAddress: wallet,
        transactions: [{ to: randomAddress(), amount: unit(network).toString(), token: c.token.address }],
        paymentRequirements: { network },
      };
      const deployVerify = {
        paymentRequirements: {
          network,
          deployment: {
            ownerAddress: randomAddress(),
            salts: [`0x${"ab".repeat(32)}`],
            token: c.token.address,
            payerAddress: wallet,
          },
        },
      };
      const admin = { "x-admin-api-key": service.config.adminApiKey };
      expect((await service.post("/wallet/verify", walletVerify)).status).toBe(200);

      await recordReverts("owner", owner.address, now);
      // Each endpoint names the field of its own body that holds the paying wallet.
      for (const [response, field] of [
        [await service.post("/wallet/verify", walletVerify), "walletAddress"],
        [
          await service.post("/deploy/wallet/verify", deployVerify, admin),
          "paymentRequirements.deployment.payerAddress",
        ],
      ] as const) {
        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({
          code: "validation_error",
          message: "wallet owner refused after repeated failed settlements",
          details: { field },
        });
      }
      // An owner is not a payer: the same address as an EOA payer is judged on its own count.
      expect(await service.services.deny.isDenied(network, "payer", owner.address)).toBe(false);
    });
  });
}

test("GET /config lists the validBefore margin, the relayer's ERC-1271 gas limit and each token's minimum payment", async () => {
  const response = await service.get("/config");
  expect(response.status).toBe(200);
  for (const network of NETWORK_NAMES) {
    const entry = response.body.networks[network];
    expect(entry.limits).toEqual({ validBeforeMarginSeconds: 6, erc1271GasLimit: 100_000 });
    expect(entry.tokens[0].minPaymentValue).toBe(MIN_PAYMENT.toString());
  }
});
