// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Instantiates the core's WebAssembly builds (`assembly/`), each carried as base64 in a module of
 * its own. Where WebAssembly cannot be compiled from bytes (no `WebAssembly`, a content security
 * policy, an edge runtime that forbids it, a browser's main thread refusing a large synchronous
 * compile), the answer is null and the core uses its script. For the core's own use: not in the
 * library's public API.
 *
 * @module
 */
import { decodeBase64Strict } from "../bytes/mod.ts";

/**
 * The exports of a module built from `base64` (no imports), or null where this runtime cannot
 * compile it.
 *
 * @param base64 The module's bytes, base64.
 * @returns Its exports, or null.
 *
 * @example Usage
 * ```ts
 * import { instantiateWasm } from "./wasm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // The smallest module there is: the magic number and version 1.
 * assertEquals(Object.keys(instantiateWasm("AGFzbQEAAAA=") ?? { none: 1 }), []);
 * assertEquals(instantiateWasm("AGFzbQ=="), null);
 * ```
 */
export function instantiateWasm<T>(base64: string): T | null {
  try {
    const bytes = decodeBase64Strict(base64) as Uint8Array<ArrayBuffer>;
    return new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as T;
  } catch {
    return null;
  }
}
