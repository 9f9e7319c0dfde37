// Copyright 2026 the taskpack authors. MIT license.
// The core's WebAssembly builds (assembly/) against its scripts (lib/zip/): the same bytes out of
// the encoder and the same answers out of the decoder, for every input; and the committed modules
// are what the sources compile to.
import assert from "node:assert/strict";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import fc from "npm:fast-check@4.11.0";
import { decodeBase64Strict } from "../lib/bytes/mod.ts";
import { deflateRawSmall, inflateRawStrict } from "../lib/zip/deflate.ts";
import { deflateRawJs } from "../lib/zip/deflate_raw.ts";
import { deflateRawWasm, WASM_DEFLATE_LIMIT } from "../lib/zip/deflate_raw_wasm.ts";
import { DEFLATE_RAW_WASM } from "../lib/zip/deflate_raw_wasm_bytes.ts";
import { inflateRawJs } from "../lib/zip/inflate_raw.ts";
import { inflateRawWasm, WASM_INFLATE_LIMIT } from "../lib/zip/inflate_raw_wasm.ts";
import { INFLATE_RAW_WASM } from "../lib/zip/inflate_raw_wasm_bytes.ts";
import { buildWasm, bytesModule, WASM_MODULES } from "../tools/build_wasm.ts";

/** Both encoders on `bytes`: the same output, and it inflates back to `bytes`. */
function same(bytes: Uint8Array): void {
  const wasm = deflateRawWasm(bytes);
  assert.ok(wasm, `the WebAssembly encoder takes ${bytes.length} bytes`);
  assert.deepEqual(wasm, deflateRawJs(bytes), `the same output for ${bytes.length} bytes`);
  assert.ok(Buffer.from(inflateRawSync(wasm)).equals(Buffer.from(bytes)));
}

/** `length` bytes of noise (xorshift32, seeded: the same bytes on every run). */
function noise(length: number, seed = 0x9e3779b9): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed | 0;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x;
  }
  return out;
}

/** Text-like bytes: words of a small vocabulary, so that matches of every length turn up. */
const text = (maxWords: number) =>
  fc.array(
    fc.constantFrom("the ", "pack ", "luggage ", "a", "ab", "\n", "0123456789", "zzzzzzzz", " "),
    { maxLength: maxWords, size: "max" },
  ).map((words) => new TextEncoder().encode(words.join("")));

Deno.test("wasm: the committed modules are what assembly/ compiles to", async () => {
  const loaded = [DEFLATE_RAW_WASM, INFLATE_RAW_WASM];
  for (const [i, module] of WASM_MODULES.entries()) {
    const built = await buildWasm(module);
    assert.deepEqual(decodeBase64Strict(loaded[i]!), built, module.source);
    const committed = await Deno.readTextFile(new URL(`../${module.target}`, import.meta.url));
    assert.equal(committed, bytesModule(module, built), "run `deno task build:wasm`");
  }
});

Deno.test("deflate wasm: the same bytes as the script for arbitrary bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 70_000, size: "max" }), (bytes) => same(bytes)),
    { numRuns: 100 },
  );
});

Deno.test("deflate wasm: the same bytes as the script for compressible text", () => {
  fc.assert(fc.property(text(8_000), (bytes) => same(bytes)), { numRuns: 200 });
});

Deno.test("deflate wasm: the same bytes at the lengths where the encoder changes course", () => {
  const random = noise(65_536);
  const words = new TextEncoder().encode("to be or not to be, that is the question; ".repeat(9000));
  for (
    const length of [0, 1, 2, 3, 4, 5, 258, 259, 2048, 2049, 8192, 8193, 16_384, 65_535, 65_536]
  ) {
    same(random.subarray(0, length));
    same(words.subarray(0, length));
    same(new Uint8Array(length).fill(0x61));
  }
  // Several blocks (16,384 symbols each), stored runs over 65,535 bytes, the window's edge.
  const mixed = new Uint8Array(400_000);
  for (let at = 0; at < mixed.length; at += 65_536) {
    const piece = at % 131_072 === 0 ? random : words;
    mixed.set(piece.subarray(0, Math.min(65_536, mixed.length - at)), at);
  }
  same(mixed);
  const far = new Uint8Array(32_768 + 64);
  far.set(random.subarray(0, 64));
  far.set(random.subarray(0, 64), 32_768);
  same(far);
  same(words);
});

Deno.test("deflate wasm: what came before does not change the output", () => {
  const big = noise(WASM_DEFLATE_LIMIT);
  const small = new TextEncoder().encode("small after big, small after big. ".repeat(30));
  const before = deflateRawWasm(small);
  same(big);
  assert.deepEqual(deflateRawWasm(small), before);
  same(small);
});

Deno.test("deflate wasm: over the limit it declines, and deflateRawSmall uses the script", () => {
  const at = new Uint8Array(WASM_DEFLATE_LIMIT).fill(7);
  assert.ok(deflateRawWasm(at));
  const over = new Uint8Array(WASM_DEFLATE_LIMIT + 1).fill(7);
  assert.equal(deflateRawWasm(over), null);
  assert.deepEqual(deflateRawSmall(over), deflateRawJs(over));
  assert.deepEqual(deflateRawSmall(at), deflateRawJs(at));
});

Deno.test("deflate wasm: where WebAssembly cannot be compiled, it declines", async () => {
  const real = globalThis.WebAssembly;
  const refusing = {
    ...real,
    Module: class {
      constructor() {
        throw new RangeError("WebAssembly.Module(): refused here");
      }
    },
  };
  for (const [label, stand] of [["absent", undefined], ["refusing", refusing]] as const) {
    Object.defineProperty(globalThis, "WebAssembly", { value: stand, configurable: true });
    try {
      const fresh: typeof import("../lib/zip/deflate_raw_wasm.ts") = await import(
        new URL(`../lib/zip/deflate_raw_wasm.ts?instance=${label}`, import.meta.url).href
      );
      assert.equal(fresh.deflateRawWasm(new Uint8Array(10)), null, label);
    } finally {
      Object.defineProperty(globalThis, "WebAssembly", { value: real, configurable: true });
    }
  }
  assert.ok(deflateRawWasm(new Uint8Array(10)));
});

// --- The decoder --------------------------------------------------------------------------------

/** Both decoders on the same arguments: the same answer, bytes or problem. */
function sameAnswer(data: Uint8Array, size: number): void {
  const wasm = inflateRawWasm(data, size);
  assert.ok(wasm, `the WebAssembly decoder takes ${data.length} bytes for ${size}`);
  assert.deepEqual(wasm, inflateRawJs(data, size), `${data.length} bytes for ${size}`);
}

/** Streams zlib makes of `bytes` at several levels and strategies. */
function zlibStreams(bytes: Uint8Array): Uint8Array[] {
  return [
    deflateRawSync(bytes, { level: 1 }),
    deflateRawSync(bytes, { level: 6 }),
    deflateRawSync(bytes, { level: 9, memLevel: 9 }),
    deflateRawSync(bytes, { level: 6, strategy: 1 }), // filtered
    deflateRawSync(bytes, { level: 6, strategy: 2 }), // Huffman only
    deflateRawSync(bytes, { level: 6, strategy: 4 }), // fixed codes
    deflateRawSync(bytes, { level: 0 }),
    deflateRawJs(bytes),
  ].map((b) => new Uint8Array(b));
}

Deno.test("inflate wasm: the same answers for valid streams, at, under and over their size", () => {
  fc.assert(
    fc.property(fc.oneof(text(3_000), fc.uint8Array({ maxLength: 20_000 })), (bytes) => {
      for (const stream of zlibStreams(bytes)) {
        sameAnswer(stream, bytes.length);
        sameAnswer(stream, bytes.length + 7);
        if (bytes.length > 0) sameAnswer(stream, bytes.length - 1);
      }
    }),
    { numRuns: 150 },
  );
});

Deno.test("inflate wasm: the same answers for broken streams: cut, extended, mutated", () => {
  fc.assert(
    fc.property(
      text(2_000),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 4 }),
      fc.nat(),
      (bytes, flips, cut) => {
        for (const stream of zlibStreams(bytes)) {
          const mutated = stream.slice();
          for (const [at, bit] of flips) mutated[at % mutated.length]! ^= 1 << bit;
          sameAnswer(mutated, bytes.length);
          sameAnswer(stream.subarray(0, cut % (stream.length + 1)), bytes.length);
          sameAnswer(Uint8Array.of(...stream, cut & 0xff), bytes.length);
        }
      },
    ),
    { numRuns: 150 },
  );
  // Noise: almost always corrupt, sometimes a short valid stream.
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(5_000), (data, size) => {
      sameAnswer(data, size);
    }),
    { numRuns: 2_000 },
  );
});

Deno.test("inflate wasm: a bomb stops at the limit, and over the limit it declines", () => {
  const zeros = new Uint8Array(deflateRawSync(new Uint8Array(WASM_INFLATE_LIMIT + 10)));
  sameAnswer(zeros, 1000);
  sameAnswer(zeros, WASM_INFLATE_LIMIT);
  assert.deepEqual(inflateRawWasm(zeros, WASM_INFLATE_LIMIT), { problem: "too-large" });
  assert.equal(inflateRawWasm(zeros, WASM_INFLATE_LIMIT + 10), null);
  assert.deepEqual(
    inflateRawStrict(zeros, WASM_INFLATE_LIMIT + 10),
    inflateRawJs(zeros, WASM_INFLATE_LIMIT + 10),
  );
  // More input than that: declined too, whatever the size asked for.
  const stored = new Uint8Array(deflateRawSync(noise(WASM_INFLATE_LIMIT + 100), { level: 0 }));
  assert.equal(inflateRawWasm(stored, 10), null);
  assert.deepEqual(inflateRawStrict(stored, 10), inflateRawJs(stored, 10));
  // A size past what the data could make: the limit is the bound, and passing it is corrupt.
  const one = new Uint8Array(deflateRawSync(new Uint8Array(2000)));
  sameAnswer(one, Number.MAX_SAFE_INTEGER);
  sameAnswer(one, -1);
  sameAnswer(new Uint8Array(0), 0);
});

Deno.test("inflate wasm: where WebAssembly cannot be compiled, it declines", async () => {
  const real = globalThis.WebAssembly;
  Object.defineProperty(globalThis, "WebAssembly", { value: undefined, configurable: true });
  try {
    const fresh: typeof import("../lib/zip/inflate_raw_wasm.ts") = await import(
      new URL("../lib/zip/inflate_raw_wasm.ts?instance=absent", import.meta.url).href
    );
    assert.equal(fresh.inflateRawWasm(Uint8Array.of(3, 0), 0), null);
  } finally {
    Object.defineProperty(globalThis, "WebAssembly", { value: real, configurable: true });
  }
  assert.deepEqual(inflateRawWasm(Uint8Array.of(3, 0), 0), { bytes: new Uint8Array(0) });
});

Deno.test("wasm: an isolate makes the WebAssembly builds only once it has many entries", async () => {
  // In a fresh process: count the modules compiled around the 64th and 65th calls of each.
  const script = `
    let made = 0;
    const Real = WebAssembly.Module;
    WebAssembly.Module = function (bytes) { made++; return new Real(bytes); };
    const { deflateRawSmall, inflateRawStrict } = await import(${
    JSON.stringify(new URL("../lib/zip/deflate.ts", import.meta.url).href)
  });
    const text = new TextEncoder().encode("many small entries, ".repeat(20));
    const seen = [];
    let packed;
    for (let i = 1; i <= 65; i++) { packed = deflateRawSmall(text); if (i >= 64) seen.push(made); }
    for (let i = 1; i <= 65; i++) { inflateRawStrict(packed, text.length); if (i >= 64) seen.push(made); }
    console.log(JSON.stringify(seen));
  `;
  const run = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=js", script],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.equal(run.code, 0);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(run.stdout)), [0, 1, 1, 2]);
});
