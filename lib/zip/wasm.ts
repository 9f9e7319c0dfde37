// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The core's WebAssembly builds (`assembly/`), each carried as base64 in a module of its own and
 * instantiated on first use, once per isolate. Where WebAssembly cannot be compiled from bytes
 * (no `WebAssembly`, a content security policy, an edge runtime that forbids it, a browser's main
 * thread refusing a large synchronous compile), there is no instance and the core uses its
 * script. For the core's own use: not in the library's public API.
 *
 * @module
 */
import { decodeBase64Strict } from "../bytes/mod.ts";

/**
 * A WebAssembly module (no imports) made when first asked for, and its memory as bytes.
 *
 * @typeParam T What the module exports, its memory included.
 *
 * @example Usage
 * ```ts
 * import { WasmInstance } from "./wasm.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // The magic number and version 1, and a memory of one page exported as "memory".
 * const module = "AGFzbQEAAAAFAwEAAQcKAQZtZW1vcnkCAA==";
 * const wasm = new WasmInstance<{ memory: WebAssembly.Memory }>(module);
 * assertEquals(wasm.bytes?.length, 65_536);
 * assertEquals(new WasmInstance("AGFzbQ==").exports, null);
 * ```
 */
export class WasmInstance<T extends { memory: WebAssembly.Memory }> {
  readonly #base64: string;
  #exports: T | null | undefined;
  #bytes: Uint8Array = new Uint8Array(0);

  /** @param base64 The module's bytes, base64. */
  constructor(base64: string) {
    this.#base64 = base64;
  }

  /** Its exports, made on first use; null where this runtime cannot compile it. */
  get exports(): T | null {
    if (this.#exports === undefined) {
      try {
        const bytes = decodeBase64Strict(this.#base64) as Uint8Array<ArrayBuffer>;
        const module = new WebAssembly.Module(bytes);
        this.#exports = new WebAssembly.Instance(module, {}).exports as unknown as T;
      } catch {
        this.#exports = null;
      }
    }
    return this.#exports;
  }

  /**
   * Its whole memory as bytes (null without an instance): one view, made again only when the
   * memory has grown (growing it replaces its buffer), so ask again after a call that may grow it.
   */
  get bytes(): Uint8Array | null {
    const buffer = this.exports?.memory.buffer;
    if (buffer === undefined) return null;
    if (this.#bytes.buffer !== buffer) this.#bytes = new Uint8Array(buffer);
    return this.#bytes;
  }
}
