import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { type Refusal, refuse } from "./spend-policy.js";

/** Every address a hostname resolves to (an IP literal resolves to itself). Injected in tests: no DNS offline. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) =>
  isIP(hostname) ? [hostname] : (await lookup(hostname, { all: true, verbatim: true })).map((found) => found.address);

/** Redirects followed before giving up. */
const MAX_HOPS = 5;

const ipv4Octets = (ip: string): number[] => ip.split(".").map(Number);

/** The eight 16-bit groups of an IPv6 address (an embedded IPv4 tail becomes two groups). */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split("%")[0] ?? "";
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Octets(v4);
    text = `${text.slice(0, -v4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

function internalIpv4(ip: string): boolean {
  const [a = 0, b = 0] = ipv4Octets(ip);
  return (
    a === 0 || // "this network", 0.0.0.0
    a === 10 || // RFC 1918
    a === 127 || // loopback
    (a === 169 && b === 254) || // link-local, and the clouds' metadata service (169.254.169.254)
    (a === 172 && b >= 16 && b <= 31) || // RFC 1918
    (a === 192 && b === 168) || // RFC 1918
    (a === 100 && b >= 64 && b <= 127) // carrier-grade NAT, where some clouds put metadata (100.100.100.200)
  );
}

/**
 * Whether `ip` is an address a resource on the internet has no business at: loopback, private (RFC 1918, IPv6 ULA),
 * link-local, unspecified, or a cloud's metadata service; an IPv4-mapped IPv6 address is judged as its IPv4.
 */
export function isInternalAddress(ip: string): boolean {
  if (isIP(ip) === 4) return internalIpv4(ip);
  const groups = ipv6Groups(ip);
  const [first = 0] = groups;
  const zeroesBefore = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (zeroesBefore(7) && (groups[7] === 0 || groups[7] === 1)) return true; // :: and ::1
  if (zeroesBefore(5) && groups[5] === 0xffff) {
    const [, , , , , , high = 0, low = 0] = groups;
    return internalIpv4(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`);
  }
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xffc0) === 0xfec0;
}

export type HostRules = { allowedHosts: string[]; resolve: HostResolver };

/**
 * Why `url` may not be fetched, or null: it must be http(s), its host (`host[:port]`) listed, and every address its
 * hostname resolves to public, unless that exact `hostname:port` is listed (a shop on the operator's own network).
 */
export async function refusalOfHost(url: URL, rules: HostRules): Promise<Refusal | null> {
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return refuse("validation_error", `${url.protocol} is not http(s)`);
  }
  if (!rules.allowedHosts.includes(url.host.toLowerCase())) {
    return refuse("limit_exceeded", `${url.host} is not an allowed host`, "allowedHosts");
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const exact = `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`.toLowerCase();
  if (rules.allowedHosts.includes(exact)) return null;
  const addresses = await rules.resolve(hostname);
  if (addresses.length === 0) return refuse("validation_error", `${url.hostname} resolves to no address`);
  const internal = addresses.find(isInternalAddress);
  if (internal) {
    return refuse(
      "limit_exceeded",
      `${url.hostname} resolves to ${internal}, a loopback, private, link-local or metadata address: list "${exact}" in allowedHosts to allow it`,
      "allowedHosts",
    );
  }
  return null;
}

/**
 * Fetches `url`, following redirects one hop at a time: each hop's host is checked (refusalOfHost) before anything
 * is sent to it. `firstHopHeaders` (the payment) go to `url` only, never to where it redirects.
 */
export async function fetchWithinHosts(
  url: URL,
  init: { method: string; body?: string },
  rules: HostRules,
  firstHopHeaders?: Record<string, string>,
): Promise<{ response: Response; url: URL } | Refusal> {
  let current = url;
  let { method, body } = init;
  for (let hop = 0; hop <= MAX_HOPS; hop++) {
    const refusal = await refusalOfHost(current, rules);
    if (refusal) return refusal;
    const headers = hop === 0 ? firstHopHeaders : undefined;
    const response = await fetch(current, { method, body, headers, redirect: "manual" });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || !location) return { response, url: current };
    await response.body?.cancel();
    current = new URL(location, current);
    // As browsers do: a 303, and a 301 or 302 of a POST, fetch the next hop with GET and no body.
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
  }
  return refuse("validation_error", `more than ${MAX_HOPS} redirects`);
}
