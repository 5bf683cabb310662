import { Elysia } from "elysia";
import { ApiError } from "../errors";

export function timingSafeEqualString(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  const length = Math.max(left.length, right.length);
  let diff = left.length ^ right.length;
  for (let i = 0; i < length; i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}

/** True when the request carries the admin key (compared in constant time). */
export function isAdminRequest(request: Request, adminApiKey: string): boolean {
  const key = request.headers.get("x-admin-api-key");
  return key !== null && timingSafeEqualString(key, adminApiKey);
}

/**
 * What a request says about the admin key: none offered, the right one, or a wrong one (a guess). The key is
 * `x-admin-api-key`, and on /metrics also `Authorization: Bearer` (elsewhere a bearer token belongs to someone
 * else's scheme, such as a facilitator client's JWT, and is no guess at ours).
 */
export function adminKeyAttempt(request: Request, adminApiKey: string, path: string): KeyAttempt {
  return keyAttempt(request, "x-admin-api-key", /(^|\/)metrics$/.test(path), [adminApiKey]);
}

export type KeyAttempt = "none" | "right" | "wrong";

/**
 * What a request says about a key sent in `header` (and, where `bearer`, as `Authorization: Bearer`): none
 * offered, one of `keys` (each compared in constant time), or a wrong one.
 */
export function keyAttempt(request: Request, header: string, bearer: boolean, keys: readonly string[]): KeyAttempt {
  const key = request.headers.get(header);
  const authorization = bearer ? request.headers.get("authorization") : null;
  const offered = [key, authorization?.startsWith("Bearer ") ? authorization.slice("Bearer ".length) : null].filter(
    (value): value is string => value !== null,
  );
  if (offered.length === 0) return "none";
  let right = false;
  for (const value of offered) for (const each of keys) right = timingSafeEqualString(value, each) || right;
  return right ? "right" : "wrong";
}

/**
 * A flow's own read key (Flow.key): it guards the flow's routes under `pathPrefix` (with or without /api/v1),
 * sent as `header` or `Authorization: Bearer`; any of `keys(config)` opens them. A wrong one costs the client's
 * rate-limit budget what a wrong admin key does (src/http/app.ts).
 */
export type FlowKey<C = unknown> = { pathPrefix: string; header: string; keys(config: C): string[] };

/** Which flow key guards a path (without the /api/v1 prefix), if any. */
export const flowKeyOf = <C>(keys: readonly FlowKey<C>[], route: string) =>
  keys.find((key) => route === key.pathPrefix || route.startsWith(`${key.pathPrefix}/`));

/**
 * A flow key's guard as an Elysia macro, as the admin key's: a route declared with `keyed: true` answers 401
 * `unauthorized` before its query is validated.
 */
export const flowKeyGuard = (header: string, keys: readonly string[]) =>
  new Elysia({ name: "flow-key-guard", seed: `${header} ${keys.join(" ")}` }).macro({
    keyed: {
      transform({ request }) {
        if (keyAttempt(request, header, true, keys) !== "right")
          throw new ApiError("unauthorized", `missing or wrong ${header}`);
      },
    },
  });

export type FlowKeyGuard = ReturnType<typeof flowKeyGuard>;

/**
 * The admin-key guard as an Elysia macro: a route declared with `admin: true` answers 401 `unauthorized`
 * before its body is validated (a request without the key is refused whatever it sends).
 */
export const adminGuard = (adminApiKey: string) =>
  new Elysia({ name: "admin-guard", seed: adminApiKey }).macro({
    admin: {
      transform({ request }) {
        if (!isAdminRequest(request, adminApiKey)) {
          throw new ApiError("unauthorized", "missing or wrong x-admin-api-key");
        }
      },
    },
  });

export type AdminGuard = ReturnType<typeof adminGuard>;
