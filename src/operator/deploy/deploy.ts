import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  formatEther,
  formatGwei,
  type Hex,
  http,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CANONICAL } from "../../chain/canonical";
import { isUntrustedSetup, SERVED_CIRCUIT_ID } from "../../incognito/trusted-setup";
import {
  buildPlan,
  type DeployInputs,
  DeployRefusal,
  type Plan,
  type PlannedTransaction,
  planTransactions,
} from "./plan";

export type DeployOptions = Omit<DeployInputs, "deployer"> & {
  rpcUrl: string;
  /** The deploy key (from DEPLOYER_KEY): never printed. */
  deployerKey: Hex;
  dryRun: boolean;
  /** `--owner` may be an address without code (an EOA) only when this says so. */
  ownerIsEoa: boolean;
  /** Deploy the pool with the repository's devnet circuit (its setup's maker can forge proofs). */
  allowUntrustedSetup: boolean;
  /** How often receipts are polled for (default 1 s; the devnet's automine answers at once). */
  pollingIntervalMs?: number;
  /** maxFeePerGas = base fee × this + tip (default 2), so a fee climbing meanwhile still gets mined. */
  baseFeeMultiplier?: number;
};

export type DeployResult = {
  plan: Plan;
  /** Every contract of the features, deployed or already there, by label. */
  addresses: Record<string, Address>;
  /** Transactions sent by this run (0 on a dry run and on a run that found everything in place). */
  sent: number;
  /** Labels of the contracts this run deployed. */
  deployedNow: string[];
};

/** Gas of a deployment that cannot be estimated (a constructor calling what is not deployed yet): generous. */
const fallbackDeployGas = (data: Hex) => 150_000n + BigInt((data.length - 2) / 2) * 240n;

/** A transaction's gas: estimated by the node, or a fixed figure (marked ≈) when its contract is not there yet. */
async function estimate(client: PublicClient, from: Address, tx: PlannedTransaction) {
  if (tx.gasIfUndeployed !== undefined) return { gas: tx.gasIfUndeployed, estimated: false };
  const { to, data, value } = tx;
  try {
    return { gas: await client.estimateGas({ account: from, to, data, value }), estimated: true };
  } catch (error) {
    if (to !== CANONICAL.create2Deployer.address) throw error;
    return { gas: fallbackDeployGas(data), estimated: false };
  }
}

function printPlan(plan: Plan, out: (line: string) => void) {
  out("Canonical contracts:");
  for (const contract of plan.canonical) out(`  ${contract.name} ${contract.address}: ${contract.state}`);
  out("relay402 contracts (CREATE2, fixed salts):");
  for (const deployment of plan.deployments) {
    out(`  ${deployment.label} ${deployment.address}: ${deployment.exists ? "deployed" : "to deploy"}`);
  }
}

/**
 * Deploys and sets up what `options.features` need on one chain, sending only what is missing, so that a second
 * run sends nothing and an interrupted run can be started again. A dry run sends nothing and prints the plan with
 * each transaction's gas and the total cost at the current fee.
 */
export async function deploy(options: DeployOptions, out: (line: string) => void): Promise<DeployResult> {
  const account = privateKeyToAccount(options.deployerKey);
  const probe = createPublicClient({ transport: http(options.rpcUrl) });
  const chainId = await probe.getChainId();
  if (chainId !== options.network.chainId) {
    throw new DeployRefusal(
      `the RPC URL serves chain ${chainId}, not ${options.network.name} (chain ${options.network.chainId})`,
    );
  }
  const chain = defineChain({
    id: chainId,
    name: options.network.name,
    nativeCurrency: { name: "native", symbol: "native", decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
    fees: { baseFeeMultiplier: options.baseFeeMultiplier ?? 2 },
  });
  const client = createPublicClient({ chain, transport: http(options.rpcUrl) }) as PublicClient;
  const wallet = createWalletClient({ chain, transport: http(options.rpcUrl), account });

  if (options.owner && !options.ownerIsEoa) {
    const code = await client.getCode({ address: options.owner });
    if (!code || code === "0x") {
      throw new DeployRefusal(
        `--owner ${options.owner} has no code on ${options.network.name}: a multisig is expected; ` +
          "pass --owner-eoa if an externally owned account is meant",
      );
    }
  }
  if (options.features.includes("incognito") && !options.verifierCreationCode) {
    if (isUntrustedSetup(SERVED_CIRCUIT_ID) && !options.allowUntrustedSetup) {
      throw new DeployRefusal(
        `incognito would deploy the repository's devnet verifier (circuit ${SERVED_CIRCUIT_ID}, a setup one ` +
          "machine ran alone: its maker can forge proofs and drain the pool): pass a ceremony's verifier with " +
          "--verifier <file>, or --allow-untrusted-setup to accept the risk",
      );
    }
  }

  const inputs: DeployInputs = { ...options, deployer: account.address };
  let plan = await buildPlan(client, inputs);
  printPlan(plan, out);
  const addresses = Object.fromEntries(plan.deployments.map((deployment) => [deployment.label, deployment.address]));

  const transactions = planTransactions(plan);
  const fees = await client.estimateFeesPerGas();
  const maxFeePerGas = fees.maxFeePerGas ?? (await client.getGasPrice());
  let totalGas = 0n;
  let totalValue = 0n;
  out(transactions.length === 0 ? "Transactions: none" : "Transactions:");
  for (const tx of transactions) {
    const { gas, estimated } = await estimate(client, account.address, tx);
    totalGas += gas;
    totalValue += tx.value;
    out(
      `  ${tx.description}: ${estimated ? "" : "≈"}${gas} gas${tx.value > 0n ? ` + ${formatEther(tx.value)} value` : ""}`,
    );
  }
  const gasCost = totalGas * maxFeePerGas;
  if (transactions.length > 0) {
    out(
      `Total: ${totalGas} gas × ${formatGwei(maxFeePerGas)} gwei = ${formatEther(gasCost)} native token, ` +
        `plus ${formatEther(totalValue)} sent as deposit/stake: ${formatEther(gasCost + totalValue)} at most`,
    );
  }

  if (options.dryRun) {
    out("Dry run: nothing sent.");
    printOwnerSteps(plan, options.owner, out);
    return { plan, addresses, sent: 0, deployedNow: [] };
  }
  if (transactions.length === 0) {
    out("Nothing to send: every contract is deployed and set up.");
    printOwnerSteps(plan, options.owner, out);
    return { plan, addresses, sent: 0, deployedNow: [] };
  }
  const [latestNonce, pendingNonce] = await Promise.all([
    client.getTransactionCount({ address: account.address, blockTag: "latest" }),
    client.getTransactionCount({ address: account.address, blockTag: "pending" }),
  ]);
  if (pendingNonce > latestNonce) {
    throw new DeployRefusal(
      `${pendingNonce - latestNonce} transaction(s) of the deploy key ${account.address} are still pending: ` +
        "wait until they are mined (or dropped), then run again",
    );
  }
  const balance = await client.getBalance({ address: account.address });
  if (balance < gasCost + totalValue) {
    throw new DeployRefusal(
      `the deploy key ${account.address} holds ${formatEther(balance)}, the plan may cost up to ` +
        `${formatEther(gasCost + totalValue)}: fund it and run again`,
    );
  }

  let sent = 0;
  /**
   * Sends `txs` back to back (explicit nonces, each once the node accepted the previous one), then waits for
   * every receipt: one block per step instead of one per transaction. Each step's state is read again from the
   * chain before the next, so a run stopped anywhere is run again.
   */
  const sendAll = async (txs: PlannedTransaction[]) => {
    let nonce = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
    const pending: { tx: PlannedTransaction; hash: Hex }[] = [];
    for (const tx of txs) {
      const { gas } = await estimate(client, account.address, tx);
      out(`  sending ${tx.description}`);
      const { to, data, value } = tx;
      const hash = await wallet.sendTransaction({ to, data, value, gas: (gas * 13n) / 10n, nonce: nonce++ });
      pending.push({ tx, hash });
    }
    for (const { tx, hash } of pending) {
      const receipt = await client.waitForTransactionReceipt({
        hash,
        pollingInterval: options.pollingIntervalMs ?? 1_000,
        timeout: 180_000,
      });
      if (receipt.status !== "success") throw new Error(`${tx.description} reverted (transaction ${hash})`);
      out(`  sent ${tx.description}: ${receipt.gasUsed} gas used (transaction ${hash})`);
      sent++;
    }
  };
  const deployedNow = plan.deployments.filter((d) => !d.exists).map((d) => d.label);
  // Missing contracts first (none of their constructors calls another), then the setup, read again from the
  // chain and estimated now that its contracts exist (planTransactions drops the dry run's fixed figures).
  await sendAll(planTransactions({ ...plan, setup: [] }));
  for (const deployment of plan.deployments.filter((d) => !d.exists)) {
    const code = await client.getCode({ address: deployment.address });
    if (!code || code === "0x") throw new Error(`${deployment.label} left no code at ${deployment.address}`);
  }
  plan = await buildPlan(client, inputs);
  await sendAll(planTransactions({ ...plan, deployments: [] }));
  plan = await buildPlan(client, inputs);
  out(`Sent ${sent} transaction(s).`);
  printOwnerSteps(plan, options.owner, out);
  return { plan, addresses, sent, deployedNow };
}

function printOwnerSteps(plan: Plan, owner: Address | undefined, out: (line: string) => void) {
  const pending = owner
    ? plan.ownership.filter((state) => state.pendingOwner.toLowerCase() === owner.toLowerCase())
    : [];
  for (const state of pending)
    out(`The new owner ${owner} must call ${state.contract}(${state.address}).acceptOwnership()`);
  for (const call of plan.forOwner) out(`The owner must send: ${call.description} (to ${call.to}, data ${call.data})`);
  if (!owner) out("No --owner given: the deploy key stays the owner of every contract.");
}
