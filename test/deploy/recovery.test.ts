import { afterAll, describe, expect, test } from "bun:test";
import { type Address, type Hex, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { NetworkName } from "../../scripts/devnet/start";
import { createDeploymentStore } from "../../src/deploy/deployment-store-sqlite";
import { chainOf, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import {
  adminHeaders,
  entryPointNonce,
  eoaDeployment,
  inMempool,
  issuedStatus,
  REVERTING_CODE,
  randomOwner,
  randomSalt,
  type Service,
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

const unitOf = (network: NetworkName) => 10n ** BigInt(chainOf(network).token.decimals);
/** The service's deployment records, read synchronously from its SQLite file (the service's store is async). */
const recordsOf = (service: Service) => createDeploymentStore(service.db);
const batchOf = (service: Service, payer: Address) => recordsOf(service).batchesFor({ payer })[0];
const rowsOf = (service: Service, payer: Address) => {
  const batch = batchOf(service, payer);
  return batch ? recordsOf(service).walletsOf(batch.id) : [];
};
const hasCode = async (network: NetworkName, address: Address) =>
  ((await chainOf(network).public.getCode({ address })) ?? "0x").length > 2;

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

/** Runs SQL on the service's database (a fault injected under the store: a trigger that aborts a write). */
const sql = (service: Service, statement: string) => service.db.$client.run(statement);

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
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ code: "blockchain_error", details: { status: "pending" } });
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

  test("the executor has no gas for the deployment transaction: rows failed without a raw tx, a claim deploys with a new one", async () => {
    const network = "bsc";
    const c = chainOf(network);
    const unit = unitOf(network);
    const executorKey = generatePrivateKey();
    // The fee goes through the bundler (smart-wallet flow); only the deployment step needs the executor's gas.
    const service = start({}, (config) => {
      config.networks[network]!.executorKeys = [executorKey];
    });
    const flow = await walletDeployment(service, network, [unit, unit]);
    const settle = await service.post("/deploy/wallet/settle", flow.body, adminHeaders(service));
    expect(settle.status).toBe(500);
    expect(settle.body.code).toBe("deployment_error");
    expect(settle.body.details).toMatchObject({ paymentSuccess: true, deploymentSuccess: false, fundingSuccess: true });
    const rows = rowsOf(service, flow.payer);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        deploymentStatus: "failed",
        deploymentTxHash: null,
        deploymentRawTx: null,
        reserved: true,
      });
      // The simulation before signing meets the node's refusal first: nothing is signed.
      expect(row.deploymentError?.toLowerCase()).toContain("insufficient funds");
    }

    await c.test.setBalance({ address: privateKeyToAccount(executorKey).address, value: parseEther("1") });
    const claim = await service.post("/wallet/claim", { payerAddress: flow.payer, network });
    expect(claim.status).toBe(200);
    expect(claim.body.success).toBe(true);
    const hashes = claim.body.deployments.successful.map((d: { deploymentTxHash: Hex }) => d.deploymentTxHash);
    expect(hashes).toHaveLength(2);
    const receipt = await c.public.getTransactionReceipt({ hash: hashes[0] });
    expect(receipt.status).toBe("success");
    for (const wallet of flow.wallets) expect(await hasCode(network, wallet.address)).toBe(true);
    expect(rowsOf(service, flow.payer).every((row) => row.deploymentStatus === "success")).toBe(true);
  }, 60_000);

  test("a payment outcome is recorded whole: a failing write leaves no paid batch without its fundings, no failed batch still reserving", async () => {
    const network = "base";
    const c = chainOf(network);
    const unit = unitOf(network);
    const service = start();

    // Success: the payment and the fundings of its UserOp, or neither.
    const paid = await walletDeployment(service, network, [unit]);
    sql(
      service,
      `CREATE TRIGGER fault_funding BEFORE UPDATE OF funding_status ON deployment_wallets
       WHEN NEW.funding_status = 'success' BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
    );
    let broken: Awaited<ReturnType<Service["post"]>>;
    try {
      broken = await service.post("/deploy/wallet/settle", paid.body, adminHeaders(service));
    } finally {
      sql(service, "DROP TRIGGER fault_funding");
    }
    expect(broken.status).toBe(500);
    expect(batchOf(service, paid.payer)?.paymentStatus).toBe("sending");
    const settled = await service.post("/deploy/wallet/settle", paid.body, adminHeaders(service));
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
    expect(await tokenBalance(network, c.token.address, paid.wallets[0]!.address)).toBe(unit);

    // Failure: the payment failed, the wallets released and the result stored, or none of it.
    const rejected = await walletDeployment(service, network, [0n]);
    const code = (await c.public.getCode({ address: rejected.payer })) as Hex;
    sql(
      service,
      `CREATE TRIGGER fault_release BEFORE UPDATE OF reserved ON deployment_wallets
       WHEN NEW.reserved = 0 BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
    );
    let first: Awaited<ReturnType<Service["post"]>>;
    let second: Awaited<ReturnType<Service["post"]>>;
    try {
      // The paying wallet's validation reverts: the bundler rejects the UserOp.
      await c.test.setCode({ address: rejected.payer, bytecode: REVERTING_CODE });
      try {
        first = await service.post("/deploy/wallet/settle", rejected.body, adminHeaders(service));
      } finally {
        sql(service, "DROP TRIGGER fault_release");
      }
      expect(first.status).toBe(500);
      expect(batchOf(service, rejected.payer)).toMatchObject({ paymentStatus: "sending", result: null });
      expect(rowsOf(service, rejected.payer).every((row) => row.reserved)).toBe(true);
      second = await service.post("/deploy/wallet/settle", rejected.body, adminHeaders(service));
    } finally {
      await c.test.setCode({ address: rejected.payer, bytecode: code });
    }
    expect(second.status).toBe(400);
    expect(second.body.code).toBe("userop_error");
    expect(batchOf(service, rejected.payer)).toMatchObject({ paymentStatus: "failed" });
    expect(batchOf(service, rejected.payer)?.result).not.toBeNull();
    expect(rowsOf(service, rejected.payer).every((row) => !row.reserved)).toBe(true);
  }, 60_000);

  test("unconfirmed deployment and funding transactions: settle answers pending, stores nothing, lists no funding hash; a later settle reports the outcome", async () => {
    const network = "base";
    const c = chainOf(network);
    const unit = unitOf(network);
    const service = start({}, (config) => {
      config.networks[network]!.receiptTimeoutMs = 2_000;
    });
    const flow = await eoaDeployment(service, { network, salts: [randomSalt(), randomSalt()], funding: [unit, unit] });
    const verify = await service.post("/deploy/verify", flow.body, adminHeaders(service));
    const body = { ...flow.body, wallets: verify.body.wallets };
    const sentHashes = (phase: "deployment" | "funding") =>
      rowsOf(service, flow.payer.address).map((row) =>
        phase === "deployment"
          ? row.deploymentStatus === "sent"
            ? row.deploymentTxHash
            : null
          : row.fundingStatus === "sent"
            ? row.fundingTxHash
            : null,
      ) as (Hex | null)[];
    const broadcast = (phase: "deployment" | "funding") => async () => {
      const hashes = sentHashes(phase);
      return hashes.length > 0 && (await Promise.all(hashes.map((hash) => inMempool(network, hash)))).every(Boolean);
    };

    await c.test.setAutomine(false);
    let deploying: Awaited<ReturnType<Service["post"]>>;
    let funding: Awaited<ReturnType<Service["post"]>>;
    let listed: Awaited<ReturnType<Service["get"]>>;
    try {
      const settling = service.post("/deploy/settle", body, adminHeaders(service));
      await waitFor(async () => {
        const fee = service.db.$client
          .query<{ status: string; tx_hash: Hex }, [string]>(
            "SELECT status, tx_hash FROM eoa_settlements WHERE payer = ?",
          )
          .get(flow.payer.address.toLowerCase());
        return fee?.status === "sent" && (await inMempool(network, fee.tx_hash));
      });
      await c.test.mine({ blocks: 1 }); // the fee
      await waitFor(broadcast("deployment"));
      deploying = await settling; // the deployment transaction stays unmined past the receipt timeout
      expect(batchOf(service, flow.payer.address)?.result).toBeNull();
      await c.test.mine({ blocks: 1 }); // the deployment

      const settlingAgain = service.post("/deploy/settle", body, adminHeaders(service));
      await waitFor(broadcast("funding"));
      listed = await service.get(`/wallet/${flow.owner}?network=${network}`);
      funding = await settlingAgain; // the funding transaction stays unmined past the receipt timeout
      expect(batchOf(service, flow.payer.address)?.result).toBeNull();
      await c.test.mine({ blocks: 1 }); // the funding
    } finally {
      await c.test.setAutomine(true);
    }
    expect(deploying.status).toBe(500);
    expect(deploying.body).toMatchObject({
      code: "blockchain_error",
      details: { status: "pending", paymentSuccess: true, deploymentSuccess: false },
    });
    expect(funding.status).toBe(500);
    expect(funding.body).toMatchObject({
      code: "blockchain_error",
      details: { status: "pending", paymentSuccess: true, deploymentSuccess: true, fundingSuccess: false },
    });
    // Sent but not confirmed: not funded, so no funding hash.
    expect(listed.status).toBe(200);
    for (const info of listed.body.sub) {
      expect(info).toMatchObject({ deploymentCompleted: true, fundingRequested: true, fundingCompleted: false });
      expect(info.fundingTxHash).toBeNull();
    }

    const final = await service.post("/deploy/settle", body, adminHeaders(service));
    expect(final.status).toBe(200);
    expect(final.body).toMatchObject({ paymentSuccess: true, deploymentSuccess: true, fundingSuccess: true });
    const after = await service.get(`/wallet/${flow.owner}?network=${network}`);
    for (const info of after.body.sub) {
      expect(info.fundingCompleted).toBe(true);
      expect(info.fundingTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    }
    for (const wallet of flow.wallets) expect(await tokenBalance(network, c.token.address, wallet.address)).toBe(unit);
    expect((await service.post("/deploy/settle", body, adminHeaders(service))).body).toEqual(final.body);
  }, 60_000);
});
