import type { QuoteBodySchema } from "@relay402/client/wire/deploy-schemas";
import type { Static } from "@sinclair/typebox";
import type { DeployContext } from "./context";
import { planDeployment, walletEntries } from "./plan";

/** /deploy/quote: what a client must sign for a deployment; no payment, no reservation. */
export async function quoteDeployment(ctx: DeployContext, body: Static<typeof QuoteBodySchema>) {
  const plan = await planDeployment(
    ctx.networks.get(body.network, { capability: "deployments", field: "network" }),
    body.deployment,
    "deployment",
  );
  return {
    wallets: walletEntries(plan, []),
    deploymentFee: plan.deploymentFee.toString(),
    feeRecipient: plan.feeRecipient,
    relayerContract: plan.relayer,
    token: plan.token.address,
  };
}
