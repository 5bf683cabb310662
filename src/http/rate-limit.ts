import type { MerchantKey } from "../config/merchant-keys";
import { timingSafeEqualString } from "./admin-guard";

const WINDOW_MS = 60_000;

/** Windows tracked at most (about 20 MB); past it the oldest window is dropped for each new client. */
export const RATE_LIMIT_MAX_KEYS = 100_000;

/** Longest key kept for an address that does not parse (a misconfigured proxy's header). */
const MAX_RAW_KEY_LENGTH = 64;

function ipv4Octets(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const octets = parts.map((part) => (/^[0-9]{1,3}$/.test(part) ? Number(part) : Number.NaN));
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (`::` and a dotted IPv4 tail allowed), or null. */
function ipv6Groups(text: string): number[] | null {
  if (!text.includes(":")) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (half: string | undefined): number[] | null => {
    if (!half) return [];
    const groups: number[] = [];
    const parts = half.split(":");
    for (const [i, part] of parts.entries()) {
      if (i === parts.length - 1 && part.includes(".")) {
        const octets = ipv4Octets(part);
        if (!octets) return null;
        groups.push(((octets[0] ?? 0) << 8) | (octets[1] ?? 0), ((octets[2] ?? 0) << 8) | (octets[3] ?? 0));
      } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
        groups.push(Number.parseInt(part, 16));
      } else {
        return null;
      }
    }
    return groups;
  };
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}

/**
 * The rate-limit key of a client address. One IPv6 subscriber usually holds a whole /64 (2^64 addresses),
 * so IPv6 clients are keyed by their /64; IPv4 and IPv4-mapped IPv6 (`::ffff:a.b.c.d`) by the full address.
 */
export function rateLimitKey(address: string): string {
  const bare = address
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/%.*$/, "");
  const v4 = ipv4Octets(bare);
  if (v4) return v4.join(".");
  const groups = ipv6Groups(bare);
  if (!groups) return address.slice(0, MAX_RAW_KEY_LENGTH);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/**
 * Fixed one-minute window per client key, with at most `maxKeys` windows in memory. The map keeps windows in
 * the order they started (a renewed window is re-inserted at the end), so expired ones are dropped from the
 * front, and when a flood of new keys reaches the bound the oldest window goes first (its client then starts a
 * fresh budget: the limiter fails open, never grows without bound).
 */
export function createRateLimiter(limitPerMinute: number, options: { now?: () => number; maxKeys?: number } = {}) {
  const { now = Date.now, maxKeys = RATE_LIMIT_MAX_KEYS } = options;
  const windows = new Map<string, { start: number; count: number }>();
  return {
    /**
     * Spends `cost` of the client's budget: 0 when allowed (something was left of it), else the seconds to wait.
     * A request that costs more than one (a wrong admin key) is answered while budget remains, and leaves less.
     */
    take(key: string, cost = 1): number {
      const time = now();
      for (const [k, w] of windows) {
        if (time - w.start < WINDOW_MS) break;
        windows.delete(k);
      }
      const current = windows.get(key);
      if (current && time - current.start < WINDOW_MS) {
        const before = current.count;
        current.count += cost;
        if (before < limitPerMinute) return 0;
        return Math.max(1, Math.ceil((current.start + WINDOW_MS - time) / 1000));
      }
      windows.delete(key);
      if (windows.size >= maxKeys) {
        const oldest = windows.keys().next().value;
        if (oldest !== undefined) windows.delete(oldest);
      }
      windows.set(key, { start: time, count: cost });
      return 0;
    },
    /** Windows currently tracked. */
    size: () => windows.size,
  };
}

/** The configured merchant key the request carries as `x-api-key`, if any (each compared in constant time). */
export function merchantKeyOf(request: Request, merchantKeys: readonly MerchantKey[]): MerchantKey | undefined {
  const key = request.headers.get("x-api-key");
  if (key === null) return undefined;
  let found: MerchantKey | undefined;
  for (const merchantKey of merchantKeys) if (timingSafeEqualString(key, merchantKey.key)) found ??= merchantKey;
  return found;
}

/** True when the request carries one of the configured merchant keys. */
export const isMerchantRequest = (request: Request, merchantKeys: readonly MerchantKey[]) =>
  merchantKeyOf(request, merchantKeys) !== undefined;
