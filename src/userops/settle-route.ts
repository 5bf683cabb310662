import { ErrorResponse, PaymentPendingResponse } from "@relay402/client/wire/fields";
import { SignatureField, UserOpSchema } from "@relay402/client/wire/user-op-schema";
import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import { Elysia, type TSchema, t } from "elysia";
import type { Hex } from "viem";
import type { UserOpSettleRequest } from "./settle-user-op";

/** What every UserOp flow's settle takes: the UserOp its verify issued, and the owner's signature of its hash. */
export const UserOpSettleBodySchema = t.Object({ userOp: UserOpSchema, signature: SignatureField });

/**
 * The `…/settle` route of a UserOp flow (a plugin its routes file mounts): the same body, the same error answers
 * and the same handler shape for each; the flow gives its path, its response schema and its documentation.
 */
export function userOpSettleRoute<const Path extends string, const Response extends TSchema>(
  path: Path,
  settle: (request: UserOpSettleRequest) => Promise<Response["static"]>,
  doc: { response: Response; tag: string; summary: string; description: string },
) {
  return new Elysia().post(
    path,
    ({ body }) => settle({ userOp: body.userOp as RpcUserOp, signature: body.signature as Hex }),
    {
      body: UserOpSettleBodySchema,
      response: { 200: doc.response, 202: PaymentPendingResponse, 400: ErrorResponse, 500: ErrorResponse },
      detail: { tags: [doc.tag], summary: doc.summary, description: doc.description },
    },
  );
}
