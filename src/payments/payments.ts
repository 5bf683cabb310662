import type { Static } from "elysia";
import type { NetworkRuntime, Networks } from "../chain/networks";
import { parseAuthorization } from "./authorization";
import type { PaymentRules } from "./payment-rules";
import type { RelayerPort } from "./relayer-port";
import type { PaymentBodySchema } from "./schemas";
import type { PaymentSettler } from "./settle-payment";
import { verifyPayment } from "./verify-payment";

type PaymentBody = Static<typeof PaymentBodySchema>;

/** EOA payments as the routes see them: one body in, one result out. */
export function createPayments(deps: {
  networks: Networks;
  relayerFor(network: NetworkRuntime): RelayerPort;
  rulesFor(network: NetworkRuntime): PaymentRules;
  now: () => bigint;
  settler: PaymentSettler;
}) {
  return {
    verify(body: PaymentBody) {
      const network = deps.networks.get(body.paymentRequirements.network);
      return verifyPayment(
        {
          relayer: deps.relayerFor(network),
          relayerAddress: network.config.contracts.relayer,
          now: deps.now,
          rules: deps.rulesFor(network),
        },
        parseAuthorization(body.paymentPayload),
        body.paymentRequirements.relayerContract,
      );
    },
    settle(body: PaymentBody) {
      const network = deps.networks.get(body.paymentRequirements.network);
      return deps.settler.settle(
        network,
        parseAuthorization(body.paymentPayload),
        body.paymentRequirements.relayerContract,
      );
    },
  };
}

export type Payments = ReturnType<typeof createPayments>;
