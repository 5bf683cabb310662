// A funding fee-bumped while the chain did not mine, and mined after the settle gave up waiting (issue #33 item 4): the
// next settle finds the replacement that was mined and counts the funding once, whether the replacement's hash was
// journaled or (a lost intermediate replacement) only the executor's nonce on the chain tells.
import { afterAll, describe, expect, test } from "bun:test";
import { type Address, keccak256, parseTransaction } from "viem";
import { chainOf, tokenBalance } from "../support/chain";
import { trackServices } from "../support/service";
import {
  type Net,
  nativeBalance,
  permit2Payment,
  plainRequirements,
  plainToken,
  signApprove,
  sponsoredBody,
  tokenOnlyPayer,
} from "./funded-approve-support";

const services = trackServices();
afterAll(() => services.stopAll());
const price = 10n ** 18n;

const relay = services.start({}, (config) => {
  for (const network of ["bsc", "base"] as const) {
    const settings = config.networks[network];
    if (!settings) throw new Error(`${network} not configured`);
    settings.replaceAfterMs = 100;
    settings.receiptTimeoutMs = 1_500;
  }
});

type Row = { status: string; funding_wei: string; funding_tx_hash: string; funding_raw_tx: string };
const rowsOf = (payer: Address) =>
  relay.db.$client
    .query<Row, [string]>(
      "SELECT status, funding_wei, funding_tx_hash, funding_raw_tx FROM funded_approvals WHERE payer = ?",
    )
    .all(payer.toLowerCase());

/** A sponsored payment settled while nothing is mined: the funding is sent, replaced, and still in the pool. */
async function fundedWhileNothingMined(network: Net) {
  const c = chainOf(network);
  const payer = await tokenOnlyPayer(network);
  const requirements = plainRequirements(network, price);
  const raw = await signApprove(payer.key, network);
  const body = sponsoredBody(await permit2Payment(payer.key, requirements), requirements, raw);
  await c.test.setAutomine(false);
  try {
    expect((await relay.post("/settle", body)).body).toMatchObject({
      success: false,
      errorReason: "settlement_pending",
    });
    const [row] = rowsOf(payer.address);
    expect(row?.status).toBe("funding_sent");
    await c.test.mine({ blocks: 1 });
    // A replacement was mined, not the original the record was written with.
    const original = keccak256(row?.funding_raw_tx as `0x${string}`);
    expect(await c.public.getTransactionReceipt({ hash: original }).catch(() => null)).toBeNull();
  } finally {
    await c.test.setAutomine(true);
  }
  return { network, payer, requirements, raw, body };
}

/** The settle after the late mine pays, and the payer was funded exactly once, as the chain's balances say. */
async function paidOnce(funded: Awaited<ReturnType<typeof fundedWhileNothingMined>>) {
  const { network, payer, requirements, raw, body } = funded;
  const [row] = rowsOf(payer.address);
  const fundingWei = BigInt(row?.funding_wei ?? "0");
  expect(fundingWei).toBeGreaterThan(0n);
  expect(await nativeBalance(network, payer.address)).toBe(fundingWei);
  expect((await relay.post("/settle", body)).body).toMatchObject({ success: true });
  expect(await tokenBalance(network, plainToken(), requirements.payTo as Address)).toBe(price);
  const receipt = await chainOf(network).public.getTransactionReceipt({ hash: keccak256(raw) });
  expect(await nativeBalance(network, payer.address)).toBe(fundingWei - receipt.gasUsed * receipt.effectiveGasPrice);
  expect(rowsOf(payer.address).map((each) => each.status)).toEqual(["used"]);
  const tx = parseTransaction(raw);
  expect(fundingWei).toBe((tx.gas as bigint) * (tx.maxFeePerGas as bigint));
}

for (const network of ["bsc", "base"] as const)
  describe(`a fee-bumped funding mined late, on ${network}`, () => {
    test("the replacement's hash is journaled: the next settle finds it mined, the funding counted once", async () => {
      await paidOnce(await fundedWhileNothingMined(network));
    });

    test("with only the original hash kept, the executor's nonce on the chain shows the funding the payer received", async () => {
      const funded = await fundedWhileNothingMined(network);
      relay.db.$client
        .query("UPDATE funded_approvals SET funding_tx_hash = ? WHERE payer = ?")
        .run(
          keccak256(rowsOf(funded.payer.address)[0]?.funding_raw_tx as `0x${string}`),
          funded.payer.address.toLowerCase(),
        );
      await paidOnce(funded);
    });
  });
