// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * A one-shot, strict raw DEFLATE (RFC 1951) decoder in plain TypeScript, for small ZIP entries.
 * Node's zlib binding under Deno pays a fixed cost per call in its compatibility layer, and
 * `DecompressionStream` is asynchronous and costlier still; this decodes a 1 KiB entry in a few
 * microseconds, synchronously, with nothing but typed arrays.
 *
 * It accepts and refuses what zlib's `inflate` does (lone one-bit codes included), and names what
 * it refuses: bytes after the end of the final block (`trailing`), more output than the caller
 * allows (`too-large`, checked before each write, so a zip bomb stops at once), or anything else
 * (`corrupt`). `assembly/inflate_raw.ts` is this decoder step for step in AssemblyScript (see
 * `inflate_raw_wasm.ts`): a change here is made there too. For the core's own use: not in the
 * library's public API.
 *
 * Huffman codes are decoded through lookup tables indexed by the next bits of input (the bits come
 * least significant first, so codes are stored bit-reversed): a primary table of 9 bits
 * (literal/length codes) or 7 (distance codes), whose entries for longer codes point to a secondary
 * table for the remaining bits.
 *
 * @module
 */
import {
  CODE_LENGTH_ORDER,
  DISTANCE_BASE,
  DISTANCE_EXTRA,
  LENGTH_BASE,
  LENGTH_EXTRA,
} from "./deflate_tables.ts";

/** Primary lookup bits for literal/length codes. */
const LIT_BITS = 9;
/** Primary lookup bits for distance codes. */
const DIST_BITS = 7;
/** Lookup bits for the code-length code (its codes are at most 7 bits: no secondary tables). */
const CL_BITS = 7;
/** Longest code DEFLATE allows. */
const MAX_BITS = 15;

// A table entry is one int32: bits 0-3 the code's length (bits to consume), bits 4-7 the
// extra bits that follow it (or, for a link, the secondary table's index bits), bits 8-12 what
// it is, bits 16-30 its value (a literal, a length or distance base, or a secondary table's
// offset). An entry with no kind bit stands for a code that must not occur (symbols 286, 287,
// 30 and 31 of the fixed codes, or the unused half of a one-code distance table).
const LITERAL = 0x100;
const LENGTH = 0x200;
const END = 0x400;
const LINK = 0x800;
const DISTANCE = 0x1000;

/** What each literal/length symbol decodes to, less the code length. */
const LIT_PAYLOAD = new Int32Array(288);
/** What each distance symbol decodes to, less the code length. */
const DIST_PAYLOAD = new Int32Array(32);
/** Code-length symbols decode to themselves. */
const CL_PAYLOAD = new Int32Array(19);
for (let s = 0; s < 256; s++) LIT_PAYLOAD[s] = (s << 16) | LITERAL;
LIT_PAYLOAD[256] = END;
for (let i = 0; i < 29; i++) {
  LIT_PAYLOAD[257 + i] = (LENGTH_BASE[i]! << 16) | (LENGTH_EXTRA[i]! << 4) | LENGTH;
}
for (let i = 0; i < 30; i++) {
  DIST_PAYLOAD[i] = (DISTANCE_BASE[i]! << 16) | (DISTANCE_EXTRA[i]! << 4) | DISTANCE;
}
for (let s = 0; s < 19; s++) CL_PAYLOAD[s] = s << 16;

/** Bytes with their bits reversed, to turn codes (sent most significant bit first) around. */
const REVERSED = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  let r = 0;
  for (let i = 0; i < 8; i++) r |= ((b >> i) & 1) << (7 - i);
  REVERSED[b] = r;
}

/**
 * The most entries a table for `symbols` codes can need. Tables are built for complete codes
 * only (or a lone one-bit code), so the codes under a primary index with a secondary table of
 * 2^k entries form a full binary tree of depth k: at least k + 1 codes. The entries per code
 * grow with k, so the most come from as many of the deepest tables as there are codes for,
 * plus one smaller table for the codes left over.
 */
function tableSize(bits: number, symbols: number): number {
  const k = MAX_BITS - bits;
  return (1 << bits) + Math.floor(symbols / (k + 1)) * (1 << k) + (1 << (k - 1));
}

// Decoding tables for dynamic blocks, reused by every call (decoding is synchronous, so no two
// calls share them at once).
const dynamicLit = new Int32Array(tableSize(LIT_BITS, 288));
const dynamicDist = new Int32Array(tableSize(DIST_BITS, 32));
const clTable = new Int32Array(1 << CL_BITS);
/** Code lengths of one dynamic block: up to 286 literal/length and 30 distance codes. */
const lengths = new Uint8Array(286 + 30);
/** Code-length code lengths, by symbol. */
const clLengths = new Uint8Array(19);

/**
 * How many codes of each length (1 to 15; index 0 unused) a block's literal/length code
 * (0-15) and distance code (16-31) have, counted as the lengths are read.
 */
const tally = new Uint16Array(32);
/** The same for the code-length code. */
const clTally = new Uint16Array(MAX_BITS + 1);

// Scratch for buildTable.
const nextCode = new Uint16Array(MAX_BITS + 1);
const codes = new Uint16Array(288);
/** Longest code under each primary index that needs a secondary table; zero between builds. */
const longest = new Uint8Array(1 << LIT_BITS);

/** The fixed codes' tables (RFC 1951, 3.2.6), built on first use. */
let fixed: { lit: Int32Array; dist: Int32Array } | undefined;

function fixedTables(): { lit: Int32Array; dist: Int32Array } {
  if (fixed !== undefined) return fixed;
  const lens = new Uint8Array(288);
  lens.fill(8, 0, 144);
  lens.fill(9, 144, 256);
  lens.fill(7, 256, 280);
  lens.fill(8, 280, 288);
  const counted = new Uint16Array(MAX_BITS + 1);
  for (const n of lens) counted[n]!++;
  const lit = new Int32Array(tableSize(LIT_BITS, 288));
  buildTable(lens, 0, 288, counted, 0, LIT_PAYLOAD, lit, LIT_BITS, false);
  lens.fill(5, 0, 32);
  counted.fill(0);
  counted[5] = 32;
  const dist = new Int32Array(tableSize(DIST_BITS, 32));
  buildTable(lens, 0, 32, counted, 0, DIST_PAYLOAD, dist, DIST_BITS, false);
  fixed = { lit, dist };
  return fixed;
}

/**
 * Builds the lookup table of a canonical Huffman code (RFC 1951, 3.2.2) from the code lengths
 * `lens[start]` to `lens[start + count - 1]`, of which `counts[at + n]` have length `n`.
 *
 * zlib refuses an over-subscribed code, and an incomplete one unless it has no codes at all or
 * a single one-bit code (`sparse`: the literal/length and distance codes, never the
 * code-length code); so does this. Lookups of the unused bit patterns then find an entry of no
 * kind, which the decoder refuses.
 *
 * @returns Whether the code lengths make a usable code.
 */
function buildTable(
  lens: Uint8Array,
  start: number,
  count: number,
  counts: Uint16Array,
  at: number,
  payload: Int32Array,
  table: Int32Array,
  bits: number,
  sparse: boolean,
): boolean {
  let left = 1; // Unused code space, in units of the current length's codes.
  let maxLen = 0;
  for (let len = 1; len <= MAX_BITS; len++) {
    const n = counts[at + len]!;
    left = (left << 1) - n;
    if (left < 0) return false; // Over-subscribed.
    if (n !== 0) maxLen = len;
  }
  if (left !== 0) {
    if (!sparse || maxLen > 1) return false; // Incomplete.
    table.fill(0, 0, 1 << bits);
  }
  // The first code of each length follows the last of the one before, one bit longer.
  let code = 0;
  for (let len = 1; len <= MAX_BITS; len++) {
    nextCode[len] = code;
    code = (code + counts[at + len]!) << 1;
  }
  const size = 1 << bits;
  const mask = size - 1;
  let long = false;
  for (let s = 0; s < count; s++) {
    const len = lens[start + s]!;
    if (len === 0) continue;
    const c = nextCode[len]!++;
    const reversed = ((REVERSED[c & 0xff]! << 8) | REVERSED[c >> 8]!) >> (16 - len);
    if (len <= bits) {
      const entry = payload[s]! | len;
      for (let i = reversed; i < size; i += 1 << len) table[i] = entry;
    } else {
      codes[s] = reversed;
      const at = reversed & mask;
      if (longest[at]! < len) longest[at] = len;
      long = true;
    }
  }
  if (!long) return true;
  // Secondary tables: one per primary index with longer codes, sized for the longest of them.
  let end = size;
  for (let s = 0; s < count; s++) {
    const len = lens[start + s]!;
    if (len <= bits) continue;
    const reversed = codes[s]!;
    const at = reversed & mask;
    const most = longest[at]!;
    if (most !== 0) {
      longest[at] = 0;
      table[at] = (end << 16) | ((most - bits) << 4) | LINK;
      end += 1 << (most - bits);
    }
    const link = table[at]!;
    const base = link >> 16;
    const subSize = 1 << ((link >> 4) & 15);
    const entry = payload[s]! | len;
    for (let i = reversed >> bits; i < subSize; i += 1 << (len - bits)) table[base + i] = entry;
  }
  return true;
}

/** Where {@linkcode readCodes} stops: bytes it read, and the bit buffer and count it left. */
const cursor = new Int32Array(3);

/**
 * Reads the code lengths of a dynamic block (RFC 1951, 3.2.7) and builds its tables into
 * `dynamicLit` and `dynamicDist`. Kept apart from the decoding loop, which stays small and hot.
 *
 * @returns Whether the header is valid (bits past the end of `data` included: not).
 */
function readCodes(data: Uint8Array, start: number, bits: number, count: number): boolean {
  const len = data.length;
  let pos = start;
  let bitBuf = bits;
  let bitCount = count;
  const hlit = (bitBuf & 31) + 257;
  const hdist = ((bitBuf >> 5) & 31) + 1;
  const hclen = ((bitBuf >> 10) & 15) + 4;
  bitBuf >>= 14;
  bitCount -= 14;
  // zlib refuses the counts the format leaves room for but has no symbols for.
  if (hlit > 286 || hdist > 30) return false;
  for (let i = 0; i < 19; i++) clLengths[i] = 0;
  for (let i = 0; i <= MAX_BITS; i++) clTally[i] = 0;
  for (let i = 0; i < hclen; i++) {
    if (bitCount < 3) {
      bitBuf |= (pos < len ? data[pos]! : 0) << bitCount;
      pos++;
      bitCount += 8;
    }
    const n = bitBuf & 7;
    clLengths[CODE_LENGTH_ORDER[i]!] = n;
    clTally[n]!++;
    bitBuf >>= 3;
    bitCount -= 3;
  }
  if (!buildTable(clLengths, 0, 19, clTally, 0, CL_PAYLOAD, clTable, CL_BITS, false)) return false;
  for (let i = 0; i < 32; i++) tally[i] = 0;
  const total = hlit + hdist;
  for (let i = 0; i < total;) {
    // Seven bits of code and seven of repeat count at most.
    while (bitCount < 14) {
      bitBuf |= (pos < len ? data[pos]! : 0) << bitCount;
      pos++;
      bitCount += 8;
    }
    const entry = clTable[bitBuf & ((1 << CL_BITS) - 1)]!;
    const n = entry & 15;
    bitBuf >>= n;
    bitCount -= n;
    const symbol = entry >> 16;
    if (symbol < 16) {
      lengths[i] = symbol;
      tally[symbol + (i < hlit ? 0 : 16)]!++;
      i++;
      continue;
    }
    let repeat: number;
    let value = 0;
    if (symbol === 16) {
      if (i === 0) return false; // Nothing to repeat.
      value = lengths[i - 1]!;
      repeat = 3 + (bitBuf & 3);
      bitBuf >>= 2;
      bitCount -= 2;
    } else if (symbol === 17) {
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
    if (value === 0) {
      while (i < end) lengths[i++] = 0;
    } else {
      for (; i < end; i++) {
        lengths[i] = value;
        tally[value + (i < hlit ? 0 : 16)]!++;
      }
    }
  }
  if (pos > len && bitCount < (pos - len) << 3) return false;
  if (lengths[256] === 0) return false; // No end-of-block code.
  cursor[0] = pos - start;
  cursor[1] = bitBuf;
  cursor[2] = bitCount;
  return buildTable(lengths, 0, hlit, tally, 0, LIT_PAYLOAD, dynamicLit, LIT_BITS, true) &&
    buildTable(lengths, hlit, hdist, tally, 16, DIST_PAYLOAD, dynamicDist, DIST_BITS, true);
}

/**
 * The most output inflating `length` bytes for a caller who allows `size` may make: `size` (whole
 * bytes, none when negative), but never past 1032 bytes a byte, since every match costs at least
 * two bits (a length and a distance code) for at most 258 bytes, and every literal or stored
 * byte at least one bit. Both decoders, the script and the WebAssembly, stop there.
 *
 * @param length The compressed bytes.
 * @param size The most bytes the caller allows.
 * @returns The limit.
 *
 * @example Usage
 * ```ts
 * import { outputLimit } from "./inflate_raw.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(outputLimit(10, 100), 100);
 * assertEquals(outputLimit(10, 1e9), 10_320);
 * assertEquals(outputLimit(10, -1), 0);
 * ```
 */
export function outputLimit(length: number, size: number): number {
  return Math.min(allowedOutput(size), length * 1032);
}

/**
 * What a stream that would make more than {@linkcode outputLimit} bytes is: `too-large`,
 * unless the limit is the bound no valid stream can pass (the caller allowed more), then
 * `corrupt`.
 *
 * @param length The compressed bytes.
 * @param size The most bytes the caller allows.
 * @returns The problem.
 *
 * @example Usage
 * ```ts
 * import { pastLimit } from "./inflate_raw.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(pastLimit(10, 100), "too-large");
 * assertEquals(pastLimit(10, 1e9), "corrupt");
 * ```
 */
export function pastLimit(length: number, size: number): "too-large" | "corrupt" {
  return length * 1032 < allowedOutput(size) ? "corrupt" : "too-large";
}

/** The output `size` allows: whole bytes, none when negative. */
function allowedOutput(size: number): number {
  return size >= 0 ? Math.floor(size) : 0;
}

/**
 * Inflates one complete raw DEFLATE stream (RFC 1951), strictly, in the script alone
 * (`inflateRawStrict` in `deflate.ts` prefers the WebAssembly build of this decoder, which gives
 * the same answers): the stream must end (with its final block) in the last byte of `data`, and
 * inflate to at most `size` bytes.
 *
 * Never throws and never allocates more than `size` bytes of output (nor more than the most
 * `data` could possibly inflate to, 1032 bytes a byte, whatever `size` says; an output buffer
 * the runtime cannot allocate is `too-large`). A stream that ends before `size` bytes gives
 * the shorter output: the caller compares lengths.
 *
 * @param data The compressed bytes, exactly one raw DEFLATE stream.
 * @param size The most bytes the output may have; inflating byte `size + 1` is `too-large`.
 * @returns The output, or what is wrong: `trailing` (bytes after the end of the stream; the
 * unused bits of its last byte are ignored), `too-large`, or `corrupt` (anything else, a
 * stream cut short included).
 *
 * @example Usage
 * ```ts
 * import { inflateRawJs } from "./inflate_raw.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // "hello" as one fixed-Huffman block.
 * const packed = new Uint8Array([0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]);
 * assertEquals(inflateRawJs(packed, 5), { bytes: new TextEncoder().encode("hello") });
 * assertEquals(inflateRawJs(packed, 4), { problem: "too-large" });
 * assertEquals(inflateRawJs(new Uint8Array([...packed, 0]), 5), { problem: "trailing" });
 * assertEquals(inflateRawJs(packed.subarray(0, 6), 5), { problem: "corrupt" });
 * ```
 */
export function inflateRawJs(
  data: Uint8Array,
  size: number,
): { bytes: Uint8Array } | { problem: "trailing" | "too-large" | "corrupt" } {
  const len = data.length;
  const limit = outputLimit(len, size);
  let out: Uint8Array;
  try {
    out = new Uint8Array(limit);
  } catch {
    return { problem: "too-large" }; // More than this runtime can hold.
  }
  const full = pastLimit(len, size);
  let outPos = 0;
  // Bits not yet used, least significant first. Refills keep it under 31 bits, so it stays a
  // non-negative int32 and `>>` serves. Past the end of `data` the refills load zero bytes
  // and still advance `pos`, so `pos - len` counts bytes that are not there: a symbol that
  // used one of their bits (`bitCount < (pos - len) << 3`) is refused before it writes.
  let bitBuf = 0;
  let bitCount = 0;
  let pos = 0;
  let last = false;
  do {
    while (bitCount < 24) {
      bitBuf |= (pos < len ? data[pos]! : 0) << bitCount;
      pos++;
      bitCount += 8;
    }
    last = (bitBuf & 1) === 1;
    const type = (bitBuf >> 1) & 3;
    bitBuf >>= 3;
    bitCount -= 3;
    // Past the end of the data, the header bits were zeros that are not there: every path
    // below finds that out (as `corrupt`) before it writes a byte.
    let lit: Int32Array;
    let dist: Int32Array;
    if (type === 0) {
      // Stored: drop the rest of the current byte, hand the whole bytes buffered back (if
      // the header used bits that are not there, `pos` stays past the end).
      pos -= bitCount >> 3;
      bitBuf = 0;
      bitCount = 0;
      if (pos + 4 > len) return { problem: "corrupt" };
      const n = data[pos]! | (data[pos + 1]! << 8);
      if ((data[pos + 2]! | (data[pos + 3]! << 8)) !== (n ^ 0xffff)) return { problem: "corrupt" };
      pos += 4;
      const available = Math.min(n, len - pos);
      if (outPos + available > limit) return { problem: full };
      out.set(data.subarray(pos, pos + available), outPos);
      if (available < n) return { problem: "corrupt" };
      outPos += n;
      pos += n;
      continue;
    } else if (type === 1) {
      const tables = fixedTables();
      lit = tables.lit;
      dist = tables.dist;
    } else if (type === 2) {
      if (!readCodes(data, pos, bitBuf, bitCount)) return { problem: "corrupt" };
      pos += cursor[0]!;
      bitBuf = cursor[1]!;
      bitCount = cursor[2]!;
      lit = dynamicLit;
      dist = dynamicDist;
    } else {
      return { problem: "corrupt" };
    }

    // The codes of one block, until its end-of-block code. Two bytes at a time whenever fewer
    // than 15 bits (the longest code) are left; extra bits get their own refill if short.
    for (;;) {
      if (bitCount < 15) {
        bitBuf |= ((pos < len ? data[pos]! : 0) | ((pos + 1 < len ? data[pos + 1]! : 0) << 8)) <<
          bitCount;
        pos += 2;
        bitCount += 16;
      }
      let entry = lit[bitBuf & ((1 << LIT_BITS) - 1)]!;
      if ((entry & LINK) !== 0) {
        entry = lit[(entry >> 16) + ((bitBuf >> LIT_BITS) & ((1 << ((entry >> 4) & 15)) - 1))]!;
      }
      let n = entry & 15;
      bitBuf >>= n;
      bitCount -= n;
      if ((entry & LITERAL) !== 0) {
        if (pos > len && bitCount < (pos - len) << 3) return { problem: "corrupt" };
        if (outPos >= limit) return { problem: full };
        out[outPos++] = entry >> 16;
        continue;
      }
      if ((entry & LENGTH) === 0) {
        if (pos > len && bitCount < (pos - len) << 3) return { problem: "corrupt" };
        if ((entry & END) !== 0) break;
        return { problem: "corrupt" };
      }
      let extra = (entry >> 4) & 15;
      if (bitCount < extra) {
        bitBuf |= ((pos < len ? data[pos]! : 0) | ((pos + 1 < len ? data[pos + 1]! : 0) << 8)) <<
          bitCount;
        pos += 2;
        bitCount += 16;
      }
      const length = (entry >> 16) + (bitBuf & ((1 << extra) - 1));
      bitBuf >>= extra;
      bitCount -= extra;

      if (bitCount < 15) {
        bitBuf |= ((pos < len ? data[pos]! : 0) | ((pos + 1 < len ? data[pos + 1]! : 0) << 8)) <<
          bitCount;
        pos += 2;
        bitCount += 16;
      }
      entry = dist[bitBuf & ((1 << DIST_BITS) - 1)]!;
      if ((entry & LINK) !== 0) {
        entry = dist[(entry >> 16) + ((bitBuf >> DIST_BITS) & ((1 << ((entry >> 4) & 15)) - 1))]!;
      }
      n = entry & 15;
      bitBuf >>= n;
      bitCount -= n;
      if ((entry & DISTANCE) === 0) return { problem: "corrupt" };
      extra = (entry >> 4) & 15;
      if (bitCount < extra) {
        bitBuf |= ((pos < len ? data[pos]! : 0) | ((pos + 1 < len ? data[pos + 1]! : 0) << 8)) <<
          bitCount;
        pos += 2;
        bitCount += 16;
      }
      const distance = (entry >> 16) + (bitBuf & ((1 << extra) - 1));
      bitBuf >>= extra;
      bitCount -= extra;
      if (pos > len && bitCount < (pos - len) << 3) return { problem: "corrupt" };
      if (distance > outPos) return { problem: "corrupt" }; // Before the start of the output.
      const end = outPos + length;
      if (end > limit) return { problem: full };
      let from = outPos - distance;
      if (distance === 1 && length > 16) {
        out.fill(out[from]!, outPos, end);
        outPos = end;
      } else if (distance >= length && length > 32) {
        out.copyWithin(outPos, from, from + length);
        outPos = end;
      } else {
        while (outPos < end) out[outPos++] = out[from++]!;
      }
    }
  } while (!last);

  // Only the unused bits of the last byte may remain: no whole byte, read or not.
  if (bitCount - (pos - len) * 8 >= 8) return { problem: "trailing" };
  return { bytes: outPos === out.length ? out : out.subarray(0, outPos) };
}
