// Copyright 2026 the taskpack authors. MIT license.
import assert from "node:assert/strict";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import fc from "npm:fast-check@4.11.0";
import { concatBytes } from "../lib/bytes/bytes.ts";
import { deflateRawJs } from "../lib/zip/deflate_raw.ts";
import {
  CODE_LENGTH_ORDER,
  DISTANCE_BASE,
  DISTANCE_EXTRA,
  LENGTH_BASE,
  LENGTH_EXTRA,
} from "../lib/zip/deflate_tables.ts";

// --- Helpers ---------------------------------------------------------------------------------

/**
 * Inflates with zlib and checks that `packed` is exactly one raw DEFLATE stream: zlib must
 * reach the end of the stream (a stream cut short throws) and consume every byte (nothing may
 * trail the final block).
 */
function inflateStrict(packed: Uint8Array): Uint8Array {
  const { buffer, engine } = inflateRawSync(packed, { info: true }) as unknown as {
    buffer: Uint8Array;
    engine: { bytesWritten: number };
  };
  assert.equal(engine.bytesWritten, packed.length, "the stream ends at the last byte");
  return new Uint8Array(buffer);
}

/** Deflates `bytes`, checks the strict round trip through zlib, and returns the output. */
function roundTrip(bytes: Uint8Array): Uint8Array {
  const packed = deflateRawJs(bytes);
  const back = inflateStrict(packed);
  assert.equal(back.length, bytes.length);
  assert.ok(Buffer.from(back).equals(Buffer.from(bytes)), "inflates to the input");
  return packed;
}

/** Inflates through the platform's `DecompressionStream`. */
async function inflateWeb(packed: Uint8Array): Promise<Uint8Array> {
  return await new Response(
    new Blob([packed as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new DecompressionStream("deflate-raw"),
    ),
  ).bytes();
}

/** Size of zlib's level-6 raw DEFLATE output. */
function zlibSize(bytes: Uint8Array): number {
  return deflateRawSync(bytes, { level: 6 }).length;
}

/** A small seeded PRNG (xorshift32), so the corpora below are fixed. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const encoder = new TextEncoder();

function cut(text: string, size: number): Uint8Array {
  return encoder.encode(text).slice(0, size);
}

const WORDS = (
  "the of and to in is that it was for on are as with his they at be this from have or by " +
  "one had not but what all were when we there can an your which their said if do will each " +
  "about how up out them then she many some so these would other into has more her two like " +
  "him see time could no make than first been its who now people my made over did down only " +
  "way find use may water long little very after words called just where most know get " +
  "through back much before go good new write our used me man too any day same right look " +
  "think also around another came come work three word must because does part even place " +
  "well such here take why things help put years different away again off went old number"
).split(" ");

/** English-like text: words drawn with a Zipf-like skew, sentences, paragraphs. */
function englishText(size: number, seed = 1): Uint8Array {
  const random = prng(seed);
  let text = "";
  let capital = true;
  while (text.length < size) {
    let word = WORDS[Math.min(WORDS.length - 1, Math.floor(WORDS.length ** random()) - 1)]!;
    if (capital) word = word[0]!.toUpperCase() + word.slice(1);
    const r = random();
    capital = r < 0.08;
    text += word + (capital ? (random() < 0.2 ? ".\n\n" : ". ") : r < 0.14 ? ", " : " ");
  }
  return cut(text, size);
}

/** Pretty-printed JSON records. */
function jsonText(size: number, seed = 2): Uint8Array {
  const random = prng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"];
  const records = [];
  let length = 0;
  for (let id = 0; length < size; id++) {
    const record = {
      id: 1000 + id * 3 + Math.floor(random() * 3),
      name: pick(names),
      email: `${pick(names)}${Math.floor(random() * 1000)}@example.com`,
      active: random() < 0.5,
      score: Math.round(random() * 10000) / 100,
      tags: [pick(["red", "green", "blue", "urgent"]), pick(["home", "work", "misc"])],
    };
    records.push(record);
    length += 160;
  }
  return cut(JSON.stringify(records, null, 2), size);
}

/** Log lines with timestamps, levels, ids and messages. */
function logText(size: number, seed = 3): Uint8Array {
  const random = prng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  let text = "";
  for (let i = 0; text.length < size; i++) {
    const second = i * 7 + Math.floor(random() * 7);
    text += `2026-01-01T${String(Math.floor(second / 3600) % 24).padStart(2, "0")}:` +
      `${String(Math.floor(second / 60) % 60).padStart(2, "0")}:` +
      `${String(second % 60).padStart(2, "0")}Z ${pick(["INFO", "INFO", "WARN", "DEBUG"])} ` +
      `worker=${Math.floor(random() * 16)} req=${(random() * 2 ** 32 >>> 0).toString(16)} ` +
      `${pick(["request served", "cache miss", "retrying upload", "job finished"])} ` +
      `took=${Math.floor(random() * 900)}ms\n`;
  }
  return cut(text, size);
}

/** TypeScript-like source code. */
function sourceText(size: number, seed = 4): Uint8Array {
  const random = prng(seed);
  const ids = ["value", "count", "index", "buffer", "result", "options", "entry", "name", "size"];
  const id = () => ids[Math.floor(random() * ids.length)]!;
  let text = "// Copyright 2026 the example authors. MIT license.\n\n";
  for (let f = 0; text.length < size; f++) {
    text += `/**\n * Returns the ${id()} of the ${id()}.\n *\n * @param ${id()} The input.\n */\n` +
      `export function ${id()}${f}(${id()}: number, ${id()}: Uint8Array): number {\n`;
    for (let line = 0; line < 3 + random() * 8; line++) {
      const r = random();
      if (r < 0.35) text += `  const ${id()}${line} = ${id()}.${id()}(${id()}, ${line});\n`;
      else if (r < 0.6) {
        text += `  if (${id()} > ${id()}.length) throw new RangeError("${id()}");\n`;
      } else text += `  for (let i = 0; i < ${id()}.length; i++) ${id()} += ${id()}[i]!;\n`;
    }
    text += `  return ${id()};\n}\n\n`;
  }
  return cut(text, size);
}

function randomBytes(size: number, seed = 5): Uint8Array {
  const random = prng(seed);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = random() * 256;
  return out;
}

// --- Generators for the property tests ---------------------------------------------------------

/** Repeated words from a small vocabulary. */
const repeatedWords = fc
  .array(fc.constantFrom(...WORDS.slice(0, 40), " ", "\n", ", "), { maxLength: 4000, size: "max" })
  .map((words) => encoder.encode(words.join(" ")));

/** Runs of bytes: long runs, distance-1 copies, runs of one byte value. */
const runs = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 3000 })), {
    maxLength: 60,
    size: "max",
  })
  .map((pieces) => concatBytes(pieces.map(([byte, length]) => new Uint8Array(length).fill(byte))));

/** Bytes from a small alphabet. */
const smallAlphabet = fc
  .tuple(fc.integer({ min: 1, max: 4 }), fc.array(fc.nat(), { maxLength: 8000, size: "max" }))
  .map(([size, values]) => Uint8Array.from(values, (v) => 97 + (v % size)));

/** One byte repeated, up to 300 KiB (several blocks, matches of 258 at distance 1). */
const oneByte = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 300 * 1024 }))
  .map(([byte, length]) => new Uint8Array(length).fill(byte));

/** A mix of the corpora's kinds, pieces of arbitrary bytes and copies, 0..300 KiB. */
const mixed = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constant(0), fc.integer({ min: 0, max: 40_000 }), fc.nat()),
      fc.tuple(fc.constant(1), fc.integer({ min: 0, max: 40_000 }), fc.nat()),
      fc.tuple(fc.constant(2), fc.integer({ min: 0, max: 40_000 }), fc.nat()),
      fc.tuple(fc.constant(3), fc.integer({ min: 0, max: 20_000 }), fc.nat()),
      fc.tuple(fc.constant(4), fc.integer({ min: 0, max: 40_000 }), fc.nat()),
    ),
    { maxLength: 12 },
  )
  .map((pieces) => {
    const parts: Uint8Array[] = [];
    for (const [kind, size, seed] of pieces) {
      if (kind === 0) parts.push(englishText(size, seed + 1));
      else if (kind === 1) parts.push(jsonText(size, seed + 1));
      else if (kind === 2) parts.push(sourceText(size, seed + 1));
      else if (kind === 3) parts.push(randomBytes(size, seed + 1));
      else {
        // A copy of what came before (far-back matches), or a run when nothing did.
        const sofar = concatBytes(parts);
        parts.push(
          sofar.length > 0
            ? sofar.slice(seed % sofar.length, (seed % sofar.length) + size)
            : new Uint8Array(size).fill(seed),
        );
      }
    }
    return concatBytes(parts).slice(0, 300 * 1024);
  });

// --- Round trips ------------------------------------------------------------------------------

Deno.test("deflateRawJs: the empty input is the fixed-Huffman empty final block", () => {
  assert.deepEqual(deflateRawJs(new Uint8Array(0)), Uint8Array.of(0x03, 0x00));
  assert.equal(inflateStrict(deflateRawJs(new Uint8Array(0))).length, 0);
});

Deno.test("deflateRawJs: round trips tiny inputs of every length 1..300", () => {
  const random = prng(42);
  for (let length = 1; length <= 300; length++) {
    const bytes = new Uint8Array(length);
    const alphabet = 1 + (length % 5) * 60;
    for (let i = 0; i < length; i++) bytes[i] = random() * alphabet;
    roundTrip(bytes);
    roundTrip(new Uint8Array(length).fill(length & 0xff));
  }
});

Deno.test("deflateRawJs: round trips arbitrary bytes (strict end)", () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 5000 }), (bytes) => void roundTrip(bytes)), {
    numRuns: 1000,
  });
  // Long enough for several stored blocks.
  const large = fc.uint8Array({ maxLength: 200_000, size: "max" });
  fc.assert(fc.property(large, (bytes) => void roundTrip(bytes)), { numRuns: 20 });
});

Deno.test("deflateRawJs: round trips compressible data (strict end)", () => {
  for (
    const [arbitrary, numRuns] of [[repeatedWords, 150], [runs, 150], [smallAlphabet, 200]] as const
  ) {
    fc.assert(fc.property(arbitrary, (bytes) => void roundTrip(bytes)), { numRuns });
  }
  fc.assert(fc.property(oneByte, (bytes) => void roundTrip(bytes)), { numRuns: 20 });
});

Deno.test("deflateRawJs: round trips mixed data up to 300 KiB (several blocks)", () => {
  fc.assert(fc.property(mixed, (bytes) => void roundTrip(bytes)), { numRuns: 60 });
});

Deno.test("deflateRawJs: uses a match exactly 32768 back, and none 32769 back", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 8, max: 258 }), (s, k) => {
      // High bytes, copied once after ASCII text: the first copy is the only possible source.
      const copy = randomBytes(k, s).map((byte) => byte | 0x80);
      for (const distance of [32_767, 32_768, 32_769]) {
        const bytes = concatBytes([copy, englishText(distance - k, s), copy]);
        const decoded = decodeBlocks(roundTrip(bytes));
        assert.deepEqual(decoded.bytes, bytes, "the reference inflater agrees");
        const matches = decoded.blocks.flatMap((block) => block.matches);
        // Bytes of the second copy that matches cover, and how many at this distance.
        let covered = 0;
        let atDistance = 0;
        for (const [at, length, d] of matches) {
          const overlap = Math.min(at + length, distance + k) - Math.max(at, distance);
          if (overlap <= 0) continue;
          covered += overlap;
          if (d === distance) atDistance += overlap;
        }
        if (distance <= 32_768) assert.ok(atDistance >= k - 3, `${atDistance} of ${k} copied`);
        else assert.equal(covered, 0, "nothing in the window to copy from");
      }
    }),
    { numRuns: 10 },
  );
});

Deno.test("deflateRawJs: the reference inflater reads the same as zlib", () => {
  for (
    const bytes of [englishText(3000), jsonText(70_000), randomBytes(70_000), new Uint8Array(0)]
  ) {
    const { blocks, bytes: back } = decodeBlocks(roundTrip(bytes));
    assert.deepEqual(back, bytes);
    assert.ok(blocks.length >= 1);
  }
  // Several blocks of several kinds: stored (random), Huffman (text).
  const mixed = concatBytes([randomBytes(70_000), sourceText(70_000), randomBytes(20_000)]);
  const types = new Set(decodeBlocks(roundTrip(mixed)).blocks.map((block) => block.type));
  assert.ok(types.has(0) && types.has(2), [...types].join());
});

Deno.test("deflateRawJs: the platform's DecompressionStream inflates the output", async () => {
  const samples = [
    new Uint8Array(0),
    encoder.encode("a"),
    englishText(1024),
    jsonText(8192),
    sourceText(70_000),
    randomBytes(100_000),
    new Uint8Array(200_000).fill(9),
    concatBytes([logText(40_000), randomBytes(30_000), logText(40_000)]),
  ];
  for (const bytes of samples) {
    assert.deepEqual(await inflateWeb(deflateRawJs(bytes)), bytes);
  }
});

// --- Determinism ------------------------------------------------------------------------------

Deno.test("deflateRawJs: the same bytes give the same output, whatever ran before", async () => {
  // A separate instance of the module, with scratch state of its own that has seen nothing.
  const fresh: typeof import("../lib/zip/deflate_raw.ts") = await import(
    new URL("../lib/zip/deflate_raw.ts?instance=fresh", import.meta.url).href
  );
  assert.notEqual(fresh.deflateRawJs, deflateRawJs);
  const inputs = [
    englishText(1024),
    jsonText(8192, 9),
    sourceText(65_536),
    randomBytes(3000),
    new Uint8Array(100_000).fill(1),
    concatBytes([englishText(50_000, 3), sourceText(50_000, 3)]),
    encoder.encode("x"),
    new Uint8Array(0),
  ];
  const expected = inputs.map((bytes) => fresh.deflateRawJs(bytes));
  // Twice in a row, in reverse order, and interleaved with inputs of other sizes.
  for (let pass = 0; pass < 2; pass++) {
    for (const [i, bytes] of inputs.entries()) {
      assert.deepEqual(deflateRawJs(bytes), expected[i]);
    }
  }
  for (const [i, bytes] of [...inputs.entries()].reverse()) {
    assert.deepEqual(deflateRawJs(bytes), expected[i]);
    deflateRawJs(randomBytes(500 + i * 3000, i));
    deflateRawJs(englishText(200 + i * 20_000, i + 10));
    assert.deepEqual(deflateRawJs(bytes), expected[i]);
  }
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 20_000 }), { minLength: 1, maxLength: 6 }), (
      list,
    ) => {
      const target = list[0]!;
      const before = deflateRawJs(target);
      for (const other of list) deflateRawJs(other);
      assert.deepEqual(deflateRawJs(target), before);
      assert.deepEqual(fresh.deflateRawJs(target), before);
    }),
    { numRuns: 40 },
  );
});

Deno.test("deflateRawJs: the output does not alias the module's scratch buffer", () => {
  const first = deflateRawJs(englishText(2000));
  const copy = first.slice();
  deflateRawJs(randomBytes(2000));
  assert.deepEqual(first, copy);
  assert.equal(first.byteOffset, 0);
  assert.equal(first.buffer.byteLength, first.length);
});

// --- Ratio ------------------------------------------------------------------------------------

Deno.test("deflateRawJs: within 8% of zlib level 6 on text-like inputs", () => {
  const kinds = { english: englishText, json: jsonText, logs: logText, source: sourceText };
  for (const [name, make] of Object.entries(kinds)) {
    for (const size of [1024, 8192, 65_536]) {
      const bytes = make(size);
      const ours = roundTrip(bytes).length;
      const zlib = zlibSize(bytes);
      assert.ok(ours <= 1.08 * zlib, `${name} ${size}: ${ours} bytes, zlib level 6 ${zlib}`);
      // And it really compresses.
      assert.ok(ours < 0.6 * size, `${name} ${size}: ${ours} bytes`);
    }
  }
});

Deno.test("deflateRawJs: incompressible input costs at most 5 bytes per 64 KiB + 5", () => {
  for (const size of [1, 10, 100, 1000, 16_384, 65_535, 65_536, 65_537, 200_000, 300_000]) {
    const bytes = randomBytes(size, size);
    const packed = roundTrip(bytes);
    const bound = size + 5 * Math.ceil(size / 65_536) + 5;
    assert.ok(packed.length <= bound, `${size}: ${packed.length} > ${bound}`);
  }
});

Deno.test("deflateRawJs: 1 MiB of one byte deflates to under 2 KiB", () => {
  const packed = roundTrip(new Uint8Array(1 << 20).fill(0x61));
  assert.ok(packed.length < 2048, `${packed.length} bytes`);
});

// --- Huffman code lengths ---------------------------------------------------------------------

interface Block {
  /** BTYPE: 0 stored, 1 fixed, 2 dynamic. */
  type: number;
  /** Lit/len and distance code lengths (Huffman blocks). */
  lit: number[];
  dist: number[];
  /** How often each lit/len symbol occurs in the block. */
  litCounts: number[];
  /** The block's matches: [position in the output, length, distance]. */
  matches: [number, number, number][];
}

/**
 * A small reference inflater (slow, for the tests only): decodes every block of a raw DEFLATE
 * stream, keeping what each block sent, and the inflated bytes.
 */
function decodeBlocks(packed: Uint8Array): { blocks: Block[]; bytes: Uint8Array } {
  let bit = 0;
  const read = (count: number) => {
    let value = 0;
    for (let i = 0; i < count; i++, bit++) {
      assert.ok(bit < packed.length * 8, "the stream ends early");
      value |= ((packed[bit >> 3]! >> (bit & 7)) & 1) << i;
    }
    return value;
  };
  /** A canonical-code decoder for `lengths`. */
  const decoder = (lengths: number[]) => {
    const codes = new Map<string, number>();
    let code = 0;
    for (let length = 1; length <= 15; length++) {
      for (const [symbol, l] of lengths.entries()) {
        if (l === length) codes.set(`${l}:${code++}`, symbol);
      }
      code <<= 1;
    }
    return () => {
      let value = 0;
      for (let length = 1; length <= 15; length++) {
        value = (value << 1) | read(1);
        const symbol = codes.get(`${length}:${value}`);
        if (symbol !== undefined) return symbol;
      }
      throw new Error("not a code");
    };
  };
  const out: number[] = [];
  const blocks: Block[] = [];
  for (let final = 0; !final;) {
    final = read(1);
    const type = read(2);
    assert.ok(type < 3, "a valid block type");
    if (type === 0) {
      bit = (bit + 7) & ~7;
      const length = read(16);
      assert.equal(read(16), length ^ 0xffff, "NLEN");
      for (let i = 0; i < length; i++) out.push(read(8));
      blocks.push({ type, lit: [], dist: [], litCounts: [], matches: [] });
      continue;
    }
    let lit: number[];
    let dist: number[];
    if (type === 2) {
      const hlit = read(5) + 257;
      const hdist = read(5) + 1;
      const hclen = read(4) + 4;
      const clLengths = new Array(19).fill(0);
      for (let i = 0; i < hclen; i++) clLengths[CODE_LENGTH_ORDER[i]!] = read(3);
      const next = decoder(clLengths);
      const lengths: number[] = [];
      while (lengths.length < hlit + hdist) {
        const symbol = next();
        if (symbol < 16) lengths.push(symbol);
        else if (symbol === 16) lengths.push(...new Array(3 + read(2)).fill(lengths.at(-1)));
        else if (symbol === 17) lengths.push(...new Array(3 + read(3)).fill(0));
        else lengths.push(...new Array(11 + read(7)).fill(0));
      }
      assert.equal(lengths.length, hlit + hdist, "code length runs end at HLIT + HDIST");
      lit = lengths.slice(0, hlit);
      dist = lengths.slice(hlit);
    } else {
      lit = Array.from({ length: 288 }, (_, i) => i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8);
      dist = new Array(30).fill(5);
    }
    const nextLit = decoder(lit);
    const nextDist = decoder(dist);
    const litCounts = new Array(286).fill(0);
    const matches: [number, number, number][] = [];
    for (;;) {
      const symbol = nextLit();
      litCounts[symbol]++;
      if (symbol < 256) out.push(symbol);
      if (symbol <= 256) {
        if (symbol === 256) break;
        continue;
      }
      const length = LENGTH_BASE[symbol - 257]! + read(LENGTH_EXTRA[symbol - 257]!);
      const code = nextDist();
      const distance = DISTANCE_BASE[code]! + read(DISTANCE_EXTRA[code]!);
      assert.ok(distance <= out.length && distance <= 32_768, "a distance into the window");
      matches.push([out.length, length, distance]);
      for (let i = 0; i < length; i++) out.push(out[out.length - distance]!);
    }
    blocks.push({ type, lit, dist, litCounts, matches });
  }
  assert.equal((bit + 7) >> 3, packed.length, "no bytes after the final block");
  return { blocks, bytes: Uint8Array.from(out) };
}

/** Depth of an unlimited Huffman code for the (positive) counts. */
function huffmanDepth(counts: number[]): number {
  let nodes = counts.filter((c) => c > 0).map((weight) => ({ weight, depth: 0 }));
  while (nodes.length > 1) {
    nodes.sort((a, b) => a.weight - b.weight || a.depth - b.depth);
    const [a, b] = nodes;
    nodes = [
      { weight: a!.weight + b!.weight, depth: Math.max(a!.depth, b!.depth) + 1 },
      ...nodes.slice(2),
    ];
  }
  return nodes[0]?.depth ?? 0;
}

/**
 * Data whose last block has symbol counts along the Fibonacci numbers: end-of-block once,
 * then ten literal byte values 1, 2, 3, 5, ..., 89 times and copies of 4..9 bytes 144, 233,
 * ..., 1597 times. An unlimited Huffman code for those counts is a chain 16 deep.
 *
 * The first 32 KiB are random bytes with no four-byte sequence twice (two blocks of
 * literals); every copy takes a fresh stretch of them, so each has exactly one source, and the
 * bytes around each piece are picked so that no match can run on into its neighbours, nor
 * start or end across a seam: no four bytes that straddle a copy's edge (with the bytes before
 * it, or the literal after it) occur anywhere before, so the encoder cannot find another match
 * that takes a literal into a copy and leaves the copy's last bytes as literals.
 */
function fibonacciBlock(seed: number): Uint8Array {
  const random = prng(seed);
  const base = 32_768;
  const out: number[] = [];
  /** Every four-byte sequence written so far, as one number. */
  const seen = new Set<number>();
  const gramAt = (bytes: readonly number[], at: number) =>
    (bytes[at]! << 24 | bytes[at + 1]! << 16 | bytes[at + 2]! << 8 | bytes[at + 3]!) >>> 0;
  const push = (...bytes: number[]) => {
    for (const byte of bytes) {
      out.push(byte);
      if (out.length >= 4) seen.add(gramAt(out, out.length - 4));
    }
  };
  while (out.length < base) {
    const byte = Math.floor(random() * 256);
    if (out.length >= 3) {
      const gram = (out.at(-3)! << 24 | out.at(-2)! << 16 | out.at(-1)! << 8 | byte) >>> 0;
      if (seen.has(gram)) continue;
    }
    push(byte);
  }
  // Pieces: a literal byte value (negative: -1 - value) or a copy length.
  const pieces: number[] = [];
  const literals = [17, 34, 51, 68, 85, 102, 119, 136, 153, 170];
  let count = 1;
  let before = 1;
  for (const value of literals) {
    pieces.push(...new Array<number>(count).fill(-1 - value));
    [before, count] = [count, before + count];
  }
  for (const length of [9, 8, 7, 6, 5, 4]) {
    pieces.push(...new Array<number>(count).fill(length));
    [before, count] = [count, before + count];
  }
  for (let i = pieces.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pieces[i], pieces[j]] = [pieces[j]!, pieces[i]!];
  }
  const copies = pieces.filter((piece) => piece > 0);
  let source = base - copies.reduce((sum, length) => sum + length + 3, 0);
  // After a copy: the byte after its source, which the next piece must not start with.
  let after = -1;
  for (const [i, piece] of pieces.entries()) {
    if (piece < 0) {
      push(-1 - piece);
      after = -1;
      continue;
    }
    const next = pieces[i + 1];
    /** Whether a four-byte sequence across an edge of the copy from `from` was seen before. */
    const seamSeen = (from: number) => {
      const joined = [
        ...out.slice(-3),
        ...out.slice(from, from + piece),
        ...(next !== undefined && next < 0 ? [-1 - next] : []),
      ];
      for (let k = 0; k + 4 <= joined.length; k++) {
        const inside = k >= 3 && k + 4 <= 3 + piece;
        if (!inside && seen.has(gramAt(joined, k))) return true;
      }
      return false;
    };
    // The next source, after a gap of a byte or more (3 on average is budgeted), such that this
    // copy can grow neither backwards (the byte before its source is not the last byte out)
    // nor forwards (the byte after it is not the next literal), the copy before it cannot grow
    // into it, and no seam repeats four bytes seen before.
    let from = source + 1;
    while (
      out[from - 1] === out.at(-1) || (after >= 0 && out[from] === out[after]) ||
      (next !== undefined && next < 0 && out[from + piece] === -1 - next) || seamSeen(from)
    ) from++;
    assert.ok(from + piece <= base, "the sources fit in the random start");
    push(...out.slice(from, from + piece));
    source = from + piece;
    after = source;
  }
  return Uint8Array.from(out);
}

Deno.test("deflateRawJs: limits skewed Huffman codes to 15 bits", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 30 }), (seed) => {
      const { blocks } = decodeBlocks(roundTrip(fibonacciBlock(seed)));
      const block = blocks.find((b) => b.type === 2 && b.matches.length > 1000);
      assert.ok(block, "a dynamic block of matches");
      // The block's own symbol counts would want a code deeper than DEFLATE allows...
      const depth = huffmanDepth(block.litCounts);
      assert.ok(depth > 15, `depth ${depth}`);
      // ...so the code sent is limited to exactly 15 bits, and still complete.
      const used = block.lit.filter((length) => length > 0);
      assert.equal(Math.max(...used), 15);
      assert.equal(used.reduce((sum, length) => sum + 2 ** (15 - length), 0), 2 ** 15);
      // Every symbol that occurs has a code.
      for (const [symbol, count] of block.litCounts.entries()) {
        if (count > 0) assert.ok((block.lit[symbol] ?? 0) > 0, `symbol ${symbol}`);
      }
    }),
    // 711284064 once took a literal into a copy across a seam (see fibonacciBlock).
    { numRuns: 8, examples: [[711284064]] },
  );
});

Deno.test("deflateRawJs: a block without matches still sends a complete distance code", () => {
  // Letters with no four in a row repeated: literals only, yet worth a dynamic block.
  const random = prng(7);
  const seen = new Set<string>();
  let text = "abc";
  while (text.length < 3000) {
    const letter = "abcdefghijklmnop"[Math.floor(random() * 16)]!;
    const gram = text.slice(-3) + letter;
    if (seen.has(gram)) continue;
    seen.add(gram);
    text += letter;
  }
  const block = decodeBlocks(roundTrip(encoder.encode(text))).blocks[0]!;
  assert.equal(block.type, 2);
  assert.deepEqual(block.litCounts.slice(257), new Array(29).fill(0), "no matches");
  assert.deepEqual(block.dist, [1, 1]);
});
