/** Illustrative values for the OpenAPI examples of every UserOp flow (a shape the UserOp schema accepts). */
export const EXAMPLE_WALLET = "0x2C5c3f2Cc1F2E4f0f1b3a5B7c9d0E1f2A3b4C5d6";
export const EXAMPLE_PAYMASTER = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";

export const exampleUserOp = (signature: string, callGasLimit = "0x1d4c0") => ({
  sender: EXAMPLE_WALLET,
  nonce: "0x0",
  callData: `0xe9ae5c53${"00".repeat(64)}`,
  callGasLimit,
  verificationGasLimit: "0x186a0",
  preVerificationGas: "0xc350",
  maxFeePerGas: "0x3b9aca00",
  maxPriorityFeePerGas: "0x3b9aca00",
  paymaster: EXAMPLE_PAYMASTER,
  paymasterVerificationGasLimit: "0x186a0",
  paymasterPostOpGasLimit: "0x0",
  paymasterData: `0x${"00".repeat(12)}${"cd".repeat(65)}`,
  signature,
});
