import { type Address, type Hex, isAddressEqual, type PublicClient } from "viem";
import { CANONICAL, type CanonicalName, type CodeState, canonicalCodeState } from "../../chain/canonical";
import { type Deployment, needsRelayer, plannedDeployments, requiredCanonical } from "./contracts";
import type { DeployNetwork, Feature, PresetToken } from "./network";
import { type OwnershipState, ownershipCalls, ownershipStates, type SetupCall, setupCalls } from "./setup";

/** A chain deploy must not touch: the message names the contract and its address. */
export class DeployRefusal extends Error {
  override name = "DeployRefusal";
}

export type DeployInputs = {
  network: DeployNetwork;
  features: readonly Feature[];
  deployer: Address;
  paymasterSigner: Address;
  tokens: PresetToken[];
  feeRecipient: Address;
  owner?: Address;
  paymasterDeposit: bigint;
  paymasterStake: { amount: bigint; unstakeDelaySec: number };
  /** Swap routers to whitelist (default: the network's). */
  swapRouters?: { address: Address; kind: "v2" | "v3" }[];
  verifierCreationCode?: Hex;
  domainName?: string;
};

export type PlannedDeployment = Deployment & { exists: boolean };

export type Plan = {
  canonical: { name: string; address: Address; state: CodeState }[];
  deployments: PlannedDeployment[];
  setup: SetupCall[];
  ownership: OwnershipState[];
  /** Setup the deploy key may no longer send (another owner accepted): printed for that owner. */
  forOwner: SetupCall[];
};

const hasCode = (code: Hex | undefined) => code !== undefined && code !== "0x";

/**
 * Reads what the chain holds and what deploy would change there. Refuses a chain whose canonical address holds
 * other code, or lacks a contract relay402 cannot deploy itself.
 */
export async function buildPlan(client: PublicClient, inputs: DeployInputs): Promise<Plan> {
  const canonical: Plan["canonical"] = [];
  for (const name of requiredCanonical(inputs.features)) {
    const contract = CANONICAL[name];
    const state = canonicalCodeState(contract, await client.getCode({ address: contract.address }));
    canonical.push({ name: contract.name, address: contract.address, state });
    if (state === "other-code") {
      throw new DeployRefusal(
        `${contract.name} at ${contract.address} holds other code than the canonical ${contract.name} ` +
          `(${contract.source}): this chain is not one relay402 can deploy on`,
      );
    }
    if (state === "missing") {
      throw new DeployRefusal(
        `${contract.name} is missing at ${contract.address}: relay402 needs it there and does not deploy it ` +
          `(${contract.source})`,
      );
    }
  }

  const deployments: PlannedDeployment[] = [];
  for (const deployment of await plannedDeployments(inputs)) {
    const code = await client.getCode({ address: deployment.address });
    if (deployment.canonical) {
      const contract = CANONICAL[deployment.canonical as CanonicalName];
      const state = canonicalCodeState(contract, code);
      if (state === "other-code") {
        throw new DeployRefusal(
          `${contract.name} at ${contract.address} holds other code than the canonical ${contract.name} (${contract.source})`,
        );
      }
      canonical.push({ name: contract.name, address: contract.address, state });
    }
    deployments.push({ ...deployment, exists: hasCode(code) });
  }

  const at = (label: string) => {
    const found = deployments.find((deployment) => deployment.label === label);
    return found ? { address: found.address, deployed: found.exists } : undefined;
  };
  const targets = {
    deployer: inputs.deployer,
    relayer: needsRelayer(inputs.features) ? at("Relayer") : undefined,
    paymaster: at("Paymaster"),
    tokens: inputs.tokens,
    swaps: inputs.features.includes("swaps")
      ? { routers: inputs.swapRouters ?? inputs.network.swapRouters, feeRecipient: inputs.feeRecipient }
      : undefined,
    paymasterSigner: inputs.paymasterSigner,
    paymasterDeposit: inputs.paymasterDeposit,
    paymasterStake: inputs.paymasterStake,
    newOwner: inputs.owner,
  };
  const ownership = await ownershipStates(client, targets);
  const ownerOf = (to: Address) => ownership.find((state) => isAddressEqual(state.address, to))?.owner;
  const deployerOwns = (call: SetupCall) => {
    const owner = ownerOf(call.to);
    return !call.ownerOnly || (owner !== undefined && isAddressEqual(owner, inputs.deployer));
  };
  const calls = [...(await setupCalls(client, targets)), ...ownershipCalls(ownership, inputs.deployer, inputs.owner)];
  return {
    canonical,
    deployments,
    setup: calls.filter(deployerOwns),
    ownership,
    forOwner: calls.filter((call) => !deployerOwns(call)),
  };
}

export type PlannedTransaction = {
  description: string;
  to: Address;
  data: Hex;
  value: bigint;
  /** Set when the transaction's contract is not deployed yet, so its gas cannot be estimated. */
  gasIfUndeployed?: bigint;
};

/** The transactions a plan sends, in order: missing contracts first, then the setup, ownership last. */
export function planTransactions(plan: Plan): PlannedTransaction[] {
  return [
    ...plan.deployments
      .filter((deployment) => !deployment.exists)
      .map((deployment) => ({
        description: `deploy ${deployment.label} at ${deployment.address}`,
        to: CANONICAL.create2Deployer.address,
        data: `${deployment.payload.salt}${deployment.payload.initCode.slice(2)}` as Hex,
        value: 0n,
      })),
    ...plan.setup.map(({ gasIfUndeployed, ...call }) => {
      const target = plan.deployments.find((deployment) => isAddressEqual(deployment.address, call.to));
      return target && !target.exists ? { ...call, gasIfUndeployed } : call;
    }),
  ];
}
