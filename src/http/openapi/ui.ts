/**
 * The /openapi page: Swagger UI from the pinned `swagger-ui-dist` package, imported as text so that it is served
 * from this process (and embedded by `bun build --compile`) and the page renders without internet.
 */
type Asset = { body: string; type: string };

/**
 * The two files, read on the first request for them (about 10 MiB of strings a service that nobody browses the
 * documentation of does not hold); undefined for any other name.
 */
export async function uiAsset(file: string): Promise<Asset | undefined> {
  if (file === "swagger-ui.css") {
    const { default: body } = await import("swagger-ui-dist/swagger-ui.css", { with: { type: "text" } });
    return { body: body as unknown as string, type: "text/css; charset=utf-8" };
  }
  if (file === "swagger-ui-bundle.js") {
    const { default: body } = await import("swagger-ui-dist/swagger-ui-bundle.js", { with: { type: "text" } });
    return { body: body as unknown as string, type: "text/javascript; charset=utf-8" };
  }
  return undefined;
}

export function uiPage(title: string, specPath: string, assetsPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>${title}</title>
  <link rel="stylesheet" href="${assetsPath}/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${assetsPath}/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "${specPath}", dom_id: "#swagger-ui", deepLinking: true });
  </script>
</body>
</html>`;
}
