import type { Flow } from "../flow";
import { walletRoutes } from "./routes";
import { createWalletPayments, type WalletPayments } from "./wallet-payments";

/** Smart-wallet payments: sponsored ERC-4337 UserOps of the UserOp kernel. */
export const walletsFlow: Flow<"wallets", WalletPayments> = {
  name: "wallets",
  create: (context) =>
    createWalletPayments({
      store: context.issued,
      networks: context.networks,
      deny: context.deny,
      paymasterValiditySeconds: context.config.paymasterValiditySeconds,
    }),
  routes: (wallets) => walletRoutes(wallets),
  sending: { "/wallet/settle": "wallet", "/wallet/claim": "claim" },
};
