// What the settlement journal (src/payments/settlement-journal*.ts) records of a mined transaction, for each store
// that uses it (EOA payments, x402, EOA swaps), written once and run on each database:
// test/payments/settlement-figures-{sqlite,postgres}.test.ts. The figures are exact decimal strings at any size.
import { expect, test } from "bun:test";
import type { Async } from "../../src/db/async-port";
import type { SettlementOutcome } from "../../src/settlement/settlement-journal";
import type { NewSettlement } from "../../src/settlement/settlement-store";
import type { NewSwapSettlement } from "../../src/swap/swap-store";
import type { NewX402Settlement } from "../../src/x402/settlement-store";

/** The journal part of every settlement store, as the flows see it. */
type FigureRow = {
  id: number;
  txHash: string | null;
  gasUsed: string | null;
  effectiveGasPrice: string | null;
  sentAt: string | null;
  minedAt: string | null;
};
type JournalPort<Row, New> = Async<{
  claim(settlement: New): { record: Row; created: boolean };
  find(key: New): Row | undefined;
  journalSent(id: number, txHash: string, rawTx: string): Promise<void>;
  markReplaced(id: number, txHash: string): void;
  markOutcome(id: number, outcome: SettlementOutcome): void;
}>;

export type SettlementStores = {
  eoa: JournalPort<FigureRow, NewSettlement>;
  x402: JournalPort<FigureRow, NewX402Settlement>;
  swap: JournalPort<FigureRow, NewSwapSettlement>;
};

let nonces = 0;
const nextNonce = () => {
  nonces += 1;
  return `0x${(Date.now() * 1000 + nonces).toString(16).padStart(64, "0")}`;
};
const PAYER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const TO = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const common = { validAfter: 0, validBefore: 4_102_444_800, signature: `0x${"ab".repeat(65)}`, paymentId: null };

const newOf = {
  eoa: (): NewSettlement => ({
    network: "bsc",
    payer: PAYER,
    nonce: nextNonce(),
    token: TOKEN,
    recipient: TO,
    amount: "1000000",
    ...common,
  }),
  x402: (): NewX402Settlement => ({
    network: "base",
    contract: TOKEN,
    payer: PAYER,
    nonce: nextNonce(),
    recipient: TO,
    amount: "1000000",
    ...common,
  }),
  swap: (): NewSwapSettlement => ({
    network: "bsc",
    payer: PAYER,
    nonce: nextNonce(),
    sellToken: TOKEN,
    buyToken: TO,
    sellAmount: "40000000000000000000",
    minBuyAmount: "1",
    recipient: TO,
    fee: "1",
    ...common,
    authorizationHash: `0x${"12".repeat(32)}`,
  }),
};

/** Beyond 2^64 and a double's 53 bits: a rounding or a 64-bit column would change it. */
const HUGE_PRICE = (2n ** 255n + 12_345n).toString();
const isIso = (value: string | null) => value !== null && new Date(value).toISOString() === value;

export function settlementFiguresSuite(open: () => Promise<SettlementStores>) {
  for (const kind of ["eoa", "x402", "swap"] as const) {
    test(`${kind}: sent time with the journal, receipt figures and mined time with the outcome, exactly`, async () => {
      const store = (await open())[kind] as JournalPort<FigureRow, unknown>;
      const settlement = newOf[kind]();
      const { record } = await store.claim(settlement);
      expect([record.gasUsed, record.effectiveGasPrice, record.sentAt, record.minedAt]).toEqual([
        null,
        null,
        null,
        null,
      ]);
      const before = new Date().toISOString();
      await store.journalSent(record.id, "0x01", "0xraw");
      const sent = (await store.find(settlement)) as FigureRow;
      expect(isIso(sent.sentAt)).toBe(true);
      expect((sent.sentAt as string) >= before).toBe(true);
      expect(sent.minedAt).toBeNull();
      // A replacement keeps the first send's time.
      await store.markReplaced(record.id, "0x02");
      expect(((await store.find(settlement)) as FigureRow).sentAt).toBe(sent.sentAt);
      const minedAt = new Date(Date.now() + 1_000).toISOString();
      await store.markOutcome(record.id, {
        status: "success",
        txHash: "0x02",
        blockNumber: 9,
        mined: { gasUsed: "51234", effectiveGasPrice: HUGE_PRICE, minedAt },
      });
      const done = (await store.find(settlement)) as FigureRow;
      expect(done).toMatchObject({ txHash: "0x02", gasUsed: "51234", effectiveGasPrice: HUGE_PRICE, minedAt });
      expect(done.sentAt).toBe(sent.sentAt);
    });

    test(`${kind}: an outcome without our receipt leaves the figures unknown (null)`, async () => {
      const store = (await open())[kind] as JournalPort<FigureRow, unknown>;
      const settlement = newOf[kind]();
      const { record } = await store.claim(settlement);
      await store.journalSent(record.id, "0x03", "0xraw");
      await store.markOutcome(record.id, { status: "failed", error: "transaction dropped" });
      const row = (await store.find(settlement)) as FigureRow;
      expect([row.gasUsed, row.effectiveGasPrice, row.minedAt]).toEqual([null, null, null]);
      expect(isIso(row.sentAt)).toBe(true);
    });
  }
}
