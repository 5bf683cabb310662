import { describe, expect, test } from "bun:test";
import { checksumAddresses } from "./checksum-addresses";

const lower = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

describe("checksumAddresses", () => {
  test("every 20-byte hex string, however deep, in its EIP-55 form; other strings untouched", () => {
    const answer = {
      payer: lower,
      transaction: `0x${"ab".repeat(32)}`,
      payment: { to: lower.toUpperCase().replace("0X", "0x"), amount: "100" },
      wallets: [{ address: lower, salt: `0x${"00".repeat(32)}` }],
      signers: { "eip155:*": [lower] },
      note: "0xnot-an-address",
    };
    expect(checksumAddresses(answer)).toEqual({
      ...answer,
      payer: checksummed,
      payment: { to: checksummed, amount: "100" },
      wallets: [{ address: checksummed, salt: `0x${"00".repeat(32)}` }],
      signers: { "eip155:*": [checksummed] },
    });
    expect(answer.payer).toBe(lower);
  });

  test("an answer with nothing to change is the same object; non-plain values pass through", () => {
    const answer = { payer: checksummed, list: [1, "x"] };
    expect(checksumAddresses(answer)).toBe(answer);
    const bytes = new Uint8Array([1, 2]);
    expect(checksumAddresses(bytes)).toBe(bytes);
    expect(checksumAddresses(null)).toBeNull();
  });
});
