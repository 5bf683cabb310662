// A rehearsal of a real deployment: on a chain holding only what bsc holds before relay402 arrives
// (test/support/rehearsal-chain.ts), `relay402 deploy` as an operator runs it (a fresh deploy key in
// DEPLOYER_KEY), then the service in production mode from the config it wrote, with fresh funded keys, paying
// through it. The chain's balances judge.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { createPermit2ApprovalTx } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { type Address, createWalletClient, type Hex, http, parseAbi, parseEther, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildContracts } from "../../scripts/devnet/build";
import { freePort } from "../../scripts/devnet/ports";
import { erc20Abi } from "../../src/chain/abis";
import { CANONICAL } from "../../src/chain/canonical";
import { createRelay402Client, deployWalletsFromEoa, pay, payFromWallet } from "../../src/client";
import { type RehearsalChain, startRehearsalChain } from "../support/rehearsal-chain";

const root = resolve(import.meta.dir, "..", "..");
const ownableAbi = parseAbi([
  "function owner() view returns (address)",
  "function pendingOwner() view returns (address)",
]);
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

let chain: RehearsalChain;
/** The dry run's gas figure of each setup transaction, to hold against what the real run used. */
let plannedGas = new Map<string, bigint>();
let dir: string;
const deployerKey = generatePrivateKey();
const deployer = privateKeyToAccount(deployerKey).address;
const paymasterSignerKey = generatePrivateKey();
const executorKeys = [generatePrivateKey(), generatePrivateKey()];
/** The future owner (a multisig in production; an EOA here, said with --owner-eoa). */
const owner = privateKeyToAccount(generatePrivateKey()).address;

/** `relay402 deploy …` in a process of its own, as an operator runs it. */
async function runDeploy(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([process.execPath, "scripts/deploy.ts", "--network", "bsc", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, DEPLOYER_KEY: deployerKey, BSC_PAYMASTER_SIGNER_KEY: paymasterSignerKey },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { code, stdout, stderr };
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}

const nonceOf = (address: Address) => chain.public.getTransactionCount({ address });
const balanceOf = (holder: Address) =>
  chain.public.readContract({ address: chain.token.address, abi: erc20Abi, functionName: "balanceOf", args: [holder] });
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

/** A payer with gas and 100 stand-in tokens (the stand-in's mint is public, as the devnet's). */
async function fundedPayer() {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  await chain.test.setBalance({ address: account.address, value: parseEther("1") });
  const wallet = createWalletClient({ chain: chain.chain, transport: http(chain.rpcUrl), account });
  const hash = await wallet.writeContract({
    address: chain.token.address,
    abi: mintAbi,
    functionName: "mint",
    args: [account.address, 100n * 10n ** 18n],
  });
  await chain.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return { key, account, wallet };
}

beforeAll(async () => {
  buildContracts();
  dir = mkdtempSync(join(tmpdir(), "relay402-rehearsal-"));
  chain = await startRehearsalChain(56);
  await chain.test.setBalance({ address: deployer, value: parseEther("10") });
  for (const key of executorKeys) {
    await chain.test.setBalance({ address: privateKeyToAccount(key).address, value: parseEther("1") });
  }
}, 60_000);

afterAll(async () => {
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe("rehearsal of a bsc deployment on a chain with no relay402 contract", () => {
  const configFile = () => join(dir, "relay402.json");

  test("deploy --dry-run prints the plan with its gas and cost and sends nothing", async () => {
    const before = await nonceOf(deployer);
    const run = await runDeploy(["--rpc-url", chain.rpcUrl, "--dry-run"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`EntryPoint v0.7 ${CANONICAL.entryPointV07.address}: present`);
    expect(run.stdout).toContain(`x402ExactPermit2Proxy ${CANONICAL.x402ExactPermit2Proxy.address}: missing`);
    expect(run.stdout).toMatch(/Relayer 0x[0-9a-fA-F]{40}: to deploy/);
    expect(run.stdout).toMatch(
      /Relayer\.setTokenWhitelisted\(USDT 0x55d398326f99059fF775485246999027B3197955, true\): ≈?\d+ gas/,
    );
    expect(run.stdout).toMatch(/Total: \d+ gas × [0-9.]+ gwei = [0-9.]+ native token/);
    expect(run.stdout).toContain("Dry run: nothing sent.");
    plannedGas = new Map(
      [...run.stdout.matchAll(/^ {2}(.+): ≈?(\d+) gas/gm)].map((m) => [m[1] as string, BigInt(m[2] as string)]),
    );
    expect(run.stdout).not.toContain(deployerKey.slice(2));
    expect(await nonceOf(deployer)).toBe(before);
  });

  test("an --owner without code is refused unless --owner-eoa says it is meant", async () => {
    const run = await runDeploy(["--rpc-url", chain.rpcUrl, "--owner", owner]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`--owner ${owner} has no code`);
    expect(await nonceOf(deployer)).toBe(0);
  });

  test("deploy sends the deployments and the setup, proposes the owner and writes the config", async () => {
    const run = await runDeploy([
      "--rpc-url",
      chain.rpcUrl,
      "--owner",
      owner,
      "--owner-eoa",
      "--config-out",
      configFile(),
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const config = JSON.parse(readFileSync(configFile(), "utf8"));
    const contracts = config.networks.bsc.contracts;
    for (const address of [
      contracts.relayer,
      contracts.factory,
      contracts.paymaster,
      CANONICAL.x402ExactPermit2Proxy.address,
    ]) {
      expect((await chain.public.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
    }
    expect(contracts.entryPoint).toBe(CANONICAL.entryPointV07.address);
    expect(config.networks.bsc.tokens.map((t: { address: string }) => t.address)).toEqual([chain.token.address]);
    expect(JSON.stringify(config)).not.toMatch(/executorKeys|paymasterSignerKey|rpcUrls|adminApiKey/);
    // Two-step ownership: the deploy key owns both until the proposed owner accepts.
    for (const contract of [contracts.relayer, contracts.paymaster] as Address[]) {
      expect(await chain.public.readContract({ address: contract, abi: ownableAbi, functionName: "owner" })).toBe(
        deployer,
      );
      expect(
        await chain.public.readContract({ address: contract, abi: ownableAbi, functionName: "pendingOwner" }),
      ).toBe(owner);
    }
    expect(run.stdout).toContain(`The new owner ${owner} must call Relayer(${contracts.relayer}).acceptOwnership()`);
    // The dry run's figures are what the transactions took at most (fixed figures where nothing could be estimated).
    const used = [...run.stdout.matchAll(/^ {2}sent (.+): (\d+) gas used/gm)];
    expect(used.length).toBeGreaterThan(5);
    for (const [, description, gas] of used) {
      const planned = plannedGas.get(description as string);
      if (description?.includes("transferOwnership")) continue; // not in the dry run: it had no --owner
      expect(planned).toBeDefined();
      expect(BigInt(gas as string)).toBeLessThanOrEqual(planned as bigint);
    }
  });

  test("deploy again sends nothing and says so", async () => {
    const before = await nonceOf(deployer);
    const run = await runDeploy(["--rpc-url", chain.rpcUrl, "--owner", owner, "--owner-eoa"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Nothing to send: every contract is deployed and set up.");
    expect(await nonceOf(deployer)).toBe(before);
  });

  test("the service starts in production from the written config and settles an EOA, an x402 and a smart-wallet payment", async () => {
    const port = await freePort();
    const adminApiKey = `rehearsal-admin-${generatePrivateKey().slice(2, 18)}`;
    const service = Bun.spawn([process.execPath, "src/main.ts"], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        RELAY402_CONFIG: configFile(),
        HOST: "127.0.0.1",
        PORT: String(port),
        DATABASE_PATH: join(dir, "relay402.sqlite"),
        ADMIN_API_KEY: adminApiKey,
        BSC_RPC_URLS: chain.rpcUrl,
        BSC_BUNDLER_URL: chain.bundlerUrl,
        BSC_EXECUTOR_KEYS: executorKeys.join(","),
        BSC_PAYMASTER_SIGNER_KEY: paymasterSignerKey,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      let up = false;
      for (let attempt = 0; attempt < 200 && !up && service.exitCode === null; attempt++) {
        up = await fetch(`${url}/health`)
          .then((response) => response.ok)
          .catch(() => false);
        if (!up) await Bun.sleep(100);
      }
      if (!up) throw new Error(`the service did not start: ${await new Response(service.stderr).text()}`);

      // An EOA payment with relay402's client: approve the relayer, sign, /verify, /settle.
      const payer = await fundedPayer();
      const merchant = randomAddress();
      const relay402 = createRelay402Client({ url, adminApiKey });
      const { settlement } = await pay(relay402, {
        signer: payer.wallet,
        publicClient: chain.public,
        network: "bsc",
        token: chain.token.address,
        to: merchant,
        value: 3n * 10n ** 18n,
      });
      expect(settlement.success).toBe(true);
      expect(await balanceOf(merchant)).toBe(3n * 10n ** 18n);

      // An x402 payment signed by x402's own client (Permit2: the token has no EIP-3009), settled through us.
      const buyer = await fundedPayer();
      const approval = await buyer.wallet.sendTransaction(createPermit2ApprovalTx(chain.token.address));
      await chain.public.waitForTransactionReceipt({ hash: approval, pollingInterval: 50 });
      const client = registerExactEvmScheme(new x402Client(), { signer: buyer.account });
      // @x402/evm 2.27's default assets have no bsc token: the buyer allows the one asked for.
      client.setSpendControls({ allowedAssets: true });
      const shop = randomAddress();
      const requirements = {
        scheme: "exact",
        network: "eip155:56",
        asset: chain.token.address,
        amount: (2n * 10n ** 18n).toString(),
        payTo: shop,
        maxTimeoutSeconds: 300,
        extra: { assetTransferMethod: "permit2" },
      } as const;
      const payment = await client.createPaymentPayload({
        x402Version: 2,
        resource: { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" },
        accepts: [requirements],
      });
      const settled = await new HTTPFacilitatorClient({ url }).settle(payment, requirements);
      expect(settled.success).toBe(true);
      expect(await balanceOf(shop)).toBe(2n * 10n ** 18n);
      expect(await balanceOf(buyer.account.address)).toBe(98n * 10n ** 18n);

      // A smart wallet: deployed and funded through the relayer and the factory, then a sponsored UserOp through
      // the bundler with the paymaster's signature, paying two merchants.
      const holder = await fundedPayer();
      const deployment = await deployWalletsFromEoa(relay402, {
        network: "bsc",
        owner: holder.account.address,
        token: chain.token.address,
        publicClient: chain.public,
        salts: [toHex(1n, { size: 32 })],
        fundingAmounts: [10n * 10n ** 18n],
        payer: holder.wallet,
      });
      const wallet = deployment.settlement.wallets[0]?.address as Address;
      const merchants = [randomAddress(), randomAddress()];
      const paid = await payFromWallet(relay402, {
        owner: holder.wallet,
        wallet,
        network: "bsc",
        token: chain.token.address,
        transfers: merchants.map((to) => ({ to, amount: 10n ** 18n })),
      });
      expect(paid.settlement.success).toBe(true);
      for (const merchant of merchants) expect(await balanceOf(merchant)).toBe(10n ** 18n);
      expect(await balanceOf(wallet)).toBe(8n * 10n ** 18n - BigInt(paid.verify.feeAmount));
    } finally {
      service.kill("SIGKILL");
      await service.exited;
    }
  }, 30_000);

  test("a chain whose canonical address holds other code is refused, naming it", async () => {
    await chain.test.setCode({ address: CANONICAL.multicall3.address, bytecode: "0x60006000f3" as Hex });
    const before = await nonceOf(deployer);
    const run = await runDeploy(["--rpc-url", chain.rpcUrl, "--dry-run"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Multicall3 at ${CANONICAL.multicall3.address} holds other code`);
    expect(await nonceOf(deployer)).toBe(before);
  });
});
