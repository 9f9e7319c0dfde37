// Copyright 2026 the taskpack authors. MIT license.
/**
 * Builds `lib/zip/deflate_raw_wasm_bytes.ts`: compiles `assembly/deflate_raw.ts` with the
 * pinned AssemblyScript compiler (from the npm registry) and writes the module as base64, so
 * that the core loads it on every runtime without reading a file. The build is reproducible:
 * `tests/deflate_wasm_test.ts` builds it again and compares.
 *
 * ```sh
 * deno task build:wasm
 * ```
 *
 * @module
 */
import asc from "assemblyscript/asc";
import { encodeBase64 } from "../lib/bytes/mod.ts";

const SOURCE = new URL("../assembly/deflate_raw.ts", import.meta.url);
const TARGET = new URL("../lib/zip/deflate_raw_wasm_bytes.ts", import.meta.url);

/**
 * Compiles the AssemblyScript encoder.
 *
 * @returns The WebAssembly module's bytes.
 */
export async function buildDeflateWasm(): Promise<Uint8Array> {
  const source = await Deno.readTextFile(SOURCE);
  const result = await asc.compileString({ "deflate_raw.ts": source }, {
    optimizeLevel: 3,
    shrinkLevel: 0,
    runtime: "stub",
    noAssert: true,
  });
  if (result.error || !result.binary) {
    throw new Error(`assembly/deflate_raw.ts does not compile:\n${result.stderr.toString()}`);
  }
  return result.binary;
}

/**
 * The TypeScript module that carries the compiled bytes.
 *
 * @param wasm The WebAssembly module's bytes.
 * @returns The module's text.
 */
export function bytesModule(wasm: Uint8Array): string {
  return `// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
// Written by \`deno task build:wasm\` from assembly/deflate_raw.ts: do not edit.
/**
 * The raw DEFLATE encoder of \`assembly/deflate_raw.ts\`, compiled to WebAssembly (${wasm.length}
 * bytes), in base64.
 *
 * @module
 */

/** The WebAssembly module, base64. */
export const DEFLATE_RAW_WASM: string =
  "${encodeBase64(wasm)}";
`;
}

if (import.meta.main) {
  const wasm = await buildDeflateWasm();
  await Deno.writeTextFile(TARGET, bytesModule(wasm));
  console.log(`wrote lib/zip/deflate_raw_wasm_bytes.ts (${wasm.length} bytes of WebAssembly)`);
}
