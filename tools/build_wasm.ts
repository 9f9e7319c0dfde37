// Copyright 2026 the taskpack authors. MIT license.
/**
 * Builds `lib/zip/deflate_raw_wasm_bytes.ts` and `lib/zip/inflate_raw_wasm_bytes.ts`: compiles
 * `assembly/deflate_raw.ts` and `assembly/inflate_raw.ts` (which share `assembly/common.ts`)
 * with the pinned AssemblyScript compiler (from the npm registry) and writes each module as
 * base64, so that the core loads it on every runtime without reading a file. The build is
 * reproducible: `tests/wasm_test.ts` builds them again and compares.
 *
 * ```sh
 * deno task build:wasm
 * ```
 *
 * @module
 */
import asc from "npm:assemblyscript@0.28.20/asc";
import { encodeBase64 } from "../lib/bytes/mod.ts";

/** What the modules share (imported as `./common`). */
const COMMON = "assembly/common.ts";

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
  const read = (path: string) => Deno.readTextFile(new URL(`../${path}`, import.meta.url));
  // `./common` is read when imported, not given as an entry: its exports stay inside.
  const files: Record<string, string> = {
    "module.ts": await read(module.source),
    "common.ts": await read(COMMON),
  };
  let binary: Uint8Array | undefined;
  const errors: string[] = [];
  const { error } = await asc.main(
    ["module.ts", "--outFile", "module.wasm", "-O3", "--runtime", "stub", "--noAssert"],
    {
      readFile: (name: string) => files[name] ?? null,
      writeFile: (name: string, contents: Uint8Array | string) => {
        if (name === "module.wasm" && typeof contents !== "string") binary = contents;
      },
      listFiles: () => [],
      stderr: { write: (text: string | Uint8Array) => void errors.push(String(text)) },
    },
  );
  if (error || !binary) {
    throw new Error(`${module.source} does not compile:\n${errors.join("")}${error ?? ""}`);
  }
  return binary;
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
