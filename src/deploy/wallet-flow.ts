import type { WalletSettleBodySchema, WalletVerifyBodySchema } from "@relay402/client/wire/deploy-schemas";
import { payBatchCalls } from "@relay402/client/wire/pay-batch";
import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import type { Static } from "@sinclair/typebox";
import { getAddress, type Hex, maxUint256 } from "viem";
import { invalid, refuse } from "../userops/invalid";
import { issueUserOp } from "../userops/issue-user-op";
import { assertSignedByOwner, locateIssuedUserOp } from "../userops/locate-issued-user-op";
import { userOpNetworkOf } from "../userops/user-op-network";
import {
  assertDeployable,
  assertSameWallets,
  batchOf,
  type DeploymentPlan,
  planDeployment,
  walletEntries,
} from "./plan";
import type { SettlingContext } from "./settle-batch";

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

/**
 * The issued UserOp's context: the promise, and what the UserOp pays under the names the payment lookup reads in
 * every UserOp's context (src/dashboard/records.ts): the total out of the paying wallet, the fee, and each transfer
 * (the fee recipient first, then every funded wallet), so that a deployment's record, and its events, say it.
 */
type DeploymentContext = IssuedDeployment & {
  totalAmount: string;
  feeAmount: string;
  transfers: { to: string; amount: string }[];
};

const PROMISED: (keyof IssuedDeployment)[] = ["ownerAddress", "salts", "token", "payerAddress", "fundingAmounts"];
/** The promise alone, as settle compares it: contexts stored before the amounts were added compare the same. */
const promised = (context: IssuedDeployment) =>
  JSON.stringify(Object.fromEntries(PROMISED.map((key) => [key, context[key]])));

/**
 * The fundings, one per salt. The schema allows 78 digits, more than a uint256: an amount above it, or a fee plus
 * fundings above it (the UserOp approves and pays that total), is refused here, naming the field, before any encoding.
 */
function fundingAmountsOf(plan: DeploymentPlan, deployment: Deployment): bigint[] {
  const field = `${FIELD}.fundingAmounts`;
  if (!deployment.fundingAmounts) return plan.salts.map(() => 0n);
  if (deployment.fundingAmounts.length !== plan.salts.length) {
    throw refuse(field, `fundingAmounts must have one amount per salt (${plan.salts.length})`);
  }
  const amounts = deployment.fundingAmounts.map((text, i) => {
    const amount = BigInt(text);
    if (amount > maxUint256) throw invalid(`${field}.${i}`, "exceeds uint256");
    return amount;
  });
  if (amounts.reduce((sum, amount) => sum + amount, plan.deploymentFee) > maxUint256) {
    throw invalid(field, "the deployment fee plus the fundings exceeds uint256");
  }
  return amounts;
}

const normalized = (deployment: Deployment, amounts: bigint[]): IssuedDeployment => ({
  ownerAddress: deployment.ownerAddress.toLowerCase(),
  salts: deployment.salts.map((salt) => salt.toLowerCase()),
  token: deployment.token.toLowerCase(),
  payerAddress: deployment.payerAddress.toLowerCase(),
  fundingAmounts: amounts.map(String),
});

/** The fee to the fee recipient, then each funding to its wallet's deterministic address. */
function feeAndFundings(plan: DeploymentPlan, amounts: bigint[]) {
  const fundings = plan.wallets
    .map((wallet, i) => ({ to: wallet, amount: amounts[i] ?? 0n }))
    .filter((funding) => funding.amount > 0n);
  return [{ to: plan.feeRecipient, amount: plan.deploymentFee }, ...fundings];
}

/** /deploy/wallet/verify: an unsigned, paymaster-sponsored UserOp from the paying wallet for the fee and fundings. */
export async function verifyWalletDeployment(ctx: SettlingContext, body: Static<typeof WalletVerifyBodySchema>) {
  const { network: name, deployment } = body.paymentRequirements;
  const network = ctx.networks.get(name, { capability: "deployments" });
  const wallet = userOpNetworkOf(network);
  const plan = await planDeployment(network, deployment, FIELD);
  const amounts = fundingAmountsOf(plan, deployment);
  await assertDeployable(plan, ctx.store, FIELD);
  const payer = getAddress(deployment.payerAddress);
  const fundingFees = amounts.reduce((sum, amount) => sum + amount, 0n);
  const total = plan.deploymentFee + fundingFees;

  const issued = await issueUserOp(
    { store: ctx.issued, deny: ctx.deny, validitySeconds: ctx.config.paymasterValiditySeconds },
    {
      network: wallet,
      sender: payer,
      spends: { token: plan.token.address, amount: total },
      calls: payBatchCalls({
        token: plan.token.address,
        relayer: plan.relayer,
        payments: feeAndFundings(plan, amounts),
      }),
      kind: "deployment",
      context: {
        ...normalized(deployment, amounts),
        totalAmount: total.toString(),
        feeAmount: plan.deploymentFee.toString(),
        transfers: feeAndFundings(plan, amounts).map(({ to, amount }) => ({ to, amount: amount.toString() })),
      } satisfies DeploymentContext,
      fields: { sender: `${FIELD}.payerAddress`, balance: `${FIELD}.payerAddress`, calls: FIELD },
    },
  );
  return {
    isValid: true,
    payer,
    wallets: walletEntries(plan, amounts),
    deploymentFee: plan.deploymentFee.toString(),
    fundingFees: fundingFees.toString(),
    totalFees: total.toString(),
    invalidReason: null,
    userOp: issued.userOp,
    userOpHash: issued.userOpHash,
  };
}

/** /deploy/wallet/settle: only the UserOp verify issued, signed by the paying wallet's owner, pays; then the wallets are deployed. */
export async function settleWalletDeployment(ctx: SettlingContext, body: Static<typeof WalletSettleBodySchema>) {
  const { network: name, deployment } = body.paymentRequirements;
  const network = ctx.networks.get(name, { capability: "deployments" });
  const wallet = userOpNetworkOf(network);
  const located = await locateIssuedUserOp(
    { store: ctx.issued, now: Number(ctx.now()) },
    [wallet],
    "deployment",
    body.userOp as RpcUserOp,
    "/deploy/wallet/verify",
  );
  const { hash, record } = located;
  const signature = body.signature.toLowerCase() as Hex;
  if (body.userOp.signature.toLowerCase() !== signature)
    throw refuse("signature", "signature differs from userOp.signature");
  const batchKey = `wallet:${network.name}:${hash}`;

  return ctx.once(batchKey, async () => {
    // Start-up reconciliation may still drop or resolve this very batch: look it up only once it is done.
    await ctx.ready;
    const known = await ctx.store.findBatch(batchKey);
    if (known) return ctx.settleBatch(known);
    let plan: DeploymentPlan;
    let amounts: bigint[];
    try {
      if (record.status !== "issued") throw refuse("userOp", `this UserOp was already settled (${record.status})`);
      await assertSignedByOwner(located, signature, Number(ctx.now()));
      plan = await planDeployment(network, deployment, FIELD);
      amounts = fundingAmountsOf(plan, deployment);
      if (promised(normalized(deployment, amounts)) !== promised(JSON.parse(record.context) as IssuedDeployment)) {
        throw refuse(FIELD, "paymentRequirements.deployment differs from the one this UserOp was issued for");
      }
      assertSameWallets(walletEntries(plan, amounts), body.wallets);
      await assertDeployable(plan, ctx.store, FIELD);
    } catch (error) {
      // Another request or instance may have recorded this very batch since the look-up (its reserved wallets and
      // claimed UserOp are what failed the checks): answered from it, as a settle a moment later would be.
      const appeared = await ctx.store.findBatch(batchKey);
      if (appeared) return ctx.settleBatch(appeared);
      throw error;
    }
    const batch = await ctx.createBatch(
      ...batchOf(
        plan,
        {
          batchKey,
          flow: "wallet",
          payer: deployment.payerAddress,
          feeAuthorization: null,
          userOpHash: hash,
          signedUserOp: JSON.stringify({ ...(JSON.parse(record.userOp) as RpcUserOp), signature }),
        },
        amounts.map((amount) => ({ amount, authorization: null })),
      ),
    );
    return ctx.settleBatch(batch);
  });
}
