import type { Networks } from "../chain/networks";
import type { DenyCounters } from "../deny/deny-counters";
import type { AsyncIssuedUserOpStore } from "../userops/issued-user-op-store";
import type { UserOpSettleRequest } from "../userops/settle-user-op";
import { userOpNetworkOf } from "../userops/user-op-network";
import { createWalletPaymentSettler } from "./settle-wallet-payment";
import { verifyWalletPayment, type WalletVerifyRequest } from "./verify-wallet-payment";

/** Smart-wallet payments: the service object behind /wallet/verify and /wallet/settle. */
export function createWalletPayments(deps: {
  /** The issued UserOps every wallet flow shares (the service hands it on to incognito, swaps and deployments). */
  store: AsyncIssuedUserOpStore;
  networks: Networks;
  deny: DenyCounters;
  paymasterValiditySeconds: number;
}) {
  const store = deps.store;
  const settle = createWalletPaymentSettler({
    networks: () => deps.networks.all().map(userOpNetworkOf),
    store,
    deny: deps.deny,
    now: () => Math.floor(Date.now() / 1000),
  });
  return {
    store,
    verify: (networkName: string, request: WalletVerifyRequest) =>
      verifyWalletPayment(
        {
          network: userOpNetworkOf(deps.networks.get(networkName)),
          store,
          deny: deps.deny,
          validitySeconds: deps.paymasterValiditySeconds,
        },
        request,
      ),
    settle: (request: UserOpSettleRequest) => settle(request),
  };
}

export type WalletPayments = ReturnType<typeof createWalletPayments>;
