import { describe, expect, test } from "bun:test";
import { canonicalJson, paymentIdentifierOf } from "./payment-identifier";

const body = (extensions: unknown, requirements: unknown = { amount: "1", payTo: "0xab" }) => ({
  x402Version: 2,
  paymentPayload: { payload: { signature: "0x01" }, ...(extensions === undefined ? {} : { extensions }) },
  paymentRequirements: requirements,
});
const withId = (id: unknown) => ({ "payment-identifier": { info: { required: false, id } } });

describe("paymentIdentifierOf", () => {
  test("no extension, or the declaration echoed without an id: no identifier", () => {
    expect(paymentIdentifierOf(body(undefined))).toEqual({ ok: true, identifier: null });
    expect(paymentIdentifierOf(body({ "payment-identifier": { info: { required: false } } }))).toEqual({
      ok: true,
      identifier: null,
    });
  });

  test("ids outside x402's format (16-128 of A-Z a-z 0-9 - _) are refused, naming the field", () => {
    for (const id of ["short", "x".repeat(129), "pay_0123456789abcdef!", 1234567890123456]) {
      const read = paymentIdentifierOf(body(withId(id)));
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.message).toContain('extensions["payment-identifier"].info.id');
    }
    expect(paymentIdentifierOf(body(withId("x".repeat(16)))).ok).toBe(true);
    expect(paymentIdentifierOf(body(withId(`${"A-z_9".repeat(25)}abc`))).ok).toBe(true);
  });

  test("the bound payload is the whole body, whatever its keys' order; another requirement is another payload", () => {
    const id = "pay_0123456789abcdef";
    const a = paymentIdentifierOf(body(withId(id), { amount: "1", payTo: "0xab" }));
    const b = paymentIdentifierOf(body(withId(id), { payTo: "0xab", amount: "1" }));
    const c = paymentIdentifierOf(body(withId(id), { payTo: "0xab", amount: "2" }));
    if (!a.ok || !b.ok || !c.ok) throw new Error("expected identifiers");
    expect(a.identifier?.payload).toBe(b.identifier?.payload as string);
    expect(a.identifier?.payload).not.toBe(c.identifier?.payload as string);
  });
});

test("canonicalJson sorts keys at every level and keeps arrays in order", () => {
  expect(canonicalJson({ b: [{ d: 1, c: 2 }, 3], a: null, e: undefined })).toBe('{"a":null,"b":[{"c":2,"d":1},3]}');
});
