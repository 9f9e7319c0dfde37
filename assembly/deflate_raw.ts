// Copyright 2026 the taskpack authors. MIT license.
/**
 * The core's raw DEFLATE encoder for small entries, in AssemblyScript: `lib/zip/deflate_raw.ts`
 * step for step (the same parameters, the same choices, the same bytes out), compiled to
 * WebAssembly by `deno task build:wasm` into `lib/zip/deflate_raw_wasm_bytes.ts`. It exists for
 * speed alone: V8 runs it at full speed from the first call, where the script version spends
 * its first thousand calls and a compiler thread warming up, in every isolate that deflates.
 * `tests/wasm_test.ts` holds the two to the same output and the committed module to
 * this source. Change both files together.
 *
 * Memory: the tables are static data; the input is copied in after them (`prepare`), and the
 * output is written after the input.
 */
import {
  CODE_LENGTH_ORDER,
  DISTANCE_BASE,
  DISTANCE_EXTRA,
  fillI32,
  fillU8,
  i32At,
  LENGTH_BASE,
  LENGTH_EXTRA,
  setI32,
  setU16,
  setU8,
  u16At,
  u8At,
} from "./common";

// --- Parameters (as in deflate_raw.ts) -----------------------------------------------------------

const WINDOW: i32 = 32768;
const WINDOW_MASK: i32 = WINDOW - 1;
const MIN_MATCH: i32 = 3;
const MAX_MATCH: i32 = 258;
const HASH_BITS: i32 = 15;
const SMALL_HASH_BITS: i32 = 11;
const HASH_MULTIPLIER: u32 = 0x9e3779b1;
const MAX_CHAIN: i32 = 32;
const DEEP_AFTER: i32 = 8;
const DEEP_BONUS: i32 = 96;
const GOOD_LENGTH: i32 = 4;
const LAZY_LENGTH: i32 = 6;
const COMPARE_BUDGET: i32 = 256;
const NICE_LENGTH: i32 = 128;
const BLOCK_SYMBOLS: i32 = 16384;
const MAX_STORED: i32 = 65535;
const STAMP_LIMIT: i32 = 0x7fff0000;

const nextCodes = memory.data(16 * 4);
const LENGTH_INFO = memory.data(256 * 4);
const REVERSE_BYTE = memory.data(256);
const FIXED_LIT_LENGTHS = memory.data(288);
const FIXED_LIT_TABLE = memory.data(288 * 4);
const FIXED_DIST_LENGTHS = memory.data(30);
const FIXED_DIST_TABLE = memory.data(30 * 4);

const head = memory.data((1 << HASH_BITS) * 4);
const links = memory.data(WINDOW * 2);
let stamp: i32 = 0;

const symbols = memory.data((BLOCK_SYMBOLS + 4) * 4);
const litFreq = memory.data(286 * 4);
const distFreq = memory.data(30 * 4);
const litLengths = memory.data(286);
const litTable = memory.data(286 * 4);
const distLengths = memory.data(30);
const distTable = memory.data(30 * 4);
const clFreq = memory.data(19 * 4);
const clLengths = memory.data(19);
const clTable = memory.data(19 * 4);
const litKeys = memory.data(286 * 4);
const distKeys = memory.data(30 * 4);
const clKeys = memory.data(19 * 4);
const litCounts = memory.data(16 * 4);
const distCounts = memory.data(16 * 4);
const clCounts = memory.data(16 * 4);
const allLengths = memory.data(286 + 30);
const clOps = memory.data((286 + 30) * 4);
let clOpCount: i32 = 0;

const nodeWeight = memory.data(2 * 286 * 4);
const nodeParent = memory.data(2 * 286 * 4);
const nodeDepth = memory.data(2 * 286 * 2);
const depthCount = memory.data(2 * 286 * 4);

/** Where the input (copied in by the caller) and the output after it start. */
let input: usize = 0;
let out: usize = 0;
let outPos: i32 = 0;
let bitBuf: u32 = 0;
let bitCount: i32 = 0;
let pendingStart: i32 = 0;
let pendingEnd: i32 = 0;

// --- RFC 1951 tables -----------------------------------------------------------------------------

function distCode(d: i32): i32 {
  if (d < 4) return d;
  const top = 31 - clz<i32>(d);
  return (top << 1) | ((d >> (top - 1)) & 1);
}

@inline function reverseBits(code: i32, length: i32): i32 {
  return ((u8At(REVERSE_BYTE, code & 0xff) << 8) | u8At(REVERSE_BYTE, code >> 8)) >> (16 - length);
}

function canonicalCodes(lengths: usize, count: i32, table: usize, perLength: usize): void {
  let code = 0;
  for (let bits = 1; bits < 16; bits++) {
    code = (code + (bits == 1 ? 0 : i32At(perLength, bits - 1))) << 1;
    setI32(nextCodes, bits, code);
  }
  for (let i = 0; i < count; i++) {
    const length = u8At(lengths, i);
    if (length == 0) {
      setI32(table, i, 0);
    } else {
      const next = i32At(nextCodes, length);
      setI32(nextCodes, length, next + 1);
      setI32(table, i, reverseBits(next & 0xffff, length) | (length << 16));
    }
  }
}

function initTables(): void {
  for (let i = 0; i < 29; i++) {
    const base = i32At(LENGTH_BASE, i);
    const extra = i32At(LENGTH_EXTRA, i);
    for (let j = 0; j < 1 << extra && base + j <= MAX_MATCH; j++) {
      setI32(LENGTH_INFO, base + j - MIN_MATCH, (257 + i) | (extra << 9) | (j << 12));
    }
  }
  for (let i = 0; i < 256; i++) {
    let r = 0;
    for (let b = 0; b < 8; b++) r |= ((i >> b) & 1) << (7 - b);
    setU8(REVERSE_BYTE, i, r);
  }
  const perLength = memory.data(16 * 4);
  fillI32(perLength, 0, 16, 0);
  for (let i = 0; i < 288; i++) {
    const length = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    setU8(FIXED_LIT_LENGTHS, i, length);
    setI32(perLength, length, i32At(perLength, length) + 1);
  }
  canonicalCodes(FIXED_LIT_LENGTHS, 288, FIXED_LIT_TABLE, perLength);
  fillI32(perLength, 0, 16, 0);
  setI32(perLength, 5, 30);
  fillU8(FIXED_DIST_LENGTHS, 30, 5);
  canonicalCodes(FIXED_DIST_LENGTHS, 30, FIXED_DIST_TABLE, perLength);
}

initTables();

// --- Huffman codes -------------------------------------------------------------------------------

function huffmanLengths(
  keys: usize,
  used: i32,
  maxBits: i32,
  lengths: usize,
  counts: usize,
): void {
  fillI32(counts, 0, 16, 0);
  if (used <= 1) {
    const s = used == 0 ? 0 : i32At(keys, 0) & 511;
    setU8(lengths, s, 1);
    setU8(lengths, s == 0 ? 1 : 0, 1);
    setI32(counts, 1, 2);
    return;
  }
  // Insertion sort (at most 286 keys): the keys are distinct, so any sort gives the order the
  // script's `sort()` does.
  for (let i = 1; i < used; i++) {
    const key = i32At(keys, i);
    let j = i - 1;
    while (j >= 0 && i32At(keys, j) > key) {
      setI32(keys, j + 1, i32At(keys, j));
      j--;
    }
    setI32(keys, j + 1, key);
  }
  for (let i = 0; i < used; i++) setI32(nodeWeight, i, i32At(keys, i) >> 9);
  let leaf = 0;
  let inner = used;
  const root = 2 * used - 2;
  for (let next = used; next <= root; next++) {
    let a: i32;
    if (leaf < used && (inner >= next || i32At(nodeWeight, leaf) <= i32At(nodeWeight, inner))) {
      a = leaf++;
    } else a = inner++;
    let b: i32;
    if (leaf < used && (inner >= next || i32At(nodeWeight, leaf) <= i32At(nodeWeight, inner))) {
      b = leaf++;
    } else b = inner++;
    setI32(nodeWeight, next, i32At(nodeWeight, a) + i32At(nodeWeight, b));
    setI32(nodeParent, a, next);
    setI32(nodeParent, b, next);
  }
  setU16(nodeDepth, root, 0);
  let deepest = 0;
  fillI32(depthCount, 0, used + 1, 0);
  for (let i = root - 1; i >= 0; i--) {
    const depth = u16At(nodeDepth, i32At(nodeParent, i)) + 1;
    setU16(nodeDepth, i, depth);
    if (i < used) {
      setI32(depthCount, depth, i32At(depthCount, depth) + 1);
      if (depth > deepest) deepest = depth;
    }
  }
  for (let i = deepest; i > maxBits; i--) {
    while (i32At(depthCount, i) > 0) {
      let j = i - 2;
      while (i32At(depthCount, j) == 0) j--;
      setI32(depthCount, i, i32At(depthCount, i) - 2);
      setI32(depthCount, i - 1, i32At(depthCount, i - 1) + 1);
      setI32(depthCount, j + 1, i32At(depthCount, j + 1) + 2);
      setI32(depthCount, j, i32At(depthCount, j) - 1);
    }
  }
  let at = 0;
  for (let bits = min(deepest, maxBits); bits >= 1; bits--) {
    const n = i32At(depthCount, bits);
    setI32(counts, bits, n);
    for (let k = 0; k < n; k++) setU8(lengths, i32At(keys, at++) & 511, bits);
  }
}

function runLengthCode(total: i32): void {
  fillI32(clFreq, 0, 19, 0);
  clOpCount = 0;
  let i = 0;
  while (i < total) {
    const value = u8At(allLengths, i);
    let run = 1;
    while (i + run < total && u8At(allLengths, i + run) == value) run++;
    i += run;
    if (value == 0) {
      while (run >= 11) {
        const n = min(run, 138);
        setI32(clOps, clOpCount++, 18 | ((n - 11) << 5));
        setI32(clFreq, 18, i32At(clFreq, 18) + 1);
        run -= n;
      }
      if (run >= 3) {
        setI32(clOps, clOpCount++, 17 | ((run - 3) << 5));
        setI32(clFreq, 17, i32At(clFreq, 17) + 1);
        run = 0;
      }
    } else {
      setI32(clOps, clOpCount++, value);
      setI32(clFreq, value, i32At(clFreq, value) + 1);
      run--;
      while (run >= 3) {
        const n = min(run, 6);
        setI32(clOps, clOpCount++, 16 | ((n - 3) << 5));
        setI32(clFreq, 16, i32At(clFreq, 16) + 1);
        run -= n;
      }
    }
    for (; run > 0; run--) {
      setI32(clOps, clOpCount++, value);
      setI32(clFreq, value, i32At(clFreq, value) + 1);
    }
  }
}

// --- Bit writer ----------------------------------------------------------------------------------

function putBits(value: i32, count: i32): void {
  bitBuf |= <u32>value << <u32>bitCount;
  bitCount += count;
  while (bitCount >= 8) {
    setU8(out, outPos++, <i32>(bitBuf & 0xff));
    bitBuf >>= 8;
    bitCount -= 8;
  }
}

@inline function putCode(entry: i32): void {
  putBits(entry & 0xffff, <i32>(<u32>entry >> 16));
}

function alignToByte(): void {
  if (bitCount > 0) {
    setU8(out, outPos++, <i32>(bitBuf & 0xff));
    bitBuf = 0;
    bitCount = 0;
  }
}

// --- Blocks --------------------------------------------------------------------------------------

function storedBits(length: i32, bitOffset: i32): i32 {
  let bits = 0;
  let offset = bitOffset;
  do {
    const chunk = min(length, MAX_STORED);
    bits += 3 + ((8 - ((offset + 3) & 7)) & 7) + 32 + 8 * chunk;
    offset = 0;
    length -= chunk;
  } while (length > 0);
  return bits;
}

function writeStored(start: i32, end: i32, final: bool): void {
  do {
    const chunk = min(end - start, MAX_STORED);
    const last = start + chunk == end;
    putBits(final && last ? 1 : 0, 3);
    alignToByte();
    setU8(out, outPos++, chunk & 0xff);
    setU8(out, outPos++, chunk >> 8);
    setU8(out, outPos++, ~chunk & 0xff);
    setU8(out, outPos++, (~chunk >> 8) & 0xff);
    memory.copy(out + <usize>outPos, input + <usize>start, <usize>chunk);
    outPos += chunk;
    start += chunk;
  } while (start < end);
}

function flushPending(final: bool): void {
  if (pendingEnd > pendingStart || final) writeStored(pendingStart, pendingEnd, final);
  pendingStart = pendingEnd;
}

function writeSymbols(count: i32, lTable: usize, dTable: usize): void {
  let buf = bitBuf;
  let nbits = <u32>bitCount;
  let pos = outPos;
  for (let i = 0; i < count; i++) {
    const sym = i32At(symbols, i);
    if (sym < 256) {
      const code = <u32>i32At(lTable, sym);
      buf |= (code & 0xffff) << nbits;
      nbits += code >> 16;
    } else {
      const info = <u32>i32At(LENGTH_INFO, (sym & 511) - 256);
      const code = <u32>i32At(lTable, <i32>(info & 511));
      buf |= (code & 0xffff) << nbits;
      nbits += code >> 16;
      if (nbits >= 16) {
        store<u16>(out + <usize>pos, <u16>buf);
        pos += 2;
        buf >>= 16;
        nbits -= 16;
      }
      buf |= (info >> 12) << nbits;
      nbits += (info >> 9) & 7;
      const d = <i32>(<u32>sym >> 9);
      const dc = distCode(d);
      const dcode = <u32>i32At(dTable, dc);
      buf |= (dcode & 0xffff) << nbits;
      nbits += dcode >> 16;
      if (nbits >= 16) {
        store<u16>(out + <usize>pos, <u16>buf);
        pos += 2;
        buf >>= 16;
        nbits -= 16;
      }
      buf |= <u32>(d + 1 - i32At(DISTANCE_BASE, dc)) << nbits;
      nbits += <u32>i32At(DISTANCE_EXTRA, dc);
    }
    if (nbits >= 16) {
      store<u16>(out + <usize>pos, <u16>buf);
      pos += 2;
      buf >>= 16;
      nbits -= 16;
    }
  }
  while (nbits >= 8) {
    setU8(out, pos++, <i32>(buf & 0xff));
    buf >>= 8;
    nbits -= 8;
  }
  bitBuf = buf;
  bitCount = <i32>nbits;
  outPos = pos;
}

function endBlock(count: i32, start: i32, end: i32, final: bool): void {
  setI32(litFreq, 256, 1);
  let extraBits = 0;
  let fixedBits = 3;
  let litUsed = 0;
  for (let s = 0; s < 286; s++) {
    const f = i32At(litFreq, s);
    if (f == 0) continue;
    setI32(litKeys, litUsed++, f * 512 + s);
    fixedBits += f * u8At(FIXED_LIT_LENGTHS, s);
    if (s > 256) extraBits += f * i32At(LENGTH_EXTRA, s - 257);
  }
  let distUsed = 0;
  for (let c = 0; c < 30; c++) {
    const f = i32At(distFreq, c);
    if (f == 0) continue;
    setI32(distKeys, distUsed++, f * 512 + c);
    extraBits += f * i32At(DISTANCE_EXTRA, c);
  }
  fixedBits += extraBits;
  for (let i = 0; i < distUsed; i++) fixedBits += 5 * (i32At(distKeys, i) >> 9);

  fillU8(litLengths, 286, 0);
  huffmanLengths(litKeys, litUsed, 15, litLengths, litCounts);
  fillU8(distLengths, 30, 0);
  huffmanLengths(distKeys, distUsed, 15, distLengths, distCounts);
  let hlit = 286;
  while (hlit > 257 && u8At(litLengths, hlit - 1) == 0) hlit--;
  let hdist = 30;
  while (hdist > 1 && u8At(distLengths, hdist - 1) == 0) hdist--;
  memory.copy(allLengths, litLengths, <usize>hlit);
  memory.copy(allLengths + <usize>hlit, distLengths, <usize>hdist);
  runLengthCode(hlit + hdist);
  let clUsed = 0;
  for (let s = 0; s < 19; s++) {
    if (i32At(clFreq, s) != 0) setI32(clKeys, clUsed++, i32At(clFreq, s) * 512 + s);
  }
  fillU8(clLengths, 19, 0);
  huffmanLengths(clKeys, clUsed, 7, clLengths, clCounts);
  let hclen = 19;
  while (hclen > 4 && u8At(clLengths, i32At(CODE_LENGTH_ORDER, hclen - 1)) == 0) hclen--;
  let dynamicBits = 3 + 5 + 5 + 4 + 3 * hclen + extraBits +
    i32At(clFreq, 16) * 2 + i32At(clFreq, 17) * 3 + i32At(clFreq, 18) * 7;
  for (let i = 0; i < clUsed; i++) {
    const key = i32At(clKeys, i);
    dynamicBits += (key >> 9) * u8At(clLengths, key & 511);
  }
  for (let i = 0; i < litUsed; i++) {
    const key = i32At(litKeys, i);
    dynamicBits += (key >> 9) * u8At(litLengths, key & 511);
  }
  for (let i = 0; i < distUsed; i++) {
    const key = i32At(distKeys, i);
    dynamicBits += (key >> 9) * u8At(distLengths, key & 511);
  }

  const bitOffset = pendingEnd > pendingStart ? 0 : bitCount;
  const stored = storedBits(end - start, bitOffset);
  if (stored < fixedBits && stored < dynamicBits) {
    if (pendingEnd == pendingStart) pendingStart = start;
    pendingEnd = end;
    if (final) flushPending(true);
    return;
  }
  flushPending(false);
  if (fixedBits <= dynamicBits) {
    putBits(final ? 3 : 2, 3);
    writeSymbols(count, FIXED_LIT_TABLE, FIXED_DIST_TABLE);
    putCode(i32At(FIXED_LIT_TABLE, 256));
  } else {
    canonicalCodes(litLengths, hlit, litTable, litCounts);
    canonicalCodes(distLengths, hdist, distTable, distCounts);
    canonicalCodes(clLengths, 19, clTable, clCounts);
    putBits(final ? 5 : 4, 3);
    putBits(hlit - 257, 5);
    putBits(hdist - 1, 5);
    putBits(hclen - 4, 4);
    for (let i = 0; i < hclen; i++) putBits(u8At(clLengths, i32At(CODE_LENGTH_ORDER, i)), 3);
    for (let i = 0; i < clOpCount; i++) {
      const op = i32At(clOps, i);
      const s = op & 31;
      putCode(i32At(clTable, s));
      if (s >= 16) putBits(op >> 5, s == 16 ? 2 : s == 17 ? 3 : 7);
    }
    writeSymbols(count, litTable, distTable);
    putCode(i32At(litTable, 256));
  }
}

// --- LZ77 ----------------------------------------------------------------------------------------

@inline function quadAt(p: i32): i32 {
  return bswap<i32>(load<i32>(input + <usize>p));
}

function compressSegment(from: i32, to: i32, final: bool): void {
  const data = input;
  const n = to - from;
  if (stamp + n + 2 > STAMP_LIMIT) {
    fillI32(head, 0, 1 << HASH_BITS, 0);
    stamp = 0;
  }
  const live = stamp + 1 - from;
  stamp += n + 1;
  const lastHashable = to - 4;
  const bits = n <= 2048 ? SMALL_HASH_BITS : n <= 8192 ? SMALL_HASH_BITS + 2 : HASH_BITS;
  const shift = <u32>(32 - bits);

  let count = 0;
  let blockStart = from;
  let blockEnd = from;
  fillI32(litFreq, 0, 286, 0);
  fillI32(distFreq, 0, 30, 0);

  let prevLength = MIN_MATCH - 1;
  let prevDist = 0;
  let havePrev = false;
  let pos = from;
  let quad = lastHashable >= from ? quadAt(from) : 0;
  while (pos < to) {
    let bestLength = MIN_MATCH - 1;
    let bestDist = 0;
    if (pos <= lastHashable) {
      const hash = <i32>((<u32>quad * HASH_MULTIPLIER) >> shift);
      const first = i32At(head, hash) - live;
      const lowest = pos - WINDOW > from ? pos - WINDOW : from;
      const limit = to - pos < MAX_MATCH ? to - pos : MAX_MATCH;
      if (first >= lowest && prevLength < LAZY_LENGTH && prevLength < limit) {
        let chainLeft = prevLength >= GOOD_LENGTH ? MAX_CHAIN >> 2 : MAX_CHAIN;
        let best = prevLength;
        let scanEnd = u8At(data, pos + best);
        let candidate = first;
        let budget = COMPARE_BUDGET;
        while (true) {
          if (u8At(data, candidate + best) == scanEnd && quadAt(candidate) == quad) {
            let length = 4;
            while (length < limit && u8At(data, candidate + length) == u8At(data, pos + length)) {
              length++;
            }
            budget -= length;
            if (length > best) {
              if (best < DEEP_AFTER && length >= DEEP_AFTER) chainLeft += DEEP_BONUS;
              best = length;
              bestDist = pos - candidate;
              if (length >= NICE_LENGTH || length >= limit) break;
              scanEnd = u8At(data, pos + length);
            }
          }
          if (--chainLeft == 0 || budget <= 0) break;
          const delta = u16At(links, candidate & WINDOW_MASK);
          if (delta == 0 || candidate - delta < lowest) break;
          candidate -= delta;
        }
        if (bestDist != 0) bestLength = best;
      }
      setU16(links, pos & WINDOW_MASK, first >= lowest ? pos - first : 0);
      setI32(head, hash, pos + live);
    }
    if (prevLength >= MIN_MATCH && bestLength <= prevLength) {
      const matchEnd = pos - 1 + prevLength;
      const dist = prevDist;
      let start = pos - 1;
      let length = prevLength;
      while (
        count > 0 && length < MAX_MATCH && start - 1 - dist >= from &&
        u8At(data, start - 1) == u8At(data, start - 1 - dist)
      ) {
        const last = i32At(symbols, count - 1);
        if (last < 256) {
          count--;
          setI32(litFreq, last, i32At(litFreq, last) - 1);
          start--;
          length++;
          continue;
        }
        const lastLength = (last & 511) - 256 + MIN_MATCH;
        let k = 1;
        while (
          k < lastLength && length + k < MAX_MATCH && start - k - 1 - dist >= from &&
          u8At(data, start - k - 1) == u8At(data, start - k - 1 - dist)
        ) k++;
        const rest = lastLength - k;
        if (rest >= MIN_MATCH) break;
        count--;
        const lsym = i32At(LENGTH_INFO, lastLength - MIN_MATCH) & 511;
        setI32(litFreq, lsym, i32At(litFreq, lsym) - 1);
        const dsym = distCode(<i32>(<u32>last >> 9));
        setI32(distFreq, dsym, i32At(distFreq, dsym) - 1);
        for (let r = start - lastLength; r < start - k; r++) {
          const byte = u8At(data, r);
          setI32(symbols, count++, byte);
          setI32(litFreq, byte, i32At(litFreq, byte) + 1);
        }
        start -= k;
        length += k;
        if (rest > 0) break;
      }
      const d = dist - 1;
      setI32(symbols, count++, (256 + length - MIN_MATCH) | (d << 9));
      const lsym = i32At(LENGTH_INFO, length - MIN_MATCH) & 511;
      setI32(litFreq, lsym, i32At(litFreq, lsym) + 1);
      const dsym = distCode(d);
      setI32(distFreq, dsym, i32At(distFreq, dsym) + 1);
      blockEnd = matchEnd;
      const insertEnd = matchEnd <= lastHashable ? matchEnd : lastHashable + 1;
      for (let q = pos + 1; q < insertEnd; q++) {
        quad = (quad << 8) | u8At(data, q + 3);
        const hash = <i32>((<u32>quad * HASH_MULTIPLIER) >> shift);
        const back = q + live - i32At(head, hash);
        setU16(links, q & WINDOW_MASK, back <= WINDOW && back <= q - from ? back : 0);
        setI32(head, hash, q + live);
      }
      pos = matchEnd;
      if (pos <= lastHashable) quad = quadAt(pos);
      havePrev = false;
      prevLength = MIN_MATCH - 1;
      prevDist = 0;
    } else {
      if (havePrev) {
        const byte = u8At(data, pos - 1);
        setI32(symbols, count++, byte);
        setI32(litFreq, byte, i32At(litFreq, byte) + 1);
        blockEnd = pos;
      }
      havePrev = true;
      prevLength = bestLength;
      prevDist = bestDist;
      pos++;
      if (pos <= lastHashable) quad = (quad << 8) | u8At(data, pos + 3);
    }
    if (count >= BLOCK_SYMBOLS && pos < to) {
      endBlock(count, blockStart, blockEnd, false);
      count = 0;
      blockStart = blockEnd;
      fillI32(litFreq, 0, 286, 0);
      fillI32(distFreq, 0, 30, 0);
    }
  }
  if (havePrev) {
    const byte = u8At(data, to - 1);
    setI32(symbols, count++, byte);
    setI32(litFreq, byte, i32At(litFreq, byte) + 1);
    blockEnd = to;
  }
  if (count > 0 || final) {
    if (count == 0 && pendingEnd > pendingStart) flushPending(true);
    else endBlock(count, blockStart, blockEnd, final);
  }
}

// --- Exports -------------------------------------------------------------------------------------

/** Room the output of `n` input bytes may take, at most. */
function outputRoom(n: i32): i32 {
  return n + (n >> 10) + 1024;
}

/**
 * Makes room for `n` input bytes (and their output) and returns where the caller copies them.
 * Returns 0 when memory cannot grow that far.
 */
export function prepare(n: i32): usize {
  input = (__heap_base + 15) & ~<usize>15;
  out = input + ((<usize>n + 4 + 15) & ~<usize>15);
  const end = out + <usize>outputRoom(n);
  const have = <usize>memory.size() << 16;
  if (end > have) {
    if (memory.grow(<i32>((end - have + 0xffff) >> 16)) < 0) return 0;
  }
  return input;
}

/** Deflates the `n` bytes copied to `prepare(n)`: returns the output's length (at `output()`). */
export function deflate(n: i32): i32 {
  outPos = 0;
  bitBuf = 0;
  bitCount = 0;
  pendingStart = 0;
  pendingEnd = 0;
  if (n == 0) {
    putBits(3, 3);
    putCode(i32At(FIXED_LIT_TABLE, 256));
  } else {
    compressSegment(0, n, true);
  }
  alignToByte();
  return outPos > outputRoom(n) ? -1 : outPos;
}

/** Where the last output starts. */
export function output(): usize {
  return out;
}
