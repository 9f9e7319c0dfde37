// Copyright 2026 the taskpack authors. MIT license.
/**
 * The core's strict one-shot raw DEFLATE decoder, in AssemblyScript: `lib/zip/inflate_raw.ts`
 * step for step (the same tables, the same checks in the same order, the same answer for every
 * input), compiled to WebAssembly by `deno task build:wasm` into
 * `lib/zip/inflate_raw_wasm_bytes.ts`. It exists for speed alone, as `deflate_raw.ts` beside it.
 * `tests/wasm_test.ts` holds the two to the same answers, valid streams and broken ones.
 * Change both files together.
 *
 * Memory: the tables are static data; the input is copied in after them (`prepare`), and the
 * output is written after the input. `inflate` answers the output's length, or a problem:
 * -1 trailing, -2 the output is full, -3 corrupt.
 */
import {
  CODE_LENGTH_ORDER,
  DISTANCE_BASE,
  DISTANCE_EXTRA,
  i32At,
  LENGTH_BASE,
  LENGTH_EXTRA,
  setI32,
  setU16,
  setU8,
  u16At,
  u8At,
} from "./common";

const LIT_BITS: i32 = 9;
const DIST_BITS: i32 = 7;
const CL_BITS: i32 = 7;
const MAX_BITS: i32 = 15;

const LITERAL: i32 = 0x100;
const LENGTH: i32 = 0x200;
const END: i32 = 0x400;
const LINK: i32 = 0x800;
const DISTANCE: i32 = 0x1000;

const TRAILING: i32 = -1;
const FULL: i32 = -2;
const CORRUPT: i32 = -3;

const LIT_PAYLOAD = memory.data(288 * 4);
const DIST_PAYLOAD = memory.data(32 * 4);
const CL_PAYLOAD = memory.data(19 * 4);
const REVERSED = memory.data(256);

// tableSize(9, 288) and tableSize(7, 32) of the script.
const LIT_TABLE_SIZE: i32 = 3168;
const DIST_TABLE_SIZE: i32 = 1024;

const dynamicLit = memory.data(LIT_TABLE_SIZE * 4);
const dynamicDist = memory.data(DIST_TABLE_SIZE * 4);
const fixedLit = memory.data(LIT_TABLE_SIZE * 4);
const fixedDist = memory.data(DIST_TABLE_SIZE * 4);
const clTable = memory.data((1 << CL_BITS) * 4);
const lengths = memory.data(286 + 30);
const clLengths = memory.data(19);
const tally = memory.data(32 * 2);
const clTally = memory.data((MAX_BITS + 1) * 2);
const nextCode = memory.data((MAX_BITS + 1) * 2);
const codes = memory.data(288 * 2);
const longest = memory.data(1 << LIT_BITS);

/** Where readCodes stopped: bytes read, and the bit buffer and count it left. */
let cursorRead: i32 = 0;
let cursorBits: i32 = 0;
let cursorCount: i32 = 0;

let input: usize = 0;
let out: usize = 0;

// --- Tables --------------------------------------------------------------------------------------

function buildTable(
  lens: usize,
  start: i32,
  count: i32,
  counts: usize,
  at: i32,
  payload: usize,
  table: usize,
  bits: i32,
  sparse: bool,
): bool {
  let left = 1;
  let maxLen = 0;
  for (let len = 1; len <= MAX_BITS; len++) {
    const n = u16At(counts, at + len);
    left = (left << 1) - n;
    if (left < 0) return false;
    if (n != 0) maxLen = len;
  }
  if (left != 0) {
    if (!sparse || maxLen > 1) return false;
    memory.fill(table, 0, <usize>(1 << bits) << 2);
  }
  let code = 0;
  for (let len = 1; len <= MAX_BITS; len++) {
    setU16(nextCode, len, code);
    code = (code + u16At(counts, at + len)) << 1;
  }
  const size = 1 << bits;
  const mask = size - 1;
  let long = false;
  for (let s = 0; s < count; s++) {
    const len = u8At(lens, start + s);
    if (len == 0) continue;
    const c = u16At(nextCode, len);
    setU16(nextCode, len, c + 1);
    const reversed = ((u8At(REVERSED, c & 0xff) << 8) | u8At(REVERSED, c >> 8)) >> (16 - len);
    if (len <= bits) {
      const entry = i32At(payload, s) | len;
      for (let i = reversed; i < size; i += 1 << len) setI32(table, i, entry);
    } else {
      setU16(codes, s, reversed);
      const idx = reversed & mask;
      if (u8At(longest, idx) < len) setU8(longest, idx, len);
      long = true;
    }
  }
  if (!long) return true;
  let end = size;
  for (let s = 0; s < count; s++) {
    const len = u8At(lens, start + s);
    if (len <= bits) continue;
    const reversed = u16At(codes, s);
    const idx = reversed & mask;
    const most = u8At(longest, idx);
    if (most != 0) {
      setU8(longest, idx, 0);
      setI32(table, idx, (end << 16) | ((most - bits) << 4) | LINK);
      end += 1 << (most - bits);
    }
    const link = i32At(table, idx);
    const base = link >> 16;
    const subSize = 1 << ((link >> 4) & 15);
    const entry = i32At(payload, s) | len;
    for (let i = reversed >> bits; i < subSize; i += 1 << (len - bits)) {
      setI32(table, base + i, entry);
    }
  }
  return true;
}

function initTables(): void {
  for (let s = 0; s < 256; s++) setI32(LIT_PAYLOAD, s, (s << 16) | LITERAL);
  setI32(LIT_PAYLOAD, 256, END);
  for (let i = 0; i < 29; i++) {
    setI32(
      LIT_PAYLOAD,
      257 + i,
      (i32At(LENGTH_BASE, i) << 16) | (i32At(LENGTH_EXTRA, i) << 4) | LENGTH,
    );
  }
  for (let i = 0; i < 30; i++) {
    setI32(
      DIST_PAYLOAD,
      i,
      (i32At(DISTANCE_BASE, i) << 16) | (i32At(DISTANCE_EXTRA, i) << 4) | DISTANCE,
    );
  }
  for (let s = 0; s < 19; s++) setI32(CL_PAYLOAD, s, s << 16);
  for (let b = 0; b < 256; b++) {
    let r = 0;
    for (let i = 0; i < 8; i++) r |= ((b >> i) & 1) << (7 - i);
    setU8(REVERSED, b, r);
  }
  // The fixed codes (RFC 1951, 3.2.6).
  const lens = memory.data(288);
  const counted = memory.data((MAX_BITS + 1) * 2);
  memory.fill(lens, 8, 144);
  memory.fill(lens + 144, 9, 112);
  memory.fill(lens + 256, 7, 24);
  memory.fill(lens + 280, 8, 8);
  memory.fill(counted, 0, (MAX_BITS + 1) * 2);
  for (let s = 0; s < 288; s++) {
    const n = u8At(lens, s);
    setU16(counted, n, u16At(counted, n) + 1);
  }
  buildTable(lens, 0, 288, counted, 0, LIT_PAYLOAD, fixedLit, LIT_BITS, false);
  memory.fill(lens, 5, 32);
  memory.fill(counted, 0, (MAX_BITS + 1) * 2);
  setU16(counted, 5, 32);
  buildTable(lens, 0, 32, counted, 0, DIST_PAYLOAD, fixedDist, DIST_BITS, false);
}

initTables();

@inline function byteAt(pos: i32, len: i32): i32 {
  return pos < len ? u8At(input, pos) : 0;
}

function readCodes(len: i32, start: i32, bits: i32, count: i32): bool {
  let pos = start;
  let bitBuf = bits;
  let bitCount = count;
  const hlit = (bitBuf & 31) + 257;
  const hdist = ((bitBuf >> 5) & 31) + 1;
  const hclen = ((bitBuf >> 10) & 15) + 4;
  bitBuf >>= 14;
  bitCount -= 14;
  if (hlit > 286 || hdist > 30) return false;
  memory.fill(clLengths, 0, 19);
  memory.fill(clTally, 0, (MAX_BITS + 1) * 2);
  for (let i = 0; i < hclen; i++) {
    if (bitCount < 3) {
      bitBuf |= byteAt(pos, len) << bitCount;
      pos++;
      bitCount += 8;
    }
    const n = bitBuf & 7;
    setU8(clLengths, i32At(CODE_LENGTH_ORDER, i), n);
    setU16(clTally, n, u16At(clTally, n) + 1);
    bitBuf >>= 3;
    bitCount -= 3;
  }
  if (!buildTable(clLengths, 0, 19, clTally, 0, CL_PAYLOAD, clTable, CL_BITS, false)) return false;
  memory.fill(tally, 0, 32 * 2);
  const total = hlit + hdist;
  for (let i = 0; i < total;) {
    while (bitCount < 14) {
      bitBuf |= byteAt(pos, len) << bitCount;
      pos++;
      bitCount += 8;
    }
    const entry = i32At(clTable, bitBuf & ((1 << CL_BITS) - 1));
    const n = entry & 15;
    bitBuf >>= n;
    bitCount -= n;
    const symbol = entry >> 16;
    if (symbol < 16) {
      setU8(lengths, i, symbol);
      const t = symbol + (i < hlit ? 0 : 16);
      setU16(tally, t, u16At(tally, t) + 1);
      i++;
      continue;
    }
    let repeat: i32;
    let value = 0;
    if (symbol == 16) {
      if (i == 0) return false;
      value = u8At(lengths, i - 1);
      repeat = 3 + (bitBuf & 3);
      bitBuf >>= 2;
      bitCount -= 2;
    } else if (symbol == 17) {
      repeat = 3 + (bitBuf & 7);
      bitBuf >>= 3;
      bitCount -= 3;
    } else {
      repeat = 11 + (bitBuf & 127);
      bitBuf >>= 7;
      bitCount -= 7;
    }
    if (i + repeat > total) return false;
    const end = i + repeat;
    if (value == 0) {
      while (i < end) setU8(lengths, i++, 0);
    } else {
      for (; i < end; i++) {
        setU8(lengths, i, value);
        const t = value + (i < hlit ? 0 : 16);
        setU16(tally, t, u16At(tally, t) + 1);
      }
    }
  }
  if (pos > len && bitCount < (pos - len) << 3) return false;
  if (u8At(lengths, 256) == 0) return false;
  cursorRead = pos - start;
  cursorBits = bitBuf;
  cursorCount = bitCount;
  return buildTable(lengths, 0, hlit, tally, 0, LIT_PAYLOAD, dynamicLit, LIT_BITS, true) &&
    buildTable(lengths, hlit, hdist, tally, 16, DIST_PAYLOAD, dynamicDist, DIST_BITS, true);
}

// --- Exports -------------------------------------------------------------------------------------

/**
 * Makes room for `length` input bytes and `limit` output bytes, and returns where the caller
 * copies the input; 0 when memory cannot grow that far.
 */
export function prepare(length: i32, limit: i32): usize {
  input = (__heap_base + 15) & ~<usize>15;
  out = input + ((<usize>length + 15) & ~<usize>15);
  const end = out + <usize>limit;
  const have = <usize>memory.size() << 16;
  if (end > have) {
    if (memory.grow(<i32>((end - have + 0xffff) >> 16)) < 0) return 0;
  }
  return input;
}

/** Where the output starts. */
export function output(): usize {
  return out;
}

/**
 * Inflates the `len` bytes copied to `prepare(len, limit)` into at most `limit` bytes: the
 * output's length, or TRAILING, FULL or CORRUPT.
 */
export function inflate(len: i32, limit: i32): i32 {
  const o = out;
  let outPos = 0;
  let bitBuf = 0;
  let bitCount = 0;
  let pos = 0;
  let last = false;
  do {
    while (bitCount < 24) {
      bitBuf |= byteAt(pos, len) << bitCount;
      pos++;
      bitCount += 8;
    }
    last = (bitBuf & 1) == 1;
    const type = (bitBuf >> 1) & 3;
    bitBuf >>= 3;
    bitCount -= 3;
    let lit: usize;
    let dist: usize;
    if (type == 0) {
      pos -= bitCount >> 3;
      bitBuf = 0;
      bitCount = 0;
      if (pos + 4 > len) return CORRUPT;
      const n = u8At(input, pos) | (u8At(input, pos + 1) << 8);
      if ((u8At(input, pos + 2) | (u8At(input, pos + 3) << 8)) != (n ^ 0xffff)) return CORRUPT;
      pos += 4;
      const available = min(n, len - pos);
      if (outPos + available > limit) return FULL;
      memory.copy(o + <usize>outPos, input + <usize>pos, <usize>available);
      if (available < n) return CORRUPT;
      outPos += n;
      pos += n;
      continue;
    } else if (type == 1) {
      lit = fixedLit;
      dist = fixedDist;
    } else if (type == 2) {
      if (!readCodes(len, pos, bitBuf, bitCount)) return CORRUPT;
      pos += cursorRead;
      bitBuf = cursorBits;
      bitCount = cursorCount;
      lit = dynamicLit;
      dist = dynamicDist;
    } else {
      return CORRUPT;
    }

    while (true) {
      if (bitCount < 15) {
        bitBuf |= (byteAt(pos, len) | (byteAt(pos + 1, len) << 8)) << bitCount;
        pos += 2;
        bitCount += 16;
      }
      let entry = i32At(lit, bitBuf & ((1 << LIT_BITS) - 1));
      if ((entry & LINK) != 0) {
        entry = i32At(
          lit,
          (entry >> 16) + ((bitBuf >> LIT_BITS) & ((1 << ((entry >> 4) & 15)) - 1)),
        );
      }
      let n = entry & 15;
      bitBuf >>= n;
      bitCount -= n;
      if ((entry & LITERAL) != 0) {
        if (pos > len && bitCount < (pos - len) << 3) return CORRUPT;
        if (outPos >= limit) return FULL;
        setU8(o, outPos++, entry >> 16);
        continue;
      }
      if ((entry & LENGTH) == 0) {
        if (pos > len && bitCount < (pos - len) << 3) return CORRUPT;
        if ((entry & END) != 0) break;
        return CORRUPT;
      }
      let extra = (entry >> 4) & 15;
      if (bitCount < extra) {
        bitBuf |= (byteAt(pos, len) | (byteAt(pos + 1, len) << 8)) << bitCount;
        pos += 2;
        bitCount += 16;
      }
      const length = (entry >> 16) + (bitBuf & ((1 << extra) - 1));
      bitBuf >>= extra;
      bitCount -= extra;

      if (bitCount < 15) {
        bitBuf |= (byteAt(pos, len) | (byteAt(pos + 1, len) << 8)) << bitCount;
        pos += 2;
        bitCount += 16;
      }
      entry = i32At(dist, bitBuf & ((1 << DIST_BITS) - 1));
      if ((entry & LINK) != 0) {
        entry = i32At(
          dist,
          (entry >> 16) + ((bitBuf >> DIST_BITS) & ((1 << ((entry >> 4) & 15)) - 1)),
        );
      }
      n = entry & 15;
      bitBuf >>= n;
      bitCount -= n;
      if ((entry & DISTANCE) == 0) return CORRUPT;
      extra = (entry >> 4) & 15;
      if (bitCount < extra) {
        bitBuf |= (byteAt(pos, len) | (byteAt(pos + 1, len) << 8)) << bitCount;
        pos += 2;
        bitCount += 16;
      }
      const distance = (entry >> 16) + (bitBuf & ((1 << extra) - 1));
      bitBuf >>= extra;
      bitCount -= extra;
      if (pos > len && bitCount < (pos - len) << 3) return CORRUPT;
      if (distance > outPos) return CORRUPT;
      const end = outPos + length;
      if (end > limit) return FULL;
      let from = outPos - distance;
      if (distance == 1 && length > 16) {
        memory.fill(o + <usize>outPos, <u8>u8At(o, from), <usize>length);
        outPos = end;
      } else if (distance >= length && length > 32) {
        memory.copy(o + <usize>outPos, o + <usize>from, <usize>length);
        outPos = end;
      } else {
        while (outPos < end) setU8(o, outPos++, u8At(o, from++));
      }
    }
  } while (!last);

  if (bitCount - (pos - len) * 8 >= 8) return TRAILING;
  return outPos;
}
