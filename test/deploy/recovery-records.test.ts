import { afterAll, describe, expect, test } from "bun:test";
import { type Hex, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { chainOf, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import {
  adminHeaders,
  batchOf,
  eoaDeployment,
  hasCode,
  inMempool,
  REVERTING_CODE,
  randomSalt,
  rowsOf,
  type Service,
  unitOf,
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

/** Runs SQL on the service's database (a fault injected under the store: a trigger that aborts a write). */
const sql = (service: Service, statement: string) => service.db.$client.run(statement);

describe("deployment recovery, on the devnet: what is recorded", () => {
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
    // Paid, a step in flight: 202 under the fee payment's id, whose transaction it names.
    const paymentTxHash = batchOf(service, flow.payer.address)?.paymentTxHash;
    for (const pending of [deploying, funding]) {
      expect(pending.status).toBe(202);
      expect(pending.body).toMatchObject({ success: false, status: "pending", network, payer: flow.payer.address });
      expect(pending.body.transaction?.toLowerCase()).toBe(paymentTxHash);
    }
    expect(funding.body.paymentId).toBe(deploying.body.paymentId);
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
