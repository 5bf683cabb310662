// @relay402/client against the test devnet: what the examples do not show (cancel, typed refusals, a service
// whose UserOp is not what was asked, the Eden raw client). Balances on-chain judge.
import { afterAll, describe, expect, test } from "bun:test";
import {
  cancelAuthorization,
  createRelay402Client,
  deployWalletsFromEoa,
  getNetworkConfig,
  payFromWallet,
  Relay402ClientError,
  settlePayment,
  signTransferAuthorization,
  verifyPayment,
} from "@relay402/client";
import { encodeBatchExecution } from "@relay402/client/wire/execution";
import { payBatchCalls } from "@relay402/client/wire/pay-batch";
import { createWalletClient, type Hex, http, toHex } from "viem";
import { approveRelayer, chainOf, freshPayer, randomAddress, tokenBalance } from "./support/chain";
import { createRawClient } from "./support/raw-client";
import { trackServices } from "./support/service";
import { deployFundedWallet } from "./support/wallet";

const network = "bsc";
const services = trackServices();
const service = services.start();
const server = Bun.serve({ port: 0, fetch: (request) => service.app.handle(request) });
afterAll(() => {
  server.stop(true);
  services.stopAll();
});

const c = chainOf(network);
const unit = 10n ** BigInt(c.token.decimals);
const relay402 = createRelay402Client({ url: server.url.origin });
const balance = (holder: Hex) => tokenBalance(network, c.token.address, holder);

describe("@relay402/client", () => {
  test("a cancelled authorization is refused by verify and settle with nonce_error, and nothing moves", async () => {
    const payer = await freshPayer(network);
    await approveRelayer(network, payer.key, unit);
    const signer = c.walletFor(payer.key);
    const config = await getNetworkConfig(relay402, network);
    const to = randomAddress();
    const paymentPayload = await signTransferAuthorization({ signer, config, token: c.token.address, to, value: unit });
    const body = {
      paymentPayload,
      paymentRequirements: { network, relayerContract: config.contracts.relayer },
    } as const;
    expect((await verifyPayment(relay402, body)).isValid).toBe(true);

    const hash = await cancelAuthorization(relay402, {
      signer,
      network,
      nonce: paymentPayload.payload.authorization.nonce,
    });
    expect((await c.public.waitForTransactionReceipt({ hash })).status).toBe("success");
    await expect(verifyPayment(relay402, body)).rejects.toMatchObject({ code: "nonce_error" });
    const refused = (await settlePayment(relay402, body).catch((e) => e)) as Relay402ClientError;
    expect(refused).toBeInstanceOf(Relay402ClientError);
    expect(refused).toMatchObject({ code: "nonce_error", status: 400 });
    expect(await balance(to)).toBe(0n);
  });

  test("a payer without tokens gets a typed refusal from verify", async () => {
    const payer = await freshPayer(network, { tokens: 0n });
    const signer = c.walletFor(payer.key);
    const config = await getNetworkConfig(relay402, network);
    const paymentPayload = await signTransferAuthorization({
      signer,
      config,
      token: c.token.address,
      to: randomAddress(),
      value: unit,
    });
    const error = (await verifyPayment(relay402, {
      paymentPayload,
      paymentRequirements: { network, relayerContract: config.contracts.relayer },
    }).catch((e) => e)) as Relay402ClientError;
    expect(error).toBeInstanceOf(Relay402ClientError);
    expect(error.code).toBe("payment_verification_error");
    expect(error.message).toBeString();
  });

  test("a UserOp that pays someone else than asked is refused before the owner signs; nothing is settled", async () => {
    const { owner, wallet } = await deployFundedWallet(network, 10n * unit);
    const attacker = randomAddress();
    let settles = 0;
    // A service that answers /wallet/verify with a UserOp paying the attacker instead (same shape, its own hash).
    const tampering = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input);
      if (url.endsWith("/wallet/settle")) settles++;
      const response = await fetch(input, init);
      if (!url.endsWith("/wallet/verify") || !response.ok) return response;
      const answer = (await response.json()) as { userOp: { callData: Hex }; totalAmount: string };
      const config = await getNetworkConfig(relay402, network);
      answer.userOp.callData = encodeBatchExecution(
        payBatchCalls({
          token: c.token.address,
          relayer: config.contracts.relayer,
          payments: [{ to: attacker, amount: BigInt(answer.totalAmount) }],
        }),
      );
      return Response.json(answer);
    }) as typeof fetch;
    const client = createRelay402Client({ url: server.url.origin, fetch: tampering });
    const signer = createWalletClient({ chain: c.chain, transport: http(c.info.rpcUrl), account: owner });
    const error = (await payFromWallet(client, {
      owner: signer,
      wallet,
      network,
      token: c.token.address,
      transfers: [{ to: randomAddress(), amount: unit }],
    }).catch((e) => e)) as Relay402ClientError;
    expect(error).toMatchObject({ code: "unexpected_response", details: { field: "userOp.callData" } });
    expect(settles).toBe(0);
    expect(await balance(wallet)).toBe(10n * unit);
    expect(await balance(attacker)).toBe(0n);
  });

  test("a quote naming a wallet address the factory would not deploy is refused before any funding is signed", async () => {
    const payer = await freshPayer(network);
    const attacker = randomAddress();
    const calls: string[] = [];
    const tampering = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input);
      calls.push(new URL(url).pathname);
      const response = await fetch(input, init);
      if (!url.endsWith("/deploy/quote") || !response.ok) return response;
      const answer = (await response.json()) as { wallets: { address: string }[] };
      answer.wallets[0]!.address = attacker;
      return Response.json(answer);
    }) as typeof fetch;
    const client = createRelay402Client({
      url: server.url.origin,
      fetch: tampering,
      adminApiKey: service.config.adminApiKey,
    });
    const before = await balance(payer.address);
    const error = (await deployWalletsFromEoa(client, {
      network,
      owner: payer.address,
      salts: [toHex(crypto.getRandomValues(new Uint8Array(32)))],
      token: c.token.address,
      fundingAmounts: [5n * unit],
      publicClient: c.public,
      payer: c.walletFor(payer.key),
    }).catch((e) => e)) as Relay402ClientError;
    expect(error).toMatchObject({ code: "unexpected_response", details: { field: "wallets" } });
    expect(calls.filter((path) => path.startsWith("/deploy/") && path !== "/deploy/quote")).toEqual([]);
    expect(await balance(payer.address)).toBe(before);
    expect(await balance(attacker)).toBe(0n);
  });

  test("the Eden raw client is typed by the server's routes", async () => {
    const raw = createRawClient(server.url.origin);
    const owner = randomAddress();
    const { data, status } = await raw.wallet({ owner }).master.get();
    expect(status).toBe(200);
    expect(data?.ownerAddress.toLowerCase()).toBe(owner.toLowerCase());
    expect(data?.walletAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });
});
