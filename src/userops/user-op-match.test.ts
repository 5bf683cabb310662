import { describe, expect, test } from "bun:test";
import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { checkOwnerSignature, differingFields } from "./user-op-match";

const issued: RpcUserOp = {
  sender: "0x1111111111111111111111111111111111111111",
  nonce: "0x1",
  callData: "0xabcd",
  callGasLimit: "0x100",
  verificationGasLimit: "0x200",
  preVerificationGas: "0x300",
  maxFeePerGas: "0x10",
  maxPriorityFeePerGas: "0x1",
  paymaster: "0x2222222222222222222222222222222222222222",
  paymasterVerificationGasLimit: "0x400",
  paymasterPostOpGasLimit: "0x0",
  paymasterData: "0xdead",
  signature: "0x",
};

describe("differingFields", () => {
  test("a UserOp changed only in its signature, or in how its quantities and addresses are written, differs nowhere", () => {
    expect(differingFields(issued, { ...issued, signature: "0x1234" })).toEqual([]);
    expect(differingFields(issued, { ...issued, nonce: "0x01", sender: issued.sender.toUpperCase() as never })).toEqual(
      [],
    );
  });

  test("names each changed signed field", () => {
    expect(differingFields(issued, { ...issued, callData: "0xabce", maxFeePerGas: "0x11" })).toEqual([
      "callData",
      "maxFeePerGas",
    ]);
  });
});

describe("checkOwnerSignature", () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  const hash = `0x${"ab".repeat(32)}` as const;

  test("the owner's EIP-191 signature and its raw-hash signature are the owner's", async () => {
    expect(await checkOwnerSignature(hash, await owner.signMessage({ message: { raw: hash } }), owner.address)).toBe(
      "owner",
    );
    expect(await checkOwnerSignature(hash, await owner.sign({ hash }), owner.address)).toBe("owner");
  });

  test("someone else's signature is another signer's, and garbage is malformed", async () => {
    const other = privateKeyToAccount(generatePrivateKey());
    expect(await checkOwnerSignature(hash, await other.signMessage({ message: { raw: hash } }), owner.address)).toBe(
      "other",
    );
    expect(await checkOwnerSignature(hash, "0x1234", owner.address)).toBe("malformed");
  });
});
