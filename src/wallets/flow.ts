import type { Flow } from "../flow";
import { WALLET_EXAMPLES } from "./examples";
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
      inFlight: context.inFlightUserOps,
    }),
  routes: (wallets) => walletRoutes(wallets),
  openapi: {
    tags: [
      {
        name: "Smart wallet payments",
        order: 20,
        description: `A wallet deployed by this service's factory pays a batch of up to 20 transfers of one token, gas sponsored.
1. \`POST /wallet/verify\` builds the UserOp (the batch plus one fee to the fee recipient, \`feeAmount\`) and answers it unsigned with its \`userOpHash\`.
2. Check that \`userOp\` pays what you asked (its call data is approve + \`payBatch\`), then sign \`userOpHash\` with the owner's key.
3. \`POST /wallet/settle\` with the unchanged UserOp and the signature; it is sent at most once.`,
      },
    ],
    examples: WALLET_EXAMPLES,
  },
  sending: { "/wallet/settle": "wallet", "/wallet/claim": "claim" },
  capability: "smart-wallets",
};
