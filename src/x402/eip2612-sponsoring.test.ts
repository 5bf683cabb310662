import { expect, test } from "bun:test";
import { readEip2612Sponsoring } from "./eip2612-sponsoring";
import { EIP2612_GAS_SPONSORING } from "./extensions";

const signature = `0x${"11".repeat(64)}1b`;
const info = {
  from: "0x857b06519E91e3A54538791bDbb0E22373e36b66",
  asset: "0x55d398326f99059fF775485246999027B3197955",
  spender: "0x000000000022D473030F116dDEE9F6B43aC78BA3",
  amount: "1000",
  nonce: "0",
  deadline: "1900000000",
  signature,
  version: "1",
};
const extensions = (fields: Record<string, unknown>) => ({ [EIP2612_GAS_SPONSORING]: { info: fields, schema: {} } });

test("no extension, or the merchant's declaration echoed without the client's fields, is no permit", () => {
  expect(readEip2612Sponsoring(undefined)).toEqual({ ok: true, permit: null });
  expect(readEip2612Sponsoring({ other: {} })).toEqual({ ok: true, permit: null });
  expect(readEip2612Sponsoring(extensions({ description: "accepted", version: "1" }))).toEqual({
    ok: true,
    permit: null,
  });
});

test("a signed permit is read into the permit's types", () => {
  expect(readEip2612Sponsoring(extensions({ description: "accepted", ...info }))).toMatchObject({
    ok: true,
    permit: {
      owner: info.from,
      token: info.asset,
      spender: info.spender,
      value: 1000n,
      nonce: 0n,
      deadline: 1_900_000_000n,
      signature,
    },
  });
});

test("malformed fields are a refusal, never an exception", () => {
  for (const change of [
    { amount: "-1" },
    { amount: "1".repeat(79) },
    { nonce: 5 },
    { from: "0x1234" },
    { signature: "0x1234" },
    { signature: `0x${"11".repeat(64)}05` },
    { deadline: "soon" },
  ]) {
    expect(readEip2612Sponsoring(extensions({ ...info, ...change }))).toMatchObject({
      ok: false,
      refusal: "eip2612Format",
    });
  }
});
