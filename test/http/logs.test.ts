import { afterAll, expect, test } from "bun:test";
import { signedPayment } from "../support/authorization";
import { approveRelayer, freshPayer, randomAddress } from "../support/chain";
import { startTestService } from "../support/service";

const lines: string[] = [];
const service = startTestService({ logRequests: true }, undefined, (line) => lines.push(line));
afterAll(() => service.stop());

test("one JSON log line per request with route, status, latency and request id; no secret in any line", async () => {
  const payer = await freshPayer("bsc");
  await approveRelayer("bsc", payer.key, 10n ** 18n);
  const body = await signedPayment({ network: "bsc", key: payer.key, to: randomAddress(), value: 10n ** 18n });
  await service.post("/settle", body, { "x-admin-api-key": service.config.adminApiKey, "x-request-id": "log-test-1" });
  await service.post("/verify", { nope: true });
  await service.get("/health");
  await Bun.sleep(50);

  const records = lines.map((line) => JSON.parse(line));
  const requests = records.filter((r) => r.event === "request");
  expect(requests.length).toBe(3);
  expect(requests[0]).toMatchObject({ requestId: "log-test-1", method: "POST", route: "/settle", status: 200 });
  expect(requests[1]).toMatchObject({ route: "/verify", status: 400 });
  expect(requests[2]).toMatchObject({ route: "/health", status: 200 });
  for (const request of requests) expect(request.latencyMs).toBeGreaterThanOrEqual(0);
  // The chain layer logs under the same key as the rest: the settle's broadcast is an event too.
  expect(records.find((r) => r.event === "tx_broadcast")).toMatchObject({ level: "info", nonce: expect.any(Number) });
  for (const record of records) expect(record).toEqual(expect.objectContaining({ event: expect.any(String) }));

  const everything = lines.join("\n").toLowerCase();
  const bsc = service.config.networks.bsc;
  const secrets = [service.config.adminApiKey, bsc?.paymasterSignerKey, ...(bsc?.executorKeys ?? []), payer.key];
  for (const secret of secrets) expect(everything).not.toContain(String(secret).toLowerCase().replace(/^0x/, ""));
});
