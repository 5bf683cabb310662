import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import bundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };

/**
 * The /openapi page: Swagger UI from the pinned `swagger-ui-dist` package, imported as text so that it is served
 * from this process (and embedded by `bun build --compile`) and the page renders without internet.
 */
export const UI_ASSETS = {
  "swagger-ui.css": { body: css, type: "text/css; charset=utf-8" },
  "swagger-ui-bundle.js": { body: bundle, type: "text/javascript; charset=utf-8" },
} as const;

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
