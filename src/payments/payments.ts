import type { PaymentBodySchema } from "@relay402/client/wire/payment-schemas";
import type { Static } from "@sinclair/typebox";
import type { NetworkRuntime, Networks } from "../chain/networks";
import { relayerOf } from "../config/capabilities";
import type { RecordFilter } from "../lifecycle/orphans";
import type { Logger } from "../logger";
import type { FundedApprovals } from "../onboarding/funded-approvals";
import { type Authorization, parseAuthorization } from "../settlement/authorization";
import type { PaymentRules } from "../settlement/payment-rules";
import { parseRelayerPermit, relayerPermitProblem } from "../settlement/relayer-permit";
import type { RelayerPort } from "../settlement/relayer-port";
import type { PaymentSettler } from "../settlement/settle-payment";
import { verifyPayment } from "../settlement/verify-payment";
import { fundedApproveOf } from "./funded-approve";
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
  onboarding: FundedApprovals;
}) {
  const funded = fundedApproveOf(deps);
  const checks = (network: NetworkRuntime) => ({
    relayer: deps.relayerFor(network),
    relayerAddress: relayerOf(network),
    now: deps.now,
    rules: deps.rulesFor(network),
  });
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
      const verdict = await verifyPayment(
        checks(network),
        authorization,
        body.paymentRequirements.relayerContract,
        permit && (() => relayerPermitProblem(network, deps.rulesFor(network), permit, authorization, deps.now())),
      );
      // A permit brings the allowance when it is valid; else a funded approve may (docs/payments.md).
      const approval = permit ? undefined : body.paymentPayload.approval;
      const result = approval
        ? await funded.verify(network, authorization, approval.signedTransaction, verdict)
        : verdict;
      // /verify answers the interface's four fields; whether the permit will be used is the settle's business.
      if (!result.isValid) return result;
      return { isValid: true, payer: result.payer };
    },
    async settle(body: PaymentBody) {
      const network = deps.networks.get(body.paymentRequirements.network, { capability: "eoa-payments" });
      const authorization = parseAuthorization(body.paymentPayload);
      const { relayerContract } = body.paymentRequirements;
      const permit = permitOf(network, body, authorization);
      const approval = permit ? undefined : body.paymentPayload.approval;
      // A funded approve first, when the payment lacks only the allowance it brings (docs/payments.md).
      const prepared = approval
        ? await funded.prepare(
            network,
            authorization,
            approval.signedTransaction,
            await verifyPayment(checks(network), authorization, relayerContract),
          )
        : null;
      const settled = await deps.settler.settle(network, authorization, relayerContract, permit);
      await funded.settled(network, prepared);
      return settled;
    },
  };
}

export type Payments = ReturnType<typeof createPayments>;
