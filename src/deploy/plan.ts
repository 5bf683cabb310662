import { type Address, getAddress, type Hex, zeroAddress } from "viem";
import type { NetworkRuntime } from "../chain/networks";
import { smartWalletOf } from "../config/capabilities";
import type { TokenConfig } from "../config/schema";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { deployedAddresses, walletAddresses } from "./addresses";
import type { AsyncDeploymentStore, NewBatch, NewWallet } from "./deployment-store";

export type DeploymentRequest = { ownerAddress: string; salts: string[]; token: string };

/** What a deployment of `salts` for `owner` costs and creates on one network. */
export type DeploymentPlan = {
  network: NetworkRuntime;
  owner: Address;
  salts: Hex[];
  token: TokenConfig;
  wallets: Address[];
  deploymentFee: bigint;
  feeRecipient: Address;
  relayer: Address;
  factory: Address;
};

/** Salts and token checked, addresses computed; `field` is where the deployment object sits in the body. */
export async function planDeployment(
  network: NetworkRuntime,
  request: DeploymentRequest,
  field: string,
): Promise<DeploymentPlan> {
  const token = network.token(request.token);
  if (!token)
    throw new ApiError("validation_error", `token ${request.token} is not enabled on ${network.name}`, {
      field: `${field}.token`,
    });
  const salts = request.salts.map((salt) => salt.toLowerCase() as Hex);
  const duplicate = salts.findIndex((salt, i) => salts.indexOf(salt) !== i);
  if (duplicate >= 0)
    throw new ApiError("validation_error", "salts must be distinct", { field: `${field}.salts.${duplicate}` });
  const owner = getAddress(request.ownerAddress);
  // The account's initializer reverts on it (InvalidOwner): a fee paid for it would buy a deployment that never happens.
  if (owner === zeroAddress)
    throw new ApiError("validation_error", "ownerAddress must not be the zero address", {
      field: `${field}.ownerAddress`,
    });
  const { factory, relayer } = smartWalletOf(network, "deployments");
  let wallets: Address[];
  try {
    wallets = await walletAddresses(network.client, factory, owner, salts);
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to compute wallet addresses", { reason: shortReason(error) });
  }
  return {
    network,
    owner,
    salts,
    token: { ...token, address: getAddress(token.address) },
    wallets,
    deploymentFee: token.deploymentFeePerWallet * BigInt(salts.length),
    feeRecipient: getAddress(network.config.feeRecipient),
    relayer: getAddress(relayer),
    factory,
  };
}

/** A fee is taken once per wallet: refuse a wallet that is deployed already or reserved by a paid (or paying) batch. */
export async function assertDeployable(
  plan: DeploymentPlan,
  store: AsyncDeploymentStore,
  field: string,
): Promise<void> {
  const reservations = await Promise.all(plan.wallets.map((wallet) => store.reservation(plan.network.name, wallet)));
  plan.wallets.forEach((wallet, i) => {
    if (reservations[i]) {
      throw new ApiError(
        "validation_error",
        `wallet ${wallet} (salt ${plan.salts[i]}) is already paid for by an earlier deployment`,
        {
          field: `${field}.salts.${i}`,
          wallet,
        },
      );
    }
  });
  let deployed: Set<string>;
  try {
    deployed = await deployedAddresses(plan.network.client, plan.wallets);
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read on-chain state", { reason: shortReason(error) });
  }
  const index = plan.wallets.findIndex((wallet) => deployed.has(wallet.toLowerCase()));
  if (index >= 0) {
    throw new ApiError(
      "validation_error",
      `wallet ${plan.wallets[index]} (salt ${plan.salts[index]}) is already deployed`,
      {
        field: `${field}.salts.${index}`,
        wallet: plan.wallets[index],
      },
    );
  }
}

export type WalletEntry = { address: Address; salt: Hex; owner: Address; fundingAmount: string };

export const walletEntries = (plan: DeploymentPlan, fundingAmounts: readonly bigint[]): WalletEntry[] =>
  plan.wallets.map((address, i) => ({
    address,
    salt: plan.salts[i] as Hex,
    owner: plan.owner,
    fundingAmount: (fundingAmounts[i] ?? 0n).toString(),
  }));

/** Settle must carry the wallets verify returned, unchanged and in order. */
export function assertSameWallets(
  expected: WalletEntry[],
  given: { address: string; salt: string; owner: string; fundingAmount: string }[],
): void {
  const mismatch =
    given.length !== expected.length
      ? 0
      : expected.findIndex((wallet, i) => {
          const other = given[i];
          return (
            !other ||
            other.address.toLowerCase() !== wallet.address.toLowerCase() ||
            other.salt.toLowerCase() !== wallet.salt ||
            other.owner.toLowerCase() !== wallet.owner.toLowerCase() ||
            BigInt(other.fundingAmount) !== BigInt(wallet.fundingAmount)
          );
        });
  if (mismatch >= 0) {
    throw new ApiError("validation_error", "wallets do not match the verify response", {
      field: `wallets.${mismatch}`,
      expected,
    });
  }
}

/** The batch and wallet rows a settle records for `plan`; a flow adds who pays and how. */
export function batchOf(
  plan: DeploymentPlan,
  payment: Pick<NewBatch, "batchKey" | "flow" | "payer" | "feeAuthorization" | "userOpHash" | "signedUserOp">,
  fundings: { amount: bigint; authorization: string | null }[],
): [NewBatch, NewWallet[]] {
  const batch: NewBatch = {
    ...payment,
    network: plan.network.name,
    owner: plan.owner.toLowerCase(),
    payer: payment.payer.toLowerCase(),
    token: plan.token.address.toLowerCase(),
    feeRecipient: plan.feeRecipient.toLowerCase(),
    deploymentFee: plan.deploymentFee.toString(),
    fundingRequested: fundings.some((funding) => funding.amount > 0n),
  };
  const wallets = plan.wallets.map((walletAddress, i) => ({
    walletAddress,
    salt: plan.salts[i] as string,
    fundingRequested: (fundings[i]?.amount ?? 0n) > 0n,
    fundingAmount: (fundings[i]?.amount ?? 0n).toString(),
    fundingAuthorization: fundings[i]?.authorization ?? null,
  }));
  return [batch, wallets];
}
