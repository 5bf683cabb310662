import { afterAll, describe, expect, test } from "bun:test";
import { decodeAbiParameters, decodeFunctionData } from "viem";
import { FLOWS } from "../../src/flows";
import { chainOf, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet, paymasterDeposit, settleBody, units } from "../wallets/support";
import { tipJarFlow } from "./tip-jar/flow";

// A new flow is its own folder (./tip-jar: one file, its routes and its use of the UserOp kernel) and one line in
// the list of flows; nothing else in the service names it. Served here beside the real flows.
const service = startTestService({}, undefined, undefined, [...FLOWS, tipJarFlow]);
afterAll(() => service.stop());

describe("a throwaway flow added by its folder and one line", () => {
  test("its route builds a sponsored one-call UserOp; settled, the tip moves on-chain and the paymaster pays", async () => {
    const network = "base";
    const c = chainOf(network);
    const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
    const amount = units(network, 3n);
    const verified = await service.post("/tip/verify", {
      network,
      walletAddress: wallet,
      token: c.token.address,
      amount: amount.toString(),
    });
    expect(verified.status).toBe(200);
    expect(verified.body.userOp.sender).toBe(wallet);
    expect(verified.body.userOp.paymaster).toBe(c.info.paymaster);
    // One ERC-7579 batch of exactly one call.
    const { functionName, args } = decodeFunctionData({
      abi: [
        {
          type: "function",
          name: "execute",
          inputs: [
            { name: "mode", type: "bytes32" },
            { name: "executionCalldata", type: "bytes" },
          ],
          outputs: [],
          stateMutability: "payable",
        },
      ],
      data: verified.body.userOp.callData,
    });
    expect(functionName).toBe("execute");
    const [executions] = decodeAbiParameters(
      [
        {
          type: "tuple[]",
          components: [
            { name: "target", type: "address" },
            { name: "value", type: "uint256" },
            { name: "callData", type: "bytes" },
          ],
        },
      ],
      args[1] as `0x${string}`,
    );
    expect(executions.map((execution) => execution.target)).toEqual([c.token.address]);

    const before = await Promise.all(
      [wallet, c.info.feeRecipient].map((holder) => tokenBalance(network, c.token.address, holder)),
    );
    const deposit = await paymasterDeposit(network);
    const settled = await service.post("/tip/settle", await settleBody(verified.body, owner));
    expect([settled.status, settled.body.success]).toEqual([200, true]);
    const after = await Promise.all(
      [wallet, c.info.feeRecipient].map((holder) => tokenBalance(network, c.token.address, holder)),
    );
    expect(before[0]! - after[0]!).toBe(amount);
    expect(after[1]! - before[1]!).toBe(amount);
    expect(await paymasterDeposit(network)).toBeLessThan(deposit);
    // The settle route is one the service drains and times, as the flow declared.
    const again = await service.post("/tip/settle", await settleBody(verified.body, owner));
    expect(again.body.txHash).toBe(settled.body.txHash);
  });

  test("the real flows are unchanged beside it, and a service without it does not serve its route", async () => {
    expect((await service.get("/supported")).status).toBe(200);
    const plain = startTestService();
    try {
      expect((await plain.post("/tip/verify", {})).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});
