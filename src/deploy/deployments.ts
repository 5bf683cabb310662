import type {
  ClaimBodySchema,
  EoaSettleBodySchema,
  EoaVerifyBodySchema,
  QuoteBodySchema,
  WalletSettleBodySchema,
  WalletVerifyBodySchema,
} from "@relay402/client/wire/deploy-schemas";
import type { Static } from "@sinclair/typebox";
import { claimDeployments } from "./claim";
import { createDeployContext, type DeployDeps } from "./context";
import { settleEoaDeployment, verifyEoaDeployment } from "./eoa-flow";
import { masterWallet, walletsOfOwner } from "./queries";
import { quoteDeployment } from "./quote";
import { reconcileDeployments } from "./reconcile";
import { createBatchSettler, type SettlingContext } from "./settle-batch";
import { settleWalletDeployment, verifyWalletDeployment } from "./wallet-flow";

/**
 * Wallet deployment: the service object behind /deploy/*, /wallet/:owner and /wallet/claim, on the deployment
 * store it is given (`asAsync(createDeploymentStore(db))` on SQLite, or PostgreSQL's adapter). One instance:
 * creating it starts the reconciliation of what the previous process left open, and batches are touched only
 * after it. Several instances (`reconcileBefore`): nothing runs at creation; `reconcile()` (the orphan sweep, under
 * its database lock) takes only what nobody wrote since `reconcileBefore()`, so a live instance's work is its own.
 */
export function createDeployments(deps: DeployDeps, options: { reconcileBefore?: () => string } = {}) {
  const base = createDeployContext(deps);
  const reconcile = (before: string) =>
    reconcileDeployments(base, before).catch((error) =>
      deps.logger.error({ event: "deployment_reconcile_failed", reason: String(error) }),
    );
  const reconciled = options.reconcileBefore ? Promise.resolve() : reconcile(new Date().toISOString());
  const ctx: SettlingContext = { ...base, ready: reconciled, settleBatch: createBatchSettler(base, reconciled) };
  return {
    store: ctx.store,
    /** Resolves when start-up reconciliation is done. */
    reconciled,
    /** Several instances: reconciles what nobody wrote since `reconcileBefore()` (a no-op for one instance). */
    reconcile: async () => {
      if (options.reconcileBefore) await reconcile(options.reconcileBefore());
    },
    quote: (body: Static<typeof QuoteBodySchema>) => quoteDeployment(ctx, body),
    verify: (body: Static<typeof EoaVerifyBodySchema>) => verifyEoaDeployment(ctx, body),
    settle: (body: Static<typeof EoaSettleBodySchema>) => settleEoaDeployment(ctx, body),
    verifyWallet: (body: Static<typeof WalletVerifyBodySchema>) => verifyWalletDeployment(ctx, body),
    settleWallet: (body: Static<typeof WalletSettleBodySchema>) => settleWalletDeployment(ctx, body),
    claim: (body: Static<typeof ClaimBodySchema>) => claimDeployments(ctx, body),
    walletsOf: (owner: string, network?: string) => walletsOfOwner(ctx, owner, network),
    master: (owner: string) => masterWallet(ctx, owner),
  };
}

export type Deployments = ReturnType<typeof createDeployments>;
