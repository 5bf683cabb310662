// Every example runs against the test devnet, so that they never rot; the chain's balances judge them.
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { deployWalletsFromEoa } from "@relay402/client";
import { jsonFileNoteStorage } from "@relay402/client/incognito/json-file";
import { type Address, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { main as deployWallets } from "../examples/deploy-wallets";
import { main as eoaPayment } from "../examples/eoa-payment";
import { defaultNotesFile, main as incognito } from "../examples/incognito";
import { connect, type ExampleOptions } from "../examples/setup";
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
const root = join(import.meta.dir, "..");

/** `bun examples/<script>` with the environment a user sets, to its end: exit code and output. */
async function script(name: string, env: Record<string, string>) {
  const run = Bun.spawn([process.execPath, `examples/${name}`], {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([
    run.exited,
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
  ]);
  return { code, out, err };
}
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
    const { code, out, err } = await script("eoa-payment.ts", {
      RELAY402_URL: opts.serviceUrl,
      RPC_URL: opts.rpcUrl,
      PRIVATE_KEY: opts.privateKey,
    });
    expect(err).toBe("");
    expect(code).toBe(0);
    const to = out.match(/to (0x[0-9a-fA-F]{40})/)?.[1] as `0x${string}`;
    expect(await balance(to)).toBe(unit);
  }, 60_000);

  test("the script refuses an unknown NETWORK; a payer without gas for its approve pays through a funded approve", async () => {
    const opts = await options();
    const env = { RELAY402_URL: opts.serviceUrl, RPC_URL: opts.rpcUrl, PRIVATE_KEY: opts.privateKey };
    const unknown = await script("eoa-payment.ts", { ...env, NETWORK: "solana" });
    expect([unknown.code, unknown.err.trim()]).toEqual([
      1,
      'unknown NETWORK "solana": use one of bsc, base, bsc-testnet, base-sepolia',
    ]);

    // Tokens (bsc's USDT, without permit), no BNB: the payer signs its approve, the service funds and sends it.
    const payer = privateKeyToAccount(opts.privateKey).address;
    await c.test.setBalance({ address: payer, value: 0n });
    const before = await balance(payer);
    const funded = await script("eoa-payment.ts", env);
    expect([funded.code, funded.err]).toEqual([0, ""]);
    expect(funded.out).toContain("signed an approve of the relayer, funded and broadcast by the service in 0x");
    const to = funded.out.match(/to (0x[0-9a-fA-F]{40})/)?.[1] as `0x${string}`;
    expect(await balance(to)).toBe(unit);
    expect(await balance(payer)).toBe(before - unit);
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

  test("wallet-queries: the master wallet line says whether the wallet is deployed on the network", async () => {
    const opts = await options();
    const before = await walletQueries(opts);
    const at = `master wallet: ${before.master.walletAddress} (salt ${before.master.salt})`;
    expect(before.masterLine).toBe(`${at}: not deployed on bsc (examples/deploy-wallets.ts deploys wallets)`);

    const { relay402, signer, publicClient } = await connect(opts);
    await deployWalletsFromEoa(relay402, {
      network,
      owner: signer.account.address,
      token: c.token.address,
      publicClient,
      salts: [before.master.salt as `0x${string}`],
      payer: signer,
    });
    const after = await walletQueries(opts);
    const tx = after.master.deployments.bsc?.deploymentTxHash;
    expect(after.masterLine).toBe(`${at}: deployed on bsc in ${tx}`);
    expect(await c.public.getCode({ address: before.master.walletAddress as Address })).toBeTruthy();
  }, 90_000);

  test("incognito notes go outside the repository unless told, under a name .gitignore lists", () => {
    expect(defaultNotesFile()).toBe(join(homedir(), ".relay402", "incognito-notes.json"));
    expect(defaultNotesFile().startsWith(root)).toBe(false);
    for (const path of ["incognito-notes.json", "examples/incognito-notes.json"])
      expect(spawnSync("git", ["check-ignore", "--quiet", path], { cwd: root }).status).toBe(0);
  });

  test("incognito: shield 10 from wallet A, unshield 4 to a fresh address from wallet B, the change note kept", async () => {
    // A folder that does not exist yet: the example makes it, readable by its owner only.
    const notesFile = join(mkdtempSync(join(tmpdir(), "relay402-example-notes-")), "private", "notes.json");
    const result = await incognito({ ...(await options()), notesFile });
    expect(await balance(result.recipient)).toBe(result.withdrawn);
    expect(await balance(result.walletA)).toBe(20n * unit - result.shielded - result.shieldFee);
    expect(await balance(result.walletB)).toBe(0n);
    expect(result.change.amount).toBe(result.shielded - result.withdrawn - result.unshieldFee);
    expect(statSync(dirname(notesFile)).mode & 0o777).toBe(0o700);
    const notes = await jsonFileNoteStorage(notesFile).read();
    expect(notes.map((note) => [note.amount, note.status])).toEqual([
      [result.shielded, "spent"],
      [result.change.amount, "shielded"],
    ]);
  }, 120_000);
});
