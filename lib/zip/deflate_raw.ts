// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * A small, deterministic, pure TypeScript raw DEFLATE (RFC 1951) encoder for small ZIP entries.
 *
 * Deflating thousands of small entries through a native zlib binding costs far more in setting up
 * and tearing down the deflater than in compressing, so small entries are deflated here instead:
 * LZ77 over a 32 KiB window (hash chains on four bytes, one-step lazy matching, and matches grown
 * backwards over the symbols before them), then per block the smallest of a stored, fixed-Huffman
 * or dynamic-Huffman block, chosen on exact bit costs. It compresses about as well as zlib level 6.
 * Scratch tables live at module level and are reused between calls without leaking state into the
 * output: the same bytes always deflate to the same bytes, whatever was deflated before and on
 * every runtime. `assembly/deflate_raw.ts` is this encoder step for step in AssemblyScript (see
 * `deflate_raw_wasm.ts`): a change here is made there too. For the core's own use: not in the
 * library's public API.
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
import { grown } from "../bytes/mod.ts";

// --- Parameters -------------------------------------------------------------------------------

/** Largest match distance (the window size). */
const WINDOW = 32_768;
const WINDOW_MASK = WINDOW - 1;
/** The shortest match DEFLATE has (the search finds 4 bytes and up). */
const MIN_MATCH = 3;
const MAX_MATCH = 258;
/**
 * Hash table size: 2^15 heads, indexed by a multiplicative hash of the next four bytes; inputs
 * of up to 2 KiB use 2^11 of them, up to 8 KiB 2^13.
 */
const HASH_BITS = 15;
const SMALL_HASH_BITS = 11;
const HASH_MULTIPLIER = 0x9e3779b1;
/** Longest hash chain walked per position. */
const MAX_CHAIN = 32;
/** Once a match this long turns up, the walk may go DEEP_BONUS candidates further. */
const DEEP_AFTER = 8;
const DEEP_BONUS = 96;
/** When the previous match is at least this long, walk only a quarter of the chain. */
const GOOD_LENGTH = 4;
/** When the previous match is at least this long, do not look for a better one at the next byte. */
const LAZY_LENGTH = 6;
/** Bytes compared while extending candidates, at most (about), per search. */
const COMPARE_BUDGET = 256;
/** A match this long ends the chain walk. */
const NICE_LENGTH = 128;
/** Symbols per block: a block ends when this many literals and matches are collected. */
const BLOCK_SYMBOLS = 16_384;
/** Largest stored block payload (LEN is 16 bits). */
const MAX_STORED = 65_535;
/**
 * Inputs are compressed in independent segments of at most this many bytes, so that the
 * position stamps in the hash tables stay in Int32 range (matches never cross a segment).
 */
const SEGMENT = 1 << 30;
/** Stamps stay below this; beyond it the head table is cleared and stamps start over. */
const STAMP_LIMIT = 0x7fff_0000;

// --- RFC 1951 tables --------------------------------------------------------------------------

/** Scratch for canonicalCodes: the next code of each length. */
const nextCodes = new Uint16Array(16);

/**
 * Per match length - 3 (0..255): its length symbol (257..285) | the symbol's extra bit count
 * << 9 | the extra bits' value << 12.
 */
const LENGTH_INFO = new Int32Array(256);
/** Bits reversed within a byte. */
const REVERSE_BYTE = new Uint8Array(256);
/**
 * Fixed Huffman code lengths (lit/len 0..287, distance 0..29) and code tables. A code table
 * entry is the bit-reversed code | its length << 16.
 */
const FIXED_LIT_LENGTHS = new Uint8Array(288);
const FIXED_LIT_TABLE = new Int32Array(288);
const FIXED_DIST_LENGTHS = new Uint8Array(30).fill(5);
const FIXED_DIST_TABLE = new Int32Array(30);

{
  // Symbol 284 reaches 258 with all its extra bits set; 285, which comes last, takes 258 over.
  for (let i = 0; i < LENGTH_BASE.length; i++) {
    const base = LENGTH_BASE[i]!;
    const extra = LENGTH_EXTRA[i]!;
    for (let j = 0; j < 1 << extra && base + j <= MAX_MATCH; j++) {
      LENGTH_INFO[base + j - MIN_MATCH] = (257 + i) | (extra << 9) | (j << 12);
    }
  }
  for (let i = 0; i < 256; i++) {
    let r = 0;
    for (let b = 0; b < 8; b++) r |= ((i >> b) & 1) << (7 - b);
    REVERSE_BYTE[i] = r;
  }
  const counts = new Int32Array(16);
  for (let i = 0; i < 288; i++) {
    const length = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    FIXED_LIT_LENGTHS[i] = length;
    counts[length]!++;
  }
  canonicalCodes(FIXED_LIT_LENGTHS, 288, FIXED_LIT_TABLE, counts);
  counts.fill(0);
  counts[5] = 30;
  canonicalCodes(FIXED_DIST_LENGTHS, 30, FIXED_DIST_TABLE, counts);
}

/** Distance code (0..29) of `d` = distance - 1 (0..32767). */
function distCode(d: number): number {
  if (d < 4) return d;
  const top = 31 - Math.clz32(d);
  return (top << 1) | ((d >> (top - 1)) & 1);
}

/** `code` of `length` bits, bit-reversed (Huffman codes go out most significant bit first). */
function reverseBits(code: number, length: number): number {
  return ((REVERSE_BYTE[code & 0xff]! << 8) | REVERSE_BYTE[code >> 8]!) >> (16 - length);
}

/**
 * Canonical codes (RFC 1951 3.2.2) for `lengths[0..count)` into the code table `table`, given
 * how many codes there are of each length (`perLength[1..15]`).
 */
function canonicalCodes(
  lengths: Uint8Array,
  count: number,
  table: Int32Array,
  perLength: Int32Array,
): void {
  const next = nextCodes;
  let code = 0;
  for (let bits = 1; bits < 16; bits++) {
    code = (code + (bits === 1 ? 0 : perLength[bits - 1]!)) << 1;
    next[bits] = code;
  }
  for (let i = 0; i < count; i++) {
    const length = lengths[i]!;
    table[i] = length === 0 ? 0 : reverseBits(next[length]!++, length) | (length << 16);
  }
}

// --- Scratch state, reused between calls ------------------------------------------------------

/**
 * Hash heads hold `stamp + position + 1`; a head is live only when it is above the stamp of
 * the current segment, so heads left by earlier calls need no clearing.
 */
const head = new Int32Array(1 << HASH_BITS);
/**
 * Chain links per window slot (position & 32767): how far back the previous position with the
 * same hash is, or 0 when there is none in the window. Only links written in this segment are
 * ever read (a chain starts at a live head and steps back within the window).
 */
const links = new Uint16Array(WINDOW);
let stamp = 0;

/**
 * One block's symbols: a literal byte, or 256 + (length - 3) | (distance - 1) << 9. A match
 * grown backwards can add two symbols at once, hence the slack past BLOCK_SYMBOLS.
 */
const symbols = new Int32Array(BLOCK_SYMBOLS + 4);
const litFreq = new Int32Array(286);
const distFreq = new Int32Array(30);

const litLengths = new Uint8Array(286);
const litTable = new Int32Array(286);
const distLengths = new Uint8Array(30);
const distTable = new Int32Array(30);
const clFreq = new Int32Array(19);
const clLengths = new Uint8Array(19);
const clTable = new Int32Array(19);
/** Used symbols as frequency * 512 + symbol (sorted by the Huffman builder), and code counts. */
const litKeys = new Int32Array(286);
const distKeys = new Int32Array(30);
const clKeys = new Int32Array(19);
const litCounts = new Int32Array(16);
const distCounts = new Int32Array(16);
const clCounts = new Int32Array(16);
/** Lit/len and distance code lengths, concatenated, as sent. */
const allLengths = new Uint8Array(286 + 30);
/** Run-length coded code lengths: symbol | extra << 5. */
const clOps = new Int32Array(286 + 30);
let clOpCount = 0;

// Huffman builder scratch.
const nodeWeight = new Int32Array(2 * 286);
const nodeParent = new Int32Array(2 * 286);
const nodeDepth = new Uint16Array(2 * 286);
const depthCount = new Int32Array(2 * 286);

/** Output buffer (grows; let go of after a call that grew it past KEEP_OUTPUT). */
const KEEP_OUTPUT = 1 << 20;
let out = new Uint8Array(1 << 16);
let outPos = 0;
let bitBuf = 0;
let bitCount = 0;

/** Raw bytes of consecutive blocks best stored, not yet written: `[pendingStart, pendingEnd)`. */
let pendingStart = 0;
let pendingEnd = 0;
const EMPTY = new Uint8Array(0);
/** The bytes being deflated (empty between calls, so no caller's bytes are held on to). */
let input: Uint8Array = EMPTY;

// --- Huffman codes ----------------------------------------------------------------------------

/**
 * Length-limited Huffman code lengths for the `used` symbols in `keys` (each frequency * 512 +
 * symbol; sorted here) into `lengths` (zero for the others), and into `counts` how many codes
 * have each length. A Huffman tree (two-queue method on the symbols sorted by frequency), then,
 * when it is deeper than `maxBits`, the length counts are rebalanced (the JPEG Annex K.3
 * adjustment: two deepest leaves move up, one shallower leaf moves down, which keeps the code
 * complete). The code is always complete: a lone symbol (or none: symbol 0) gets a partner, so
 * that strict inflaters accept it.
 */
function huffmanLengths(
  keys: Int32Array,
  used: number,
  maxBits: number,
  lengths: Uint8Array,
  counts: Int32Array,
): void {
  counts.fill(0);
  if (used <= 1) {
    const s = used === 0 ? 0 : keys[0]! & 511;
    lengths[s] = 1;
    lengths[s === 0 ? 1 : 0] = 1;
    counts[1] = 2;
    return;
  }
  keys.subarray(0, used).sort();
  for (let i = 0; i < used; i++) nodeWeight[i] = keys[i]! >> 9;
  // Two queues: leaves in frequency order and internal nodes in creation order (their weights
  // never decrease). On ties a leaf goes first, which keeps the tree shallow.
  let leaf = 0;
  let inner = used;
  const root = 2 * used - 2;
  for (let next = used; next <= root; next++) {
    let a: number;
    if (leaf < used && (inner >= next || nodeWeight[leaf]! <= nodeWeight[inner]!)) a = leaf++;
    else a = inner++;
    let b: number;
    if (leaf < used && (inner >= next || nodeWeight[leaf]! <= nodeWeight[inner]!)) b = leaf++;
    else b = inner++;
    nodeWeight[next] = nodeWeight[a]! + nodeWeight[b]!;
    nodeParent[a] = next;
    nodeParent[b] = next;
  }
  nodeDepth[root] = 0;
  let deepest = 0;
  depthCount.fill(0, 0, used + 1);
  for (let i = root - 1; i >= 0; i--) {
    const depth = nodeDepth[nodeParent[i]!]! + 1;
    nodeDepth[i] = depth;
    if (i < used) {
      depthCount[depth]!++;
      if (depth > deepest) deepest = depth;
    }
  }
  for (let i = deepest; i > maxBits; i--) {
    // Leaves at the deepest level come in sibling pairs. Move one of a pair up a level, and
    // pair the other with a leaf taken from the deepest level that still has room above max.
    while (depthCount[i]! > 0) {
      let j = i - 2;
      while (depthCount[j] === 0) j--;
      depthCount[i]! -= 2;
      depthCount[i - 1]!++;
      depthCount[j + 1]! += 2;
      depthCount[j]!--;
    }
  }
  // The least frequent symbols get the longest codes.
  let at = 0;
  for (let bits = Math.min(deepest, maxBits); bits >= 1; bits--) {
    const n = depthCount[bits]!;
    counts[bits] = n;
    for (let k = 0; k < n; k++) lengths[keys[at++]! & 511] = bits;
  }
}

/**
 * Run-length codes `allLengths[0..total)` with code length symbols 16 (repeat the previous
 * length 3-6 times), 17 (3-10 zeros) and 18 (11-138 zeros) into `clOps`, counting `clFreq`.
 */
function runLengthCode(total: number): void {
  clFreq.fill(0);
  clOpCount = 0;
  let i = 0;
  while (i < total) {
    const value = allLengths[i]!;
    let run = 1;
    while (i + run < total && allLengths[i + run] === value) run++;
    i += run;
    if (value === 0) {
      while (run >= 11) {
        const n = Math.min(run, 138);
        clOps[clOpCount++] = 18 | ((n - 11) << 5);
        clFreq[18]!++;
        run -= n;
      }
      if (run >= 3) {
        clOps[clOpCount++] = 17 | ((run - 3) << 5);
        clFreq[17]!++;
        run = 0;
      }
    } else {
      clOps[clOpCount++] = value;
      clFreq[value]!++;
      run--;
      while (run >= 3) {
        const n = Math.min(run, 6);
        clOps[clOpCount++] = 16 | ((n - 3) << 5);
        clFreq[16]!++;
        run -= n;
      }
    }
    for (; run > 0; run--) {
      clOps[clOpCount++] = value;
      clFreq[value]!++;
    }
  }
}

// --- Bit writer -------------------------------------------------------------------------------

/** Makes room for `bytes` more output bytes. */
function reserve(bytes: number): void {
  if (outPos + bytes + 8 <= out.length) return;
  out = grown(out, outPos + bytes + 1024, outPos);
}

/** Writes `count` (at most 16) bits of `value`, least significant first. */
function putBits(value: number, count: number): void {
  bitBuf |= value << bitCount;
  bitCount += count;
  while (bitCount >= 8) {
    out[outPos++] = bitBuf & 0xff;
    bitBuf >>>= 8;
    bitCount -= 8;
  }
}

/** Writes a code table entry's code. */
function putCode(entry: number): void {
  putBits(entry & 0xffff, entry >>> 16);
}

/** Pads to a byte boundary. */
function alignToByte(): void {
  if (bitCount > 0) {
    out[outPos++] = bitBuf & 0xff;
    bitBuf = 0;
    bitCount = 0;
  }
}

// --- Blocks -----------------------------------------------------------------------------------

/** Bits a stored copy of `length` bytes takes when the writer is `bitOffset` bits into a byte. */
function storedBits(length: number, bitOffset: number): number {
  let bits = 0;
  let offset = bitOffset;
  do {
    const chunk = Math.min(length, MAX_STORED);
    bits += 3 + ((8 - ((offset + 3) & 7)) & 7) + 32 + 8 * chunk;
    offset = 0;
    length -= chunk;
  } while (length > 0);
  return bits;
}

/** Writes `input[start..end)` as stored blocks, the last one final if `final`. */
function writeStored(start: number, end: number, final: boolean): void {
  reserve(end - start + 5 * Math.ceil((end - start) / MAX_STORED + 1));
  do {
    const chunk = Math.min(end - start, MAX_STORED);
    const last = start + chunk === end;
    putBits(final && last ? 1 : 0, 3);
    alignToByte();
    out[outPos++] = chunk & 0xff;
    out[outPos++] = chunk >> 8;
    out[outPos++] = ~chunk & 0xff;
    out[outPos++] = (~chunk >> 8) & 0xff;
    out.set(input.subarray(start, start + chunk), outPos);
    outPos += chunk;
    start += chunk;
  } while (start < end);
}

/** Writes pending stored bytes, if any. */
function flushPending(final: boolean): void {
  if (pendingEnd > pendingStart || final) writeStored(pendingStart, pendingEnd, final);
  pendingStart = pendingEnd;
}

/** Writes the block's symbols with the given code tables. */
function writeSymbols(count: number, lTable: Int32Array, dTable: Int32Array): void {
  // Up to 31 bits are buffered: everything added after a flush is at most 15 bits.
  let buf = bitBuf;
  let nbits = bitCount;
  let pos = outPos;
  const o = out;
  const syms = symbols;
  for (let i = 0; i < count; i++) {
    const sym = syms[i]!;
    if (sym < 256) {
      const code = lTable[sym]!;
      buf |= (code & 0xffff) << nbits;
      nbits += code >>> 16;
    } else {
      const info = LENGTH_INFO[(sym & 511) - 256]!;
      const code = lTable[info & 511]!;
      buf |= (code & 0xffff) << nbits;
      nbits += code >>> 16;
      if (nbits >= 16) {
        o[pos] = buf;
        o[pos + 1] = buf >>> 8;
        pos += 2;
        buf >>>= 16;
        nbits -= 16;
      }
      buf |= (info >>> 12) << nbits;
      nbits += (info >>> 9) & 7;
      const d = sym >>> 9;
      const dc = distCode(d);
      const dcode = dTable[dc]!;
      buf |= (dcode & 0xffff) << nbits;
      nbits += dcode >>> 16;
      if (nbits >= 16) {
        o[pos] = buf;
        o[pos + 1] = buf >>> 8;
        pos += 2;
        buf >>>= 16;
        nbits -= 16;
      }
      buf |= (d + 1 - DISTANCE_BASE[dc]!) << nbits;
      nbits += DISTANCE_EXTRA[dc]!;
    }
    if (nbits >= 16) {
      o[pos] = buf;
      o[pos + 1] = buf >>> 8;
      pos += 2;
      buf >>>= 16;
      nbits -= 16;
    }
  }
  while (nbits >= 8) {
    o[pos++] = buf;
    buf >>>= 8;
    nbits -= 8;
  }
  bitBuf = buf;
  bitCount = nbits;
  outPos = pos;
}

/**
 * Ends a block of `count` symbols covering `input[start..end)`: writes it as whichever of a
 * fixed- or dynamic-Huffman block is smaller, or, when a stored copy is smaller still, adds its
 * bytes to the pending stored run (consecutive stored blocks are merged when written).
 */
function endBlock(count: number, start: number, end: number, final: boolean): void {
  litFreq[256] = 1;
  // One pass over each frequency table: the used symbols, the bits spent on extra bits (the
  // same for both Huffman kinds) and the fixed code's total.
  let extraBits = 0;
  let fixedBits = 3;
  let litUsed = 0;
  for (let s = 0; s < 286; s++) {
    const f = litFreq[s]!;
    if (f === 0) continue;
    litKeys[litUsed++] = f * 512 + s;
    fixedBits += f * FIXED_LIT_LENGTHS[s]!;
    if (s > 256) extraBits += f * LENGTH_EXTRA[s - 257]!;
  }
  let distUsed = 0;
  for (let c = 0; c < 30; c++) {
    const f = distFreq[c]!;
    if (f === 0) continue;
    distKeys[distUsed++] = f * 512 + c;
    extraBits += f * DISTANCE_EXTRA[c]!;
  }
  fixedBits += extraBits;
  for (let i = 0; i < distUsed; i++) fixedBits += 5 * (distKeys[i]! >> 9);

  litLengths.fill(0);
  huffmanLengths(litKeys, litUsed, 15, litLengths, litCounts);
  // With no distance at all this still gives two distance codes of length 1: RFC 1951 wants
  // at least one distance code length, and a complete code keeps every inflater happy.
  distLengths.fill(0);
  huffmanLengths(distKeys, distUsed, 15, distLengths, distCounts);
  let hlit = 286;
  while (hlit > 257 && litLengths[hlit - 1] === 0) hlit--;
  let hdist = 30;
  while (hdist > 1 && distLengths[hdist - 1] === 0) hdist--;
  for (let s = 0; s < hlit; s++) allLengths[s] = litLengths[s]!;
  for (let c = 0; c < hdist; c++) allLengths[hlit + c] = distLengths[c]!;
  runLengthCode(hlit + hdist);
  let clUsed = 0;
  for (let s = 0; s < 19; s++) if (clFreq[s] !== 0) clKeys[clUsed++] = clFreq[s]! * 512 + s;
  clLengths.fill(0);
  huffmanLengths(clKeys, clUsed, 7, clLengths, clCounts);
  let hclen = 19;
  while (hclen > 4 && clLengths[CODE_LENGTH_ORDER[hclen - 1]!] === 0) hclen--;
  let dynamicBits = 3 + 5 + 5 + 4 + 3 * hclen + extraBits +
    clFreq[16]! * 2 + clFreq[17]! * 3 + clFreq[18]! * 7;
  for (let i = 0; i < clUsed; i++) {
    const key = clKeys[i]!;
    dynamicBits += (key >> 9) * clLengths[key & 511]!;
  }
  for (let i = 0; i < litUsed; i++) {
    const key = litKeys[i]!;
    dynamicBits += (key >> 9) * litLengths[key & 511]!;
  }
  for (let i = 0; i < distUsed; i++) {
    const key = distKeys[i]!;
    dynamicBits += (key >> 9) * distLengths[key & 511]!;
  }

  // A pending stored run ends byte-aligned, so a block after it starts at bit 0.
  const bitOffset = pendingEnd > pendingStart ? 0 : bitCount;
  const stored = storedBits(end - start, bitOffset);
  if (stored < fixedBits && stored < dynamicBits) {
    if (pendingEnd === pendingStart) pendingStart = start;
    pendingEnd = end;
    if (final) flushPending(true);
    return;
  }
  flushPending(false);
  reserve(((fixedBits < dynamicBits ? fixedBits : dynamicBits) >> 3) + 16);
  if (fixedBits <= dynamicBits) {
    putBits(final ? 3 : 2, 3);
    writeSymbols(count, FIXED_LIT_TABLE, FIXED_DIST_TABLE);
    putCode(FIXED_LIT_TABLE[256]!);
  } else {
    canonicalCodes(litLengths, hlit, litTable, litCounts);
    canonicalCodes(distLengths, hdist, distTable, distCounts);
    canonicalCodes(clLengths, 19, clTable, clCounts);
    putBits(final ? 5 : 4, 3);
    putBits(hlit - 257, 5);
    putBits(hdist - 1, 5);
    putBits(hclen - 4, 4);
    for (let i = 0; i < hclen; i++) putBits(clLengths[CODE_LENGTH_ORDER[i]!]!, 3);
    for (let i = 0; i < clOpCount; i++) {
      const op = clOps[i]!;
      const s = op & 31;
      putCode(clTable[s]!);
      if (s >= 16) putBits(op >> 5, s === 16 ? 2 : s === 17 ? 3 : 7);
    }
    writeSymbols(count, litTable, distTable);
    putCode(litTable[256]!);
  }
}

// --- LZ77 -------------------------------------------------------------------------------------

/**
 * Finds matches in `data[from..to)` (matches stay inside the segment) and ends a block every
 * {@linkcode BLOCK_SYMBOLS} symbols; the segment's last block is final if `final`.
 */
function compressSegment(data: Uint8Array, from: number, to: number, final: boolean): void {
  const n = to - from;
  if (stamp + n + 2 > STAMP_LIMIT) {
    head.fill(0);
    stamp = 0;
  }
  // Heads and links hold stamp + (position - from) + 1; subtracting `live` gives the position
  // back, and anything from an earlier call or segment comes out below `from`.
  const live = stamp + 1 - from;
  stamp += n + 1;
  const lastHashable = to - 4;
  // Small inputs use the start of the head table only: fewer cache lines to touch, and as
  // good (the choice depends on the length alone, so the output stays deterministic).
  const shift = 32 - (n <= 2048 ? SMALL_HASH_BITS : n <= 8192 ? SMALL_HASH_BITS + 2 : HASH_BITS);
  const h = head;
  const w = links;
  const syms = symbols;
  const lf = litFreq;
  const df = distFreq;

  let count = 0;
  let blockStart = from;
  let blockEnd = from;
  lf.fill(0);
  df.fill(0);

  // One-step lazy matching: the match found at the previous position is held back until the
  // search at this position shows whether starting one byte later does better.
  let prevLength = MIN_MATCH - 1;
  let prevDist = 0;
  let havePrev = false;
  let pos = from;
  // The four bytes at `pos` (big-endian), kept while `pos <= lastHashable`.
  let quad = lastHashable >= from
    ? (data[from]! << 24) | (data[from + 1]! << 16) | (data[from + 2]! << 8) | data[from + 3]!
    : 0;
  while (pos < to) {
    let bestLength = MIN_MATCH - 1;
    let bestDist = 0;
    if (pos <= lastHashable) {
      const hash = Math.imul(quad, HASH_MULTIPLIER) >>> shift;
      const first = h[hash]! - live;
      const lowest = pos - WINDOW > from ? pos - WINDOW : from;
      const limit = to - pos < MAX_MATCH ? to - pos : MAX_MATCH;
      if (first >= lowest && prevLength < LAZY_LENGTH && prevLength < limit) {
        // Walk the chain (most recent first) for a match longer than the previous one.
        // Candidates are checked before `pos` is linked in, so every window slot visited
        // still holds its own position's link.
        let chainLeft = prevLength >= GOOD_LENGTH ? MAX_CHAIN >> 2 : MAX_CHAIN;
        let best = prevLength;
        let scanEnd = data[pos + best]!;
        let candidate = first;
        let budget = COMPARE_BUDGET;
        for (;;) {
          if (
            data[candidate + best] === scanEnd &&
            ((data[candidate]! << 24) | (data[candidate + 1]! << 16) |
                (data[candidate + 2]! << 8) | data[candidate + 3]!) === quad
          ) {
            let length = 4;
            while (length < limit && data[candidate + length] === data[pos + length]) length++;
            // Long runs of like bytes make many candidates match long; bound the work.
            budget -= length;
            if (length > best) {
              // A long match says the data is repetitive: then deeper candidates often match
              // longer still, and there are few searches to pay for.
              if (best < DEEP_AFTER && length >= DEEP_AFTER) chainLeft += DEEP_BONUS;
              best = length;
              bestDist = pos - candidate;
              if (length >= NICE_LENGTH || length >= limit) break;
              scanEnd = data[pos + length]!;
            }
          }
          if (--chainLeft === 0 || budget <= 0) break;
          const delta = w[candidate & WINDOW_MASK]!;
          if (delta === 0 || candidate - delta < lowest) break;
          candidate -= delta;
        }
        if (bestDist !== 0) bestLength = best;
      }
      w[pos & WINDOW_MASK] = first >= lowest ? pos - first : 0;
      h[hash] = pos + live;
    }
    if (prevLength >= MIN_MATCH && bestLength <= prevLength) {
      // The match found at the previous position is at least as good: take it.
      const matchEnd = pos - 1 + prevLength;
      const dist = prevDist;
      let start = pos - 1;
      let length = prevLength;
      // Grow it backwards over the block's last symbols when that removes symbols: over
      // literals, or over a previous match that it swallows whole or leaves under 3 bytes of
      // (those become literals). Shallow chain walks miss such longer matches.
      while (
        count > 0 && length < MAX_MATCH && start - 1 - dist >= from &&
        data[start - 1] === data[start - 1 - dist]
      ) {
        const last = syms[count - 1]!;
        if (last < 256) {
          count--;
          lf[last]!--;
          start--;
          length++;
          continue;
        }
        const lastLength = (last & 511) - 256 + MIN_MATCH;
        let k = 1;
        while (
          k < lastLength && length + k < MAX_MATCH && start - k - 1 - dist >= from &&
          data[start - k - 1] === data[start - k - 1 - dist]
        ) k++;
        const rest = lastLength - k;
        if (rest >= MIN_MATCH) break;
        count--;
        lf[LENGTH_INFO[lastLength - MIN_MATCH]! & 511]!--;
        df[distCode(last >>> 9)]!--;
        for (let r = start - lastLength; r < start - k; r++) {
          const byte = data[r]!;
          syms[count++] = byte;
          lf[byte]!++;
        }
        start -= k;
        length += k;
        if (rest > 0) break;
      }
      const d = dist - 1;
      syms[count++] = 256 + length - MIN_MATCH | (d << 9);
      lf[LENGTH_INFO[length - MIN_MATCH]! & 511]!++;
      df[distCode(d)]!++;
      blockEnd = matchEnd;
      // Link the positions the match covers (`pos` itself already is).
      const insertEnd = matchEnd <= lastHashable ? matchEnd : lastHashable + 1;
      for (let q = pos + 1; q < insertEnd; q++) {
        quad = (quad << 8) | data[q + 3]!;
        const hash = Math.imul(quad, HASH_MULTIPLIER) >>> shift;
        const back = q + live - h[hash]!;
        w[q & WINDOW_MASK] = back <= WINDOW && back <= q - from ? back : 0;
        h[hash] = q + live;
      }
      pos = matchEnd;
      if (pos <= lastHashable) {
        quad = (data[pos]! << 24) | (data[pos + 1]! << 16) | (data[pos + 2]! << 8) |
          data[pos + 3]!;
      }
      havePrev = false;
      prevLength = MIN_MATCH - 1;
      prevDist = 0;
    } else {
      if (havePrev) {
        const byte = data[pos - 1]!;
        syms[count++] = byte;
        lf[byte]!++;
        blockEnd = pos;
      }
      havePrev = true;
      prevLength = bestLength;
      prevDist = bestDist;
      pos++;
      if (pos <= lastHashable) quad = (quad << 8) | data[pos + 3]!;
    }
    // (At the very end the last block is ended below, as the final one.)
    if (count >= BLOCK_SYMBOLS && pos < to) {
      endBlock(count, blockStart, blockEnd, false);
      count = 0;
      blockStart = blockEnd;
      lf.fill(0);
      df.fill(0);
    }
  }
  if (havePrev) {
    const byte = data[to - 1]!;
    syms[count++] = byte;
    lf[byte]!++;
    blockEnd = to;
  }
  if (count > 0 || final) {
    if (count === 0 && pendingEnd > pendingStart) flushPending(true);
    else endBlock(count, blockStart, blockEnd, final);
  }
}

/**
 * Deflates `bytes` into one complete raw DEFLATE stream (final block set), in the script alone
 * (`deflateRawSmall` in `deflate.ts` prefers the WebAssembly build of this encoder, which gives
 * the same bytes). Deterministic: the same bytes always give the same output, on every runtime.
 *
 * Tuned for small entries (a few hundred bytes to 64 KiB), where it is much cheaper than a
 * native zlib binding and compresses about as well as zlib level 6; it is correct at any size.
 *
 * @param bytes The bytes to compress.
 * @returns The raw DEFLATE stream (RFC 1951).
 *
 * @example Usage
 * ```ts
 * import { deflateRawJs } from "./deflate_raw.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const text = new TextEncoder().encode("to be or not to be, ".repeat(50));
 * const packed = deflateRawJs(text);
 * assert(packed.length < 60);
 * assertEquals(deflateRawJs(text), packed);
 *
 * // Any raw DEFLATE inflater reads it, the platform's own included.
 * const inflated = new Blob([packed.slice()]).stream()
 *   .pipeThrough(new DecompressionStream("deflate-raw"));
 * assertEquals(await new Response(inflated).bytes(), text);
 * ```
 */
export function deflateRawJs(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  input = bytes;
  outPos = 0;
  bitBuf = 0;
  bitCount = 0;
  pendingStart = 0;
  pendingEnd = 0;
  reserve(n + (n >> 10) + 64);
  try {
    if (n === 0) {
      // An empty fixed-Huffman final block: header and end-of-block code.
      putBits(3, 3);
      putCode(FIXED_LIT_TABLE[256]!);
    } else {
      for (let from = 0; from < n; from += SEGMENT) {
        const to = Math.min(n, from + SEGMENT);
        compressSegment(bytes, from, to, to === n);
      }
    }
    alignToByte();
    if (outPos > out.length) throw new Error("deflateRawJs: output overran its buffer");
    return out.slice(0, outPos);
  } finally {
    input = EMPTY;
    if (out.length > KEEP_OUTPUT) out = new Uint8Array(1 << 16);
  }
}
