import type { PaymentBodySchema } from "@relay402/client/wire/payment-schemas";
import type { Static } from "@sinclair/typebox";
import type { NetworkRuntime, Networks } from "../chain/networks";
import { relayerOf } from "../config/capabilities";
import type { RecordFilter } from "../lifecycle/orphans";
import type { Logger } from "../logger";
import { parseAuthorization } from "../settlement/authorization";
import type { PaymentRules } from "../settlement/payment-rules";
import type { RelayerPort } from "../settlement/relayer-port";
import type { PaymentSettler } from "../settlement/settle-payment";
import { verifyPayment } from "../settlement/verify-payment";
import { reconcileSettlements } from "./reconcile-settlements";

type PaymentBody = Static<typeof PaymentBodySchema>;

/** EOA payments as the routes see them: one body in, one result out. */
export function createPayments(deps: {
  networks: Networks;
  relayerFor(network: NetworkRuntime): RelayerPort;
  rulesFor(network: NetworkRuntime): PaymentRules;
  now: () => bigint;
  settler: PaymentSettler;
  logger: Logger;
}) {
  return {
    /** Finishes the EOA settlements a previous process left pending or sent (`which`: several instances' orphans). */
    reconcile: (which?: RecordFilter) =>
      reconcileSettlements({
        networks: deps.networks,
        settler: deps.settler,
        logger: deps.logger,
        ...(which ? { which } : {}),
      }),
    verify(body: PaymentBody) {
      const network = deps.networks.get(body.paymentRequirements.network, { capability: "eoa-payments" });
      return verifyPayment(
        {
          relayer: deps.relayerFor(network),
          relayerAddress: relayerOf(network),
          now: deps.now,
          rules: deps.rulesFor(network),
        },
        parseAuthorization(body.paymentPayload),
        body.paymentRequirements.relayerContract,
      );
    },
    settle(body: PaymentBody) {
      const network = deps.networks.get(body.paymentRequirements.network, { capability: "eoa-payments" });
      return deps.settler.settle(
        network,
        parseAuthorization(body.paymentPayload),
        body.paymentRequirements.relayerContract,
      );
    },
  };
}

export type Payments = ReturnType<typeof createPayments>;
