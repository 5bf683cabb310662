import type { PaymentBodySchema } from "@relay402/client/wire/payment-schemas";
import type { Static } from "@sinclair/typebox";
import type { NetworkRuntime, Networks } from "../chain/networks";
import { relayerOf } from "../config/capabilities";
import type { RecordFilter } from "../lifecycle/orphans";
import type { Logger } from "../logger";
import { type Authorization, parseAuthorization } from "../settlement/authorization";
import type { PaymentRules } from "../settlement/payment-rules";
import { parseRelayerPermit, relayerPermitProblem } from "../settlement/relayer-permit";
import type { RelayerPort } from "../settlement/relayer-port";
import type { PaymentSettler } from "../settlement/settle-payment";
import { verifyPayment } from "../settlement/verify-payment";
import { reconcileSettlements } from "./reconcile-settlements";

type PaymentBody = Static<typeof PaymentBodySchema>;

/** The payer's EIP-2612 permit to the network's relayer, when the body carries one. */
const permitOf = (network: NetworkRuntime, body: PaymentBody, authorization: Authorization) =>
  body.paymentPayload.permit && parseRelayerPermit(body.paymentPayload.permit, authorization, relayerOf(network));

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
    async verify(body: PaymentBody) {
      const network = deps.networks.get(body.paymentRequirements.network, { capability: "eoa-payments" });
      const authorization = parseAuthorization(body.paymentPayload);
      const permit = permitOf(network, body, authorization);
      const result = await verifyPayment(
        {
          relayer: deps.relayerFor(network),
          relayerAddress: relayerOf(network),
          now: deps.now,
          rules: deps.rulesFor(network),
        },
        authorization,
        body.paymentRequirements.relayerContract,
        permit && (() => relayerPermitProblem(network, deps.rulesFor(network), permit, authorization, deps.now())),
      );
      // /verify answers the interface's four fields; whether the permit will be used is the settle's business.
      if (!result.isValid) return result;
      return { isValid: true, payer: result.payer };
    },
    settle(body: PaymentBody) {
      const network = deps.networks.get(body.paymentRequirements.network, { capability: "eoa-payments" });
      const authorization = parseAuthorization(body.paymentPayload);
      return deps.settler.settle(
        network,
        authorization,
        body.paymentRequirements.relayerContract,
        permitOf(network, body, authorization),
      );
    },
  };
}

export type Payments = ReturnType<typeof createPayments>;
