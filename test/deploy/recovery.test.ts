import { afterAll, describe, expect, test } from "bun:test";
import type { Hex } from "viem";
import { generatePrivateKey } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import {
  adminHeaders,
  batchOf,
  entryPointNonce,
  eoaDeployment,
  hasCode,
  issuedStatus,
  randomOwner,
  randomSalt,
  rowsOf,
  unitOf,
  userOpSubmitted,
  waitFor,
  walletDeployment,
} from "./support";

const servers: ReturnType<typeof Bun.serve>[] = [];
const tracked = trackServices();
const start = tracked.start;
afterAll(async () => {
  for (const network of ["base", "bsc"] as const) await chainOf(network).test.setAutomine(true);
  tracked.stopAll();
  for (const server of servers) server.stop(true);
});

/** A JSON-RPC endpoint in front of the network's bundler; `answer` may answer a call itself (undefined forwards it). */
function bundlerProxy(
  network: NetworkName,
  answer: (request: { id: number; method: string }) => unknown | Promise<unknown>,
): string {
  const target = chainOf(network).info.bundlerUrl;
  const server = Bun.serve({
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as { id: number; method: string };
      const own = await answer(body);
      if (own instanceof Response) return own;
      if (own !== undefined) return Response.json({ jsonrpc: "2.0", id: body.id, result: own });
      const upstream = await fetch(target, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return new Response(await upstream.text(), {
        status: upstream.status,
        headers: { "content-type": "application/json" },
      });
    },
  });
  servers.push(server);
  return server.url.href;
}

/** The UserOp's bundle transaction, as the real bundler reports it. */
async function userOpTransaction(network: NetworkName, hash: Hex): Promise<Hex> {
  const response = await fetch(chainOf(network).info.bundlerUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getUserOperationReceipt", params: [hash] }),
  });
  const { result } = (await response.json()) as { result: { receipt: { transactionHash: Hex } } | null };
  if (!result) throw new Error(`no receipt for UserOp ${hash}`);
  return result.receipt.transactionHash;
}

describe("deployment recovery, on the devnet", () => {
  test("a fee UserOp mined while its batch was left sending, and a bundler that lost its receipt: the chain tells it was paid, once", async () => {
    const network = "base";
    const c = chainOf(network);
    const unit = unitOf(network);
    const first = start();
    const funding = [unit, 2n * unit];
    const flow = await walletDeployment(first, network, funding);
    const nonceBefore = await entryPointNonce(network, flow.payer);
    const recipientBefore = await tokenBalance(network, c.token.address, c.info.feeRecipient);
    await c.test.setAutomine(false);
    try {
      const settling = first.post("/deploy/wallet/settle", flow.body, adminHeaders(first)).catch(() => undefined);
      await waitFor(userOpSubmitted(network, flow.hash));
      first.stop(); // the process dies with the batch `sending`
      await c.test.mine({ blocks: 1 }); // the UserOp is mined while it is down
      await settling;
    } finally {
      await c.test.setAutomine(true);
    }
    expect(await entryPointNonce(network, flow.payer)).toBe(nonceBefore + 1n);
    const paidBy = await userOpTransaction(network, flow.hash);

    // The resuming process's bundler has no receipt for it, and refuses the re-send (its nonce is used).
    const amnesic = bundlerProxy(network, ({ method }) =>
      method === "eth_getUserOperationReceipt" ? Response.json({ jsonrpc: "2.0", id: 1, result: null }) : undefined,
    );
    const second = start({ databasePath: first.databasePath }, (config) => {
      config.networks[network]!.bundlerUrl = amnesic;
      config.networks[network]!.receiptTimeoutMs = 1_500;
    });
    await second.services.deployments.reconciled;
    expect(batchOf(second, flow.payer)).toMatchObject({
      paymentStatus: "success",
      paymentTxHash: paidBy.toLowerCase(),
      result: null,
    });
    expect(await issuedStatus(second, flow.hash)).toBe("success");
    expect(rowsOf(second, flow.payer).every((row) => row.reserved && row.fundingStatus === "success")).toBe(true);

    // Still paid for: a second fee for the same wallets is refused.
    const again = await walletDeployment(second, network, [0n]);
    const refused = await second.post(
      "/deploy/wallet/verify",
      {
        paymentRequirements: {
          ...again.body.paymentRequirements,
          deployment: {
            ...again.body.paymentRequirements.deployment,
            ownerAddress: flow.owner,
            salts: [flow.body.paymentRequirements.deployment.salts[0]],
          },
        },
      },
      adminHeaders(second),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("already paid for");

    const claim = await second.post("/wallet/claim", { payerAddress: flow.payer, network });
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({ success: true, funding: { successful: [], failed: [] } });
    expect(new Set(claim.body.deployments.successful.map((d: { address: string }) => d.address))).toEqual(
      new Set(flow.wallets.map((w) => w.address)),
    );
    for (const [i, wallet] of flow.wallets.entries()) {
      expect(await hasCode(network, wallet.address)).toBe(true);
      expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(funding[i]!);
    }
    // Charged once: one UserOp executed, one fee received.
    expect(await entryPointNonce(network, flow.payer)).toBe(nonceBefore + 1n);
    expect(await tokenBalance(network, c.token.address, c.info.feeRecipient)).toBe(recipientBefore + flow.fee);
    const resettle = await second.post("/deploy/wallet/settle", flow.body, adminHeaders(second));
    expect(resettle.status).toBe(200);
    expect(resettle.body).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
    expect(resettle.body.paymentTxHash).toBe(paidBy.toLowerCase());
  }, 60_000);

  test("a settle retried while start-up reconciliation runs, for a batch it discards: settled anew, never a 500 internal_error", async () => {
    const network = "base";
    // A process whose only executor key has no gas: the EOA fee is refused and the batch is left `sending`
    // with nothing sent, which start-up reconciliation discards.
    const first = start({}, (config) => {
      config.networks[network]!.executorKeys = [generatePrivateKey()];
    });
    // Before it, a smart-wallet batch left `sending` keeps reconciliation busy at its bundler.
    const store = first.services.deployments.store;
    const blockerOp = { sender: randomOwner(), nonce: "0x0" };
    const blockerHash = randomSalt();
    // Its UserOp was claimed (maybe sent) before the crash: resuming it asks the bundler first.
    await first.services.wallets.store.issue({
      userOpHash: blockerHash,
      network,
      kind: "deployment",
      sender: blockerOp.sender,
      owner: randomOwner(),
      userOp: JSON.stringify(blockerOp),
      context: "{}",
      expiresAt: Math.floor(Date.now() / 1000) + 600,
    });
    await first.services.wallets.store.claim(blockerHash);
    const blocker = await store.create(
      {
        batchKey: `wallet:${network}:${randomSalt()}`,
        network,
        flow: "wallet",
        owner: randomOwner().toLowerCase(),
        payer: randomOwner().toLowerCase(),
        token: chainOf(network).token.address.toLowerCase(),
        feeRecipient: chainOf(network).info.feeRecipient.toLowerCase(),
        deploymentFee: "1",
        fundingRequested: false,
        feeAuthorization: null,
        userOpHash: blockerHash,
        signedUserOp: JSON.stringify({ ...blockerOp, signature: "0x" }),
      },
      [
        {
          walletAddress: randomOwner().toLowerCase(),
          salt: randomSalt(),
          fundingRequested: false,
          fundingAmount: "0",
          fundingAuthorization: null,
        },
      ],
    );
    await store.setPayment(blocker.id, { status: "sending" });

    const flow = await eoaDeployment(first, { network, salts: [randomSalt(), randomSalt()] });
    const verify = await first.post("/deploy/verify", flow.body, adminHeaders(first));
    expect(verify.body.isValid).toBe(true);
    const body = { ...flow.body, wallets: verify.body.wallets };
    const refused = await first.post("/deploy/settle", body, adminHeaders(first));
    // The node refused the fee's transaction: an error (as /settle answers it), not a payment in flight; it names
    // the deployment's payment, and the batch stays `sending` for a later settle, claim or restart.
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ code: "blockchain_error", details: { paymentId: expect.any(String) } });
    expect(refused.body.details.status).toBeUndefined();
    expect(batchOf(first, flow.payer.address)?.paymentStatus).toBe("sending");
    first.stop();
    await Bun.sleep(5); // the batches were updated strictly before the next process starts

    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let reached = false;
    const held = bundlerProxy(network, async () => {
      reached = true;
      await gate;
      return new Response("unavailable", { status: 503 });
    });
    const second = start({ databasePath: first.databasePath }, (config) => {
      config.networks[network]!.bundlerUrl = held;
    });
    await waitFor(() => reached); // reconciliation is at the blocker, the EOA batch is not discarded yet
    const settling = second.post("/deploy/settle", body, adminHeaders(second));
    await Bun.sleep(1_500); // the settle looks its batch up meanwhile
    open();
    await second.services.deployments.reconciled;
    const settle = await settling;
    expect(settle.body.code).not.toBe("internal_error");
    expect(settle.status).toBe(200);
    expect(settle.body).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, failedWallets: [] });
    for (const wallet of flow.wallets) expect(await hasCode(network, wallet.address)).toBe(true);
    expect(await second.post("/deploy/settle", body, adminHeaders(second))).toMatchObject({
      status: 200,
      body: settle.body,
    });
  }, 60_000);
});
