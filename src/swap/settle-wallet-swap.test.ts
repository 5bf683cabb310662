import { describe, expect, test } from "bun:test";
import { relayerSwapAbi } from "@relay402/client/wire/swap/abis";
import { type Address, encodeAbiParameters, encodeEventTopics, getAddress, type Hex } from "viem";
import type { ChainLog } from "../userops/outcome";
import { walletSwapIn } from "./settle-wallet-swap";

const RELAYER = getAddress("0xe7a518451b8e7abb526ea674a1d2a6720014de71");
const WALLET = getAddress("0x2c5c3f2cc1f2e4f0f1b3a5b7c9d0e1f2a3b4c5d6");
const OTHER_WALLET = getAddress("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
const RECIPIENT = getAddress("0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc");
const SELL = getAddress("0x5fbdb2315678afecb367f032d93f642f64180aa3");
const BUY = getAddress("0x1af3f329e8be154074d8769d1ffa4ee058b1dbc3");

function swapExecuted(emitter: Address, payer: Address, buyAmount: bigint): ChainLog {
  const topics = encodeEventTopics({
    abi: relayerSwapAbi,
    eventName: "SwapExecuted",
    args: { payer, nonce: `0x${"00".repeat(32)}`, recipient: RECIPIENT },
  }) as Hex[];
  const data = encodeAbiParameters(
    [
      { type: "address" },
      { type: "address" },
      { type: "uint256" },
      { type: "uint256" },
      { type: "uint256" },
      { type: "bytes32" },
    ],
    [SELL, BUY, 100n, 3n, buyAmount, `0x${"00".repeat(32)}`],
  );
  return { address: emitter, topics, data };
}

describe("walletSwapIn", () => {
  test("reads the relayer's SwapExecuted of this wallet", () => {
    expect(walletSwapIn([swapExecuted(RELAYER, WALLET, 95n)], RELAYER, WALLET)).toEqual({
      sellToken: SELL,
      buyToken: BUY,
      sellAmount: "100",
      fee: "3",
      buyAmount: "95",
      recipient: RECIPIENT,
    });
  });

  test("ignores the same event from another contract and another payer's swap", () => {
    const forged = swapExecuted(RECIPIENT, WALLET, 10n ** 30n);
    const another = swapExecuted(RELAYER, OTHER_WALLET, 7n);
    expect(walletSwapIn([forged, another], RELAYER, WALLET)).toBeNull();
    expect(walletSwapIn([forged, another, swapExecuted(RELAYER, WALLET, 95n)], RELAYER, WALLET)?.buyAmount).toBe("95");
  });
});
