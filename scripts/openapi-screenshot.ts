// Loads the /openapi page in headless Chromium with every host but the service's unreachable (as offline),
// saves a screenshot and checks that Swagger UI rendered the API's title.
//   bun scripts/openapi-screenshot.ts [http://127.0.0.1:4020] [openapi.png]
/** Debian's chromium, or null when it is not installed. */
export function findChromium(): string | null {
  for (const name of ["chromium", "chromium-browser"]) {
    const path = Bun.which(name);
    if (path) return path;
  }
  return null;
}

async function runChromium(chromium: string, url: string, extra: string[]): Promise<string> {
  const host = new URL(url).hostname;
  // Asynchronous: the service under test may run in this same process and must keep answering.
  const child = Bun.spawn(
    [
      chromium,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      // Offline: every name but the service's host resolves nowhere, so a CDN script could not load.
      `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE ${host}`,
      "--window-size=1280,1600",
      "--virtual-time-budget=15000",
      ...extra,
      url,
    ],
    { stdout: "pipe", stderr: "pipe", timeout: 60_000 },
  );
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (status !== 0) throw new Error(`chromium exited with ${status}: ${stderr.slice(-500)}`);
  return stdout;
}

/** The rendered page's title heading (Swagger UI's `.title` heading), after a screenshot saved to `outFile`. */
export async function screenshotOpenApi(baseUrl: string, outFile: string): Promise<{ renderedTitle: string | null }> {
  const chromium = findChromium();
  if (!chromium) throw new Error("chromium is not installed (apt-get install -y chromium)");
  const url = `${baseUrl.replace(/\/$/, "")}/openapi`;
  await runChromium(chromium, url, [`--screenshot=${outFile}`]);
  const dom = await runChromium(chromium, url, ["--dump-dom"]);
  const heading = dom.match(/<h[12] class="title">([\s\S]*?)<\/h[12]>/);
  const renderedTitle = heading
    ? (heading[1] ?? "")
        .replace(/<[^>]+>/g, " ")
        .replace(/\s+/g, " ")
        .trim()
    : null;
  return { renderedTitle };
}

if (import.meta.main) {
  const [baseUrl = "http://127.0.0.1:4020", outFile = "openapi.png"] = process.argv.slice(2);
  const { renderedTitle } = await screenshotOpenApi(baseUrl, outFile);
  if (!renderedTitle?.startsWith("relay402")) {
    console.error(`the page did not render the API title (found: ${renderedTitle ?? "nothing"})`);
    process.exit(1);
  }
  console.log(`rendered "${renderedTitle}"; screenshot in ${outFile}`);
}
