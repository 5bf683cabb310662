// The /dashboard page in headless Chromium (Debian's, through playwright-core): a wrong key is refused, the right
// one shows the summary, an executor under its alert threshold, and a settlement row linking to the explorer;
// what a payer wrote (markup in a failure reason) stays text; and no request leaves the service's origin.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { presetOf } from "../../src/networks";
import { signedPayment } from "../support/authorization";
import { approveRelayer, chainOf, freshPayer, randomAddress } from "../support/chain";
import { DASHBOARD_KEY } from "../support/dashboard";
import { trackServices } from "../support/service";

// .ci/run installs Debian's Chromium; without it the launch fails with the reason (never a skip).
const CHROMIUM = "/usr/bin/chromium";
const MARKUP = `<img src=x onerror="document.title='owned'">`;
const screenshots = mkdtempSync(join(tmpdir(), "relay402-dashboard-"));

const services = trackServices();
afterAll(() => services.stopAll());
// Every bsc executor under its threshold: the page must flag it.
const service = services.start({
  dashboardApiKey: DASHBOARD_KEY,
  dashboard: { executorAlertWei: { bsc: (10n ** 30n).toString() } },
} as never);

test("log in, see the figures, an executor alert and a settlement linked to the explorer; nothing leaves localhost", async () => {
  const c = chainOf("bsc");
  const payer = await freshPayer("bsc");
  const value = 5n * 10n ** BigInt(c.token.decimals);
  await approveRelayer("bsc", payer.key, value);
  const settled = await service.post(
    "/settle",
    await signedPayment({ network: "bsc", key: payer.key, to: randomAddress(), value }),
  );
  expect(settled.status).toBe(200);
  const now = new Date().toISOString();
  // A failed record whose reason a payer could have written: shown as text, never run.
  service.db.$client
    .query(
      "INSERT INTO eoa_settlements (network, payer, nonce, token, recipient, amount, valid_after, valid_before, signature, status, error, created_at, updated_at) VALUES ('bsc', ?, ?, ?, ?, '1', 0, 0, '0x', 'reverted', ?, ?, ?)",
    )
    .run(payer.address, `0x${"77".repeat(32)}`, c.token.address, randomAddress(), MARKUP, now, now);

  const server = service.app.listen({ hostname: "127.0.0.1", port: 0 });
  const origin = `http://127.0.0.1:${server.server?.port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  const requested: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
    await page.route("**/*", (route) => {
      requested.push(route.request().url());
      return route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort();
    });
    await page.goto(`${origin}/dashboard`);
    await page.fill("#key", "a-wrong-dashboard-key-000");
    await page.click("#login button[type=submit]");
    // Functions, not strings (the page's CSP forbids eval); its globals untyped (no DOM types here).
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector("#login-error")?.textContent === "wrong key",
    );
    expect(await page.isVisible("#board")).toBe(false);
    await page.screenshot({ path: join(screenshots, "login-refused.png") });

    await page.fill("#key", DASHBOARD_KEY);
    await page.click("#login button[type=submit]");
    await page.waitForSelector("#settlements tbody tr");
    await page.waitForSelector("#executors tbody tr");
    expect(await page.textContent("#totals")).toContain("settlements");
    expect(await page.textContent("#flows tbody")).toContain("eoa");
    expect(await page.locator("#executors tbody tr.low").count()).toBeGreaterThan(0);
    const link = page.locator(
      `#settlements a[href="${presetOf("bsc").explorer.tx.replace("{hash}", settled.body.transaction)}"]`,
    );
    expect(await link.count()).toBe(1);
    expect(await page.textContent("#errors tbody")).toContain(MARKUP);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.title()).toBe("relay402 dashboard");
    // The key stays in this tab's session, never in the address.
    expect(page.url()).toBe(`${origin}/dashboard`);
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("relay402.dashboardKey"))).toBe(
      DASHBOARD_KEY,
    );
    await page.screenshot({ path: join(screenshots, "dashboard.png"), fullPage: true });

    await page.selectOption("#filter select[name=flow]", "x402");
    await page.click("#filter button[type=submit]");
    await page.waitForFunction(
      () => (globalThis as any).document.querySelectorAll("#settlements tbody tr").length === 0,
    );
    expect(statSync(join(screenshots, "dashboard.png")).size).toBeGreaterThan(10_000);
  } finally {
    await browser.close();
    server.stop(true);
  }
  expect(requested.length).toBeGreaterThan(3);
  expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
}, 120_000);
