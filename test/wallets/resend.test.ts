import { afterAll, expect, test } from "bun:test";
import type { RpcUserOp } from "@relay402/client/wire/user-operation";
import type { Hex } from "viem";
import { ENTRY_POINT_V07 } from "../../src/chain/addresses";
import { createBundler } from "../../src/userops/bundler";
import { chainOf, tokenBalance } from "../support/chain";
import { startTestService } from "../support/service";
import { deployFundedWallet, randomAddress, settleBody, units, verifyBody } from "./support";

const service = startTestService();
afterAll(() => service.stop());

test("a settle whose UserOp already reached the bundler (an earlier answer was lost) waits for it instead of refusing it", async () => {
  const network = "bsc";
  const c = chainOf(network);
  const { owner, wallet } = await deployFundedWallet(network, units(network, 100n));
  const to = randomAddress();
  const verified = await service.post(
    "/wallet/verify",
    verifyBody(network, wallet, [{ to, amount: units(network, 2n) }]),
  );
  expect(verified.status).toBe(200);
  const body = await settleBody(verified.body, owner);

  await c.test.setAutomine(false);
  try {
    // The earlier attempt: the bundler got the UserOp, the service never heard back.
    await createBundler(c.info.bundlerUrl, ENTRY_POINT_V07).send(body.userOp as unknown as RpcUserOp);
    const settling = service.post("/wallet/settle", body);
    await Bun.sleep(300);
    await c.test.setIntervalMining({ interval: 1 });
    const settled = await settling;
    expect(settled.status).toBe(200);
    expect(settled.body.success).toBe(true);
    expect(settled.body.userOpHash).toBe(verified.body.userOpHash as Hex);
    expect(await tokenBalance(network, c.token.address, to)).toBe(units(network, 2n));
  } finally {
    await c.test.setIntervalMining({ interval: 0 });
    await c.test.setAutomine(true);
  }
});
