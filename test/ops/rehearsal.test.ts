// A rehearsal of a real deployment: on a chain holding only what bsc holds before relay402 arrives
// (test/support/rehearsal-chain.ts), `relay402 deploy` as an operator runs it (a fresh deploy key in
// DEPLOYER_KEY), then the service in production mode from the config it wrote, with fresh funded keys, paying
// through it. The chain's balances judge.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createRelay402Client, deployWalletsFromEoa, pay, payFromWallet } from "@relay402/client";
import { erc20Abi } from "@relay402/client/wire/abis";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { createPermit2ApprovalTx } from "@x402/evm";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { type Address, createWalletClient, type Hex, http, parseAbi, parseEther, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { buildBinary } from "../../scripts/binary";
import { buildContracts } from "../../scripts/devnet/build";
import { CANONICAL } from "../../src/chain/canonical";
import { type RehearsalChain, startRehearsalChain } from "../support/rehearsal-chain";
import { startServiceProcess } from "../support/service-process";

const root = resolve(import.meta.dir, "..", "..");
const ownableAbi = parseAbi([
  "function owner() view returns (address)",
  "function pendingOwner() view returns (address)",
]);
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

// One deploy key and one paymaster signer for both chains: relay402's contracts get the same addresses on both.
const deployerKey = generatePrivateKey();
const deployer = privateKeyToAccount(deployerKey).address;
const paymasterSignerKey = generatePrivateKey();
/** The future owner (a multisig in production; an EOA here, said with --owner-eoa). */
const owner = privateKeyToAccount(generatePrivateKey()).address;
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;
/** The contracts each chain's config names, to compare across chains. */
const deployedOn: Partial<Record<NetworkName, Record<string, Address>>> = {};

type NetworkName = "bsc" | "base";
/**
 * bsc runs the service as `bun src/main.ts`, base as the compiled binary (`bun run build:binary`'s command, into
 * the rehearsal's folder): both ways an operator starts it.
 */
const REHEARSALS = [
  { network: "bsc" as const, chainId: 56 as const, x402Extra: { assetTransferMethod: "permit2" }, binary: false },
  // Base's USDC has EIP-3009: x402 signs its own domain ("USD Coin", "2"), nothing to approve.
  { network: "base" as const, chainId: 8453 as const, x402Extra: { name: "USD Coin", version: "2" }, binary: true },
];

for (const { network, chainId, x402Extra, binary } of REHEARSALS) {
  const prefix = network.toUpperCase();
  let chain: RehearsalChain;
  /** The dry run's gas figure of each transaction, to hold against what the real run used. */
  let plannedGas = new Map<string, bigint>();
  let dir: string;
  /** Where the rehearsal builds the single binary (base's rehearsal deploys and serves with it). */
  const binaryPath = () => join(dir, "relay402");
  const executorKeys = [generatePrivateKey(), generatePrivateKey()];

  /** `relay402 deploy …` in a process of its own, as an operator runs it. */
  async function runDeploy(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    // base deploys with the compiled binary from a folder outside the repository (it carries its artifacts), bsc
    // with `bun src/main.ts` from a checkout: both ways an operator deploys.
    const command = binary ? [binaryPath(), "deploy"] : [process.execPath, "src/main.ts", "deploy"];
    const child = Bun.spawn([...command, "--network", network, ...args], {
      cwd: binary ? dir : root,
      env: {
        PATH: process.env.PATH,
        DEPLOYER_KEY: deployerKey,
        [`${prefix}_PAYMASTER_SIGNER_KEY`]: paymasterSignerKey,
      },
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
  /** A dry run with these flags; the deploy key stays the owner, which a mainnet's deploy wants said. */
  const dryRun = (...flags: string[]) =>
    runDeploy(["--rpc-url", chain.rpcUrl, ...flags, "--keep-deploy-key-owner", "--dry-run"]);
  const balanceOf = (holder: Address) =>
    chain.public.readContract({
      address: chain.token.address,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [holder],
    });
  const unit = () => 10n ** BigInt(chain.token.decimals);

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
      args: [account.address, 100n * unit()],
    });
    await chain.public.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    return { key, account, wallet };
  }

  describe(`rehearsal of a ${network} deployment on a chain with no relay402 contract`, () => {
    beforeAll(async () => {
      buildContracts();
      dir = mkdtempSync(join(tmpdir(), "relay402-rehearsal-"));
      if (binary) buildBinary(binaryPath());
      chain = await startRehearsalChain(chainId);
      await chain.test.setBalance({ address: deployer, value: parseEther("10") });
      for (const key of executorKeys) {
        await chain.test.setBalance({ address: privateKeyToAccount(key).address, value: parseEther("1") });
      }
    }, 60_000);

    afterAll(async () => {
      await chain?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    const configFile = () => join(dir, "relay402.json");

    /** An EOA payment with relay402's client and an x402 payment through `url`, judged by the chain's balances. */
    async function payEoaAndX402(url: string, adminApiKey: string) {
      // An EOA payment with relay402's client: approve the relayer, sign, /verify, /settle.
      const payer = await fundedPayer();
      const merchant = randomAddress();
      const relay402 = createRelay402Client({ url, adminApiKey });
      const { settlement } = await pay(relay402, {
        signer: payer.wallet,
        publicClient: chain.public,
        network,
        token: chain.token.address,
        to: merchant,
        value: 3n * unit(),
      });
      expect(settlement.success).toBe(true);
      expect(await balanceOf(merchant)).toBe(3n * unit());

      // An x402 payment signed by x402's own client, settled through us: on bsc with Permit2 (USDT has no EIP-3009,
      // the buyer approves Permit2 once, as x402 clients do), on base with USDC's EIP-3009.
      const buyer = await fundedPayer();
      if (network === "bsc") {
        const approval = await buyer.wallet.sendTransaction(createPermit2ApprovalTx(chain.token.address));
        await chain.public.waitForTransactionReceipt({ hash: approval, pollingInterval: 50 });
      }
      const client = registerExactEvmScheme(new x402Client(), { signer: buyer.account });
      // The stand-in is not among @x402/evm 2.27's default assets on a local chain: the buyer allows the one asked for.
      client.setSpendControls({ allowedAssets: true });
      const shop = randomAddress();
      const requirements = {
        scheme: "exact",
        network: `eip155:${chainId}` as const,
        asset: chain.token.address,
        // Half a token: within @x402/evm's default per-payment cap of $1 on a default asset (base's USDC).
        amount: (unit() / 2n).toString(),
        payTo: shop,
        maxTimeoutSeconds: 300,
        extra: x402Extra,
      };
      const payment = await client.createPaymentPayload({
        x402Version: 2,
        resource: { url: "http://shop.test/item", description: "an item", mimeType: "text/plain" },
        accepts: [requirements],
      });
      const settled = await new HTTPFacilitatorClient({ url }).settle(payment, requirements);
      expect(settled).toMatchObject({ success: true });
      expect(await balanceOf(shop)).toBe(unit() / 2n);
      expect(await balanceOf(buyer.account.address)).toBe(100n * unit() - unit() / 2n);
    }

    test("deploy --dry-run prints the plan with its gas and cost and sends nothing", async () => {
      const before = await nonceOf(deployer);
      const run = await dryRun();
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`EntryPoint v0.7 ${CANONICAL.entryPointV07.address}: present`);
      expect(run.stdout).toContain(`x402ExactPermit2Proxy ${CANONICAL.x402ExactPermit2Proxy.address}: missing`);
      expect(run.stdout).toMatch(/Relayer 0x[0-9a-fA-F]{40}: to deploy/);
      expect(run.stdout).toMatch(
        new RegExp(`Relayer\\.setTokenWhitelisted\\(${chain.token.symbol} ${chain.token.address}, true\\): ≈?\\d+ gas`),
      );
      expect(run.stdout).toMatch(/Total: \d+ gas × [0-9.]+ gwei = [0-9.]+ native token/);
      expect(run.stdout).toContain("Dry run: nothing sent.");
      plannedGas = new Map(
        [...run.stdout.matchAll(/^ {2}(.+): ≈?(\d+) gas/gm)].map((m) => [m[1] as string, BigInt(m[2] as string)]),
      );
      expect(run.stdout).not.toContain(deployerKey.slice(2));
      expect(await nonceOf(deployer)).toBe(before);
    });

    test("incognito with the repository's devnet verifier is refused unless --allow-untrusted-setup", async () => {
      const refused = await dryRun("--features", "payments,incognito");
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("--allow-untrusted-setup");
      const allowed = await dryRun("--features", "payments,incognito", "--allow-untrusted-setup");
      expect(allowed.code).toBe(0);
      expect(allowed.stdout).toMatch(/PrivacyPool 0x[0-9a-fA-F]{40}: to deploy/);
      expect(allowed.stdout).toContain(`PoseidonT3 ${CANONICAL.poseidonT3.address}: missing`);
      expect(await nonceOf(deployer)).toBe(0);
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
      const contracts = config.networks[network].contracts;
      for (const address of [
        contracts.relayer,
        contracts.factory,
        contracts.paymaster,
        CANONICAL.x402ExactPermit2Proxy.address,
      ]) {
        expect((await chain.public.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
      }
      expect(contracts.entryPoint).toBe(CANONICAL.entryPointV07.address);
      expect(config.networks[network].tokens.map((t: { address: string }) => t.address)).toEqual(
        chain.tokens.map((t) => t.address),
      );
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
      deployedOn[network] = contracts;
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

    test("a --config-out that cannot be written is refused without quoting it (it may be a key pasted there)", async () => {
      const pasted = generatePrivateKey().slice(2);
      for (const file of [join(dir, "no-such-folder", pasted), configFile().replace("relay402.json", pasted)]) {
        if (!file.includes("no-such-folder")) await Bun.write(file, `not json ${pasted}`);
        const run = await runDeploy(["--rpc-url", chain.rpcUrl, "--owner", owner, "--owner-eoa", "--config-out", file]);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain("--config-out: cannot write the file");
        expect(`${run.stdout}${run.stderr}`).not.toContain(pasted);
      }
    });

    test(`the service (${binary ? "compiled binary" : "bun src/main.ts"}) starts in production from the written config and settles an EOA, an x402 and a smart-wallet payment`, async () => {
      const adminApiKey = `rehearsal-admin-${generatePrivateKey().slice(2, 18)}`;
      const command = binary ? [binaryPath()] : [process.execPath, "src/main.ts"];
      const { url, stop } = await startServiceProcess(
        command,
        {
          RELAY402_CONFIG: configFile(),
          DATABASE_PATH: join(dir, "relay402.sqlite"),
          ADMIN_API_KEY: adminApiKey,
          [`${prefix}_RPC_URLS`]: chain.rpcUrl,
          [`${prefix}_BUNDLER_URL`]: chain.bundlerUrl,
          [`${prefix}_EXECUTOR_KEYS`]: executorKeys.join(","),
          [`${prefix}_PAYMASTER_SIGNER_KEY`]: paymasterSignerKey,
        },
        root,
      );
      try {
        await payEoaAndX402(url, adminApiKey);
        const relay402 = createRelay402Client({ url, adminApiKey });

        // A smart wallet: deployed and funded through the relayer and the factory, then a sponsored UserOp through
        // the bundler with the paymaster's signature, paying two merchants.
        const holder = await fundedPayer();
        const deployment = await deployWalletsFromEoa(relay402, {
          network,
          owner: holder.account.address,
          token: chain.token.address,
          publicClient: chain.public,
          salts: [toHex(1n, { size: 32 })],
          fundingAmounts: [10n * unit()],
          payer: holder.wallet,
        });
        const wallet = deployment.settlement.wallets[0]?.address as Address;
        const merchants = [randomAddress(), randomAddress()];
        const paid = await payFromWallet(relay402, {
          owner: holder.wallet,
          wallet,
          network,
          token: chain.token.address,
          transfers: merchants.map((to) => ({ to, amount: unit() })),
        });
        expect(paid.settlement.success).toBe(true);
        for (const merchant of merchants) expect(await balanceOf(merchant)).toBe(unit());
        expect(await balanceOf(wallet)).toBe(8n * unit() - BigInt(paid.verify.feeAmount));
      } finally {
        await stop();
      }
    }, 30_000);

    // The payments-only operator of the x402 reference's service: relay402 from the same deployment's config with no
    // bundler, paymaster, factory or EntryPoint, as the compiled binary (base only: one binary build per run).
    if (binary)
      test("a payments-only config (no bundler, paymaster or factory) serves EOA and x402 payments and refuses smart wallets", async () => {
        const full = JSON.parse(readFileSync(configFile(), "utf8"));
        const settings = full.networks[network];
        delete settings.bundlerUrl;
        const { relayer } = settings.contracts;
        settings.contracts = { relayer };
        const paymentsOnly = join(dir, "payments-only.json");
        await Bun.write(paymentsOnly, JSON.stringify(full, null, 2));
        const adminApiKey = `rehearsal-admin-${generatePrivateKey().slice(2, 18)}`;
        const { url, stop } = await startServiceProcess(
          [binaryPath()],
          {
            RELAY402_CONFIG: paymentsOnly,
            DATABASE_PATH: join(dir, "payments-only.sqlite"),
            ADMIN_API_KEY: adminApiKey,
            [`${prefix}_RPC_URLS`]: chain.rpcUrl,
            [`${prefix}_EXECUTOR_KEYS`]: executorKeys.join(","),
          },
          root,
        );
        try {
          const config = (await (await fetch(`${url}/config`)).json()) as any;
          expect(config.networks[network].contracts).toEqual({ relayer });
          await payEoaAndX402(url, adminApiKey);
          const refused = await fetch(`${url}/wallet/verify`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              walletAddress: randomAddress(),
              transactions: [{ to: randomAddress(), amount: "1", token: chain.token.address }],
              paymentRequirements: { network },
            }),
          });
          expect(refused.status).toBe(400);
          const body = (await refused.json()) as any;
          expect(body).toMatchObject({ code: "validation_error", details: { network, capability: "smart-wallets" } });
          expect(body.message).toContain(`networks.${network}.bundlerUrl`);
        } finally {
          await stop();
        }
      }, 30_000);

    test("a chain whose canonical address holds other code is refused, naming it", async () => {
      const replaced = network === "bsc" ? CANONICAL.multicall3 : CANONICAL.permit2;
      await chain.test.setCode({ address: replaced.address, bytecode: "0x60006000f3" as Hex });
      const before = await nonceOf(deployer);
      const run = await dryRun();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${replaced.name} at ${replaced.address} holds other code`);
      expect(await nonceOf(deployer)).toBe(before);
    });
  });
}

test("the same deploy key and paymaster signer gave relay402's contracts the same addresses on both chains", () => {
  expect(deployedOn.bsc?.relayer).toBeDefined();
  expect(deployedOn.base).toEqual(deployedOn.bsc as Record<string, Address>);
});
