// Funded approves with several instances on one PostgreSQL: each "instance" its own pool, networks, executor key,
// funding kernel and x402 facilitator (as separate service processes on one database), only the database shared.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, keccak256, parseTransaction } from "viem";
import { createFundedApprovals } from "../../src/onboarding/funded-approvals";
import { createFundingStorePostgres } from "../../src/onboarding/funding-store-postgres";
import { withErc20ApprovalSponsoring } from "../../src/x402/erc20-approval";
import { createX402Facilitator } from "../../src/x402/facilitator";
import { createX402SettlementStorePostgres } from "../../src/x402/settlement-store-postgres";
import { chainOf, tokenBalance } from "../support/chain";
import { createTestDatabase } from "../support/postgres";
import { postgresInstanceBase } from "../support/postgres-instance";
import {
  nativeBalance,
  permit2Payment,
  plainRequirements,
  plainToken,
  signApprove,
  sponsoredBody,
  tokenOnlyPayer,
} from "./funded-approve-support";

const c = chainOf("bsc");
const price = 10n ** 18n;
let url = "";
const running: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  url = await createTestDatabase("funded_approve_flow");
});
afterAll(async () => {
  for (const instance of running) await instance.stop();
});

async function startInstance(keyIndex: number) {
  const base = await postgresInstanceBase(url, keyIndex);
  running.push(base);
  const { db, networks, deny, logger, rulesFor, now } = base;
  const onboarding = createFundedApprovals({ store: createFundingStorePostgres(db), networks, deny, logger });
  const x402 = createX402Facilitator({ networks, store: createX402SettlementStorePostgres(db), rulesFor, now, logger });
  return withErc20ApprovalSponsoring(x402, { networks, onboarding });
}

describe("funded approves on two instances sharing PostgreSQL", () => {
  test("a sponsored payment settled five times on each instance at once: one funding, one approve, one success", async () => {
    const instances = [await startInstance(1), await startInstance(2)];
    const payer = await tokenOnlyPayer("bsc");
    const requirements = plainRequirements("bsc", price);
    const payment = await permit2Payment(payer.key, requirements);
    const raw = await signApprove(payer.key, "bsc");
    const body = sponsoredBody(payment, requirements, raw);

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (instances[i % 2] as (typeof instances)[number]).settle(body)),
    );
    // One success; every other answer says the payment is taken, or in flight on the other instance.
    const reasons = answers.map((answer) => (answer.success ? "success" : answer.errorReason));
    expect(reasons.filter((reason) => reason === "success")).toHaveLength(1);
    for (const reason of reasons)
      expect(["success", "invalid_exact_evm_nonce_already_used", "settlement_pending"]).toContain(reason as string);
    expect(await tokenBalance("bsc", plainToken(), requirements.payTo as Address)).toBe(price);
    expect(await c.public.getTransactionCount({ address: payer.address })).toBe(1);
    const tx = parseTransaction(raw);
    const receipt = await c.public.getTransactionReceipt({ hash: keccak256(raw) });
    expect(await nativeBalance("bsc", payer.address)).toBe(
      (tx.gas as bigint) * (tx.maxFeePerGas as bigint) - receipt.gasUsed * receipt.effectiveGasPrice,
    );
  });
});
