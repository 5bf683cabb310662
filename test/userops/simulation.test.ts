// The kernel simulates every sponsored UserOp's calls before the paymaster signs and again just before the send.
// The bundler's own check on eth_sendUserOperation validates the UserOp (signatures, paymaster, prefund), not its
// execution: calls that revert since verify were sent, and the paymaster paid for the revert. The relayer's
// owner pausing it between verify and settle stands for any change of state the flow's own checks do not read.
import { afterAll, describe, expect, test } from "bun:test";
import { type Address, encodeFunctionData, parseAbi } from "viem";
import type { NetworkName } from "../../scripts/devnet/start";
import { chainOf, NETWORK_NAMES, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import {
  deployFundedWallet,
  expectRefusal,
  paymasterDeposit,
  randomAddress,
  settleBody,
  units,
  verifyBody,
} from "../wallets/support";

const service = startTestService();
afterAll(() => service.stop());

const ownable = parseAbi(["function owner() view returns (address)", "function pause()", "function unpause()"]);

/** The relayer's owner pauses (or unpauses) it: anvil impersonation stands for the owner's key. */
async function setPaused(network: NetworkName, paused: boolean) {
  const c = chainOf(network);
  const relayer = c.info.relayer as Address;
  const owner = await c.public.readContract({ address: relayer, abi: ownable, functionName: "owner" });
  await c.test.impersonateAccount({ address: owner });
  await c.test.setBalance({ address: owner, value: 10n ** 18n });
  try {
    const hash = await c.test.sendUnsignedTransaction({
      from: owner,
      to: relayer,
      data: encodeFunctionData({ abi: ownable, functionName: paused ? "pause" : "unpause" }),
    });
    expect((await c.public.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe("success");
  } finally {
    await c.test.stopImpersonatingAccount({ address: owner });
  }
}

for (const network of NETWORK_NAMES) {
  describe(`${network}: sponsored calls that would revert are refused, never paid for`, () => {
    const c = chainOf(network);

    test("calls reverting since verify: settle answers 400 naming the reason, nothing is sent; the same UserOp settles once they pass again", async () => {
      const { owner, wallet } = await deployFundedWallet(network, units(network, 10n));
      const to = randomAddress();
      const amount = units(network, 2n);
      const verified = await service.post("/wallet/verify", verifyBody(network, wallet, [{ to, amount }]));
      expect(verified.status).toBe(200);
      const body = await settleBody(verified.body, owner);
      const depositBefore = await paymasterDeposit(network);
      await setPaused(network, true);
      try {
        const settled = await service.post("/wallet/settle", body);
        expectRefusal(settled, 400, "userop_error", "userOp");
        expect(settled.body.details).toMatchObject({ reason: "EnforcedPause()", revert: "EnforcedPause" });
        expect(settled.body.message).toContain("EnforcedPause()");
        expect(await paymasterDeposit(network)).toBe(depositBefore);
        expect(await tokenBalance(network, c.token.address, wallet)).toBe(units(network, 10n));

        // While paused, verify refuses too, before the paymaster signs: 400 naming the request's calls.
        const refused = await service.post("/wallet/verify", verifyBody(network, wallet, [{ to, amount }]));
        expectRefusal(refused, 400, "userop_error", "transactions");
        expect(refused.body.details.revert).toBe("EnforcedPause");
      } finally {
        await setPaused(network, false);
      }
      // The claim was released: the very same signed UserOp settles now.
      const again = await service.post("/wallet/settle", body);
      expect(again.status).toBe(200);
      expect(await tokenBalance(network, c.token.address, to)).toBe(amount);
    }, 60_000);
  });
}
