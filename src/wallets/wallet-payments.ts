import type { Networks } from "../chain/networks";
import type { Db } from "../db/open";
import type { DenyCounters } from "../deny/deny-counters";
import type { Logger } from "../logger";
import { createIssuedUserOpStore, type IssuedUserOpStore } from "../userops/issued-user-op-store";
import { userOpNetworkOf } from "../userops/user-op-network";
import { createWalletPaymentSettler, type WalletSettleRequest } from "./settle-wallet-payment";
import { verifyWalletPayment, type WalletVerifyRequest } from "./verify-wallet-payment";

/** Smart-wallet payments: the service object behind /wallet/verify and /wallet/settle. */
export function createWalletPayments(deps: {
  db: Db;
  networks: Networks;
  logger: Logger;
  deny: DenyCounters;
  paymasterValiditySeconds: number;
}) {
  const store: IssuedUserOpStore = createIssuedUserOpStore(deps.db);
  const settler = createWalletPaymentSettler({
    networks: () => deps.networks.all().map(userOpNetworkOf),
    store,
    logger: deps.logger,
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
    settle: (request: WalletSettleRequest) => settler.settle(request),
  };
}

export type WalletPayments = ReturnType<typeof createWalletPayments>;
