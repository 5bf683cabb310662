import type { EoaSettleBodySchema, EoaVerifyBodySchema } from "@relay402/client/wire/deploy-schemas";
import type { Static } from "@sinclair/typebox";
import type { DeploymentBatch } from "../db/schema";
import { ApiError } from "../errors";
import { authorizationToJson } from "../settlement/authorization";
import type { DeployContext } from "./context";
import { checkEoaPayments, parseEoaPayments } from "./eoa-payloads";
import { assertDeployable, assertSameWallets, batchOf, planDeployment, walletEntries } from "./plan";
import type { SettlingContext } from "./settle-batch";

const FIELD = "paymentRequirements.deployment";

async function prepare(ctx: SettlingContext, body: Static<typeof EoaVerifyBodySchema>) {
  const { network: name, deployment } = body.paymentRequirements;
  const network = ctx.networks.get(name, { capability: "deployments" });
  const plan = await planDeployment(network, deployment, FIELD);
  const payments = parseEoaPayments(plan, body.paymentPayload, deployment.fundingRequested);
  const fundingAmounts = payments.fundings.map((funding) => funding.value);
  const fundingFees = fundingAmounts.reduce((sum, amount) => sum + amount, 0n);
  return { network, plan, payments, fundingAmounts, fundingFees, wallets: walletEntries(plan, fundingAmounts) };
}

/** What verify and settle both require: wallets not yet deployed or paid for, and every payload valid. */
async function checkBatch(
  ctx: DeployContext,
  prepared: Pick<Awaited<ReturnType<typeof prepare>>, "network" | "plan" | "payments">,
  relayerContract: string,
) {
  await assertDeployable(prepared.plan, ctx.store, FIELD);
  return checkEoaPayments(
    { relayer: ctx.relayerFor(prepared.network), rules: ctx.rulesFor(prepared.network), now: ctx.now },
    prepared.plan,
    prepared.payments,
    relayerContract,
  );
}

/** /deploy/verify: addresses, fees and every payload checked; a payment check that fails is 200 with isValid false. */
export async function verifyEoaDeployment(ctx: SettlingContext, body: Static<typeof EoaVerifyBodySchema>) {
  const { network, plan, payments, fundingFees, wallets } = await prepare(ctx, body);
  const verdict = await checkBatch(ctx, { network, plan, payments }, body.paymentRequirements.relayerContract);
  return {
    isValid: verdict.isValid,
    // Only a recovered signer is a payer: an invalid batch's `from` is merely what the body claims.
    ...(verdict.isValid ? { payer: payments.payer } : {}),
    wallets,
    deploymentFee: plan.deploymentFee.toString(),
    fundingFees: fundingFees.toString(),
    totalFees: (plan.deploymentFee + fundingFees).toString(),
    invalidReason: verdict.isValid ? null : verdict.invalidReason,
    ...(verdict.isValid ? {} : { invalidMessage: verdict.invalidMessage }),
  };
}

/**
 * /deploy/settle: the batch is keyed by its fee authorization (network, payer, nonce). A known batch is
 * replayed; a new one is checked again, recorded with its wallets reserved, then paid, deployed and funded.
 */
export async function settleEoaDeployment(ctx: SettlingContext, body: Static<typeof EoaSettleBodySchema>) {
  const { network, plan, payments, wallets } = await prepare(ctx, body);
  assertSameWallets(wallets, body.wallets);
  const batchKey = `eoa:${network.name}:${payments.payer.toLowerCase()}:${payments.fee.nonce}`;
  return ctx.once(batchKey, async () => {
    // Start-up reconciliation may still drop or resolve this very batch: look it up only once it is done.
    await ctx.ready;
    const replay = async (known: DeploymentBatch) => {
      const recorded = (await ctx.store.walletsOf(known.id)).map((row) => row.walletAddress);
      const same =
        known.owner === plan.owner.toLowerCase() && recorded.join() === plan.wallets.map((w) => w.toLowerCase()).join();
      if (!same)
        throw new ApiError("validation_error", "this fee authorization already pays for a different deployment", {
          field: "paymentPayload.0",
        });
      return ctx.settleBatch(known);
    };
    const known = await ctx.store.findBatch(batchKey);
    if (known) return replay(known);
    try {
      const verdict = await checkBatch(ctx, { network, plan, payments }, body.paymentRequirements.relayerContract);
      if (!verdict.isValid) throw new ApiError(verdict.invalidReason, verdict.invalidMessage);
    } catch (error) {
      // Another request or instance may have recorded this very batch since the look-up (its reserved wallets and
      // used fee nonce are what failed the check): answered from it, as a settle a moment later would be.
      const appeared = await ctx.store.findBatch(batchKey);
      if (appeared) return replay(appeared);
      throw error;
    }
    const batch = await ctx.createBatch(
      ...batchOf(
        plan,
        {
          batchKey,
          flow: "eoa",
          payer: payments.payer,
          feeAuthorization: authorizationToJson(payments.fee),
          userOpHash: null,
          signedUserOp: null,
        },
        payments.fundings.map((funding) => ({ amount: funding.value, authorization: authorizationToJson(funding) })),
      ),
    );
    return ctx.settleBatch(batch);
  });
}
