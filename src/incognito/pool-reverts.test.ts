import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors";
import { asPoolRefusal, poolErrorIn } from "./pool-reverts";

describe("pool reverts at estimate", () => {
  test("the pool's custom errors are recognised by selector in a bundler's reason, with or without arguments", () => {
    expect(poolErrorIn("UserOperation reverted during simulation with reason: 0x258a195a")).toBe("LeafAlreadyExists");
    expect(poolErrorIn(`reverted: 0x9c7bbc21${"00".repeat(31)}07`)).toBe("NullifierAlreadySpent");
    expect(poolErrorIn("reverted: 0x08c379a0")).toBeUndefined();
    expect(poolErrorIn("execution reverted")).toBeUndefined();
  });

  test("a refusal the flow names becomes a 400 naming the field; anything else stays as it was", () => {
    const estimate = (reason: string) =>
      new ApiError("blockchain_error", "failed to estimate gas for the UserOp", { reason });
    const refusals = { LeafAlreadyExists: { field: "precommitment", message: "already a leaf" } };
    const refused = asPoolRefusal(estimate("reason: 0x258a195a"), refusals) as ApiError;
    expect(refused.code).toBe("validation_error");
    expect(refused.details).toMatchObject({ field: "incognitoData.precommitment", poolError: "LeafAlreadyExists" });
    const other = estimate("reason: 0x09bde339");
    expect(asPoolRefusal(other, refusals)).toBe(other);
    const unrelated = new Error("boom");
    expect(asPoolRefusal(unrelated, refusals)).toBe(unrelated);
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
