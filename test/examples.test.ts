// Every example runs against the test devnet, so that they never rot; the chain's balances judge them.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonFileNoteStorage } from "@relay402/client/incognito/json-file";
import { parseUnits } from "viem";
import { main as deployWallets } from "../examples/deploy-wallets";
import { main as eoaPayment } from "../examples/eoa-payment";
import { main as incognito } from "../examples/incognito";
import type { ExampleOptions } from "../examples/setup";
import { main as swap } from "../examples/swap";
import { main as walletPayment } from "../examples/wallet-payment";
import { main as walletQueries } from "../examples/wallet-queries";
import { chainOf, freshPayer, tokenBalance } from "./support/chain";
import { trackServices } from "./support/service";

const network = "bsc";
const services = trackServices();
const service = services.start();
const server = Bun.serve({ port: 0, fetch: (request) => service.app.handle(request) });
afterAll(() => {
  server.stop(true);
  services.stopAll();
});

const c = chainOf(network);
const unit = parseUnits("1", c.token.decimals);
const balance = (holder: `0x${string}`) => tokenBalance(network, c.token.address, holder);

/** The options a user passes by environment, here the test devnet's service and a fresh funded key. */
async function options(): Promise<ExampleOptions> {
  const payer = await freshPayer(network);
  return {
    serviceUrl: server.url.origin,
    rpcUrl: c.info.rpcUrl,
    privateKey: payer.key,
    network,
    adminApiKey: service.config.adminApiKey,
    quiet: true,
  };
}

describe("examples", () => {
  test("eoa-payment: the payee receives the value, the payer loses exactly it (after its approve)", async () => {
    const opts = await options();
    const payer = c.walletFor(opts.privateKey).account.address;
    const before = await balance(payer);
    const result = await eoaPayment(opts);
    expect(result.settlement.success).toBe(true);
    expect(await balance(result.to)).toBe(result.value);
    expect(await balance(payer)).toBe(before - result.value);
  }, 60_000);

  test("bun examples/eoa-payment.ts runs as a script, configured by the environment", async () => {
    const opts = await options();
    const run = Bun.spawn([process.execPath, "examples/eoa-payment.ts"], {
      cwd: join(import.meta.dir, ".."),
      env: { ...process.env, RELAY402_URL: opts.serviceUrl, RPC_URL: opts.rpcUrl, PRIVATE_KEY: opts.privateKey },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, out, err] = await Promise.all([
      run.exited,
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
    ]);
    expect(err).toBe("");
    expect(code).toBe(0);
    const to = out.match(/to (0x[0-9a-fA-F]{40})/)?.[1] as `0x${string}`;
    expect(await balance(to)).toBe(unit);
  }, 60_000);

  test("wallet-payment: a wallet deployed through relay402 pays two merchants and the fee", async () => {
    const recipientBefore = await balance(c.info.feeRecipient);
    const result = await walletPayment(await options());
    expect(result.settlement.success).toBe(true);
    for (const merchant of result.merchants) expect(await balance(merchant)).toBe(result.amount);
    expect(result.fee).toBeGreaterThan(0n);
    // The deployment fee (1 token) of the wallet, then the payment's fee.
    expect(await balance(c.info.feeRecipient)).toBeGreaterThanOrEqual(recipientBefore + unit + result.fee);
    expect(await balance(result.wallet)).toBe(10n * unit - 2n * result.amount - result.fee);
  }, 90_000);

  test("deploy-wallets and wallet-queries: an EOA and then a new wallet pay for deployments the owner then sees", async () => {
    const opts = await options();
    const result = await deployWallets(opts);
    const deployed = [...result.byEoa.settlement.wallets, ...result.byWallet.settlement.wallets];
    expect(deployed).toHaveLength(3);
    for (const wallet of deployed)
      expect(await c.public.getCode({ address: wallet.address as `0x${string}` })).toBeTruthy();
    // The first wallet got its funding and paid one wallet's fee from it; the second got its 1-unit funding.
    expect(await balance(result.payerWallet)).toBe(result.funding - unit);
    expect(await balance(deployed[1]!.address as `0x${string}`)).toBe(1n);

    const queries = await walletQueries(opts);
    const listed = [...queries.wallets.master, ...queries.wallets.sub].map((w) => w.walletAddress.toLowerCase());
    for (const wallet of deployed) expect(listed).toContain(wallet.address.toLowerCase());
    expect(queries.master.walletAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
  }, 120_000);

  test("swap: the EOA and then a new wallet swap 10 tokens for wrapped native, each losing exactly that", async () => {
    const opts = await options();
    const payer = c.walletFor(opts.privateKey).account.address;
    const before = await balance(payer);
    const result = await swap(opts);
    const w = result.order.buyToken;
    for (const settled of [result.eoa.settlement.swap, result.fromWallet.settlement.swap]) {
      expect(settled.sellAmount).toBe((10n * unit).toString());
      expect(BigInt(settled.buyAmount)).toBeGreaterThan(0n);
    }
    // The EOA: 10 sold, 20 funded into the wallet and its deployment fee (1 token on the devnet).
    expect(await balance(payer)).toBe(before - 10n * unit - 20n * unit - unit);
    expect(await tokenBalance(network, w, payer)).toBe(BigInt(result.eoa.settlement.swap.buyAmount));
    expect(await balance(result.wallet)).toBe(20n * unit - 10n * unit);
    expect(await tokenBalance(network, w, result.wallet)).toBe(BigInt(result.fromWallet.settlement.swap.buyAmount));
  }, 120_000);

  test("incognito: shield 10 from wallet A, unshield 4 to a fresh address from wallet B, the change note kept", async () => {
    const notesFile = join(mkdtempSync(join(tmpdir(), "relay402-example-notes-")), "notes.json");
    const result = await incognito({ ...(await options()), notesFile });
    expect(await balance(result.recipient)).toBe(result.withdrawn);
    expect(await balance(result.walletA)).toBe(20n * unit - result.shielded - result.shieldFee);
    expect(await balance(result.walletB)).toBe(0n);
    expect(result.change.amount).toBe(result.shielded - result.withdrawn - result.unshieldFee);
    const notes = await jsonFileNoteStorage(notesFile).read();
    expect(notes.map((note) => [note.amount, note.status])).toEqual([
      [result.shielded, "spent"],
      [result.change.amount, "shielded"],
    ]);
  }, 120_000);
});
