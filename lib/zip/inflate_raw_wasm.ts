// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The core's strict raw DEFLATE decoder compiled to WebAssembly (`assembly/inflate_raw.ts`): the
 * same answer as `inflateRawJs` (`inflate_raw.ts`) for every input, valid or not, at full speed
 * from the first call. The module is compiled on first use, once per isolate; where it cannot be
 * (see `wasm.ts`), or when the input or output could pass {@linkcode WASM_INFLATE_LIMIT}, it
 * answers `null` and the caller uses the script decoder. For the core's own use: not in the
 * library's public API.
 *
 * @module
 */
import { INFLATE_RAW_WASM } from "./inflate_raw_wasm_bytes.ts";
import { outputLimit, pastLimit } from "./inflate_raw.ts";
import { WasmInstance } from "./wasm.ts";

/**
 * The most input, and the most output, the WebAssembly decoder is given room for (its memory
 * grows to fit the largest input and output it has had, and never shrinks): 1 MiB each, for the
 * small entries it is for.
 */
export const WASM_INFLATE_LIMIT = 1 << 20;

/** What `assembly/inflate_raw.ts` exports. */
interface Decoder {
  memory: WebAssembly.Memory;
  prepare(length: number, limit: number): number;
  inflate(length: number, limit: number): number;
  output(): number;
}

const decoder = new WasmInstance<Decoder>(INFLATE_RAW_WASM);

/** What the decoder answers instead of a length. */
const TRAILING = -1;
const FULL = -2;

/**
 * Inflates one complete raw DEFLATE stream with the WebAssembly decoder, strictly: what
 * `inflateRawJs` answers for the same arguments (see there), or `null` when this runtime cannot
 * run it or the input or the output could pass {@linkcode WASM_INFLATE_LIMIT}.
 *
 * @param data The compressed bytes, exactly one raw DEFLATE stream.
 * @param size The most bytes the output may have.
 * @returns The output or what is wrong with the stream, or null.
 *
 * @example Usage
 * ```ts
 * import { inflateRawWasm } from "./inflate_raw_wasm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // "hello" as one fixed-Huffman block.
 * const packed = new Uint8Array([0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]);
 * assertEquals(inflateRawWasm(packed, 5), { bytes: new TextEncoder().encode("hello") });
 * assertEquals(inflateRawWasm(packed, 4), { problem: "too-large" });
 * assertEquals(inflateRawWasm(new Uint8Array([...packed, 0]), 5), { problem: "trailing" });
 * ```
 */
export function inflateRawWasm(
  data: Uint8Array,
  size: number,
): { bytes: Uint8Array } | { problem: "trailing" | "too-large" | "corrupt" } | null {
  const limit = outputLimit(data.length, size);
  if (limit > WASM_INFLATE_LIMIT || data.length > WASM_INFLATE_LIMIT) return null;
  const wasm = decoder.exports;
  if (wasm === null) return null;
  const at = wasm.prepare(data.length, limit);
  if (at === 0) return null; // its memory could not grow
  decoder.bytes!.set(data, at);
  const length = wasm.inflate(data.length, limit);
  if (length >= 0) {
    const start = wasm.output();
    return { bytes: decoder.bytes!.slice(start, start + length) };
  }
  if (length === TRAILING) return { problem: "trailing" };
  if (length === FULL) return { problem: pastLimit(data.length, size) };
  return { problem: "corrupt" };
}
