import { getAddress } from "viem";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * A JSON answer with every 20-byte hex string in its EIP-55 form. Addresses reach answers from bodies, stores and
 * logs in whatever case they arrived in; a client comparing them as strings must see one spelling on every route.
 * Only plain objects and arrays are walked (files, text and streams pass through); the input is never changed,
 * and an answer with nothing to change is returned as it is. viem caches the checksums it computes.
 */
export function checksumAddresses<T>(value: T): T {
  if (typeof value === "string") return (ADDRESS.test(value) ? getAddress(value) : value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = checksumAddresses(value[i]);
      if (next !== value[i]) {
        copy ??= value.slice();
        copy[i] = next;
      }
    }
    return (copy ?? value) as T;
  }
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = checksumAddresses(item);
    if (next !== item) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = next;
    }
  }
  return (copy ?? value) as T;
}
