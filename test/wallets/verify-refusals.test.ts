import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { erc20Abi } from "@relay402/client/wire/abis";
import type { Address } from "viem";
import { freePort } from "../../scripts/devnet/ports";
import { encodeConfig } from "../../src/config/load";
import { chainOf, freshPayer, NETWORK_NAMES } from "../support/chain";
import { swapTokensOf } from "../support/dex";
import { startTestService } from "../support/service";
import { deployFundedWallet, expectRefusal, randomAddress, units, verifyBody } from "./support";

const service = startTestService();
afterAll(() => service.stop());

for (const network of NETWORK_NAMES) {
  describe(`${network}: /wallet/verify refusals`, () => {
    let wallet: Address;
    const one = () => units(network, 1n);
    beforeAll(async () => {
      ({ wallet } = await deployFundedWallet(network, units(network, 100n)));
    });

    test("21 transactions", async () => {
      const transfers = Array.from({ length: 21 }, () => ({ to: randomAddress(), amount: one() }));
      expectRefusal(
        await service.post("/wallet/verify", verifyBody(network, wallet, transfers)),
        400,
        "validation_error",
        "transactions",
      );
    });

    test("an empty list", async () => {
      expectRefusal(
        await service.post("/wallet/verify", verifyBody(network, wallet, [])),
        400,
        "validation_error",
        "transactions",
      );
    });

    test("a zero amount", async () => {
      const body = verifyBody(network, wallet, [
        { to: randomAddress(), amount: one() },
        { to: randomAddress(), amount: 0n },
      ]);
      expectRefusal(await service.post("/wallet/verify", body), 400, "validation_error", "transactions.1.amount");
    });

    test("mixed tokens", async () => {
      const body = verifyBody(network, wallet, [
        { to: randomAddress(), amount: one() },
        { to: randomAddress(), amount: one(), token: randomAddress() },
      ]);
      const response = await service.post("/wallet/verify", body);
      expectRefusal(response, 400, "validation_error", "transactions.1.token");
      expect(response.body.message).toMatch(/same token/);
    });

    test("a token not configured on the network", async () => {
      // A token of the chain that the network does not list (the DEX's wrapped native token).
      const other = swapTokensOf(network).w;
      const body = verifyBody(network, wallet, [{ to: randomAddress(), amount: one(), token: other }]);
      expectRefusal(await service.post("/wallet/verify", body), 400, "validation_error", "transactions.0.token");
    });

    test("a wallet that is not deployed", async () => {
      const response = await service.post(
        "/wallet/verify",
        verifyBody(network, randomAddress(), [{ to: randomAddress(), amount: one() }]),
      );
      expectRefusal(response, 400, "validation_error", "walletAddress");
      expect(response.body.message).toMatch(/no wallet deployed/);
    });

    test("a contract that is not one of our wallets is refused, even with an owner() and a balance", async () => {
      // The paymaster is Ownable; give it tokens so only "is it our wallet" can refuse it.
      const c = chainOf(network);
      const minter = c.walletFor(await freshPayer(network, { tokens: 0n }).then((p) => p.key));
      await c.public.waitForTransactionReceipt({
        hash: await minter.writeContract({
          address: c.token.address,
          abi: erc20Abi,
          functionName: "mint",
          args: [c.info.paymaster, units(network, 100n)],
        }),
      });
      const response = await service.post(
        "/wallet/verify",
        verifyBody(network, c.info.paymaster, [{ to: randomAddress(), amount: one() }]),
      );
      expectRefusal(response, 400, "validation_error", "walletAddress");
      expect(response.body.message).toMatch(/not a relay402 wallet/);
    });

    test("a balance below totalAmount (the fee counts)", async () => {
      // The whole balance leaves nothing for the fee.
      const response = await service.post(
        "/wallet/verify",
        verifyBody(network, wallet, [{ to: randomAddress(), amount: units(network, 100n) }]),
      );
      expectRefusal(response, 400, "validation_error");
      expect(response.body.message).toMatch(/insufficient token balance/);
      expect(response.body.details.balance).toBe(units(network, 100n).toString());
    });

    test("a malformed address names the field", async () => {
      const body = verifyBody(network, wallet, [{ to: randomAddress(), amount: one() }]);
      (body.transactions[0] as { to: string }).to = "0x1234";
      expectRefusal(await service.post("/wallet/verify", body), 400, "validation_error", "transactions.0.to");
    });
  });
}

describe("/wallet/verify network refusals and failures", () => {
  test("an unknown network", async () => {
    const body = {
      ...verifyBody("bsc", randomAddress(), [{ to: randomAddress(), amount: 1n }]),
      paymentRequirements: { network: "ethereum" },
    };
    expectRefusal(await service.post("/wallet/verify", body), 400, "validation_error", "paymentRequirements.network");
  });

  test("a network this service has not enabled", async () => {
    const bscOnly = startTestService({ networks: { bsc: encodeConfig(service.config).networks.bsc } });
    try {
      const body = verifyBody("base", randomAddress(), [{ to: randomAddress(), amount: 1n }]);
      const response = await bscOnly.post("/wallet/verify", body);
      expectRefusal(response, 400, "validation_error", "paymentRequirements.network");
      expect(response.body.message).toMatch(/not enabled/);
    } finally {
      bscOnly.stop();
    }
  });

  test("the bundler down: 500 blockchain_error in the envelope, promptly", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const bsc = encodeConfig(service.config).networks.bsc!;
    const broken = startTestService({ networks: { bsc: { ...bsc, bundlerUrl: closed } } });
    try {
      const { wallet } = await deployFundedWallet("bsc", units("bsc", 10n));
      const started = performance.now();
      const response = await broken.post(
        "/wallet/verify",
        verifyBody("bsc", wallet, [{ to: randomAddress(), amount: units("bsc", 1n) }]),
      );
      expectRefusal(response, 500, "blockchain_error");
      expect(JSON.stringify(response.body)).not.toContain(closed);
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      broken.stop();
    }
  });
});
