import { treaty } from "@elysiajs/eden";
import type { App } from "../http/app";

/** A raw client typed by the server's own routes (Eden Treaty): `raw.config.get()`, `raw.verify.post(body)`. */
export function createRawClient(url: string) {
  return treaty<App>(url);
}
