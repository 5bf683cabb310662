import { treaty } from "@elysiajs/eden";
import { Elysia } from "elysia";
import type { deployRoutes } from "../../src/deploy/routes";
import type { paymentRoutes } from "../../src/payments/routes";
import type { statusRoutes } from "../../src/status/routes";
import type { walletRoutes } from "../../src/wallets/routes";

// Never called: its return type is the service's routes at the root. The server's own `App` mounts them under
// a prefix typed as `string` ("" and "/api/v1"), which leaves Treaty no route names to type.
const rootRoutes = () =>
  new Elysia()
    .use({} as ReturnType<typeof paymentRoutes>)
    .use({} as ReturnType<typeof statusRoutes>)
    .use({} as ReturnType<typeof walletRoutes>)
    .use({} as ReturnType<typeof deployRoutes>);

/** The service's routes as Eden Treaty sees them. */
export type RawApp = ReturnType<typeof rootRoutes>;

/**
 * A raw client typed by the server's own route schemas (Eden Treaty): `raw.config.get()`, `raw.verify.post(body)`,
 * `raw.wallet({ owner }).master.get()`. No checks and no retries: the flows of this module add those.
 */
export function createRawClient(url: string, options?: Parameters<typeof treaty>[1]) {
  return treaty<RawApp>(url, options);
}
