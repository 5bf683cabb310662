import { Type as T } from "@sinclair/typebox";

/**
 * A merchant's key (sent as `x-api-key`) and the addresses it is paid at: the key lifts the per-IP rate limit, and
 * lists the payments to those addresses (GET /payments). A bare key, the form before payTo existed, only lifts the
 * rate limit and lists nothing.
 */
export type MerchantKey = { key: string; payTo: readonly string[] };

const Key = T.String({ minLength: 16, pattern: "^[^:,\\s]+$" });

export const MerchantKeySchema = T.Union([
  Key,
  T.Object(
    { key: Key, payTo: T.Array(T.String({ pattern: "^0x[0-9a-fA-F]{40}$" }), { minItems: 1 }) },
    { additionalProperties: false },
  ),
]);

/**
 * MERCHANT_API_KEYS: comma-separated entries, each `key` or `key:0xPayTo[:0xPayTo…]`. A key holds no `:`, `,` or
 * space, so an entry reads one way only.
 */
export function parseMerchantKeys(
  value: string | undefined,
): (string | { key: string; payTo: string[] })[] | undefined {
  const entries = value
    ?.split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries?.map((entry) => {
    const [key = "", ...payTo] = entry.split(":").map((part) => part.trim());
    return payTo.length === 0 ? key : { key, payTo };
  });
}

/** The configured merchant keys, each with its payTo addresses (lower-cased; none for a bare key). */
export function merchantKeysOf(config: {
  merchantApiKeys?: readonly (string | { key: string; payTo: readonly string[] })[];
}): MerchantKey[] {
  return (config.merchantApiKeys ?? []).map((entry) =>
    typeof entry === "string"
      ? { key: entry, payTo: [] }
      : { key: entry.key, payTo: entry.payTo.map((address) => address.toLowerCase()) },
  );
}
