// The settlement journal's receipt figures on SQLite: test/support/settlement-figures-suite.ts.
import { describe } from "bun:test";
import { asAsync } from "../../src/db/async-port";
import { openDatabase } from "../../src/db/open";
import { createSettlementStore } from "../../src/settlement/settlement-store";
import { createSwapSettlementStore } from "../../src/swap/swap-store";
import { createX402SettlementStore } from "../../src/x402/settlement-store";
import { settlementFiguresSuite } from "../support/settlement-figures-suite";

describe("settlement figures on SQLite", () => {
  settlementFiguresSuite(async () => {
    const db = openDatabase(":memory:");
    return {
      eoa: asAsync(createSettlementStore(db)),
      x402: asAsync(createX402SettlementStore(db)),
      swap: asAsync(createSwapSettlementStore(db)),
    };
  });
});
