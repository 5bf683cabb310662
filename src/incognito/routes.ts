import { ErrorResponse } from "@relay402/client/wire/fields";
import {
  CircuitResponseSchema,
  IncognitoSettleResponseSchema,
  IncognitoVerifyBodySchema,
  IncognitoVerifyResponseSchema,
  LeavesParamsSchema,
  LeavesQuerySchema,
  LeavesResponseSchema,
} from "@relay402/client/wire/incognito/schemas";
import { Elysia } from "elysia";
import { ApiError } from "../errors";
import { userOpSettleRoute } from "../userops/settle-route";
import { CIRCUIT_PATH } from "./circuit-files";
import type { Incognito } from "./incognito";

const TAG = "Incognito";
/** The artifacts' URLs carry the setup's id: their content never changes. */
const IMMUTABLE = "public, max-age=31536000, immutable";

const notModified = (etag: string, cacheControl: string) =>
  new Response(null, { status: 304, headers: { etag, "cache-control": cacheControl } });

export function incognitoRoutes(incognito: Incognito) {
  return new Elysia({ name: "incognito", seed: Math.random() })
    .post("/wallet/incognito/verify", ({ body }) => incognito.verify(body.paymentRequirements.network, body), {
      body: IncognitoVerifyBodySchema,
      response: { 200: IncognitoVerifyResponseSchema, 400: ErrorResponse, 500: ErrorResponse },
      detail: {
        tags: [TAG],
        summary: "Build the unsigned, sponsored UserOp of a shield or an unshield",
        description:
          "shield: `{ type, token, amount, precommitment, commitment? }`: approve the pool, `shield` (the pool computes the commitment from the precommitment), pay the wallet payment fee. unshield: `{ type, token, withdrawAmount, fee, recipient, root, nullifierHash, changeCommitment, proof }`: fee, root, nullifier and the proof (with `feeRecipient` of /config) are checked before anything is built; the UserOp calls the pool from `walletAddress`, which needs no balance. A refusal names the field (`details.field`).",
      },
    })
    .use(
      userOpSettleRoute("/wallet/incognito/settle", incognito.settle, {
        response: IncognitoSettleResponseSchema,
        tag: TAG,
        summary: "Send a signed UserOp from /wallet/incognito/verify and report what the pool recorded",
        description:
          "As /wallet/settle. `incognito` is read from the pool's Shielded or Unshielded event in the UserOp's own logs: the note's (or the change note's) `leafIndex` and `commitment`.",
      }),
    )
    .get(
      "/incognito/:network/leaves",
      ({ params, query }) => incognito.leaves(params.network, Number(query.from ?? "0")),
      {
        params: LeavesParamsSchema,
        query: LeavesQuerySchema,
        response: { 200: LeavesResponseSchema, 400: ErrorResponse },
        detail: {
          tags: [TAG],
          summary: "The pool's tree leaves in insertion order, at most 1,000 from `from` (empty at `from` = `total`)",
        },
      },
    )
    .get(
      CIRCUIT_PATH,
      ({ set, request }) => {
        const summary = incognito.circuit.summary();
        const etag = `"${summary.id}"`;
        set.headers.etag = etag;
        set.headers["cache-control"] = "public, max-age=300";
        if (request.headers.get("if-none-match") === etag) return notModified(etag, "public, max-age=300");
        return summary;
      },
      {
        response: { 200: CircuitResponseSchema },
        detail: {
          tags: [TAG],
          summary: "The unshield circuit: public signals in order, and the URLs of its wasm, zkey and verification key",
        },
      },
    )
    .get(
      `${CIRCUIT_PATH}/:id/:file`,
      ({ params, set, request }) => {
        const file = incognito.circuit.file(params.id, params.file);
        if (!file) throw new ApiError("not_found", `no circuit artifact ${params.id}/${params.file}`);
        const etag = `"${file.sha256}"`;
        set.headers.etag = etag;
        set.headers["cache-control"] = IMMUTABLE;
        if (request.headers.get("if-none-match") === etag) return notModified(etag, IMMUTABLE);
        set.headers["content-type"] = file.contentType;
        return Bun.file(file.path);
      },
      {
        detail: {
          tags: [TAG],
          summary: "A circuit artifact (immutable: the path carries the setup's id; ETag is its sha256)",
        },
      },
    );
}
