// Copyright 2026 the taskpack authors. MIT license.
/**
 * The runtime's strict raw DEFLATE inflaters for the ZIP reader, over `node:zlib`: a one-shot
 * one for small entries, a streaming one, and a step-by-step one that inflates into buffers
 * the reader gives (see `Inflater.inflateSteps`). Bytes after the end of the stream are found
 * the same way on every runtime, by counting what zlib consumed (`bytesWritten`): only Deno
 * honours `rejectGarbageAfterEnd`, so it is not relied on. Each is tried on known bytes first (a
 * stream with bytes after its end, and one cut short, must both fail) and left out where the
 * runtime does not behave so; the reader then uses the core's own.
 *
 * Not part of the browser-compatible core: it imports `node:` modules.
 *
 * @module
 */
import { constants, createInflateRaw, inflateRawSync, type ZlibOptions } from "node:zlib";
import { coreInflater, type Inflater, type InflateSteps } from "../../lib/zip/mod.ts";
import { zlibEngine } from "./zlib_engine.ts";

/** Deflated entries up to this size are inflated by the core's own inflater. */
const SMALL_INFLATE = 64 * 1024;

/** "hello" as raw DEFLATE (one final block): its last byte ends the stream. */
const HELLO = new Uint8Array([0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]);

/** What zlib says of bytes after the end of a stream (Deno's code for it, kept on every runtime). */
const TRAILING = "ERR_TRAILING_JUNK_AFTER_STREAM_END";

function trailingError(): Error {
  return Object.assign(new Error("Trailing garbage found after the compressed stream"), {
    code: TRAILING,
  });
}

/**
 * Inflates `data`, which must be exactly one raw DEFLATE stream of at most `size` bytes
 * (`maxOutputLength`): zlib stops at the end of the stream, so a stream followed by more bytes
 * is told by how many it consumed (`bytesWritten`), and a stream cut short fails.
 */
function strictInflate(data: Uint8Array, size: number): Uint8Array {
  const { buffer, engine } = inflateRawSync(
    data,
    { maxOutputLength: Math.max(1, size), info: true } as Parameters<typeof inflateRawSync>[1],
  ) as unknown as { buffer: Uint8Array; engine: { bytesWritten: number } };
  if (engine.bytesWritten !== data.length) throw trailingError();
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

/**
 * A one-shot inflater for small ZIP entries: `node:zlib` `inflateRawSync`, which refuses bytes
 * after the end of the stream and a stream cut short, and stops at the declared size. It
 * costs a fraction of a `DecompressionStream` per entry (a pack of thousands of small files).
 * Undefined where the runtime's `node:zlib` does not behave as the probe expects (the reader
 * then uses the core's own and the platform's). Tried once, on first call.
 *
 * @returns The inflater, or undefined.
 *
 * @example Usage
 * ```ts
 * import { nativeInflater } from "./native_inflater.ts";
 * import { deflateRawSync } from "node:zlib";
 * import assert from "node:assert/strict";
 *
 * const packed = new Uint8Array(deflateRawSync(new TextEncoder().encode("hello")));
 * assert.deepEqual(nativeInflater()?.inflate(packed, 5), { bytes: new TextEncoder().encode("hello") });
 * assert.deepEqual(nativeInflater()?.inflate(new Uint8Array([...packed, 0]), 5), { problem: "trailing" });
 * ```
 */
let probed: { inflater: Inflater | undefined } | null = null;

export function nativeInflater(): Inflater | undefined {
  probed ??= { inflater: probeInflater() };
  return probed.inflater;
}

function probeInflater(): Inflater | undefined {
  try {
    const hello = strictInflate(HELLO, 5);
    if (new TextDecoder().decode(hello) !== "hello") return undefined;
    try {
      strictInflate(new Uint8Array([...HELLO, 0]), 5);
      return undefined; // trailing bytes accepted: not strict
    } catch { /* refused, as it must be */ }
    try {
      strictInflate(HELLO.subarray(0, 6), 5);
      return undefined; // a stream cut short accepted: not strict
    } catch { /* refused, as it must be */ }
  } catch {
    return undefined;
  }
  const steps = stepsBehave();
  return {
    inflateStream: strictInflateStream,
    ...(steps ? { inflateSteps: () => zlibSteps()! } : {}),
    inflate(data: Uint8Array, size: number) {
      // A small entry costs the core's own inflater less than a call into node:zlib.
      if (data.length <= SMALL_INFLATE) return coreInflater.inflate(data, size);
      try {
        return { bytes: strictInflate(data, size) };
      } catch (error) {
        const code = (error as { code?: unknown })?.code;
        if (code === TRAILING) return { problem: "trailing" };
        if (code === "ERR_BUFFER_TOO_LARGE") return { problem: "too-large" };
        return { problem: "corrupt" };
      }
    },
  };
}

/**
 * A step-by-step inflater over one `node:zlib` engine, driven directly: each step inflates the
 * input given into the output given (no buffer of its own), and tells when the DEFLATE stream
 * has ended. zlib stops at the end of the stream, so input left over then is not part of it; a
 * last step that leaves the stream unfinished fails ("unexpected end of file"), as does corrupt
 * data. Null where the runtime's engine does not offer this.
 */
function zlibSteps(): InflateSteps | null {
  const engine = createInflateRaw();
  const opened = zlibEngine(engine);
  if (opened === null) {
    engine.close();
    return null;
  }
  const { handle, state } = opened;
  let failure: string | null = null;
  handle.onerror = (message: string) => failure ??= message;
  const write = handle.writeSync.bind(handle);
  return {
    step(input, output, last) {
      if (failure !== null) throw new Error(`Cannot inflate: ${failure}`);
      write(
        last ? constants.Z_FINISH : constants.Z_NO_FLUSH,
        input,
        0,
        input.length,
        output,
        0,
        output.length,
      );
      if (failure !== null) throw new Error(`Cannot inflate: ${failure}`);
      const written = output.length - state[0]!;
      const left = state[1]!;
      // Room left in the output: zlib stopped for want of input, or at the end of the stream
      // (input left over, or a last step that did not fail).
      const ended = written < output.length && (left > 0 || last);
      return { read: input.length - left, written, ended };
    },
    close() {
      engine.close();
    },
  };
}

/**
 * Whether {@linkcode zlibSteps} inflates known bytes exactly, and refuses bytes after the end
 * (by saying the stream ended with input left) and a stream cut short.
 */
function stepsBehave(): boolean {
  const run = (input: Uint8Array): { bytes: number[]; left: number } | null => {
    const engine = zlibSteps();
    if (engine === null) return null;
    try {
      const output = new Uint8Array(2);
      const bytes: number[] = [];
      let rest = input;
      for (let i = 0; i < 16; i++) {
        const step = engine.step(rest, output, true);
        bytes.push(...output.subarray(0, step.written));
        rest = rest.subarray(step.read);
        if (step.ended) return { bytes, left: rest.length };
      }
      return null;
    } catch {
      return null;
    } finally {
      engine.close();
    }
  };
  const hello = run(HELLO);
  if (hello === null || hello.left !== 0) return false;
  if (new TextDecoder().decode(new Uint8Array(hello.bytes)) !== "hello") return false;
  const trailing = run(new Uint8Array([...HELLO, 0]));
  if (trailing === null || trailing.left !== 1) return false;
  return run(HELLO.subarray(0, 6)) === null;
}

/**
 * `node:zlib`'s streaming inflater as a web transform, as strict as the one-shot one: bytes
 * after the end fail with a "Trailing garbage" error (zlib stops at the end of the stream and
 * consumes no more: each write is checked against what it consumed), data cut short with
 * "unexpected end of file". Each write resolves once zlib has consumed it, so output never runs
 * far ahead of what the reader takes (the reader feeds 1 KiB at a time). Several times faster
 * than Deno's `DecompressionStream` on large entries.
 */
function strictInflateStream(): TransformStream<Uint8Array, Uint8Array> {
  const inflate = createInflateRaw({ chunkSize: 256 << 10 } as ZlibOptions);
  let failure: { error: unknown } | null = null;
  let output: TransformStreamDefaultController<Uint8Array> | null = null;
  /** Bytes given to zlib so far; it must have consumed them all after each write. */
  let given = 0;
  let ended = false;
  inflate.on("data", (chunk: Uint8Array) => {
    output?.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
  });
  inflate.on("error", (error: unknown) => failure ??= { error });
  // zlib may end the readable side as soon as the stream ends, before `end()` is called.
  inflate.on("end", () => ended = true);
  /**
   * Settles once zlib has consumed everything given, or has stopped short of it: at the end of
   * the stream (then the bytes after it are refused) or at corrupt data (then its error is);
   * the event that follows the stop says which.
   */
  const consumed = (): Promise<void> => {
    if (failure || inflate.bytesWritten === given) return Promise.resolve();
    return new Promise<void>((resolve) => {
      if (ended) return resolve();
      inflate.once("end", () => resolve());
      inflate.once("error", () => resolve());
    }).then(() => {
      failure ??= { error: trailingError() };
    });
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      output = controller;
    },
    transform(chunk) {
      return new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure.error);
        given += chunk.length;
        inflate.write(chunk, (error?: unknown) => {
          if (error) return reject(failure?.error ?? error);
          consumed().then(() => failure ? reject(failure.error) : resolve());
        });
      });
    },
    flush() {
      return new Promise<void>((resolve, reject) => {
        if (failure) return reject(failure.error);
        const settle = () => consumed().then(() => failure ? reject(failure.error) : resolve());
        inflate.once("error", (error: unknown) => reject(failure?.error ?? error));
        if (ended) {
          inflate.end();
          settle();
          return;
        }
        inflate.once("end", settle);
        inflate.end();
      });
    },
  });
}

/**
 * `{ inflater }` with {@linkcode nativeInflater} where the runtime has a strict one, else `{}`:
 * to spread into the options of `judge`, `land` or `decodePack`.
 *
 * @returns The option.
 */
export function inflaterOption(): { inflater?: Inflater } {
  const inflater = nativeInflater();
  return inflater ? { inflater } : {};
}
