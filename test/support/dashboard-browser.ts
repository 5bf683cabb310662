// The /dashboard page of a test service in headless Chromium (Debian's, through playwright-core), for the page tests.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { chromium, type Page } from "playwright-core";
import type { startTestService } from "./service";

const CHROMIUM = "/usr/bin/chromium";

/** Where the page tests put their screenshots (DASHBOARD_SCREENSHOTS, else test-artifacts/dashboard/), made if absent. */
export function dashboardScreenshots() {
  const screenshots = resolve(process.env.DASHBOARD_SCREENSHOTS ?? "test-artifacts/dashboard");
  mkdirSync(screenshots, { recursive: true });
  return screenshots;
}

/**
 * Serves `service` on a local port and runs `use` on a fresh 1280x900 page of a headless browser, then closes both.
 * Answers every URL the page requested and every dialog it opened (dismissed): a request off the service's origin is
 * refused, so that the caller can check that none was made.
 */
export async function withDashboardPage(
  service: ReturnType<typeof startTestService>,
  use: (page: Page, origin: string) => Promise<void>,
) {
  const server = service.app.listen({ hostname: "127.0.0.1", port: 0 });
  const origin = `http://127.0.0.1:${server.server?.port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  const requested: string[] = [];
  const dialogs: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      return dialog.dismiss();
    });
    await page.route("**/*", (route) => {
      requested.push(route.request().url());
      return route.request().url().startsWith(`${origin}/`) ? route.continue() : route.abort();
    });
    await use(page, origin);
  } finally {
    await browser.close();
    server.stop(true);
  }
  return { origin, requested, dialogs };
}
