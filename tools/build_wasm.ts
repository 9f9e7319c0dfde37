// Copyright 2026 the taskpack authors. MIT license.
/**
 * Builds `lib/zip/deflate_raw_wasm_bytes.ts` and `lib/zip/inflate_raw_wasm_bytes.ts`: compiles
 * `assembly/deflate_raw.ts` and `assembly/inflate_raw.ts` with the pinned AssemblyScript
 * compiler (from the npm registry) and writes each module as base64, so that the core loads it on
 * every runtime without reading a file. The build is reproducible: `tests/wasm_test.ts` builds
 * them again and compares.
 *
 * ```sh
 * deno task build:wasm
 * ```
 *
 * @module
 */
import asc from "assemblyscript/asc";
import { encodeBase64 } from "../lib/bytes/mod.ts";

/** The modules: each source in `assembly/`, what it is, the constant and file it goes to. */
export const WASM_MODULES = [
  {
    source: "assembly/deflate_raw.ts",
    what: "raw DEFLATE encoder",
    constant: "DEFLATE_RAW_WASM",
    target: "lib/zip/deflate_raw_wasm_bytes.ts",
  },
  {
    source: "assembly/inflate_raw.ts",
    what: "strict raw DEFLATE decoder",
    constant: "INFLATE_RAW_WASM",
    target: "lib/zip/inflate_raw_wasm_bytes.ts",
  },
] as const;

/** One of {@linkcode WASM_MODULES}. */
export type WasmModule = (typeof WASM_MODULES)[number];

/**
 * Compiles one AssemblyScript module.
 *
 * @param module Which.
 * @returns The WebAssembly module's bytes.
 */
export async function buildWasm(module: WasmModule): Promise<Uint8Array> {
  const source = await Deno.readTextFile(new URL(`../${module.source}`, import.meta.url));
  const result = await asc.compileString({ "module.ts": source }, {
    optimizeLevel: 3,
    shrinkLevel: 0,
    runtime: "stub",
    noAssert: true,
  });
  if (result.error || !result.binary) {
    throw new Error(`${module.source} does not compile:\n${result.stderr.toString()}`);
  }
  return result.binary;
}

/**
 * The TypeScript module that carries one compiled module.
 *
 * @param module Which.
 * @param wasm Its bytes.
 * @returns The module's text.
 */
export function bytesModule(module: WasmModule, wasm: Uint8Array): string {
  return `// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
// Written by \`deno task build:wasm\` from ${module.source}: do not edit.
/**
 * The ${module.what} of \`${module.source}\`, compiled to WebAssembly (${wasm.length} bytes),
 * in base64.
 *
 * @module
 */

/** The WebAssembly module, base64. */
export const ${module.constant}: string =
  "${encodeBase64(wasm)}";
`;
}

if (import.meta.main) {
  for (const module of WASM_MODULES) {
    const wasm = await buildWasm(module);
    await Deno.writeTextFile(
      new URL(`../${module.target}`, import.meta.url),
      bytesModule(module, wasm),
    );
    console.log(`wrote ${module.target} (${wasm.length} bytes of WebAssembly)`);
  }
}
