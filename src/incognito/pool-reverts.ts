import { privacyPoolAbi } from "@relay402/client/wire/incognito/pool-abi";
import { type Hex, toFunctionSelector } from "viem";
import { ApiError } from "../errors";
import { EstimateFailedError } from "../userops/sponsor";
import { invalid } from "./verify-incognito";

export type PoolErrorName = Extract<(typeof privacyPoolAbi)[number], { type: "error" }>["name"];

const NAME_BY_SELECTOR = new Map(
  privacyPoolAbi
    .filter((item) => item.type === "error")
    .map((item) => [
      toFunctionSelector(`${item.name}(${item.inputs.map((input) => input.type).join(",")})`),
      item.name,
    ]),
);

/** The pool's custom error whose selector begins one of the revert data a failed estimate quoted, if any. */
export function poolErrorIn(quotedData: readonly Hex[]): PoolErrorName | undefined {
  for (const data of quotedData) {
    const name = NAME_BY_SELECTOR.get(data.slice(0, 10).toLowerCase() as Hex);
    if (name) return name as PoolErrorName;
  }
  return undefined;
}

/**
 * A simulated revert or a failed gas estimate that is one of the pool's refusals of this request is the client's
 * mistake, not a chain failure: 400 naming the field (for example a note whose commitment is already a leaf, which verify's
 * own checks cannot see when it was inserted a moment ago). Any other error is returned as it is.
 */
export function asPoolRefusal(
  error: unknown,
  refusals: Partial<Record<PoolErrorName, { field: string; message: string }>>,
): unknown {
  if (!(error instanceof ApiError)) return error;
  // The kernel's simulation names the decoded error; a failed estimate only quotes the revert data.
  const name =
    error.code === "userop_error" && typeof error.details?.revert === "string"
      ? (error.details.revert as PoolErrorName)
      : error instanceof EstimateFailedError
        ? poolErrorIn(error.quotedData)
        : undefined;
  const refusal = name ? refusals[name] : undefined;
  return refusal ? invalid(refusal.field, refusal.message, { poolError: name }) : error;
}
