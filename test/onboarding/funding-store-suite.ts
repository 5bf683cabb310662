// The funding kernel's store on either database (funding-store-sqlite.test.ts, funding-store-postgres.test.ts): the
// same rows and rules, including under claims racing from several connections.
import { afterAll, expect, test } from "bun:test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { FundingStore, NewFundedApproval } from "../../src/onboarding/funding-store";

/** A fresh address (test/support/chain.ts would start the devnet these store tests do not need). */
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address;

type Connected = { store: FundingStore; close(): Promise<void> };

const record = (payer: string, nonce = 0, fundingWei = "10"): NewFundedApproval => ({
  network: "bsc",
  payer,
  nonce,
  token: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  spender: "0x000000000022D473030F116dDEE9F6B43aC78BA3",
  approveRaw: `0x02${payer.slice(2)}${nonce}`,
  approveHash: `0x${payer.slice(2).padEnd(64, String(nonce))}`,
  fundingWei,
});

export function fundingStoreSuite(connect: () => Promise<Connected>) {
  const open: Connected[] = [];
  afterAll(async () => {
    for (const connection of open) await connection.close();
  });
  const connectMany = async (count: number) => {
    const connections = await Promise.all(Array.from({ length: count }, connect));
    open.push(...connections);
    return connections.map((connection) => connection.store);
  };

  test("one record per payer nonce, and the window's budget holds across claims racing from three connections", async () => {
    const stores = await connectMany(3);
    const since = new Date(Date.now() - 60_000).toISOString();
    const payers = Array.from({ length: 20 }, randomAddress);
    const claims = await Promise.all(
      payers.map((payer, i) => (stores[i % 3] as FundingStore).claim(record(payer), { wei: 100n, since })),
    );
    expect(claims.filter((claim) => claim.kind === "created")).toHaveLength(10);
    expect(claims.filter((claim) => claim.kind === "over_budget")).toHaveLength(10);

    // A payer that can pay its approve itself (funding 0) passes a spent budget.
    const rich = randomAddress();
    expect((await (stores[0] as FundingStore).claim(record(rich, 0, "0"), { wei: 100n, since })).kind).toBe("created");

    const twice = randomAddress();
    const race = await Promise.all(stores.map((store) => store.claim(record(twice, 3, "0"), { wei: 100n, since })));
    expect(race.filter((claim) => claim.kind === "created")).toHaveLength(1);
    expect(race.filter((claim) => claim.kind === "exists")).toHaveLength(2);
  });

  test("what a payer kept counts against its cap (the whole funding until known) and its fundings' gas against the budget, under racing claims", async () => {
    const stores = await connectMany(3);
    const since = new Date(Date.now() - 60_000).toISOString();
    const budget = { wei: 10n ** 18n, since };
    const cap = { wei: 250n, since };
    // A network of its own: the budget's sum is this test's fundings only. A token per nonce: the cap counts across
    // tokens, while one open funding per payer and token is the claim's other rule (tested below).
    const funding = (payer: string, nonce: number, wei: string) => ({
      ...record(payer, nonce, wei),
      network: "farm",
      token: `0x${String(nonce + 1).padStart(40, "0")}`,
    });
    const payer = randomAddress();
    const [store] = stores as [FundingStore];
    const first = await store.claim(funding(payer, 0, "100"), budget, cap);
    if (first.kind !== "created") throw new Error("not created");
    await store.recordCosts(first.record.id, { fundingFeeWei: 20n });
    await store.recordCosts(first.record.id, { approveCostWei: 60n, keptWei: 40n });
    expect(await store.find("farm", payer, 0)).toMatchObject({
      fundingFeeWei: "20",
      approveCostWei: "60",
      keptWei: "40",
    });
    // Counted: 40 kept + 20 of gas. Three racing claims of 100: one fits under 250 (its outcome unknown, all 100
    // counted), the others are capped.
    const race = await Promise.all(stores.map((each, i) => each.claim(funding(payer, i + 1, "100"), budget, cap)));
    expect(race.filter((claim) => claim.kind === "created")).toHaveLength(1);
    expect(race.filter((claim) => claim.kind === "payer_capped")).toHaveLength(2);
    // Another payer is not counted against this one.
    expect((await store.claim(funding(randomAddress(), 0, "100"), budget, cap)).kind).toBe("created");
    // The budget counts each funding with its own gas: 100 + 20 + 100 + 100 = 320.
    expect((await store.claim(funding(randomAddress(), 0, "1"), { wei: 320n, since })).kind).toBe("over_budget");
    expect((await store.claim(funding(randomAddress(), 0, "1"), { wei: 321n, since })).kind).toBe("created");
  });

  test("the journal: the funding sent once, the payer's open funding until its allowance paid, release only of the unsent", async () => {
    const [store] = (await connectMany(1)) as [FundingStore];
    const payer = randomAddress();
    const claim = await store.claim(record(payer, 7), { wei: 10n ** 18n, since: new Date(0).toISOString() });
    if (claim.kind !== "created") throw new Error("not created");
    const { id } = claim.record;
    expect(claim.record).toMatchObject({ payer: payer.toLowerCase(), nonce: 7, status: "pending", fundingWei: "10" });
    expect((await store.unfinished()).map((row) => row.id)).toContain(id);

    await store.fundingSent(id, "0xaa", "0xbb");
    await expect(store.fundingSent(id, "0xaa", "0xbb")).rejects.toThrow();
    await store.release(id);
    expect(await store.find("bsc", payer, 7)).toMatchObject({ status: "funding_sent", fundingTxHash: "0xaa" });
    expect(await store.openFunding("bsc", payer, record(payer).token)).toMatchObject({ id });

    await store.setStatus(id, "approved");
    expect((await store.unfinished()).map((row) => row.id)).not.toContain(id);
    await store.markUsed("bsc", payer, record(payer).token);
    expect(await store.find("bsc", payer, 7)).toMatchObject({ status: "used" });
    expect(await store.openFunding("bsc", payer, record(payer).token)).toBeUndefined();

    const unsent = await store.claim(record(payer, 8), { wei: 10n ** 18n, since: new Date(0).toISOString() });
    if (unsent.kind !== "created") throw new Error("not created");
    await store.release(unsent.record.id);
    expect(await store.find("bsc", payer, 8)).toBeUndefined();
  });

  test("a payer funded once per token: claims of its other nonces racing from three connections, one created", async () => {
    const stores = await connectMany(3);
    const budget = { wei: 10n ** 18n, since: new Date(0).toISOString() };
    const payer = randomAddress();
    const race = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((nonce) => (stores[nonce % 3] as FundingStore).claim(record(payer, nonce), budget)),
    );
    expect(race.filter((claim) => claim.kind === "created")).toHaveLength(1);
    expect(race.filter((claim) => claim.kind === "already_funded")).toHaveLength(5);
    // An approve the payer pays itself (funding 0) is no second funding.
    expect((await (stores[0] as FundingStore).claim(record(payer, 9, "0"), budget)).kind).toBe("created");
  });

  test("a fee-bumped funding's replacement is journaled as the hash to look for", async () => {
    const [store] = (await connectMany(1)) as [FundingStore];
    const payer = randomAddress();
    const claim = await store.claim(record(payer, 2), { wei: 10n ** 18n, since: new Date(0).toISOString() });
    if (claim.kind !== "created") throw new Error("not created");
    await store.fundingSent(claim.record.id, "0xaa", "0xbb");
    await store.fundingReplaced(claim.record.id, "0xcc");
    expect(await store.find("bsc", payer, 2)).toMatchObject({ fundingTxHash: "0xcc", fundingRawTx: "0xbb" });
    await store.setStatus(claim.record.id, "abandoned", "never mined");
    expect((await store.unfinished()).map((row) => row.id)).not.toContain(claim.record.id);
    expect(await store.openFunding("bsc", payer, record(payer).token)).toMatchObject({ status: "abandoned" });
  });
}
