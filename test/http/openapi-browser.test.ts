import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { screenshotOpenApi } from "../../scripts/openapi-screenshot";
import { startTestService } from "../support/service";

// .ci/run installs Debian's Chromium; without it screenshotOpenApi fails with the reason (never a skip).

const dir = mkdtempSync(join(tmpdir(), "relay402-openapi-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("/openapi renders the API in headless Chromium with no network but the service", async () => {
  const service = startTestService();
  const server = service.app.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const file = join(dir, "openapi.png");
    const { renderedTitle } = await screenshotOpenApi(`http://127.0.0.1:${server.server?.port}`, file);
    expect(renderedTitle).toStartWith("relay402");
    expect(statSync(file).size).toBeGreaterThan(10_000);
  } finally {
    server.stop();
    service.stop();
  }
}, 120_000);
