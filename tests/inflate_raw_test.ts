// Copyright 2026 the taskpack authors. MIT license.
// The core's raw DEFLATE decoder, as the ZIP reader calls it (`inflateRawStrict`: its WebAssembly
// build here; `tests/wasm_test.ts` holds its script to the same answers), against zlib: round trips of whatever zlib's deflater makes
// (every level, strategy and window size), hand-built streams for every refusal, every cut of
// several streams, and mutated streams, where it must accept, refuse and flag trailing bytes
// exactly as zlib's own inflater does.
//
//   deno test -A tests/inflate_raw_test.ts
//   TASKPACK_FUZZ_RUNS=100000 deno test -A tests/inflate_raw_test.ts   # longer differential fuzz
import assert from "node:assert/strict";
import {
  constants,
  createDeflateRaw,
  deflateRawSync,
  inflateRawSync,
  type ZlibOptions,
} from "node:zlib";
import fc from "npm:fast-check@4.11.0";
import {
  CODE_LENGTH_ORDER,
  DISTANCE_BASE,
  DISTANCE_EXTRA,
  LENGTH_BASE,
  LENGTH_EXTRA,
} from "../lib/zip/deflate_tables.ts";
import { inflateRawStrict } from "../lib/zip/deflate.ts";

type Outcome = { bytes: Uint8Array } | { problem: "trailing" | "too-large" | "corrupt" };

const FUZZ_RUNS = Number(Deno.env.get("TASKPACK_FUZZ_RUNS") ?? 1500);
const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text);

function deflate(bytes: Uint8Array, options: ZlibOptions = {}): Uint8Array {
  const out = deflateRawSync(bytes, options);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/**
 * zlib's verdict on a whole stream: its output, `trailing` when it finds bytes after the end of
 * the stream, `corrupt` for any other error.
 */
function zlibInflate(data: Uint8Array): Outcome {
  try {
    const out = inflateRawSync(data, { rejectGarbageAfterEnd: true } as ZlibOptions);
    return { bytes: new Uint8Array(out.buffer, out.byteOffset, out.length) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { problem: code === "ERR_TRAILING_JUNK_AFTER_STREAM_END" ? "trailing" : "corrupt" };
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function describe(outcome: Outcome): string {
  return "bytes" in outcome ? `${outcome.bytes.length} bytes` : outcome.problem;
}

/** Asserts that `actual` is exactly `expected` (bytes or a problem). */
function assertOutcome(actual: Outcome, expected: Outcome, what: string): void {
  if ("bytes" in expected) {
    assert.ok(
      "bytes" in actual && sameBytes(actual.bytes, expected.bytes),
      `${what}: expected ${describe(expected)}, got ${describe(actual)}`,
    );
  } else {
    assert.deepEqual(actual, expected, what);
  }
}

/** Puts `data` in the middle of a larger buffer of junk: the decoder must not look outside. */
function embedded(data: Uint8Array, junk: number): Uint8Array {
  const buffer = new Uint8Array(data.length + 2 * junk).fill(0xa5);
  buffer.set(data, junk);
  return buffer.subarray(junk, junk + data.length);
}

/** A small deterministic generator, so that generated data shrinks with its seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

function logText(size: number): Uint8Array {
  let text = "";
  for (let i = 0; text.length < size; i++) {
    text += `2026-01-01T00:${String(i % 60).padStart(2, "0")}:00Z INFO worker=${i % 17} ` +
      `job=${i} took ${(i * 7919) % 1000} ms status=${i % 13 === 0 ? "retry" : "ok"}\n`;
  }
  return utf8(text.slice(0, size));
}

function randomBytes(size: number, seed: number): Uint8Array {
  const next = prng(seed);
  return Uint8Array.from({ length: size }, () => Math.floor(next() * 256));
}

// ---------------------------------------------------------------------------------------------
// Generated data and deflater settings

const MAX_GENERATED = 200 * 1024;
const WORDS = ["the", "task", "pack", "zip", "entry", " ", "\n", "deflate", "a", "of", "="];

/** One piece of compressible data. */
const piece = fc.oneof(
  fc.record({ run: fc.integer({ min: 0, max: 255 }), length: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ words: fc.array(fc.nat(WORDS.length - 1), { maxLength: 400, size: "max" }) }),
  fc.record({
    alphabet: fc.integer({ min: 1, max: 6 }),
    length: fc.integer({ min: 1, max: 6000 }),
    seed: fc.nat(),
  }),
  // Copies of earlier data: long matches, near and far, and overlapping ones (distance 1 up).
  fc.record({
    distance: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 40_000 })),
    length: fc.integer({ min: 1, max: 20_000 }),
  }),
  fc.record({ random: fc.uint8Array({ maxLength: 600, size: "max" }) }),
  // Bytes of very uneven frequency: Huffman codes up to the 15-bit limit.
  fc.record({ skewed: fc.nat(), length: fc.integer({ min: 1, max: 8000 }) }),
);

type Piece =
  | { run: number; length: number }
  | { words: number[] }
  | { alphabet: number; length: number; seed: number }
  | { distance: number; length: number }
  | { random: Uint8Array }
  | { skewed: number; length: number };

function build(pieces: Piece[], max: number): Uint8Array {
  const out = new Uint8Array(max);
  let at = 0;
  const push = (byte: number) => {
    if (at < max) out[at++] = byte;
  };
  for (const p of pieces) {
    if (at >= max) break;
    if ("run" in p) {
      for (let i = 0; i < p.length; i++) push(p.run);
    } else if ("words" in p) {
      for (const w of p.words) for (const c of utf8(WORDS[w]!)) push(c);
    } else if ("alphabet" in p) {
      const next = prng(p.seed);
      for (let i = 0; i < p.length; i++) push(97 + Math.floor(next() * p.alphabet));
    } else if ("distance" in p) {
      if (at === 0) continue;
      const from = at - Math.min(p.distance, at);
      for (let i = 0; i < p.length; i++) push(out[from + i]!);
    } else if ("random" in p) {
      for (const b of p.random) push(b);
    } else {
      const next = prng(p.skewed);
      // Geometric: byte k with probability about 2^-(k+1).
      for (let i = 0; i < p.length; i++) {
        push(Math.min(255, Math.floor(-Math.log2(next() || 1e-9))));
      }
    }
  }
  return out.subarray(0, at);
}

const compressible = (max: number) =>
  fc.array(piece, { maxLength: 40, size: "max" }).map((pieces) => build(pieces as Piece[], max));

/** Short and long random bytes, and compressible data up to `max` bytes. */
const anyBytes = (max: number) =>
  fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.uint8Array({ maxLength: Math.min(max, 20_000), size: "max" }),
    compressible(max),
  );

/** Deflater settings: every level, strategy, window size and memory level zlib offers. */
const zlibOptions = fc.record({
  level: fc.constantFrom(0, 1, 6, 9),
  strategy: fc.constantFrom(
    constants.Z_DEFAULT_STRATEGY,
    constants.Z_HUFFMAN_ONLY,
    constants.Z_RLE,
    constants.Z_FIXED,
    constants.Z_FILTERED,
  ),
  windowBits: fc.integer({ min: 9, max: 15 }),
  memLevel: fc.integer({ min: 1, max: 9 }),
});

// ---------------------------------------------------------------------------------------------
// Hand-built streams

/** Writes bits least significant first, as DEFLATE packs them. */
class BitWriter {
  #bytes: number[] = [];
  #byte = 0;
  #count = 0;

  /** Writes the low `count` bits of `value` (header fields, extra bits). */
  bits(value: number, count: number): this {
    for (let i = 0; i < count; i++) {
      this.#byte |= ((value >>> i) & 1) << this.#count;
      if (++this.#count === 8) this.#flush();
    }
    return this;
  }

  /** Writes a Huffman code, most significant bit first (RFC 1951, 3.1.1). */
  code(code: number, length: number): this {
    for (let i = length - 1; i >= 0; i--) this.bits((code >>> i) & 1, 1);
    return this;
  }

  /** Pads to a byte boundary with `padding` (its low bits fill the unused bits). */
  align(padding = 0): this {
    if (this.#count > 0) this.bits(padding, 8 - this.#count);
    return this;
  }

  raw(bytes: ArrayLike<number>): this {
    assert.equal(this.#count, 0, "raw bytes must start on a byte boundary");
    for (let i = 0; i < bytes.length; i++) this.#bytes.push(bytes[i]!);
    return this;
  }

  /** The stream, its last byte padded with `padding`. */
  done(padding = 0): Uint8Array {
    this.align(padding);
    return Uint8Array.from(this.#bytes);
  }

  #flush(): void {
    this.#bytes.push(this.#byte);
    this.#byte = 0;
    this.#count = 0;
  }
}

/** A fixed-Huffman literal/length symbol (RFC 1951, 3.2.6). */
function fixedSymbol(w: BitWriter, symbol: number): BitWriter {
  if (symbol < 144) return w.code(0x30 + symbol, 8);
  if (symbol < 256) return w.code(0x190 + symbol - 144, 9);
  if (symbol < 280) return w.code(symbol - 256, 7);
  return w.code(0xc0 + symbol - 280, 8);
}

/** A fixed-Huffman distance symbol: five bits. */
function fixedDistance(w: BitWriter, symbol: number): BitWriter {
  return w.code(symbol, 5);
}

/** Canonical Huffman codes for code lengths (RFC 1951, 3.2.2). */
function canonical(lengths: readonly number[]): number[] {
  const count = new Array<number>(16).fill(0);
  for (const n of lengths) if (n > 0) count[n]!++;
  const next = new Array<number>(16).fill(0);
  let code = 0;
  for (let bits = 1; bits < 16; bits++) {
    code = (code + count[bits - 1]!) << 1;
    next[bits] = code;
  }
  return lengths.map((n) => (n > 0 ? next[n]!++ : -1));
}

/** A complete code-length code: lengths 0-15 in five bits, 16 in two, 17 and 18 in three. */
const CL_LENGTHS = [...new Array<number>(16).fill(5), 2, 3, 3];

interface Dynamic {
  final?: boolean;
  /** Literal/length code lengths; their count is HLIT. */
  lit: number[];
  /** Distance code lengths; their count is HDIST. */
  dist: number[];
  /** The code-length code, by symbol (default CL_LENGTHS). */
  cl?: number[];
  /** Code-length symbols to send, with their repeat bits (default: `lit` then `dist`, plain). */
  sequence?: [symbol: number, extra?: number][];
  /** Overrides the HLIT and HDIST fields. */
  hlit?: number;
  hdist?: number;
}

/** Writes a dynamic block header; returns the literal/length and distance codes. */
function dynamicHeader(w: BitWriter, block: Dynamic): { lit: number[]; dist: number[] } {
  const cl = block.cl ?? CL_LENGTHS;
  w.bits(block.final === false ? 0 : 1, 1).bits(2, 2);
  w.bits(block.hlit ?? block.lit.length - 257, 5);
  w.bits(block.hdist ?? block.dist.length - 1, 5);
  w.bits(19 - 4, 4);
  for (const symbol of CODE_LENGTH_ORDER) w.bits(cl[symbol]!, 3);
  const clCodes = canonical(cl);
  const sequence = block.sequence ??
    [...block.lit, ...block.dist].map((n): [number, number?] => [n]);
  for (const [symbol, extra] of sequence) {
    w.code(clCodes[symbol]!, cl[symbol]!);
    if (symbol === 16) w.bits(extra!, 2);
    if (symbol === 17) w.bits(extra!, 3);
    if (symbol === 18) w.bits(extra!, 7);
  }
  return { lit: canonical(block.lit), dist: canonical(block.dist) };
}

/** Code lengths with `set` filled in, the rest zero. */
function lengths(count: number, set: Record<number, number>): number[] {
  const out = new Array<number>(count).fill(0);
  for (const [symbol, length] of Object.entries(set)) out[Number(symbol)] = length;
  return out;
}

/**
 * A dynamic final block: `body` writes symbols with the block's codes (`lit(symbol)`,
 * `dist(symbol)`); the end-of-block code follows.
 */
function dynamicStream(
  block: Dynamic,
  body: (lit: (symbol: number) => void, dist: (symbol: number) => void, w: BitWriter) => void,
): Uint8Array {
  const w = new BitWriter();
  const codes = dynamicHeader(w, block);
  const lit = (symbol: number) => void w.code(codes.lit[symbol]!, block.lit[symbol]!);
  const dist = (symbol: number) => void w.code(codes.dist[symbol]!, block.dist[symbol]!);
  body(lit, dist, w);
  if (block.lit[256]! > 0) lit(256);
  return w.done();
}

/** A fixed final block of `symbols`: numbers are literal/length symbols, [d] a distance. */
function fixedStream(symbols: (number | [number, extra?: [number, number]])[]): Uint8Array {
  const w = new BitWriter().bits(1, 1).bits(1, 2);
  for (const s of symbols) {
    if (typeof s === "number") fixedSymbol(w, s);
    else {
      fixedDistance(w, s[0]);
      if (s[1]) w.bits(s[1][0], s[1][1]);
    }
  }
  return fixedSymbol(w, 256).done();
}

/** A stored block of `bytes` (LEN and NLEN as given, or right). */
function storedBlock(w: BitWriter, final: boolean, bytes: Uint8Array, nlen?: number): BitWriter {
  w.bits(final ? 1 : 0, 1).bits(0, 2).align();
  w.raw([bytes.length & 0xff, bytes.length >>> 8]);
  const n = nlen ?? (bytes.length ^ 0xffff);
  return w.raw([n & 0xff, n >>> 8]).raw(bytes);
}

/** A symbol and its extra bits: `[symbol, value, bits]`. */
function lengthCode(length: number): [number, number, number] {
  let i = LENGTH_BASE.length - 1;
  while (LENGTH_BASE[i]! > length) i--;
  return [257 + i, length - LENGTH_BASE[i]!, LENGTH_EXTRA[i]!];
}

function distanceCode(distance: number): [number, number, number] {
  let i = DISTANCE_BASE.length - 1;
  while (DISTANCE_BASE[i]! > distance) i--;
  return [i, distance - DISTANCE_BASE[i]!, DISTANCE_EXTRA[i]!];
}

type Op = { literal: number } | { length: number; distance: number };

/** What `ops` expand to after `prefix`, one byte at a time: the reference for matches. */
function expand(prefix: Uint8Array, ops: Op[]): Uint8Array {
  const out = [...prefix];
  for (const op of ops) {
    if ("literal" in op) out.push(op.literal);
    else for (let i = 0; i < op.length; i++) out.push(out[out.length - op.distance]!);
  }
  return Uint8Array.from(out);
}

/**
 * Random complete code lengths for `symbols` (a lone symbol gets one bit): leaves of a binary
 * tree split at random, often the newest one, so that some codes reach the 15-bit limit.
 */
function randomCode(symbols: number[], count: number, next: () => number): number[] {
  const depths = [0];
  while (depths.length < symbols.length) {
    let i = next() < 0.5 ? depths.length - 1 : Math.floor(next() * depths.length);
    while (depths[i]! >= 15) i = (i + 1) % depths.length;
    depths[i]!++;
    depths.push(depths[i]!);
  }
  const out = new Array<number>(count).fill(0);
  symbols.forEach((symbol, k) => (out[symbol] = Math.max(1, depths[k]!)));
  return out;
}

/**
 * `prefix` in a stored block, then `ops` in a final block: fixed codes, or random complete
 * dynamic codes (from `seed`) for the symbols used and some unused ones.
 */
function lz77Stream(prefix: Uint8Array, ops: Op[], seed: number | null): Uint8Array {
  const w = new BitWriter();
  if (prefix.length > 0) storedBlock(w, false, prefix);
  let lit = (symbol: number) => void fixedSymbol(w, symbol);
  let dist = (symbol: number) => void fixedDistance(w, symbol);
  if (seed === null) {
    w.bits(1, 1).bits(1, 2);
  } else {
    const next = prng(seed);
    const lits = new Set([256]);
    const dists = new Set<number>();
    for (const op of ops) {
      if ("literal" in op) lits.add(op.literal);
      else {
        lits.add(lengthCode(op.length)[0]);
        dists.add(distanceCode(op.distance)[0]);
      }
    }
    for (let i = Math.floor(next() * 40); i > 0; i--) lits.add(Math.floor(next() * 286));
    for (let i = Math.floor(next() * 8); i > 0; i--) dists.add(Math.floor(next() * 30));
    const litLengths = randomCode([...lits], Math.max(257, ...lits) + 1, next);
    const distLengths = dists.size === 0
      ? [0]
      : randomCode([...dists], Math.max(...dists) + 1, next);
    const codes = dynamicHeader(w, { lit: litLengths, dist: distLengths });
    lit = (symbol) => void w.code(codes.lit[symbol]!, litLengths[symbol]!);
    dist = (symbol) => void w.code(codes.dist[symbol]!, distLengths[symbol]!);
  }
  for (const op of ops) {
    if ("literal" in op) lit(op.literal);
    else {
      const [symbol, extra, bits] = lengthCode(op.length);
      lit(symbol);
      w.bits(extra, bits);
      const [dSymbol, dExtra, dBits] = distanceCode(op.distance);
      dist(dSymbol);
      w.bits(dExtra, dBits);
    }
  }
  lit(256);
  return w.done();
}

const A = 97;
const B = 98;

/** Hand-built streams, what they must inflate to, and why. */
const TABLE: { name: string; data: Uint8Array; size?: number; expect: Outcome }[] = [
  // Block types.
  { name: "BTYPE=3, final", data: Uint8Array.of(0b111), expect: { problem: "corrupt" } },
  { name: "BTYPE=3, not final", data: Uint8Array.of(0b110, 0), expect: { problem: "corrupt" } },
  {
    name: "BTYPE=3 in front of a valid dynamic block",
    data: (() => {
      const data = deflate(logText(2000), { level: 9 });
      assert.equal(data[0]! & 7, 0b101);
      data[0] = data[0]! | 0b111;
      return data;
    })(),
    expect: { problem: "corrupt" },
  },
  {
    name: "empty fixed block (the empty stream)",
    data: Uint8Array.of(0x03, 0x00),
    expect: { bytes: new Uint8Array(0) },
  },
  {
    name: "padding bits after the end are ignored",
    data: Uint8Array.of(0x03, 0xfc),
    expect: { bytes: new Uint8Array(0) },
  },
  {
    name: "empty stored final block",
    data: storedBlock(new BitWriter(), true, new Uint8Array(0)).done(),
    expect: { bytes: new Uint8Array(0) },
  },
  // Stored blocks.
  {
    name: "stored then fixed",
    data: fixedSymbol(
      fixedSymbol(storedBlock(new BitWriter(), false, utf8("hello")).bits(1, 1).bits(1, 2), A),
      256,
    ).done(),
    expect: { bytes: utf8("helloa") },
  },
  {
    name: "stored: NLEN is not the complement of LEN",
    data: storedBlock(new BitWriter(), true, utf8("hello"), 5 ^ 0xfffe).done(),
    expect: { problem: "corrupt" },
  },
  {
    name: "stored: NLEN equal to LEN",
    data: storedBlock(new BitWriter(), true, utf8("hello"), 5).done(),
    expect: { problem: "corrupt" },
  },
  {
    name: "stored: LEN past the end of the data",
    data: storedBlock(new BitWriter(), true, utf8("hello")).done().subarray(0, 8),
    expect: { problem: "corrupt" },
  },
  {
    name: "stored block after bits of a fixed one: aligned to the next byte",
    data: storedBlock(
      fixedSymbol(fixedSymbol(new BitWriter().bits(0, 1).bits(1, 2), B), 256),
      true,
      utf8("xyz"),
    ).done(),
    expect: { bytes: utf8("bxyz") },
  },
  // Fixed codes.
  {
    name: "fixed: literal, then length 3 at distance 1 (overlapping)",
    data: fixedStream([A, 257, [0]]),
    expect: { bytes: utf8("aaaa") },
  },
  {
    name: "fixed: distance exactly back to the start",
    data: fixedStream([A, B, 258, [1]]),
    expect: { bytes: utf8("ababab") },
  },
  {
    name: "fixed: distance before the start of the output",
    data: fixedStream([A, 257, [1]]),
    expect: { problem: "corrupt" },
  },
  {
    name: "fixed: a match before any output",
    data: fixedStream([257, [0]]),
    expect: { problem: "corrupt" },
  },
  {
    name: "fixed: the farthest distance, 32768",
    data: (() => {
      const w = storedBlock(new BitWriter(), false, new Uint8Array(32768).fill(7, 0, 1));
      w.bits(1, 1).bits(1, 2);
      fixedSymbol(w, 257);
      fixedDistance(w, 29).bits(8191, 13);
      return fixedSymbol(w, 256).done();
    })(),
    expect: {
      bytes: (() => {
        const out = new Uint8Array(32771);
        out.fill(7, 0, 1).fill(7, 32768, 32769);
        return out;
      })(),
    },
  },
  {
    name: "fixed: length 258 (symbol 285)",
    data: fixedStream([A, 285, [0]]),
    expect: { bytes: new Uint8Array(259).fill(A) },
  },
  {
    name: "fixed: symbol 284 with all extra bits set (length 258, as zlib takes it)",
    data: (() => {
      const w = new BitWriter().bits(1, 1).bits(1, 2);
      fixedSymbol(w, A);
      fixedSymbol(w, 284).bits(31, 5);
      fixedDistance(w, 0);
      return fixedSymbol(w, 256).done();
    })(),
    expect: { bytes: new Uint8Array(259).fill(A) },
  },
  {
    name: "fixed: literal/length symbol 286",
    data: fixedStream([A, 286, [0]]),
    expect: { problem: "corrupt" },
  },
  {
    name: "fixed: literal/length symbol 287",
    data: fixedStream([A, 287, [0]]),
    expect: { problem: "corrupt" },
  },
  {
    name: "fixed: distance symbol 30",
    data: fixedStream([A, 257, [30]]),
    expect: { problem: "corrupt" },
  },
  {
    name: "fixed: distance symbol 31",
    data: fixedStream([A, 257, [31]]),
    expect: { problem: "corrupt" },
  },
  {
    name: "no final block: the data ends after a non-final one",
    data: deflate(utf8("abc"), { finishFlush: constants.Z_SYNC_FLUSH }),
    expect: { problem: "corrupt" },
  },
  // Dynamic codes.
  {
    name: "dynamic: complete codes",
    data: dynamicStream(
      { lit: lengths(258, { [A]: 1, 256: 2, 257: 2 }), dist: [1, 1] },
      (lit, dist) => {
        lit(A);
        lit(257);
        dist(0);
      },
    ),
    expect: { bytes: utf8("aaaa") },
  },
  {
    name: "dynamic: over-subscribed literal/length code",
    data: dynamicStream({ lit: lengths(257, { [A]: 1, [B]: 1, 256: 1 }), dist: [1, 1] }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: incomplete literal/length code",
    data: dynamicStream({ lit: lengths(257, { [A]: 1, 256: 2 }), dist: [1, 1] }, (lit) => lit(A)),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: a lone one-bit end-of-block code (zlib takes it)",
    data: dynamicStream({ lit: lengths(257, { 256: 1 }), dist: [0] }, () => {}),
    expect: { bytes: new Uint8Array(0) },
  },
  {
    name: "dynamic: a lone one-bit end-of-block code, its unused pattern sent",
    data: dynamicStream({ lit: lengths(257, { 256: 1 }), dist: [0] }, (_lit, _dist, w) => {
      w.code(1, 1);
    }),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: a lone two-bit end-of-block code",
    data: dynamicStream({ lit: lengths(257, { 256: 2 }), dist: [0] }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: no end-of-block code",
    data: dynamicStream({ lit: lengths(257, { [A]: 1, [B]: 1 }), dist: [1, 1] }, (lit) => lit(A)),
    expect: { problem: "corrupt" },
  },
  {
    // Refused at its header, before it could run past the size.
    name: "dynamic: no end-of-block code, more literals than the size allows",
    data: dynamicStream({ lit: lengths(257, { [A]: 1, [B]: 1 }), dist: [1, 1] }, (lit) => {
      for (let i = 0; i < 50; i++) lit(A);
    }),
    size: 10,
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: a lone one-bit distance code (zlib takes it)",
    data: dynamicStream(
      { lit: lengths(258, { [A]: 1, 256: 2, 257: 2 }), dist: [0, 1] },
      (lit, dist) => {
        lit(A);
        lit(A);
        lit(257);
        dist(1);
      },
    ),
    expect: { bytes: utf8("aaaaa") },
  },
  {
    name: "dynamic: a lone one-bit distance code, its unused pattern sent",
    data: dynamicStream(
      { lit: lengths(258, { [A]: 1, 256: 2, 257: 2 }), dist: [1] },
      (lit, _dist, w) => {
        lit(A);
        lit(257);
        w.code(1, 1);
      },
    ),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: a lone two-bit distance code",
    data: dynamicStream(
      { lit: lengths(258, { [A]: 1, 256: 2, 257: 2 }), dist: [2] },
      (lit, dist) => {
        lit(A);
        lit(257);
        dist(0);
      },
    ),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: no distance codes, literals only",
    data: dynamicStream({ lit: lengths(257, { [A]: 1, 256: 1 }), dist: [0] }, (lit) => {
      lit(A);
      lit(A);
    }),
    expect: { bytes: utf8("aa") },
  },
  {
    name: "dynamic: no distance codes, a match",
    data: dynamicStream(
      { lit: lengths(258, { [A]: 1, 256: 2, 257: 2 }), dist: [0] },
      (lit, _dist, w) => {
        lit(A);
        lit(257);
        w.bits(0, 8);
      },
    ),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: over-subscribed distance code",
    data: dynamicStream(
      { lit: lengths(258, { [A]: 1, 256: 2, 257: 2 }), dist: [1, 1, 1] },
      (lit) => lit(A),
    ),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: incomplete distance code of two codes",
    data: dynamicStream(
      { lit: lengths(258, { [A]: 1, 256: 2, 257: 2 }), dist: [1, 2] },
      (lit) => lit(A),
    ),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: incomplete code-length code",
    data: dynamicStream({
      lit: lengths(257, { [A]: 1, 256: 1 }),
      dist: [1, 1],
      cl: [...new Array<number>(16).fill(5), 0, 0, 0],
    }, (lit) => lit(A)),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: code-length code of one one-bit code",
    data: dynamicStream({
      lit: lengths(257, {}),
      dist: [0],
      cl: lengths(19, { 0: 1 }),
    }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: over-subscribed code-length code",
    data: dynamicStream({
      lit: lengths(257, { [A]: 1, 256: 1 }),
      dist: [1, 1],
      cl: new Array<number>(19).fill(4),
    }, (lit) => lit(A)),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: repeats of every kind, one running from literal into distance lengths",
    data: dynamicStream({
      lit: lengths(258, { [A]: 1, 256: 2, 257: 2 }),
      dist: [2, 2, 2, 2],
      // 97 zeros, A's 1, 158 zeros, 256's 2, then 2 five times more: 257 and all four distances.
      sequence: [[18, 97 - 11], [1], [18, 138 - 11], [17, 10 - 3], [17, 10 - 3], [2], [16, 5 - 3]],
    }, (lit, dist) => {
      lit(A);
      lit(257);
      dist(0);
    }),
    expect: { bytes: utf8("aaaa") },
  },
  {
    name: "dynamic: repeat of the previous length with none before it",
    data: dynamicStream({
      lit: lengths(257, { 256: 1 }),
      dist: [1, 1],
      // Read as three zeros, the rest would be a valid block.
      sequence: [[16, 0], [18, 138 - 11], [18, 115 - 11], [1], [1], [1]],
    }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    // In these, the lengths sent would make a valid block if the repeat were cut short.
    name: "dynamic: three zeros where two lengths are left",
    data: dynamicStream({
      lit: lengths(257, { 256: 1 }),
      dist: [0, 0],
      sequence: [[18, 138 - 11], [18, 118 - 11], [1], [17, 0]],
    }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: eleven zeros where ten lengths are left",
    data: dynamicStream({
      lit: lengths(257, { 256: 1 }),
      dist: new Array<number>(10).fill(0),
      sequence: [[18, 138 - 11], [18, 118 - 11], [1], [18, 0]],
    }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: three more of the previous length where two are left",
    data: dynamicStream({
      lit: lengths(257, { 256: 1 }),
      dist: [1, 1],
      sequence: [[18, 138 - 11], [18, 118 - 11], [1], [16, 0]],
    }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: the same, fitting",
    data: dynamicStream({
      lit: lengths(257, { 256: 1 }),
      dist: [1, 1],
      sequence: [[18, 138 - 11], [18, 118 - 11], [1], [1], [1]],
    }, () => {}),
    expect: { bytes: new Uint8Array(0) },
  },
  {
    name: "dynamic: HLIT of 286 codes (the most)",
    data: dynamicStream({ lit: lengths(286, { [A]: 1, 256: 1 }), dist: [1, 1] }, (lit) => {
      lit(A);
    }),
    expect: { bytes: utf8("a") },
  },
  {
    name: "dynamic: HLIT of 287 codes",
    data: dynamicStream({ lit: lengths(287, { [A]: 1, 256: 1 }), dist: [1, 1] }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: HLIT of 288 codes",
    data: dynamicStream({ lit: lengths(288, { [A]: 1, 256: 1 }), dist: [1, 1] }, () => {}),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: HDIST of 30 codes (the most)",
    data: dynamicStream({ lit: lengths(257, { [A]: 1, 256: 1 }), dist: lengths(30, { 0: 1 }) }, (
      lit,
    ) => lit(A)),
    expect: { bytes: utf8("a") },
  },
  {
    name: "dynamic: HDIST of 31 codes",
    data: dynamicStream({ lit: lengths(257, { [A]: 1, 256: 1 }), dist: lengths(31, { 0: 1 }) }, (
      lit,
    ) => lit(A)),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: HDIST of 32 codes",
    data: dynamicStream({ lit: lengths(257, { [A]: 1, 256: 1 }), dist: lengths(32, { 0: 1 }) }, (
      lit,
    ) => lit(A)),
    expect: { problem: "corrupt" },
  },
  {
    name: "dynamic: 15-bit codes (secondary tables)",
    data: (() => {
      // Lengths 1, 2, ..., 14, 15, 15: complete codes with a code of every length, the
      // matches' lengths and distances among the longest.
      const set: Record<number, number> = {};
      for (let i = 0; i < 14; i++) set[i] = i + 1;
      set[256] = 15;
      set[257] = 15;
      const dist = [15, 15, ...Array.from({ length: 14 }, (_, i) => 14 - i)];
      return dynamicStream({ lit: lengths(258, set), dist }, (lit, dist) => {
        for (let i = 0; i < 14; i++) lit(i);
        for (const d of [0, 1, 2]) {
          lit(257);
          dist(d);
        }
        lit(13);
      });
    })(),
    expect: {
      bytes: Uint8Array.of(...Array.from({ length: 14 }, (_, i) => i), ...new Array(10).fill(13)),
    },
  },
  {
    // Long codes followed by their extra bits, at every alignment in the bit buffer.
    name: "dynamic: 15-bit length and distance codes with extra bits",
    ...(() => {
      const set: Record<number, number> = {};
      for (let i = 0; i < 14; i++) set[i] = i + 1;
      set[256] = 15;
      set[284] = 15;
      const dist = [...Array.from({ length: 14 }, (_, i) => i + 1), 15, 15];
      const ops: Op[] = [];
      for (let i = 0; i < 280; i++) ops.push({ literal: i % 14 });
      for (let i = 0; i < 40; i++) {
        ops.push({ length: 227 + (i % 32), distance: 193 + i });
        for (let k = 0; k < i % 3; k++) ops.push({ literal: 13 - k });
      }
      const data = dynamicStream({ lit: lengths(285, set), dist }, (lit, dist, w) => {
        for (const op of ops) {
          if ("literal" in op) lit(op.literal);
          else {
            lit(284);
            w.bits(op.length - 227, 5);
            dist(15);
            w.bits(op.distance - 193, 6);
          }
        }
      });
      return { data, expect: { bytes: expand(new Uint8Array(0), ops) } };
    })(),
  },
];

// ---------------------------------------------------------------------------------------------
// Tests

// The differential checks below need a zlib that tells trailing bytes and cut streams apart.
Deno.test("zlib here refuses trailing bytes and cut streams", () => {
  const packed = deflate(utf8("hello"));
  assert.deepEqual(zlibInflate(new Uint8Array([...packed, 0])), { problem: "trailing" });
  assert.deepEqual(zlibInflate(packed.subarray(0, packed.length - 1)), { problem: "corrupt" });
  assertOutcome(zlibInflate(packed), { bytes: utf8("hello") }, "zlib");
});

Deno.test("round trip: any bytes, any deflater settings", () => {
  fc.assert(
    fc.property(anyBytes(MAX_GENERATED), zlibOptions, fc.nat(16), (bytes, options, junk) => {
      const packed = deflate(bytes, options);
      assertOutcome(
        inflateRawStrict(embedded(packed, junk), bytes.length),
        { bytes },
        JSON.stringify(options),
      );
    }),
    { numRuns: 150 },
  );
});

Deno.test("round trip: large compressible data, every level and strategy", () => {
  const text = logText(150_000);
  const data = build([
    { run: 0, length: 70_000 },
    { distance: 1, length: 10 },
    { alphabet: 3, length: 20_000, seed: 7 },
    { skewed: 3, length: 20_000 },
    { distance: 32_768, length: 40_000 },
    { random: randomBytes(3000, 9) },
  ], MAX_GENERATED);
  for (const input of [text, data]) {
    for (const level of [0, 1, 6, 9]) {
      for (
        const strategy of [
          constants.Z_DEFAULT_STRATEGY,
          constants.Z_HUFFMAN_ONLY,
          constants.Z_RLE,
          constants.Z_FIXED,
        ]
      ) {
        const packed = deflate(input, { level, strategy });
        assertOutcome(
          inflateRawStrict(packed, input.length),
          { bytes: input },
          `${level}/${strategy}`,
        );
      }
    }
  }
});

Deno.test("matches of every length and distance, under fixed and random dynamic codes", () => {
  const op = fc.oneof(
    fc.record({ literal: fc.integer({ min: 0, max: 255 }) }),
    fc.record({
      length: fc.oneof(fc.integer({ min: 3, max: 12 }), fc.integer({ min: 3, max: 258 })),
      distance: fc.oneof(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 32_768 }),
      ),
    }),
  );
  fc.assert(
    fc.property(
      fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40_000 })),
      fc.array(op, { maxLength: 200, size: "max" }),
      fc.option(fc.nat()),
      (prefixLength, rawOps, seed) => {
        const prefix = randomBytes(prefixLength, prefixLength + 1);
        // Matches reach back no further than the output so far: clip (often to its start).
        const ops: Op[] = [];
        let produced = prefix.length;
        for (const op of rawOps) {
          if ("literal" in op) ops.push(op);
          else if (produced > 0) ops.push({ ...op, distance: Math.min(op.distance, produced) });
          produced += "literal" in op ? 1 : produced > 0 ? op.length : 0;
        }
        const expected = expand(prefix, ops);
        const data = lz77Stream(prefix, ops, seed);
        assertOutcome(zlibInflate(data), { bytes: expected }, "zlib");
        assertOutcome(inflateRawStrict(data, expected.length), { bytes: expected }, "ours");
        if (expected.length > 0) {
          assert.deepEqual(inflateRawStrict(data, expected.length - 1), { problem: "too-large" });
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("round trip: codes at the 15-bit limit, matches at every distance code", () => {
  // Literals with Fibonacci frequencies: the optimal code would be far deeper than 15 bits.
  const next = prng(5);
  const parts: number[] = [];
  let a = 1;
  let b = 1;
  for (let symbol = 0; symbol < 30; symbol++) {
    for (let i = 0; i < a; i++) parts.push(symbol);
    [a, b] = [b, a + b];
  }
  for (let i = parts.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [parts[i], parts[j]] = [parts[j]!, parts[i]!];
  }
  const skewed = Uint8Array.from(parts.slice(0, 300_000));
  // Matches at distances of every distance code, with uneven frequencies, among random bytes.
  const out = Array.from(randomBytes(40_000, 11));
  for (let i = 0; i < 3000; i++) {
    const code = Math.min(29, Math.floor(-Math.log2(next() || 1e-9) * 3));
    const distance = DISTANCE_BASE[code]! + Math.floor(next() * 4);
    for (let k = 0; k < 6; k++) out.push(out[out.length - distance]!);
    out.push(Math.floor(next() * 256));
  }
  const far = Uint8Array.from(out);
  for (const input of [skewed, far]) {
    for (const strategy of [constants.Z_DEFAULT_STRATEGY, constants.Z_HUFFMAN_ONLY]) {
      const packed = deflate(input, { level: 9, strategy });
      assertOutcome(inflateRawStrict(packed, input.length), { bytes: input }, `${strategy}`);
    }
  }
});

/** A stream of stored, fixed and dynamic blocks from one deflater, flushed between them. */
async function mixedStream(): Promise<{ data: Uint8Array; bytes: Uint8Array; types: number[] }> {
  const deflater = createDeflateRaw({ level: 6 });
  const chunks: Uint8Array[] = [];
  deflater.on("data", (chunk: Uint8Array) => chunks.push(chunk));
  const ended = new Promise((resolve) => deflater.on("end", resolve));
  const flush = () =>
    new Promise<void>((resolve) => deflater.flush(constants.Z_SYNC_FLUSH, resolve));
  const params = (level: number, strategy: number) =>
    new Promise<void>((resolve) => deflater.params(level, strategy, () => resolve()));
  const inputs: Uint8Array[] = [];
  const starts: number[] = [];
  const sent = () => chunks.reduce((n, chunk) => n + chunk.length, 0);
  const segment = async (bytes: Uint8Array) => {
    starts.push(sent());
    inputs.push(bytes);
    deflater.write(bytes);
    await flush();
  };
  await segment(logText(5000)); // Dynamic.
  await params(0, constants.Z_DEFAULT_STRATEGY);
  await segment(logText(3000)); // Stored (and refers to nothing).
  await params(6, constants.Z_FIXED);
  await segment(logText(4000).subarray(500)); // Fixed, with matches into the blocks before.
  await params(9, constants.Z_DEFAULT_STRATEGY);
  await segment(logText(6000)); // Dynamic again.
  starts.push(sent());
  deflater.end();
  await ended;
  const data = new Uint8Array(sent());
  let at = 0;
  for (const chunk of chunks) {
    data.set(chunk, at);
    at += chunk.length;
  }
  const bytes = new Uint8Array(inputs.reduce((n, input) => n + input.length, 0));
  at = 0;
  for (const input of inputs) {
    bytes.set(input, at);
    at += input.length;
  }
  // Each flush ends on a byte boundary: the next segment's first block header is in its first byte.
  const types = starts.slice(0, -1).map((start) => (data[start]! >> 1) & 3);
  return { data, bytes, types };
}

Deno.test("stored, fixed and dynamic blocks in one stream, flushed between", async () => {
  const { data, bytes, types } = await mixedStream();
  assert.deepEqual(types, [2, 0, 1, 2], "block types of the segments");
  assertOutcome(zlibInflate(data), { bytes }, "zlib");
  assertOutcome(inflateRawStrict(data, bytes.length), { bytes }, "mixed");
  // A stream cut anywhere is corrupt, never a shorter output.
  for (let cut = 0; cut < data.length; cut++) {
    assert.deepEqual(inflateRawStrict(data.subarray(0, cut), bytes.length), { problem: "corrupt" });
  }
});

Deno.test("several blocks of one type: stored past 64 KiB, many small dynamic blocks", () => {
  const text = logText(200_000);
  const stored = deflate(text, { level: 0 });
  assert.equal((stored[0]! >> 1) & 3, 0);
  assert.ok(stored.length > text.length + 3 * 5, "more than one stored block");
  const dynamic = deflate(text, { memLevel: 1, level: 9 });
  assert.equal((dynamic[0]! >> 1) & 3, 2);
  const fixed = deflate(text, { memLevel: 1, strategy: constants.Z_FIXED });
  assert.equal((fixed[0]! >> 1) & 3, 1);
  for (const packed of [stored, dynamic, fixed]) {
    assertOutcome(inflateRawStrict(packed, text.length), { bytes: text }, "round trip");
  }
});

Deno.test("the empty stream inflates to nothing", () => {
  const packed = deflate(new Uint8Array(0));
  assertOutcome(inflateRawStrict(packed, 0), { bytes: new Uint8Array(0) }, "size 0");
  assertOutcome(inflateRawStrict(packed, 100), { bytes: new Uint8Array(0) }, "size 100");
  assert.deepEqual(inflateRawStrict(new Uint8Array(0), 0), { problem: "corrupt" });
});

/** Streams for the strictness checks: every block type, small enough to cut everywhere. */
function samples(): { name: string; data: Uint8Array; bytes: Uint8Array }[] {
  const text = logText(1500);
  const data = (options: ZlibOptions, bytes = text) => deflate(bytes, options);
  return [
    { name: "stored", data: data({ level: 0 }), bytes: text },
    { name: "fixed", data: data({ strategy: constants.Z_FIXED }), bytes: text },
    { name: "dynamic", data: data({ level: 9 }), bytes: text },
    { name: "huffman only", data: data({ strategy: constants.Z_HUFFMAN_ONLY }), bytes: text },
    { name: "run of one byte", data: data({}, new Uint8Array(5000)), bytes: new Uint8Array(5000) },
    {
      name: "incompressible",
      data: data({ level: 9 }, randomBytes(700, 3)),
      bytes: randomBytes(700, 3),
    },
    {
      name: "small dynamic blocks",
      data: data({ memLevel: 1 }, logText(20_000)),
      bytes: logText(20_000),
    },
  ];
}

Deno.test("hand-built streams: accepted and refused as zlib does", () => {
  for (const { name, data, size, expect } of TABLE) {
    assertOutcome(zlibInflate(data), expect, `zlib: ${name}`);
    assertOutcome(inflateRawStrict(data, size ?? 100_000), expect, name);
  }
});

Deno.test("bytes after the end of the stream are trailing, whatever they are", () => {
  for (const { name, data, bytes } of samples()) {
    assertOutcome(inflateRawStrict(data, bytes.length), { bytes }, name);
    for (const tail of [[0], [1], [0xff], [0, 0, 0, 0], [...data]]) {
      const longer = new Uint8Array([...data, ...tail]);
      assert.deepEqual(inflateRawStrict(longer, bytes.length), { problem: "trailing" }, name);
      assert.deepEqual(zlibInflate(longer), { problem: "trailing" }, `zlib: ${name}`);
    }
  }
  // After a final stored block too (no padding bits at all).
  const stored = storedBlock(new BitWriter(), true, utf8("abc")).done();
  assertOutcome(inflateRawStrict(stored, 3), { bytes: utf8("abc") }, "stored");
  assert.deepEqual(inflateRawStrict(Uint8Array.of(...stored, 0), 3), { problem: "trailing" });
});

Deno.test("a stream cut short anywhere is corrupt", () => {
  for (const { name, data, bytes } of samples()) {
    for (let cut = 0; cut < data.length; cut++) {
      const short = data.subarray(0, cut);
      assert.deepEqual(
        inflateRawStrict(short, bytes.length),
        { problem: "corrupt" },
        `${name}/${cut}`,
      );
    }
    // zlib agrees (a sample of the cuts: zlib is slower).
    for (let cut = 0; cut < data.length; cut += 37) {
      assert.deepEqual(zlibInflate(data.subarray(0, cut)), { problem: "corrupt" }, `zlib ${name}`);
    }
  }
});

Deno.test("output past size is too-large; ending before size gives the shorter output", () => {
  for (const { name, data, bytes } of samples()) {
    const n = bytes.length;
    assertOutcome(inflateRawStrict(data, n), { bytes }, name);
    assert.deepEqual(inflateRawStrict(data, n - 1), { problem: "too-large" }, name);
    assert.deepEqual(inflateRawStrict(data, 0), { problem: "too-large" }, name);
    assert.deepEqual(inflateRawStrict(data, n >> 1), { problem: "too-large" }, name);
    // Callers compare the length themselves.
    assertOutcome(inflateRawStrict(data, n + 1), { bytes }, name);
    assertOutcome(inflateRawStrict(data, n * 2 + 1000), { bytes }, name);
  }
  fc.assert(
    fc.property(anyBytes(20_000), zlibOptions, fc.nat(), (bytes, options, pick) => {
      const packed = deflate(bytes, options);
      const size = bytes.length === 0 ? 0 : pick % (bytes.length * 2);
      const result = inflateRawStrict(packed, size);
      if (size < bytes.length) assert.deepEqual(result, { problem: "too-large" });
      else assertOutcome(result, { bytes }, `size ${size}`);
    }),
    { numRuns: 200 },
  );
});

Deno.test("odd sizes neither throw nor allocate more than the data could inflate to", () => {
  const packed = deflate(utf8("hello hello"));
  assertOutcome(inflateRawStrict(packed, Infinity), { bytes: utf8("hello hello") }, "Infinity");
  assertOutcome(inflateRawStrict(packed, 2 ** 53), { bytes: utf8("hello hello") }, "2^53");
  assertOutcome(inflateRawStrict(packed, 11.5), { bytes: utf8("hello hello") }, "11.5");
  assert.deepEqual(inflateRawStrict(packed, 10.9), { problem: "too-large" });
  assert.deepEqual(inflateRawStrict(packed, -1), { problem: "too-large" });
  assert.deepEqual(inflateRawStrict(packed, NaN), { problem: "too-large" });
  // A 1032:1 bomb (length 258 codes of two bits) stays within its bound with any size.
  const bomb = dynamicStream(
    { lit: lengths(286, { 256: 2, [A]: 2, 285: 1 }), dist: [1, 1] },
    (lit, dist) => {
      lit(A);
      for (let i = 0; i < 4000; i++) {
        lit(285);
        dist(0);
      }
    },
  );
  const out = inflateRawStrict(bomb, Infinity);
  assert.ok(
    "bytes" in out && out.bytes.length === 1 + 4000 * 258 && out.bytes.every((b) => b === A),
  );
  assert.ok(out.bytes.length <= bomb.length * 1032);
  assert.deepEqual(inflateRawStrict(bomb, 4000 * 258), { problem: "too-large" });
});

Deno.test("the output is a fresh buffer, never the input's", () => {
  const stored = storedBlock(new BitWriter(), true, utf8("abc")).done();
  const result = inflateRawStrict(stored, 3);
  assert.ok("bytes" in result);
  assert.notEqual(result.bytes.buffer, stored.buffer);
  stored.fill(0);
  assert.deepEqual(result.bytes, utf8("abc"));
});

/** One change to a valid stream. */
const mutation = fc.oneof(
  fc.record({ flip: fc.nat(), bit: fc.nat(7) }),
  fc.record({ set: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ insert: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ remove: fc.nat() }),
  fc.record({ cut: fc.nat() }),
);

type Mutation =
  | { flip: number; bit: number }
  | { set: number; value: number }
  | { insert: number; value: number }
  | { remove: number }
  | { cut: number };

function mutate(data: Uint8Array, changes: Mutation[], headerOnly: boolean): Uint8Array {
  let bytes = [...data];
  for (const change of changes) {
    const span = Math.max(1, headerOnly ? Math.min(bytes.length, 40) : bytes.length);
    if ("flip" in change) {
      const at = change.flip % span;
      if (at < bytes.length) bytes[at]! ^= 1 << change.bit;
    } else if ("set" in change) {
      const at = change.set % span;
      if (at < bytes.length) bytes[at] = change.value;
    } else if ("insert" in change) {
      bytes.splice(change.insert % (span + 1), 0, change.value);
    } else if ("remove" in change) {
      bytes.splice(change.remove % span, 1);
    } else {
      bytes = bytes.slice(0, change.cut % (bytes.length + 1));
    }
  }
  return Uint8Array.from(bytes);
}

const GENEROUS = 1 << 20;

/** Ours and zlib's verdicts on `data` must agree. */
function agree(data: Uint8Array): void {
  const ours = inflateRawStrict(data, GENEROUS);
  const theirs = zlibInflate(data);
  if ("problem" in ours && ours.problem === "too-large") {
    // We stop at byte GENEROUS + 1; zlib goes on, to more output or to an error further on.
    assert.ok("problem" in theirs || theirs.bytes.length > GENEROUS, "too-large");
    return;
  }
  assertOutcome(ours, theirs, "ours against zlib");
}

Deno.test("differential: mutated streams are accepted or refused exactly as zlib does", () => {
  fc.assert(
    fc.property(
      anyBytes(8000),
      zlibOptions,
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      (bytes, options, changes, headerOnly) => {
        agree(mutate(deflate(bytes, options), changes as Mutation[], headerOnly));
      },
    ),
    { numRuns: FUZZ_RUNS },
  );
});

Deno.test("differential: random bytes, and random bytes after a valid block header", () => {
  // Random data is mostly refused at once; after the header bits of each block type it runs
  // further into the decoder (random Huffman codes, random code lengths, stored lengths).
  fc.assert(
    fc.property(
      fc.option(fc.nat(7)),
      fc.uint8Array({ maxLength: 400, size: "max" }),
      (header, data) => {
        if (header !== null && data.length > 0) data[0] = (data[0]! & ~7) | header;
        agree(data);
      },
    ),
    { numRuns: FUZZ_RUNS },
  );
});

Deno.test("never throws, whatever the data and size", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 2000, size: "max" }),
      fc.oneof(
        fc.integer({ min: -5, max: 100_000 }),
        fc.double(),
        fc.constantFrom(NaN, Infinity, -Infinity, 0, 2 ** 32),
      ),
      (data, size) => {
        const result = inflateRawStrict(data, size);
        assert.ok(
          "bytes" in result || ["trailing", "too-large", "corrupt"].includes(result.problem),
        );
        if ("bytes" in result) assert.ok(result.bytes.length <= (size >= 0 ? size : 0));
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("tables are rebuilt per block: interleaved streams do not disturb each other", () => {
  const streams = samples();
  for (let round = 0; round < 3; round++) {
    for (const { name, data, bytes } of streams) {
      assertOutcome(inflateRawStrict(data, bytes.length), { bytes }, name);
      inflateRawStrict(randomBytes(300, round), 10_000); // Whatever it makes of junk.
    }
  }
});
