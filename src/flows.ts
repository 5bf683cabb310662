import { dashboardFlow } from "./dashboard/flow";
import { deploymentsFlow } from "./deploy/flow";
import { incognitoFlow } from "./incognito/flow";
import { lookupFlow } from "./lookup/flow";
import { paymentsFlow } from "./payments/flow";
import { swapsFlow } from "./swap/flow";
import { walletsFlow } from "./wallets/flow";
import { webhooksFlow } from "./webhooks/flow";
import { x402Flow } from "./x402/flow";

/**
 * Every payment flow the service serves, in the order their routes are mounted. A new flow is a folder with a
 * `flow.ts` (src/flow.ts says what it declares) and one line here; nothing else in the service names it.
 */
export const FLOWS = [
  paymentsFlow,
  x402Flow,
  walletsFlow,
  incognitoFlow,
  swapsFlow,
  deploymentsFlow,
  dashboardFlow,
  lookupFlow,
  webhooksFlow,
] as const;

type Flows = (typeof FLOWS)[number];

/** Each flow's service, by flow name (`services.wallets`, `services.x402`, …). */
export type FlowServices = { [F in Flows as F["name"]]: ReturnType<F["create"]> };

/** Each flow's own store, by flow name, for the flows that keep records of their own. */
export type FlowStores = {
  [F in Flows as F["store"] extends object ? F["name"] : never]: Parameters<F["create"]>[1];
};
