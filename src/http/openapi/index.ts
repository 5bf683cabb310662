import { Elysia } from "elysia";
import { ApiError } from "../../errors";
import { buildDocument, type ServedOn } from "./document";
import { uiAsset, uiPage } from "./ui";

const PATH = "/openapi";
const hidden = { detail: { hide: true } };

/** GET /openapi (the UI, served from this process), /openapi/json (the document) and the UI's two files. */
export function apiDocs(version: string, servedOn: ServedOn) {
  const plugin = new Elysia({ name: "api-docs" });
  const page = uiPage("relay402 API", `${PATH}/json`, `${PATH}/assets`);
  // Built on first request, when every route is registered.
  let document: ReturnType<typeof buildDocument> | undefined;
  return plugin
    .get(PATH, () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }), hidden)
    .get(`${PATH}/json`, () => (document ??= buildDocument(plugin, version, servedOn)), hidden)
    .get(
      `${PATH}/assets/:file`,
      async ({ params }) => {
        const asset = await uiAsset(params.file);
        if (!asset) throw new ApiError("not_found", "no such file");
        return new Response(asset.body, {
          headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
        });
      },
      hidden,
    );
}
