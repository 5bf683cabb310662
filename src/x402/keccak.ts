import type { Hex } from "viem";

/**
 * Keccak-256 for the verify's hot path: the Keccak-f[1600] round unrolled over 32-bit halves of the lanes (generated
 * once, each round's 25 lanes in local variables), where @noble/hashes' loop over its state array took about 13 µs
 * per permutation under Bun, so that the two keccaks of a TransferWithAuthorization digest were a tenth of a verify's
 * CPU. Input and output are hex as viem's keccak256 takes and gives them; keccak.test.ts compares the two on inputs
 * of every length around the rate's boundaries.
 */

/** The 24 round constants, low and high 32-bit halves. */
const ROUND_CONSTANTS = new Uint32Array([
  0x00000001, 0x00000000, 0x00008082, 0x00000000, 0x0000808a, 0x80000000, 0x80008000, 0x80000000, 0x0000808b,
  0x00000000, 0x80000001, 0x00000000, 0x80008081, 0x80000000, 0x00008009, 0x80000000, 0x0000008a, 0x00000000,
  0x00000088, 0x00000000, 0x80008009, 0x00000000, 0x8000000a, 0x00000000, 0x8000808b, 0x00000000, 0x0000008b,
  0x80000000, 0x00008089, 0x80000000, 0x00008003, 0x80000000, 0x00008002, 0x80000000, 0x00000080, 0x80000000,
  0x0000800a, 0x00000000, 0x8000000a, 0x80000000, 0x80008081, 0x80000000, 0x00008080, 0x80000000, 0x80000001,
  0x00000000, 0x80008008, 0x80000000,
]);

/** 0 … N - 1 as a union type. */
type Below<N extends number, Acc extends number[] = []> = Acc["length"] extends N
  ? Acc[number]
  : Below<N, [...Acc, Acc["length"]]>;
/** The state's 50 words, typed so that every literal index below is a number (never possibly undefined). */
type Words = Uint32Array & Record<Below<50>, number>;

/** Keccak-f[1600] on 25 lanes, lane i at s[2i] (low half) and s[2i + 1] (high half). */
function permute(s: Words): void {
  for (let round = 0; round < 48; round += 2) {
    const c0l = s[0] ^ s[10] ^ s[20] ^ s[30] ^ s[40];
    const c0h = s[1] ^ s[11] ^ s[21] ^ s[31] ^ s[41];
    const c1l = s[2] ^ s[12] ^ s[22] ^ s[32] ^ s[42];
    const c1h = s[3] ^ s[13] ^ s[23] ^ s[33] ^ s[43];
    const c2l = s[4] ^ s[14] ^ s[24] ^ s[34] ^ s[44];
    const c2h = s[5] ^ s[15] ^ s[25] ^ s[35] ^ s[45];
    const c3l = s[6] ^ s[16] ^ s[26] ^ s[36] ^ s[46];
    const c3h = s[7] ^ s[17] ^ s[27] ^ s[37] ^ s[47];
    const c4l = s[8] ^ s[18] ^ s[28] ^ s[38] ^ s[48];
    const c4h = s[9] ^ s[19] ^ s[29] ^ s[39] ^ s[49];
    const d0l = c4l ^ ((c1l << 1) | (c1h >>> 31));
    const d0h = c4h ^ ((c1h << 1) | (c1l >>> 31));
    const d1l = c0l ^ ((c2l << 1) | (c2h >>> 31));
    const d1h = c0h ^ ((c2h << 1) | (c2l >>> 31));
    const d2l = c1l ^ ((c3l << 1) | (c3h >>> 31));
    const d2h = c1h ^ ((c3h << 1) | (c3l >>> 31));
    const d3l = c2l ^ ((c4l << 1) | (c4h >>> 31));
    const d3h = c2h ^ ((c4h << 1) | (c4l >>> 31));
    const d4l = c3l ^ ((c0l << 1) | (c0h >>> 31));
    const d4h = c3h ^ ((c0h << 1) | (c0l >>> 31));
    const b00l = s[0] ^ d0l;
    const b00h = s[1] ^ d0h;
    const t5l = s[10] ^ d0l;
    const t5h = s[11] ^ d0h;
    const b13l = (t5h << 4) | (t5l >>> 28);
    const b13h = (t5l << 4) | (t5h >>> 28);
    const t10l = s[20] ^ d0l;
    const t10h = s[21] ^ d0h;
    const b21l = (t10l << 3) | (t10h >>> 29);
    const b21h = (t10h << 3) | (t10l >>> 29);
    const t15l = s[30] ^ d0l;
    const t15h = s[31] ^ d0h;
    const b34l = (t15h << 9) | (t15l >>> 23);
    const b34h = (t15l << 9) | (t15h >>> 23);
    const t20l = s[40] ^ d0l;
    const t20h = s[41] ^ d0h;
    const b42l = (t20l << 18) | (t20h >>> 14);
    const b42h = (t20h << 18) | (t20l >>> 14);
    const t1l = s[2] ^ d1l;
    const t1h = s[3] ^ d1h;
    const b02l = (t1l << 1) | (t1h >>> 31);
    const b02h = (t1h << 1) | (t1l >>> 31);
    const t6l = s[12] ^ d1l;
    const t6h = s[13] ^ d1h;
    const b10l = (t6h << 12) | (t6l >>> 20);
    const b10h = (t6l << 12) | (t6h >>> 20);
    const t11l = s[22] ^ d1l;
    const t11h = s[23] ^ d1h;
    const b23l = (t11l << 10) | (t11h >>> 22);
    const b23h = (t11h << 10) | (t11l >>> 22);
    const t16l = s[32] ^ d1l;
    const t16h = s[33] ^ d1h;
    const b31l = (t16h << 13) | (t16l >>> 19);
    const b31h = (t16l << 13) | (t16h >>> 19);
    const t21l = s[42] ^ d1l;
    const t21h = s[43] ^ d1h;
    const b44l = (t21l << 2) | (t21h >>> 30);
    const b44h = (t21h << 2) | (t21l >>> 30);
    const t2l = s[4] ^ d2l;
    const t2h = s[5] ^ d2h;
    const b04l = (t2h << 30) | (t2l >>> 2);
    const b04h = (t2l << 30) | (t2h >>> 2);
    const t7l = s[14] ^ d2l;
    const t7h = s[15] ^ d2h;
    const b12l = (t7l << 6) | (t7h >>> 26);
    const b12h = (t7h << 6) | (t7l >>> 26);
    const t12l = s[24] ^ d2l;
    const t12h = s[25] ^ d2h;
    const b20l = (t12h << 11) | (t12l >>> 21);
    const b20h = (t12l << 11) | (t12h >>> 21);
    const t17l = s[34] ^ d2l;
    const t17h = s[35] ^ d2h;
    const b33l = (t17l << 15) | (t17h >>> 17);
    const b33h = (t17h << 15) | (t17l >>> 17);
    const t22l = s[44] ^ d2l;
    const t22h = s[45] ^ d2h;
    const b41l = (t22h << 29) | (t22l >>> 3);
    const b41h = (t22l << 29) | (t22h >>> 3);
    const t3l = s[6] ^ d3l;
    const t3h = s[7] ^ d3h;
    const b01l = (t3l << 28) | (t3h >>> 4);
    const b01h = (t3h << 28) | (t3l >>> 4);
    const t8l = s[16] ^ d3l;
    const t8h = s[17] ^ d3h;
    const b14l = (t8h << 23) | (t8l >>> 9);
    const b14h = (t8l << 23) | (t8h >>> 9);
    const t13l = s[26] ^ d3l;
    const t13h = s[27] ^ d3h;
    const b22l = (t13l << 25) | (t13h >>> 7);
    const b22h = (t13h << 25) | (t13l >>> 7);
    const t18l = s[36] ^ d3l;
    const t18h = s[37] ^ d3h;
    const b30l = (t18l << 21) | (t18h >>> 11);
    const b30h = (t18h << 21) | (t18l >>> 11);
    const t23l = s[46] ^ d3l;
    const t23h = s[47] ^ d3h;
    const b43l = (t23h << 24) | (t23l >>> 8);
    const b43h = (t23l << 24) | (t23h >>> 8);
    const t4l = s[8] ^ d4l;
    const t4h = s[9] ^ d4h;
    const b03l = (t4l << 27) | (t4h >>> 5);
    const b03h = (t4h << 27) | (t4l >>> 5);
    const t9l = s[18] ^ d4l;
    const t9h = s[19] ^ d4h;
    const b11l = (t9l << 20) | (t9h >>> 12);
    const b11h = (t9h << 20) | (t9l >>> 12);
    const t14l = s[28] ^ d4l;
    const t14h = s[29] ^ d4h;
    const b24l = (t14h << 7) | (t14l >>> 25);
    const b24h = (t14l << 7) | (t14h >>> 25);
    const t19l = s[38] ^ d4l;
    const t19h = s[39] ^ d4h;
    const b32l = (t19l << 8) | (t19h >>> 24);
    const b32h = (t19h << 8) | (t19l >>> 24);
    const t24l = s[48] ^ d4l;
    const t24h = s[49] ^ d4h;
    const b40l = (t24l << 14) | (t24h >>> 18);
    const b40h = (t24h << 14) | (t24l >>> 18);
    s[0] = b00l ^ (~b10l & b20l);
    s[1] = b00h ^ (~b10h & b20h);
    s[10] = b01l ^ (~b11l & b21l);
    s[11] = b01h ^ (~b11h & b21h);
    s[20] = b02l ^ (~b12l & b22l);
    s[21] = b02h ^ (~b12h & b22h);
    s[30] = b03l ^ (~b13l & b23l);
    s[31] = b03h ^ (~b13h & b23h);
    s[40] = b04l ^ (~b14l & b24l);
    s[41] = b04h ^ (~b14h & b24h);
    s[2] = b10l ^ (~b20l & b30l);
    s[3] = b10h ^ (~b20h & b30h);
    s[12] = b11l ^ (~b21l & b31l);
    s[13] = b11h ^ (~b21h & b31h);
    s[22] = b12l ^ (~b22l & b32l);
    s[23] = b12h ^ (~b22h & b32h);
    s[32] = b13l ^ (~b23l & b33l);
    s[33] = b13h ^ (~b23h & b33h);
    s[42] = b14l ^ (~b24l & b34l);
    s[43] = b14h ^ (~b24h & b34h);
    s[4] = b20l ^ (~b30l & b40l);
    s[5] = b20h ^ (~b30h & b40h);
    s[14] = b21l ^ (~b31l & b41l);
    s[15] = b21h ^ (~b31h & b41h);
    s[24] = b22l ^ (~b32l & b42l);
    s[25] = b22h ^ (~b32h & b42h);
    s[34] = b23l ^ (~b33l & b43l);
    s[35] = b23h ^ (~b33h & b43h);
    s[44] = b24l ^ (~b34l & b44l);
    s[45] = b24h ^ (~b34h & b44h);
    s[6] = b30l ^ (~b40l & b00l);
    s[7] = b30h ^ (~b40h & b00h);
    s[16] = b31l ^ (~b41l & b01l);
    s[17] = b31h ^ (~b41h & b01h);
    s[26] = b32l ^ (~b42l & b02l);
    s[27] = b32h ^ (~b42h & b02h);
    s[36] = b33l ^ (~b43l & b03l);
    s[37] = b33h ^ (~b43h & b03h);
    s[46] = b34l ^ (~b44l & b04l);
    s[47] = b34h ^ (~b44h & b04h);
    s[8] = b40l ^ (~b00l & b10l);
    s[9] = b40h ^ (~b00h & b10h);
    s[18] = b41l ^ (~b01l & b11l);
    s[19] = b41h ^ (~b01h & b11h);
    s[28] = b42l ^ (~b02l & b12l);
    s[29] = b42h ^ (~b02h & b12h);
    s[38] = b43l ^ (~b03l & b13l);
    s[39] = b43h ^ (~b03h & b13h);
    s[48] = b44l ^ (~b04l & b14l);
    s[49] = b44h ^ (~b04h & b14h);

    s[0] ^= ROUND_CONSTANTS[round] as number;
    s[1] ^= ROUND_CONSTANTS[round + 1] as number;
  }
}

/** Keccak-256's rate: 136 bytes, 34 words. */
const RATE_WORDS = 34;
const state = new Uint32Array(50) as Words;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** keccak256 of the bytes of a 0x-prefixed hex string of even length (as viem's keccak256(hex)). */
export function keccak256Hex(hex: Hex): Hex {
  if (hex.length % 2 !== 0 || !/^0x[0-9a-fA-F]*$/.test(hex)) throw new Error("keccak256Hex: not even-length hex");
  const bytes = Buffer.from(hex.slice(2), "hex");
  state.fill(0);
  const length = bytes.length;
  let offset = 0;
  for (; offset + RATE_WORDS * 4 <= length; offset += RATE_WORDS * 4) {
    for (let w = 0; w < RATE_WORDS; w++) state[w] = (state[w] as number) ^ bytes.readInt32LE(offset + 4 * w);
    permute(state);
  }
  // The last block: what is left, then the padding 0x01 … 0x80 (Keccak's, not SHA-3's 0x06).
  const block = new Uint8Array(RATE_WORDS * 4);
  block.set(bytes.subarray(offset));
  block[length - offset] = (block[length - offset] as number) ^ 0x01;
  block[RATE_WORDS * 4 - 1] = (block[RATE_WORDS * 4 - 1] as number) ^ 0x80;
  const view = new DataView(block.buffer);
  for (let w = 0; w < RATE_WORDS; w++) state[w] = (state[w] as number) ^ view.getInt32(4 * w, true);
  permute(state);
  let out = "0x";
  for (let w = 0; w < 8; w++) {
    const word = state[w] as number;
    out += `${HEX[word & 0xff]}${HEX[(word >>> 8) & 0xff]}${HEX[(word >>> 16) & 0xff]}${HEX[word >>> 24]}`;
  }
  return out as Hex;
}
