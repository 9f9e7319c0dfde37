// Copyright 2026 the taskpack authors. MIT license.
/**
 * The parts of a `node:zlib` engine, not documented by `node:zlib`, that let a caller drive it
 * into buffers of its own, one synchronous write at a time: the block deflater and the
 * step-by-step inflater both use them, and both fall back to documented calls where a runtime
 * does not have them.
 *
 * Not part of the browser-compatible core: it drives `node:` engines.
 *
 * @module
 */

/** An engine's native handle. */
export interface ZlibHandle {
  /** Starts the engine afresh (a new stream), keeping its memory. */
  reset(): void;
  /**
   * Compresses or inflates `input[inOffset, +inLength)` into `output[outOffset, +outLength)`;
   * how much of each is left is then in the engine's write state.
   */
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
  /** Told of a failure during a write (it does not throw). */
  onerror: (message: string, errno: number) => void;
}

/** A `node:zlib` engine opened up for driving. */
export interface ZlibEngine {
  handle: ZlibHandle;
  /** After each write: output room left (`[0]`) and input left (`[1]`). */
  state: Uint32Array;
}

/**
 * The handle and write state of an engine made by `node:zlib` (`createDeflateRaw()`,
 * `createInflateRaw()`), or null where the runtime's engine does not have them.
 *
 * @param engine The engine.
 * @returns Its handle and write state, or null.
 *
 * @example Usage
 * ```ts
 * import { zlibEngine } from "./zlib_engine.ts";
 * import { createInflateRaw } from "node:zlib";
 * import assert from "node:assert/strict";
 *
 * const engine = createInflateRaw();
 * const opened = zlibEngine(engine);
 * if (opened) assert.equal(opened.state.length, 2);
 * engine.close();
 * ```
 */
export function zlibEngine(engine: unknown): ZlibEngine | null {
  const { _handle: handle, _writeState: state } = engine as {
    _handle?: Partial<ZlibHandle>;
    _writeState?: unknown;
  };
  if (
    typeof handle?.writeSync !== "function" || typeof handle.reset !== "function" ||
    !(state instanceof Uint32Array)
  ) return null;
  return { handle: handle as ZlibHandle, state };
}
