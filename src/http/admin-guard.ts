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
export function adminKeyAttempt(request: Request, adminApiKey: string, path: string): "none" | "right" | "wrong" {
  const key = request.headers.get("x-admin-api-key");
  const bearer = /(^|\/)metrics$/.test(path) ? request.headers.get("authorization") : null;
  const offered = [key, bearer?.startsWith("Bearer ") ? bearer.slice("Bearer ".length) : null].filter(
    (value): value is string => value !== null,
  );
  if (offered.length === 0) return "none";
  let right = false;
  for (const value of offered) right = timingSafeEqualString(value, adminApiKey) || right;
  return right ? "right" : "wrong";
}

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
