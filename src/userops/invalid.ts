import { ApiError } from "../errors";

/**
 * The one way a UserOp flow refuses a request's field: 400 `validation_error` whose `details.field` names it,
 * with a message that is a whole sentence naming what it refuses ("signature differs from userOp.signature").
 */
export const refuse = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new ApiError("validation_error", message, { field, ...details });

/** The same refusal led by the field, so that a short rule reads on its own ("swap.sellAmount: must be greater than zero"). */
export const invalid = (field: string, message: string, details: Record<string, unknown> = {}) =>
  refuse(field, `${field}: ${message}`, details);

/** Refusals of the fields under one object of the body: `invalidUnder("incognitoData")("fee", …)` names `incognitoData.fee`. */
export const invalidUnder =
  (parent: string) =>
  (field: string, message: string, details: Record<string, unknown> = {}) =>
    invalid(`${parent}.${field}`, message, details);
