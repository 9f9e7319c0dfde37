// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The core's raw DEFLATE encoder compiled to WebAssembly (`assembly/deflate_raw.ts`): the same
 * bytes as `deflateRawJs` (`deflate_raw.ts`) for every input, at full speed from the first
 * call. The module is compiled on first use, once per isolate; where it cannot be (see
 * `wasm.ts`), or for inputs over {@linkcode WASM_DEFLATE_LIMIT}, it answers `null` and the
 * caller uses the script encoder. For the core's own use: not in the library's public API.
 *
 * @module
 */
import { DEFLATE_RAW_WASM } from "./deflate_raw_wasm_bytes.ts";
import { WasmInstance } from "./wasm.ts";

/**
 * The largest input given to the WebAssembly encoder. Its memory grows to fit the largest input
 * and output it has had and never shrinks, so it is kept for small entries (which is what it
 * is for): about 2.3 MiB at most.
 */
export const WASM_DEFLATE_LIMIT = 1 << 20;

/** What `assembly/deflate_raw.ts` exports. */
interface Encoder {
  memory: WebAssembly.Memory;
  prepare(length: number): number;
  deflate(length: number): number;
  output(): number;
}

const encoder = new WasmInstance<Encoder>(DEFLATE_RAW_WASM);

/**
 * Deflates `bytes` into one complete raw DEFLATE stream with the WebAssembly encoder: the bytes
 * `deflateRawJs` gives, or `null` when this runtime cannot run it or `bytes` is over
 * {@linkcode WASM_DEFLATE_LIMIT}.
 *
 * @param bytes The bytes to compress.
 * @returns The raw DEFLATE stream, or null.
 *
 * @example Usage
 * ```ts
 * import { deflateRawWasm } from "./deflate_raw_wasm.ts";
 * import { deflateRawJs } from "./deflate_raw.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const text = new TextEncoder().encode("to be or not to be, ".repeat(50));
 * assertEquals(deflateRawWasm(text), deflateRawJs(text));
 * ```
 */
export function deflateRawWasm(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length > WASM_DEFLATE_LIMIT) return null;
  const wasm = encoder.exports;
  if (wasm === null) return null;
  const at = wasm.prepare(bytes.length);
  if (at === 0) return null; // its memory could not grow
  encoder.bytes!.set(bytes, at);
  const length = wasm.deflate(bytes.length);
  if (length < 0) throw new Error("deflateRawWasm: output overran its room");
  const start = wasm.output();
  return encoder.bytes!.slice(start, start + length);
}
