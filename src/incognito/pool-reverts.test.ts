import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors";
import { BundlerRejectedError, BundlerUnreachableError } from "../userops/bundler";
import { EstimateFailedError } from "../userops/sponsor";
import { asPoolRefusal, poolErrorIn } from "./pool-reverts";

const quoted = (message: string, data?: unknown) => new BundlerRejectedError(message, -32521, data).quotedData;

describe("pool reverts at estimate", () => {
  test("the pool's custom errors are recognised by selector in the data a bundler quoted, with or without arguments", () => {
    expect(poolErrorIn(quoted("UserOperation reverted during simulation with reason: 0x258a195a"))).toBe(
      "LeafAlreadyExists",
    );
    expect(poolErrorIn(quoted(`reverted: 0x9c7bbc21${"00".repeat(31)}07`))).toBe("NullifierAlreadySpent");
    expect(poolErrorIn(quoted("reverted", { revertData: "0x258A195A" }))).toBe("LeafAlreadyExists");
    expect(poolErrorIn(quoted("reverted: 0x08c379a0"))).toBeUndefined();
    expect(poolErrorIn(quoted("execution reverted"))).toBeUndefined();
  });

  test("a refusal the flow names becomes a 400 naming the field; anything else stays as it was", () => {
    const estimate = (reason: string) => new EstimateFailedError(new BundlerRejectedError(reason, -32521));
    const refusals = { LeafAlreadyExists: { field: "precommitment", message: "already a leaf" } };
    const refused = asPoolRefusal(estimate("reason: 0x258a195a"), refusals) as ApiError;
    expect(refused.code).toBe("validation_error");
    expect(refused.details).toMatchObject({ field: "incognitoData.precommitment", poolError: "LeafAlreadyExists" });
    const other = estimate("reason: 0x09bde339");
    expect(asPoolRefusal(other, refusals)).toBe(other);
    const unrelated = new Error("boom");
    expect(asPoolRefusal(unrelated, refusals)).toBe(unrelated);
    // Only the bundler's refusal is read: a message that merely mentions a selector is not a revert.
    const unreachable = new EstimateFailedError(new BundlerUnreachableError("bundler unreachable 0x258a195a"));
    expect(asPoolRefusal(unreachable, refusals)).toBe(unreachable);
    const plain = new ApiError("blockchain_error", "failed to estimate gas for the UserOp", { reason: "0x258a195a" });
    expect(asPoolRefusal(plain, refusals)).toBe(plain);
  });

  test("the kernel's simulated revert (userop_error naming the decoded error) maps the same way", () => {
    const simulated = (revert: string) =>
      new ApiError("userop_error", "the UserOp would revert", {
        field: "incognitoData",
        reason: `${revert}()`,
        revert,
      });
    const refusals = { LeafAlreadyExists: { field: "changeCommitment", message: "already a leaf" } };
    const refused = asPoolRefusal(simulated("LeafAlreadyExists"), refusals) as ApiError;
    expect(refused.code).toBe("validation_error");
    expect(refused.details).toMatchObject({ field: "incognitoData.changeCommitment", poolError: "LeafAlreadyExists" });
    const other = simulated("TreeFull");
    expect(asPoolRefusal(other, refusals)).toBe(other);
  });
});
