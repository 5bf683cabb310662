import { afterAll, describe, expect, test } from "bun:test";
import { fetchWithinHosts, type HostResolver, isInternalAddress, refusalOfHost } from "./resource-fetch.js";

describe("internal addresses", () => {
  test("loopback, RFC 1918, ULA, link-local, unspecified and the clouds' metadata addresses are internal", () => {
    for (const ip of [
      "127.0.0.1",
      "127.1.2.3",
      "10.0.0.5",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.100.100.200",
      "0.0.0.0",
      "::1",
      "::",
      "fd00:ec2::254",
      "fc00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:169.254.169.254",
    ]) {
      expect({ ip, internal: isInternalAddress(ip) }).toEqual({ ip, internal: true });
    }
  });

  test("public addresses are not", () => {
    for (const ip of ["8.8.8.8", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:1.1.1.1"]) {
      expect({ ip, internal: isInternalAddress(ip) }).toEqual({ ip, internal: false });
    }
  });
});

/** DNS as a table: there is none offline. */
const resolver =
  (table: Record<string, string[]>): HostResolver =>
  async (hostname) =>
    table[hostname] ?? [];

describe("a host's check before anything is sent to it", () => {
  const resolve = resolver({
    "shop.example": ["93.184.216.34"],
    "metadata.example": ["169.254.169.254"],
    "intranet.example": ["93.184.216.35", "10.1.2.3"],
    "v6.example": ["fd00:ec2::254"],
  });

  test("a listed host resolving to public addresses passes; an unlisted one is refused", async () => {
    const rules = { allowedHosts: ["shop.example"], resolve };
    expect(await refusalOfHost(new URL("https://shop.example/item"), rules)).toBeNull();
    expect(await refusalOfHost(new URL("https://other.example/item"), rules)).toMatchObject({
      code: "limit_exceeded",
      limit: "allowedHosts",
    });
  });

  test("a listed host resolving to a metadata, private or ULA address is refused, whichever of its addresses it is", async () => {
    const rules = { allowedHosts: ["metadata.example", "intranet.example", "v6.example"], resolve };
    for (const url of ["http://metadata.example/latest", "https://intranet.example/", "https://v6.example/"]) {
      const refusal = await refusalOfHost(new URL(url), rules);
      expect(refusal).toMatchObject({ code: "limit_exceeded", limit: "allowedHosts" });
      expect(refusal?.message).toContain("loopback, private, link-local or metadata address");
    }
  });

  test("an internal address is allowed only when that exact host:port is listed", async () => {
    const rules = { allowedHosts: ["intranet.example:8443", "metadata.example"], resolve };
    expect(await refusalOfHost(new URL("https://intranet.example:8443/"), rules)).toBeNull();
    expect(await refusalOfHost(new URL("http://metadata.example/"), rules)).not.toBeNull();
    const listedWithDefaultPort = { allowedHosts: ["metadata.example", "metadata.example:80"], resolve };
    expect(await refusalOfHost(new URL("http://metadata.example/"), listedWithDefaultPort)).toBeNull();
  });
});

describe("redirects", () => {
  const seen: { host: string; payment: string | null }[] = [];
  const record = (request: Request) => {
    seen.push({ host: new URL(request.url).host, payment: request.headers.get("payment-signature") });
  };
  const elsewhere = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      record(request);
      return new Response("elsewhere");
    },
  });
  const allowed = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      record(request);
      const path = new URL(request.url).pathname;
      if (path === "/away") return Response.redirect(`http://localhost:${elsewhere.port}/item`, 302);
      if (path === "/here") return Response.redirect("/item", 302);
      return new Response("the item");
    },
  });
  afterAll(() => {
    allowed.stop(true);
    elsewhere.stop(true);
  });
  const rules = { allowedHosts: [`127.0.0.1:${allowed.port}`], resolve: resolver({}) };

  test("a hop to an unlisted host is refused before anything is sent to it", async () => {
    seen.length = 0;
    const result = await fetchWithinHosts(new URL(`http://127.0.0.1:${allowed.port}/away`), { method: "GET" }, rules, {
      "payment-signature": "signed",
    });
    expect(result).toMatchObject({ status: "refused", limit: "allowedHosts" });
    expect(seen).toEqual([{ host: `127.0.0.1:${allowed.port}`, payment: "signed" }]);
  });

  test("a hop within the listed host is followed, without the payment", async () => {
    seen.length = 0;
    const result = await fetchWithinHosts(new URL(`http://127.0.0.1:${allowed.port}/here`), { method: "GET" }, rules, {
      "payment-signature": "signed",
    });
    expect("response" in result && (await result.response.text())).toBe("the item");
    expect(seen.map((hop) => hop.payment)).toEqual(["signed", null]);
  });
});
