import { toFunctionSelector } from "viem";
import { ApiError } from "../errors";
import { privacyPoolAbi } from "./pool-abi";
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

/** The pool's custom error named in a failed estimate's reason (the bundler quotes the revert data), if any. */
export function poolErrorIn(reason: string): PoolErrorName | undefined {
  for (const match of reason.toLowerCase().matchAll(/0x[0-9a-f]{8}/g)) {
    const name = NAME_BY_SELECTOR.get(match[0] as `0x${string}`);
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
  const reason = typeof error.details?.reason === "string" ? error.details.reason : "";
  // The kernel's simulation names the decoded error; a failed estimate only quotes the revert data.
  const name =
    error.code === "userop_error" && typeof error.details?.revert === "string"
      ? (error.details.revert as PoolErrorName)
      : error.code === "blockchain_error"
        ? poolErrorIn(reason)
        : undefined;
  const refusal = name ? refusals[name] : undefined;
  return refusal ? invalid(refusal.field, refusal.message, { poolError: name }) : error;
}
