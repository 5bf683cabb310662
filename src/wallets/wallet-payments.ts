import type { Networks } from "../chain/networks";
import type { Db } from "../db/open";
import type { Logger } from "../logger";
import { createIssuedUserOpStore, type IssuedUserOpStore } from "./issued-user-op-store";
import { createWalletNetwork, type WalletNetwork } from "./network-context";
import { createWalletPaymentSettler, type WalletSettleRequest } from "./settle-wallet-payment";
import { verifyWalletPayment, type WalletVerifyRequest } from "./verify-wallet-payment";

/** Smart-wallet payments: the service object behind /wallet/verify and /wallet/settle. */
export function createWalletPayments(deps: {
  db: Db;
  networks: Networks;
  logger: Logger;
  paymasterValiditySeconds: number;
}) {
  const store: IssuedUserOpStore = createIssuedUserOpStore(deps.db);
  const byName = new Map<string, WalletNetwork>(
    deps.networks.all().map((runtime) => [runtime.name, createWalletNetwork(runtime)]),
  );
  const network = (name: string): WalletNetwork => {
    deps.networks.get(name); // throws validation_error for a network that is not enabled
    return byName.get(name)!;
  };
  const settler = createWalletPaymentSettler({
    networks: () => [...byName.values()],
    store,
    logger: deps.logger,
    now: () => Math.floor(Date.now() / 1000),
  });
  return {
    store,
    verify: (networkName: string, request: WalletVerifyRequest) =>
      verifyWalletPayment(
        { network: network(networkName), store, validitySeconds: deps.paymasterValiditySeconds },
        request,
      ),
    settle: (request: WalletSettleRequest) => settler.settle(request),
  };
}

export type WalletPayments = ReturnType<typeof createWalletPayments>;
