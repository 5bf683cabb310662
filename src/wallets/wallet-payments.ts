import { type UserOpFlowDeps, userOpKernel } from "../userops/flow-deps";
import type { UserOpSettleRequest } from "../userops/settle-user-op";
import { createWalletPaymentSettler } from "./settle-wallet-payment";
import { verifyWalletPayment, type WalletVerifyRequest } from "./verify-wallet-payment";

/** Smart-wallet payments: the service object behind /wallet/verify and /wallet/settle. */
export function createWalletPayments(deps: UserOpFlowDeps) {
  const kernel = userOpKernel(deps);
  const settle = createWalletPaymentSettler(kernel.settle);
  return {
    /** The issued UserOps every wallet flow shares (the service hands it on to incognito, swaps and deployments). */
    store: deps.store,
    verify: (networkName: string, request: WalletVerifyRequest) =>
      verifyWalletPayment(kernel.issueOn(networkName), request),
    settle: (request: UserOpSettleRequest) => settle(request),
  };
}

export type WalletPayments = ReturnType<typeof createWalletPayments>;
