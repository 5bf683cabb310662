import { PAYMASTER, WALLET } from "../examples";

/** An illustrative UserOp for the OpenAPI examples of every UserOp flow (a shape the UserOp schema accepts). */
export const exampleUserOp = (signature: string, callGasLimit = "0x1d4c0") => ({
  sender: WALLET,
  nonce: "0x0",
  callData: `0xe9ae5c53${"00".repeat(64)}`,
  callGasLimit,
  verificationGasLimit: "0x186a0",
  preVerificationGas: "0xc350",
  maxFeePerGas: "0x3b9aca00",
  maxPriorityFeePerGas: "0x3b9aca00",
  paymaster: PAYMASTER,
  paymasterVerificationGasLimit: "0x186a0",
  paymasterPostOpGasLimit: "0x0",
  paymasterData: `0x${"00".repeat(12)}${"cd".repeat(65)}`,
  signature,
});
