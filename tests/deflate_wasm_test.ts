// Copyright 2026 the taskpack authors. MIT license.
import assert from "node:assert/strict";
import { inflateRawSync } from "node:zlib";
import fc from "fast-check";
import { decodeBase64Strict } from "../lib/bytes/mod.ts";
import { deflateRawSmall } from "../lib/zip/deflate.ts";
import { deflateRawJs } from "../lib/zip/deflate_raw.ts";
import { deflateRawWasm, WASM_DEFLATE_LIMIT } from "../lib/zip/deflate_raw_wasm.ts";
import { DEFLATE_RAW_WASM } from "../lib/zip/deflate_raw_wasm_bytes.ts";
import { buildDeflateWasm, bytesModule } from "../tools/build_wasm.ts";

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

Deno.test("deflate wasm: the committed module is what assembly/deflate_raw.ts compiles to", async () => {
  const built = await buildDeflateWasm();
  assert.deepEqual(decodeBase64Strict(DEFLATE_RAW_WASM), built);
  const committed = await Deno.readTextFile(
    new URL("../lib/zip/deflate_raw_wasm_bytes.ts", import.meta.url),
  );
  assert.equal(committed, bytesModule(built), "run `deno task build:wasm`");
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
