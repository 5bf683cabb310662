// The /dashboard page in headless Chromium (Debian's, through playwright-core): a wrong key is refused, the right
// one shows the summary, an executor under its alert threshold, and a settlement row linking to the explorer;
// what attackers wrote (a token contract's symbol, a revert reason, both markup and script) stays text, the page's
// Content-Security-Policy runs no inline script; and no request leaves the service's origin.
// Screenshots of each view go to test-artifacts/dashboard/ (DASHBOARD_SCREENSHOTS=<dir> elsewhere: docs/img).
import { afterAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { type Address, encodeAbiParameters, erc20Abi, keccak256, toHex } from "viem";
import { forgeArtifact } from "../../scripts/devnet/artifacts";
import { DASHBOARD_CSP } from "../../src/dashboard/routes";
import { presetOf } from "../../src/networks";
import { nativeBalance } from "../onboarding/funded-approve-support";
import { paidWithFundedApprove } from "../onboarding/funded-payments";
import { readyPayment } from "../support/authorization";
import { chainOf, randomAddress } from "../support/chain";
import { DASHBOARD_KEY } from "../support/dashboard";
import { dashboardScreenshots, withDashboardPage } from "../support/dashboard-browser";
import { trackServices } from "../support/service";

// .ci/run installs Debian's Chromium; without it the launch fails with the reason (never a skip).
const MARKUP = `<img src=x onerror="document.title='owned'">`;
// A revert reason and a token symbol as an attacker would write them: each would alert() if it ever ran.
const REVERT_REASON = `<script>alert("reason")</script><b onmouseover=alert(1)>x</b>`;
const SYMBOL = `<img src=x onerror=alert(1)><script>alert(2)</script>`;
const screenshots = dashboardScreenshots();

/**
 * A token contract whose symbol() answers `symbol`: the devnet's TestDAI (an OpenZeppelin ERC20) placed at a fresh
 * address, its _symbol (slot 4) rewritten as a long string (length × 2 + 1 in the slot, the bytes from keccak(4)).
 */
async function tokenWithSymbol(symbol: string): Promise<Address> {
  const c = chainOf("bsc");
  const address = randomAddress();
  await c.test.setCode({ address, bytecode: forgeArtifact("TestDAI.sol", "TestDAI").deployedBytecode });
  const bytes = new TextEncoder().encode(symbol);
  const data = BigInt(keccak256(encodeAbiParameters([{ type: "uint256" }], [4n])));
  await c.test.setStorageAt({ address, index: 4, value: toHex(bytes.length * 2 + 1, { size: 32 }) });
  for (let i = 0; i * 32 < bytes.length; i++) {
    const chunk = new Uint8Array(32);
    chunk.set(bytes.slice(i * 32, i * 32 + 32));
    await c.test.setStorageAt({ address, index: toHex(data + BigInt(i), { size: 32 }), value: toHex(chunk) });
  }
  return address;
}

const services = trackServices();
afterAll(() => services.stopAll());
// Every bsc executor under its threshold: the page must flag it.
const service = services.start({
  dashboardApiKey: DASHBOARD_KEY,
  dashboard: { executorAlertWei: { bsc: (10n ** 30n).toString() } },
} as never);

test("log in, see the figures, an executor alert and a settlement linked to the explorer; nothing leaves localhost", async () => {
  const c = chainOf("bsc");
  const value = 5n * 10n ** BigInt(c.token.decimals);
  const { payer, body } = await readyPayment("bsc", value, { allowance: value });
  const settled = await service.post("/settle", body);
  expect(settled.status).toBe(200);
  const now = new Date().toISOString();
  // A failed record whose reason a payer could have written: shown as text, never run.
  service.db.$client
    .query(
      "INSERT INTO eoa_settlements (network, payer, nonce, token, recipient, amount, valid_after, valid_before, signature, status, error, created_at, updated_at) VALUES ('bsc', ?, ?, ?, ?, '1', 0, 0, '0x', 'reverted', ?, ?, ?)",
    )
    .run(payer.address, `0x${"77".repeat(32)}`, c.token.address, randomAddress(), MARKUP, now, now);
  // Swaps sell any token: one whose contract names itself in markup, sold once and reverted once with a reason
  // in markup, as the swap journal records them (the dashboard reads the symbol from the token's contract).
  // A token-only payer onboarded on base with a funded approve: what it kept of the funding is listed.
  const funded = await paidWithFundedApprove(service.post, "base");
  const kept = await nativeBalance("base", funded.payer.address);
  const hostile = await tokenWithSymbol(SYMBOL);
  expect(await c.public.readContract({ address: hostile, abi: erc20Abi, functionName: "symbol" })).toBe(SYMBOL);
  const swap = service.db.$client.query(
    "INSERT INTO swap_settlements (network, payer, nonce, sell_token, buy_token, sell_amount, min_buy_amount, recipient, fee, valid_after, valid_before, signature, status, error, created_at, updated_at) VALUES ('bsc', ?, ?, ?, ?, '900', '1', ?, '9', 0, 0, '0x', ?, ?, ?, ?)",
  );
  swap.run(payer.address, `0x${"78".repeat(32)}`, hostile, c.token.address, payer.address, "success", null, now, now);
  swap.run(
    payer.address,
    `0x${"79".repeat(32)}`,
    hostile,
    c.token.address,
    payer.address,
    "reverted",
    REVERT_REASON,
    now,
    now,
  );

  const { origin, requested, dialogs } = await withDashboardPage(service, async (page, origin) => {
    const response = await page.goto(`${origin}/dashboard`);
    // Strict: nothing but this origin's own files, no inline script or style, no framing.
    expect(response?.headers()["content-security-policy"]).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("default-src 'none'");
    expect(DASHBOARD_CSP).toContain("script-src 'self';");
    expect(DASHBOARD_CSP).not.toContain("unsafe");
    await page.fill("#key", "a-wrong-dashboard-key-000");
    await page.click("#login button[type=submit]");
    // Functions, not strings (the page's CSP forbids eval); its globals untyped (no DOM types here).
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector("#login-error")?.textContent === "wrong key",
    );
    expect(await page.isVisible("#board")).toBe(false);
    await page.screenshot({ path: join(screenshots, "dashboard-login.png") });

    await page.fill("#key", DASHBOARD_KEY);
    await page.click("#login button[type=submit]");
    await page.waitForSelector("#settlements tbody tr");
    await page.waitForSelector("#executors tbody tr");
    expect(await page.textContent("#totals")).toContain("settlements");
    expect(await page.textContent("#flows tbody")).toContain("eoa");
    // Onboarding: each network that funds approves, with its budget window's spend against the bound (bsc funded none).
    expect(await page.locator("#onboarding tbody tr").count()).toBe(2);
    expect(await page.textContent("#onboarding tbody")).toContain(`0 / ${10n ** 16n} (0.0%)`);
    const keptRows = page.locator("#payers-kept tbody tr");
    expect(await keptRows.count()).toBe(1);
    expect(await keptRows.first().textContent()).toBe(`base${funded.payer.address}1${kept}`);
    expect(await page.locator("#executors tbody tr.low").count()).toBeGreaterThan(0);
    const link = page.locator(
      `#settlements a[href="${presetOf("bsc").explorer.tx.replace("{hash}", settled.body.transaction)}"]`,
    );
    expect(await link.count()).toBe(1);
    expect(await page.textContent("#errors tbody")).toContain(MARKUP);
    expect(await page.textContent("#errors tbody")).toContain(REVERT_REASON);
    // The symbol and the revert reason are there, character for character, as text.
    const cells = await page.locator("#settlements tbody td").allTextContents();
    expect(cells.filter((text) => text === SYMBOL).length).toBe(2);
    expect(cells).toContain(REVERT_REASON);
    expect(await page.textContent("#flows tbody")).toContain(`900 ${SYMBOL}`);
    // ...and nothing they carry became an element or ran: no image, no script but the page's own two, no alert.
    expect(await page.locator("img, [onerror], [onmouseover], main script").count()).toBe(0);
    expect(
      await page.evaluate(() => [...(globalThis as any).document.scripts].map((script: any) => script.src).sort()),
    ).toEqual([`${origin}/dashboard/assets/dashboard.js`, `${origin}/dashboard/assets/uPlot.iife.min.js`]);
    // The chart is uPlot's, served from this origin: a canvas with the series' legend.
    expect(await page.locator("#chart .uplot canvas").count()).toBe(1);
    expect(await page.textContent("#chart .u-legend")).toContain("failed");
    expect(await page.title()).toBe("relay402 dashboard");
    // The browser enforces the policy: an inline script and an inline handler put in the page are refused.
    const violations = await page.evaluate(async () => {
      const doc = (globalThis as any).document;
      const seen: string[] = [];
      doc.addEventListener("securitypolicyviolation", (event: any) => seen.push(event.violatedDirective));
      const script = doc.createElement("script");
      script.textContent = "document.title = 'inline ran'";
      doc.body.appendChild(script);
      const div = doc.createElement("div");
      div.innerHTML = `<img src="data:," onerror="document.title = 'handler ran'">`;
      doc.body.appendChild(div);
      await new Promise((done) => setTimeout(done, 300));
      return seen;
    });
    expect(violations.some((directive) => directive.startsWith("script-src"))).toBe(true);
    expect(await page.title()).toBe("relay402 dashboard");
    await page.evaluate(() => (globalThis as any).document.querySelector("body > div:last-child")?.remove());
    // The key stays in this tab's session, never in the address.
    expect(page.url()).toBe(`${origin}/dashboard`);
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem("relay402.dashboardKey"))).toBe(
      DASHBOARD_KEY,
    );
    for (const view of ["figures", "attention", "recent"])
      await page.locator(`#${view}`).screenshot({ path: join(screenshots, `dashboard-${view}.png`) });

    await page.selectOption("#filter select[name=flow]", "x402");
    await page.click("#filter button[type=submit]");
    await page.waitForFunction(
      // Only the funded approve's x402 payment.
      () => (globalThis as any).document.querySelectorAll("#settlements tbody tr").length === 1,
    );
    for (const view of ["login", "figures", "attention", "recent"])
      expect(statSync(join(screenshots, `dashboard-${view}.png`)).size).toBeGreaterThan(5_000);
  });
  expect(dialogs).toEqual([]);
  expect(requested.length).toBeGreaterThan(3);
  expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
}, 120_000);
