import { afterAll, describe, expect, test } from "bun:test";
import { startTestService } from "../support/service";

const service = startTestService();
afterAll(() => service.stop());

describe("HTTP surface", () => {
  test("an unknown route is a 404 envelope", async () => {
    for (const path of ["/nope", "/api/v1/nope", "/api/v2/verify"]) {
      const response = await service.get(path);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({
        code: "not_found",
        message: expect.any(String),
        doc_url: expect.stringContaining("#not_found"),
      });
    }
  });

  test("a body over 64 KiB is a 413 envelope, with or without content-length", async () => {
    const huge = JSON.stringify({ padding: "x".repeat(70 * 1024) });
    const response = await service.post("/verify", huge);
    expect(response.status).toBe(413);
    expect(response.body.code).toBe("payload_too_large");
    const chunked = await service.app.handle(
      new Request("http://localhost/settle", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(huge));
            controller.close();
          },
        }),
      }),
    );
    expect(chunked.status).toBe(413);
  });

  test("a deeply nested body just under the size limit is a validation_error, not a 500", async () => {
    for (const body of ["[".repeat(30_000), `${"[".repeat(30_000)}${"]".repeat(30_000)}`, '{"a":'.repeat(12_000)]) {
      const response = await service.post("/verify", body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("validation_error");
    }
  });

  test("every response carries a request id; a caller's id is echoed", async () => {
    const response = await service.get("/health");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await service.get("/health", { "x-request-id": "caller-42" });
    expect(echoed.headers.get("x-request-id")).toBe("caller-42");
    const failed = await service.get("/missing");
    expect(failed.headers.get("x-request-id")).toBeTruthy();
  });

  test("GET /health reports chains, bundlers and database to everyone; executors and the paymaster deposit only to the admin key", async () => {
    const admin = await service.get("/health", { "x-admin-api-key": service.config.adminApiKey });
    const wrongKey = await service.get("/health", { "x-admin-api-key": "not-the-admin-key-000" });
    for (const response of [await service.get("/health"), wrongKey, admin]) {
      expect(response.status).toBe(200);
      expect(response.body.status).toBe("ok");
      expect(response.body.database).toBe("ok");
      for (const name of ["bsc", "base"]) {
        const network = response.body.networks[name];
        expect(network).toMatchObject({ rpc: "ok", bundler: "ok", chainId: name === "bsc" ? 56 : 8453 });
        expect(network.blockNumber).toBeGreaterThan(0);
      }
    }
    for (const response of [await service.get("/health"), wrongKey]) {
      const text = JSON.stringify(response.body);
      for (const name of ["bsc", "base"]) {
        expect(response.body.networks[name]).not.toHaveProperty("executors");
        expect(response.body.networks[name]).not.toHaveProperty("paymasterDeposit");
        for (const address of service.services.networks.get(name).executor.addresses) {
          expect(text.toLowerCase()).not.toContain(address.slice(2).toLowerCase());
        }
      }
    }
    for (const name of ["bsc", "base"]) {
      const network = admin.body.networks[name];
      expect(network.executors.length).toBe(8);
      expect(Number(network.executors[0].balance)).toBeGreaterThan(0);
      expect(Number(network.paymasterDeposit)).toBeGreaterThan(0);
    }
  });

  test("GET /health is degraded when a bundler is down, and 503 down when no chain answers", async () => {
    const degraded = startTestService({}, (config) => {
      if (config.networks.base) config.networks.base.bundlerUrl = "http://127.0.0.1:9";
    });
    try {
      const response = await degraded.get("/health");
      expect(response.status).toBe(200);
      expect(response.body.status).toBe("degraded");
      expect(response.body.networks.base.bundler).toBe("down");
    } finally {
      degraded.stop();
    }
    const down = startTestService({}, (config) => {
      for (const network of [config.networks.bsc, config.networks.base])
        if (network) network.rpcUrls = ["http://127.0.0.1:9"];
    });
    try {
      const response = await down.get("/health");
      expect(response.status).toBe(503);
      expect(response.body.status).toBe("down");
    } finally {
      down.stop();
    }
  });

  test("GET /config gives what a client needs to sign, and no secret", async () => {
    const response = await service.get("/api/v1/config");
    expect(response.status).toBe(200);
    const bsc = response.body.networks.bsc;
    expect(bsc.eip712Domain).toEqual({
      name: "relay402",
      version: "1",
      chainId: 56,
      verifyingContract: service.config.networks.bsc?.contracts.relayer,
    });
    expect(bsc.tokens[0]).toMatchObject({ symbol: "USDT", decimals: 18 });
    // Amounts are bigints inside the service and decimal strings on the wire, the default minimum payment included.
    expect(bsc.tokens[0].fees).toEqual({
      feeBps: 50,
      minFee: "10000000000000000",
      deploymentFeePerWallet: "1000000000000000000",
      unshieldFeeBps: 30,
      unshieldMinFee: "50000000000000000",
      swapFeeBps: 30,
      swapMinFee: "10000000000000000",
    });
    // Swaps: both routers with their kind, the connector tokens and the signed type.
    const dex = service.config.networks.bsc?.swap;
    expect(bsc.swap.routers).toEqual(dex?.routers.map(({ name, address, kind }) => ({ name, address, kind })));
    expect(bsc.swap.routers.map((router: { kind: string }) => router.kind)).toEqual(["v2", "v3"]);
    expect(bsc.swap.connectors).toEqual([dex?.wrappedNative]);
    expect(bsc.swap.signedType).toStartWith("SwapWithAuthorization(address from,address sellToken,");
    expect(bsc.tokens[0].minPaymentValue).toBe("1");
    expect(bsc.contracts.entryPoint).toBe("0x0000000071727De22E5E9d8BAf0edAc6f37da032");
    const text = JSON.stringify(response.body).toLowerCase();
    for (const secret of [
      service.config.adminApiKey,
      service.config.networks.bsc?.paymasterSignerKey,
      ...(service.config.networks.bsc?.executorKeys ?? []),
    ]) {
      expect(text).not.toContain(String(secret).toLowerCase().slice(2));
    }
  });

  test("the OpenAPI document lists every route with its request schema", async () => {
    const response = await service.get("/openapi/json");
    expect(response.status).toBe(200);
    expect(response.body.openapi).toMatch(/^3\./);
    for (const path of ["/verify", "/settle", "/health", "/config"]) {
      expect(response.body.paths[path]).toBeDefined();
    }
    const verify = response.body.paths["/verify"].post;
    expect(JSON.stringify(verify.requestBody)).toContain("paymentPayload");
    expect((await service.get("/openapi")).status).toBe(200);
    expect(response.body.components.securitySchemes.adminApiKey).toMatchObject({
      in: "header",
      name: "x-admin-api-key",
    });
    expect(response.body.paths["/deploy/settle"].post.security).toEqual([{ adminApiKey: [] }]);
    expect(response.body.paths["/deploy/quote"].post.security).toBeUndefined();
  });

  test("public routes need no key", async () => {
    expect((await service.get("/health")).status).toBe(200);
    expect((await service.get("/config")).status).toBe(200);
    expect((await service.post("/verify", {})).status).toBe(400);
  });
});

describe("rate limit", () => {
  const limited = startTestService({ rateLimitPerMinute: 3, trustProxy: true });
  afterAll(() => limited.stop());

  test("the 4th request in a minute from one IP is a 429 with Retry-After; other IPs and the admin key are not limited", async () => {
    const from = (ip: string, extra: Record<string, string> = {}) =>
      limited.get("/config", { "x-forwarded-for": ip, ...extra });
    for (let i = 0; i < 3; i++) expect((await from("10.0.0.1")).status).toBe(200);
    const blocked = await from("10.0.0.1");
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe("rate_limit_exceeded");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await from("10.0.0.2")).status).toBe(200);
    // A client cannot dodge the limit by forging entries: only the proxy's (last) entry counts.
    expect((await from("6.6.6.6, 10.0.0.1")).status).toBe(429);
    expect((await from("10.0.0.1", { "x-admin-api-key": limited.config.adminApiKey })).status).toBe(200);
  });

  test("wrong admin keys are counted, on /metrics and admin routes too; the right key stays exempt", async () => {
    const guess = (ip: string, path: string, headers: Record<string, string>) =>
      path === "/deploy/verify"
        ? limited.post(path, {}, { "x-forwarded-for": ip, ...headers })
        : limited.get(path, { "x-forwarded-for": ip, ...headers });
    const wrong = { "x-admin-api-key": "a-guess-at-the-admin-key" };
    // /metrics is exempt from the limit for its scrapes, never for guesses: one wrong key spends the whole budget.
    const first = await guess("10.1.0.1", "/metrics", wrong);
    expect(first.status).toBe(401);
    const second = await guess("10.1.0.1", "/metrics", wrong);
    expect(second.status).toBe(429);
    expect(second.body.code).toBe("rate_limit_exceeded");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
    // The same through Authorization: Bearer, and on an admin route; a wrong key there also spends the budget of
    // the requests without one.
    expect((await guess("10.1.0.2", "/metrics", { authorization: "Bearer a-guess-at-the-admin-key" })).status).toBe(
      401,
    );
    expect((await guess("10.1.0.2", "/metrics", { authorization: "Bearer another-guess-at-it" })).status).toBe(429);
    expect((await guess("10.1.0.3", "/deploy/verify", wrong)).status).toBe(401);
    expect((await guess("10.1.0.3", "/config", {})).status).toBe(429);
    // A client without a key on /metrics is refused but not limited (no guess was made); the right key is exempt.
    for (let i = 0; i < 5; i++) expect((await guess("10.1.0.4", "/metrics", {})).status).toBe(401);
    for (let i = 0; i < 5; i++) {
      expect((await guess("10.1.0.1", "/metrics", { "x-admin-api-key": limited.config.adminApiKey })).status).toBe(200);
    }
  });
});
