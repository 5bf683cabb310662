import type { Address, Hex } from "viem";
import { MULTICALL3 } from "../chain/addresses";

/** aggregate3((address target, bool allowFailure, bytes callData)[]) */
const AGGREGATE3 = "0x82ad56cb";

const word = (value: number | bigint) => value.toString(16).padStart(64, "0");
const padded = (hex: string) => hex.padEnd(Math.ceil(hex.length / 64) * 64, "0");

export type Call = { target: Address; data: Hex };

/**
 * Multicall3's aggregate3 of `calls`, each allowed to fail, encoded by hand (the layout is fixed: check-payment's
 * verify sends one per request, and viem's encoder was a tenth of its CPU). verify-reads.test.ts compares it with
 * viem's encodeFunctionData.
 */
export function aggregate3Call(calls: readonly Call[]): { to: Address; data: Hex } {
  const elements = calls.map(({ target, data }) => {
    const bytes = data.slice(2);
    return `${word(BigInt(target))}${word(1)}${word(0x60)}${word(bytes.length / 2)}${padded(bytes)}`;
  });
  let offset = calls.length * 32;
  const offsets = elements.map((element) => {
    const at = offset;
    offset += element.length / 2;
    return word(at);
  });
  return {
    to: MULTICALL3,
    data: `${AGGREGATE3}${word(0x20)}${word(calls.length)}${offsets.join("")}${elements.join("")}` as Hex,
  };
}

/**
 * aggregate3's answer, (bool success, bytes returnData)[], as one entry per call: its return data, or null when the
 * call failed. Throws on an answer that is not such an array of `count` entries.
 */
export function aggregate3Results(answer: Hex, count: number): (Hex | null)[] {
  const hex = answer.slice(2);
  const at = (byte: number) => {
    const slice = hex.slice(byte * 2, byte * 2 + 64);
    if (slice.length !== 64) throw new Error("aggregate3 answer too short");
    return Number.parseInt(slice, 16);
  };
  const start = at(0);
  if (at(start) !== count) throw new Error("aggregate3 answer has another number of results");
  const base = start + 32;
  return Array.from({ length: count }, (_, index) => {
    const element = base + at(base + index * 32);
    const success = at(element) === 1;
    const data = element + at(element + 32);
    const length = at(data);
    const bytes = hex.slice((data + 32) * 2, (data + 32 + length) * 2);
    if (bytes.length !== length * 2) throw new Error("aggregate3 answer too short");
    return success ? (`0x${bytes}` as Hex) : null;
  });
}
