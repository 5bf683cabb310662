import type { Static } from "elysia";
import { type Address, encodeFunctionData, getAddress, type Hex } from "viem";
import { erc20Abi, relayerAbi } from "../chain/abis";
import { assertOwnerNotDenied } from "../deny/deny-counters";
import { ApiError } from "../errors";
import { shortReason } from "../logger";
import { encodeBatchExecution } from "../userops/execution";
import { buildSponsoredUserOp } from "../userops/sponsor";
import { fromRpcUserOp, type RpcUserOp, toRpcUserOp, userOpHash } from "../userops/user-operation";
import { walletNetworkOf } from "../wallets/network-context";
import { checkOwnerSignature, differingFields } from "../wallets/user-op-match";
import { readWalletState } from "../wallets/wallet-state";
import type { DeployContext } from "./context";
import { assertDeployable, assertSameWallets, type DeploymentPlan, planDeployment, walletEntries } from "./plan";
import type { WalletSettleBodySchema, WalletVerifyBodySchema } from "./schemas";

const FIELD = "paymentRequirements.deployment";
type Deployment = Static<typeof WalletVerifyBodySchema>["paymentRequirements"]["deployment"];
/** What verify promised, stored with the issued UserOp and compared at settle. */
type IssuedDeployment = {
  ownerAddress: string;
  salts: string[];
  token: string;
  payerAddress: string;
  fundingAmounts: string[];
};

const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError("validation_error", message, { field, ...details });

function fundingAmountsOf(plan: DeploymentPlan, deployment: Deployment): bigint[] {
  if (!deployment.fundingAmounts) return plan.salts.map(() => 0n);
  if (deployment.fundingAmounts.length !== plan.salts.length) {
    throw invalid(`${FIELD}.fundingAmounts`, `fundingAmounts must have one amount per salt (${plan.salts.length})`);
  }
  return deployment.fundingAmounts.map((amount) => BigInt(amount));
}

const normalized = (deployment: Deployment, amounts: bigint[]): IssuedDeployment => ({
  ownerAddress: deployment.ownerAddress.toLowerCase(),
  salts: deployment.salts.map((salt) => salt.toLowerCase()),
  token: deployment.token.toLowerCase(),
  payerAddress: deployment.payerAddress.toLowerCase(),
  fundingAmounts: amounts.map(String),
});

/** approve(relayer, total), then one payBatch: the fee to the fee recipient and each funding to its wallet's address. */
function feeAndFundingCall(plan: DeploymentPlan, amounts: bigint[], total: bigint): Hex {
  const funded = plan.wallets
    .map((wallet, i) => [wallet, amounts[i] ?? 0n] as const)
    .filter(([, amount]) => amount > 0n);
  const recipients: Address[] = [plan.feeRecipient, ...funded.map(([wallet]) => wallet)];
  const values = [plan.deploymentFee, ...funded.map(([, amount]) => amount)];
  return encodeBatchExecution([
    {
      to: plan.token.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [plan.relayer, total] }),
    },
    {
      to: plan.relayer,
      data: encodeFunctionData({
        abi: relayerAbi,
        functionName: "payBatch",
        args: [plan.token.address, recipients, values],
      }),
    },
  ]);
}

/** /deploy/wallet/verify: an unsigned, paymaster-sponsored UserOp from the paying wallet for the fee and fundings. */
export async function verifyWalletDeployment(ctx: DeployContext, body: Static<typeof WalletVerifyBodySchema>) {
  const { network: name, deployment } = body.paymentRequirements;
  const network = ctx.networks.get(name);
  const wallet = walletNetworkOf(network);
  const plan = await planDeployment(network, deployment, FIELD);
  const amounts = fundingAmountsOf(plan, deployment);
  await assertDeployable(plan, ctx.store, FIELD);
  const payer = getAddress(deployment.payerAddress);
  const fundingFees = amounts.reduce((sum, amount) => sum + amount, 0n);
  const total = plan.deploymentFee + fundingFees;

  let state: Awaited<ReturnType<typeof readWalletState>>;
  try {
    state = await readWalletState(network.client, {
      wallet: payer,
      token: plan.token.address,
      entryPoint: wallet.entryPoint,
      factory: network.config.contracts.factory as Address,
    });
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to read on-chain state", { reason: shortReason(error) });
  }
  if (!state.deployed) throw invalid(`${FIELD}.payerAddress`, `no wallet is deployed at ${payer}`);
  if (!state.fromFactory || !state.owner) {
    throw invalid(`${FIELD}.payerAddress`, `${payer} is not a relay402 wallet (deployed by the factory)`);
  }
  assertOwnerNotDenied(ctx.deny, network.name, state.owner);
  if (state.balance < total)
    throw invalid(
      `${FIELD}.payerAddress`,
      `insufficient token balance in the paying wallet (${state.balance} < ${total})`,
    );

  let built: Awaited<ReturnType<typeof buildSponsoredUserOp>>;
  try {
    built = await buildSponsoredUserOp(
      { sender: payer, nonce: state.nonce, callData: feeAndFundingCall(plan, amounts, total) },
      {
        bundler: wallet.bundler,
        chainId: network.config.chainId,
        paymaster: wallet.paymaster,
        paymasterSigner: wallet.paymasterSigner,
        validitySeconds: ctx.config.paymasterValiditySeconds,
        caps: wallet.caps,
      },
    );
  } catch (error) {
    throw new ApiError("blockchain_error", "failed to estimate gas for the UserOp", { reason: shortReason(error) });
  }
  const hash = userOpHash(built.userOp, network.config.chainId, wallet.entryPoint);
  const rpc = toRpcUserOp(built.userOp);
  ctx.issued.issue({
    userOpHash: hash,
    network: network.name,
    kind: "deployment",
    sender: payer,
    owner: state.owner,
    userOp: JSON.stringify(rpc),
    context: JSON.stringify(normalized(deployment, amounts)),
    expiresAt: built.validUntil,
  });
  return {
    isValid: true,
    payer,
    wallets: walletEntries(plan, amounts),
    deploymentFee: plan.deploymentFee.toString(),
    fundingFees: fundingFees.toString(),
    totalFees: total.toString(),
    invalidReason: null,
    userOp: rpc,
    userOpHash: hash,
  };
}

function issuedDeployment(
  ctx: DeployContext,
  networkName: string,
  chainId: number,
  entryPoint: Address,
  op: RpcUserOp,
) {
  const hash = userOpHash(fromRpcUserOp(op), chainId, entryPoint);
  const record = ctx.issued.find(hash);
  if (record && record.kind === "deployment" && record.network === networkName) return { hash, record };
  const candidates = ctx.issued.recentIssued(networkName, op.sender, "deployment", Number(ctx.now()));
  const fields = candidates[0] ? differingFields(JSON.parse(candidates[0].userOp), op) : [];
  if (fields.length > 0)
    throw invalid(
      `userOp.${fields[0]}`,
      `${fields.map((f) => `userOp.${f}`).join(", ")} differs from the UserOp issued by /deploy/wallet/verify`,
    );
  throw invalid("userOp", "unknown UserOp: it was not issued by /deploy/wallet/verify on this network");
}

/** /deploy/wallet/settle: only the UserOp verify issued, signed by the paying wallet's owner, pays; then the wallets are deployed. */
export async function settleWalletDeployment(ctx: DeployContext, body: Static<typeof WalletSettleBodySchema>) {
  const { network: name, deployment } = body.paymentRequirements;
  const network = ctx.networks.get(name);
  const wallet = walletNetworkOf(network);
  const { hash, record } = issuedDeployment(
    ctx,
    network.name,
    network.config.chainId,
    wallet.entryPoint,
    body.userOp as RpcUserOp,
  );
  const signature = body.signature.toLowerCase() as Hex;
  if (body.userOp.signature !== "0x" && body.userOp.signature.toLowerCase() !== signature)
    throw invalid("signature", "signature differs from userOp.signature");
  const batchKey = `wallet:${network.name}:${hash}`;

  return ctx.once(batchKey, async () => {
    // Start-up reconciliation may still drop or resolve this very batch: look it up only once it is done.
    await ctx.ready;
    const known = ctx.store.findBatch(batchKey);
    if (known) return ctx.settleBatch(known.id);
    if (record.status !== "issued") throw invalid("userOp", `this UserOp was already settled (${record.status})`);
    if (record.expiresAt <= Number(ctx.now()))
      throw invalid("userOp.paymasterData", "UserOp expired, call verify again", { expiresAt: record.expiresAt });
    const signer = await checkOwnerSignature(hash, signature, record.owner);
    if (signer === "malformed") throw invalid("signature", "signature is not a valid ECDSA signature");
    if (signer === "other")
      throw invalid("signature", "signature does not recover to the paying wallet's owner over userOpHash");

    const plan = await planDeployment(network, deployment, FIELD);
    const amounts = fundingAmountsOf(plan, deployment);
    if (JSON.stringify(normalized(deployment, amounts)) !== record.context) {
      throw invalid(FIELD, "paymentRequirements.deployment differs from the one this UserOp was issued for");
    }
    assertSameWallets(walletEntries(plan, amounts), body.wallets);
    await assertDeployable(plan, ctx.store, FIELD);
    const batch = ctx.createBatch(
      {
        batchKey,
        network: network.name,
        flow: "wallet",
        owner: plan.owner.toLowerCase(),
        payer: deployment.payerAddress.toLowerCase(),
        token: plan.token.address.toLowerCase(),
        feeRecipient: plan.feeRecipient.toLowerCase(),
        deploymentFee: plan.deploymentFee.toString(),
        fundingRequested: amounts.some((amount) => amount > 0n),
        feeAuthorization: null,
        userOpHash: hash,
        signedUserOp: JSON.stringify({ ...(JSON.parse(record.userOp) as RpcUserOp), signature }),
      },
      plan.wallets.map((walletAddress, i) => ({
        walletAddress,
        salt: plan.salts[i] as string,
        fundingRequested: (amounts[i] ?? 0n) > 0n,
        fundingAmount: (amounts[i] ?? 0n).toString(),
        fundingAuthorization: null,
      })),
    );
    return ctx.settleBatch(batch.id);
  });
}
