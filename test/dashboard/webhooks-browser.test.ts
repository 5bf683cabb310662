// The /dashboard page's payment lookup and webhook endpoints in headless Chromium (Debian's, through playwright-core):
// a real payment found by its id shows the lookup's record and its deliveries; a payer's search lists its records, and
// a failure reason written in markup stays text; the endpoint a 410 disabled is flagged; a search that names nothing
// says why; nothing leaves the service's origin. Screenshots go to test-artifacts/dashboard/ like the page test's.
import { afterAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { readyPayment } from "../support/authorization";
import { chainOf, randomAddress } from "../support/chain";
import { DASHBOARD_KEY } from "../support/dashboard";
import { dashboardScreenshots, withDashboardPage } from "../support/dashboard-browser";
import { trackServices } from "../support/service";
import { until } from "../support/until";
import { newWebhookSecret, startWebhookReceiver } from "../support/webhook-receiver";

const MARKUP = `<img src=x onerror="document.title='owned'"><script>alert("reason")</script>`;
const screenshots = dashboardScreenshots();

const secret = newWebhookSecret();
const shop = startWebhookReceiver(secret);
const gone = startWebhookReceiver(secret, () => 410);
const services = trackServices();
afterAll(() => {
  services.stopAll();
  shop.stop();
  gone.stop();
});
const service = services.start({
  dashboardApiKey: DASHBOARD_KEY,
  webhooks: {
    endpoints: [
      { id: "shop", url: shop.url, secret },
      { id: "gone", url: gone.url, secret },
    ],
    pollMs: 50,
  },
} as never);

test("find a payment by id, its record and deliveries; a payer's records as text; the disabled endpoint flagged", async () => {
  const c = chainOf("bsc");
  const value = 4n * 10n ** BigInt(c.token.decimals);
  const { payer, body } = await readyPayment("bsc", value, { allowance: value });
  const settled = await service.post("/settle", body);
  expect(settled.status).toBe(200);
  const paymentId = settled.body.paymentId as string;
  // A failed record of the same payer whose reason a payer could have written.
  const now = new Date().toISOString();
  service.db.$client
    .query(
      "INSERT INTO eoa_settlements (network, payer, nonce, token, recipient, amount, valid_after, valid_before, signature, status, error, payment_id, created_at, updated_at) VALUES ('bsc', ?, ?, ?, ?, '1', 0, 0, '0x', 'reverted', ?, ?, ?, ?)",
    )
    .run(
      payer.address,
      `0x${"76".repeat(32)}`,
      c.token.address,
      randomAddress(),
      MARKUP,
      `0x${"75".repeat(32)}`,
      now,
      now,
    );
  await until("the payment.settled delivery", () => shop.of("payment.settled").length >= 1);

  const { origin, requested, dialogs } = await withDashboardPage(service, async (page, origin) => {
    await page.goto(`${origin}/dashboard`);
    await page.fill("#key", DASHBOARD_KEY);
    await page.click("#login button[type=submit]");
    await page.waitForSelector("#webhook-endpoints tbody tr");
    // The endpoint that answered 410 is disabled and flagged, with its dead delivery counted.
    await page.waitForFunction(
      () => (globalThis as any).document.querySelectorAll("#webhook-endpoints tbody tr").length === 2,
    );
    const rows = await page.locator("#webhook-endpoints tbody tr").allTextContents();
    expect(rows.find((row) => row.startsWith("shop"))).toContain(shop.url);
    expect(await page.locator("#webhook-endpoints tbody tr.low").count()).toBe(1);
    expect(await page.locator("#webhook-endpoints tbody tr.low").textContent()).toContain("answered 410 Gone");

    await page.fill("#search input[name=q]", paymentId);
    await page.click("#search button[type=submit]");
    await page.waitForSelector("#found .payment");
    expect(await page.locator("#found .payment").count()).toBe(1);
    expect(await page.textContent("#found h3")).toBe(`bsc eoa payment ${paymentId}: settled`);
    expect(await page.locator(`#found a[href*="${settled.body.transaction}"]`).count()).toBe(1);
    const deliveries = await page.locator("#found .payment table:nth-of-type(2) tbody tr").allTextContents();
    expect(deliveries).toHaveLength(2);
    expect(deliveries.some((row) => row.includes("payment.settledshopdelivered1200"))).toBe(true);
    expect(deliveries.some((row) => row.includes("payment.settledgonedead1410"))).toBe(true);
    await page.locator("#lookup").screenshot({ path: join(screenshots, "dashboard-lookup.png") });

    await page.fill("#search input[name=q]", payer.address);
    await page.click("#search button[type=submit]");
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll("#found .payment").length === 2);
    const cells = await page.locator("#found td").allTextContents();
    expect(cells).toContain(MARKUP);
    expect(await page.locator("#found img, #found script, [onerror]").count()).toBe(0);
    expect(await page.title()).toBe("relay402 dashboard");

    await page.fill("#search input[name=q]", "not-an-id");
    await page.click("#search button[type=submit]");
    await page.waitForFunction(() =>
      (globalThis as any).document.querySelector("#search-result")?.textContent?.startsWith("q:"),
    );
    expect(await page.locator("#found .payment").count()).toBe(0);
    await page.locator("#webhooks").screenshot({ path: join(screenshots, "dashboard-webhooks.png") });
    for (const view of ["lookup", "webhooks"])
      expect(statSync(join(screenshots, `dashboard-${view}.png`)).size).toBeGreaterThan(3_000);
  });
  expect(dialogs).toEqual([]);
  expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
}, 120_000);
