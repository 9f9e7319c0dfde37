// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Raw DEFLATE (RFC 1951): the core's own codecs for small entries (an encoder for bytes in
 * memory up to {@linkcode SMALL_DEFLATE}, a strict one-shot inflater; each in TypeScript and
 * compiled to WebAssembly, with the same answers), and the platform's `CompressionStream` and
 * `DecompressionStream` (`"deflate-raw"`), native in Deno, Node, Bun and browsers, for larger
 * ones.
 *
 * Native deflaters are deterministic for the same sequence of writes, but their output can
 * depend on how the input was split: Deno's `CompressionStream` ends every write with a sync
 * flush, so the same bytes written as one chunk or as a thousand give different (valid)
 * streams. Everything here therefore feeds the deflater fixed {@linkcode DEFLATE_CHUNK}-byte
 * pieces, whatever the caller's chunks were: the same bytes always deflate to the same bytes
 * within one runtime, whether they were deflated from memory or streamed. Across runtimes the
 * native output differs (each bundles its own zlib), the core's does not; the inflated bytes
 * never do.
 *
 * @module
 */
import { readAllBytes } from "../bytes/mod.ts";
import { deflateRawJs } from "./deflate_raw.ts";
import { deflateRawWasm } from "./deflate_raw_wasm.ts";
import { inflateRawJs } from "./inflate_raw.ts";
import { inflateRawWasm } from "./inflate_raw_wasm.ts";

/** The size of the pieces fed to the deflater: 64 KiB. */
export const DEFLATE_CHUNK = 65_536;

/**
 * Bytes held in memory up to this size (16 KiB) are deflated by the core's own encoder: for a
 * small file, setting up a native deflater costs more than the deflating (measured on Deno
 * 2.9: 14 µs against 25 µs for 1 KiB; even at about 8 KiB, and slower beyond).
 */
export const SMALL_DEFLATE = 16_384;

/**
 * Calls that go to the scripts before the WebAssembly builds are made: making one costs an
 * isolate about 3 MiB and 3 ms, which pays only when many entries follow (a pack of 10,000
 * small files), not for the tag files of a pack of large ones.
 */
const SCRIPT_FIRST = 64;
let deflates = 0;
let inflates = 0;

/**
 * Deflates `bytes` into one complete raw DEFLATE stream with the core's own encoder: its
 * WebAssembly build where the runtime can compile it (up to 1 MiB of input, from the 65th call
 * on), else its script. Both give the same bytes, so the output is the same on every runtime:
 * the same bytes always deflate to the same bytes. Tuned for small entries, where it is much
 * cheaper than a native zlib binding and compresses about as well as zlib level 6; correct at
 * any size.
 *
 * @param bytes The bytes to compress.
 * @returns The raw DEFLATE stream (RFC 1951).
 *
 * @example Usage
 * ```ts
 * import { deflateRawSmall } from "./deflate.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const text = new TextEncoder().encode("to be or not to be, ".repeat(50));
 * const packed = deflateRawSmall(text);
 * assert(packed.length < 60);
 *
 * // Any raw DEFLATE inflater reads it, the platform's own included.
 * const inflated = new Blob([packed.slice()]).stream()
 *   .pipeThrough(new DecompressionStream("deflate-raw"));
 * assertEquals(await new Response(inflated).bytes(), text);
 * ```
 */
export function deflateRawSmall(bytes: Uint8Array): Uint8Array {
  return (++deflates > SCRIPT_FIRST ? deflateRawWasm(bytes) : null) ?? deflateRawJs(bytes);
}

/**
 * A raw DEFLATE implementation for the ZIP writer. The default, {@linkcode platformDeflater},
 * is the platform's `CompressionStream` on the calling thread; a shell may pass one that
 * spreads the work over more cores. Whatever it is, it must be deterministic — the same bytes
 * give the same output, however they arrive in chunks — so that a pack is reproducible with it.
 */
export interface Deflater {
  /**
   * Deflates bytes held in memory.
   *
   * @param bytes The bytes (not empty). Read them only: do not change or transfer them (they
   * may share their buffer with other entries).
   * @returns A complete raw DEFLATE stream.
   */
  deflate(bytes: Uint8Array): Promise<Uint8Array>;
  /**
   * A transform that deflates a stream into one complete raw DEFLATE stream.
   *
   * @returns A readable/writable pair usable with `pipeThrough`.
   */
  deflateStream(): TransformStream<Uint8Array, Uint8Array>;
  /**
   * True when {@linkcode Deflater.deflateStream}'s transform is done with each chunk written to
   * it once that write has resolved (it copies what it keeps): the ZIP writer may then read a
   * streamed entry into one reused buffer instead of a fresh one per chunk, which keeps memory
   * flat however large the entry is.
   */
  readonly streamCopiesInput?: boolean;
  /**
   * Takes back an output chunk of {@linkcode Deflater.deflateStream} that its reader is done
   * with for good, so that its buffer may be filled again: a deflater that hands out a fresh
   * buffer per block (made on another thread, say) then cycles through a few instead of leaving
   * one per block for the collector. The ZIP writer calls it only when its sink is done with
   * each chunk by the time its write returns (`writeZipTo`).
   */
  recycle?(chunk: Uint8Array): void;
}

/**
 * A one-shot, strict raw DEFLATE decoder for small ZIP entries (the reader streams large ones
 * through the platform's `DecompressionStream`). A shell may pass one that costs less per entry
 * than a stream (a folder of thousands of small files).
 */
export interface Inflater {
  /**
   * Inflates one complete raw DEFLATE stream that must end exactly at the end of `data` and
   * inflate to no more than `size` bytes.
   *
   * @param data The compressed bytes.
   * @param size The most bytes the output may have (more is `too-large`).
   * @returns The output, or what is wrong: `trailing` (bytes after the end of the stream),
   * `too-large`, or `corrupt` (anything else, a stream cut short included).
   */
  inflate(
    data: Uint8Array,
    size: number,
  ): { bytes: Uint8Array } | { problem: "trailing" | "too-large" | "corrupt" };
  /**
   * A streaming inflater for large entries, if the shell has one that is cheaper than the
   * platform's `DecompressionStream`. It must be as strict as `inflate`: the stream errors on
   * bytes after the end of the DEFLATE data (with "trailing" in its message) and on data cut
   * short, and it must not inflate far ahead of what is read from it.
   *
   * @returns A readable/writable pair usable with `pipeThrough`.
   */
  inflateStream?(): TransformStream<Uint8Array, Uint8Array>;
  /**
   * A step-by-step inflater that writes into buffers the caller gives, if the shell has one:
   * the reader then inflates a large entry straight into the buffer its reader brings, and
   * reads the compressed bytes into one buffer it reuses, so that inflating a large entry
   * allocates nothing per chunk. Preferred over {@linkcode Inflater.inflateStream} where the
   * source can read into a buffer.
   *
   * @returns A fresh engine for one DEFLATE stream.
   */
  inflateSteps?(): InflateSteps;
}

/**
 * One raw DEFLATE stream, inflated step by step into buffers the caller gives (see
 * {@linkcode Inflater.inflateSteps}).
 */
export interface InflateSteps {
  /**
   * Inflates from `input` into `output`, as far as either goes or the stream ends.
   *
   * @param input Compressed bytes not consumed yet (may be empty).
   * @param output Where to write; not empty.
   * @param last True when `input` holds all the compressed bytes left.
   * @returns How much of `input` was consumed, how much of `output` written, and whether the
   * end of the DEFLATE stream was reached (bytes of `input` left over then are not part of it).
   * @throws When the data is corrupt, or, with `last`, cut short of its end.
   */
  step(
    input: Uint8Array,
    output: Uint8Array,
    last: boolean,
  ): { read: number; written: number; ended: boolean };
  /** Lets go of the engine (also after a failure). */
  close(): void;
}

/**
 * The platform's deflater: bytes in memory up to {@linkcode SMALL_DEFLATE} by the core's own
 * encoder, larger ones by {@linkcode deflateRaw}, and streams by {@linkcode deflateRawStream}
 * (`CompressionStream`, on the calling thread).
 * @example Usage
 * ```ts
 * import { platformDeflater } from "./deflate.ts";
 * import { assert } from "@std/assert";
 * const packed = await platformDeflater.deflate(new TextEncoder().encode("a".repeat(1000)));
 * assert(packed.length < 100);
 * ```
 */
export const platformDeflater: Deflater = {
  deflate: (bytes) => deflateInMemory(bytes, deflateRaw),
  deflateStream: () => deflateRawStream(),
};

/**
 * Deflates bytes in memory: up to {@linkcode SMALL_DEFLATE} with the core's own encoder
 * (deterministic on every runtime), else with `large`.
 *
 * @param bytes The bytes.
 * @param large The deflater for more than {@linkcode SMALL_DEFLATE} bytes.
 * @returns A complete raw DEFLATE stream.
 * @example Usage
 * ```ts
 * import { deflateInMemory, deflateRaw } from "./deflate.ts";
 * import { assert } from "@std/assert";
 * const packed = await deflateInMemory(new TextEncoder().encode("ab".repeat(500)), deflateRaw);
 * assert(packed.length < 50);
 * ```
 */
export function deflateInMemory(
  bytes: Uint8Array,
  large: (bytes: Uint8Array) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  if (bytes.length > SMALL_DEFLATE) return large(bytes);
  try {
    return Promise.resolve(deflateRawSmall(bytes));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Inflates one complete raw DEFLATE stream with the core's own decoder, strictly: its
 * WebAssembly build where the runtime can compile it (up to 1 MiB of input and of output, from
 * the 65th call on), else its script; both give the same answer for every input. The stream must
 * end (with its final block) in the last byte of `data` and inflate to at most `size` bytes; it
 * never throws, and never makes more than `size` bytes of output (nor more than 1032 a byte of
 * `data`). A stream that ends before `size` bytes gives the shorter output: the caller compares
 * lengths.
 *
 * @param data The compressed bytes, exactly one raw DEFLATE stream.
 * @param size The most bytes the output may have; inflating byte `size + 1` is `too-large`.
 * @returns The output, or what is wrong: `trailing` (bytes after the end of the stream; the
 * unused bits of its last byte are ignored), `too-large`, or `corrupt` (anything else, a
 * stream cut short included).
 *
 * @example Usage
 * ```ts
 * import { inflateRawStrict } from "./deflate.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // "hello" as one fixed-Huffman block.
 * const packed = new Uint8Array([0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]);
 * assertEquals(inflateRawStrict(packed, 5), { bytes: new TextEncoder().encode("hello") });
 * assertEquals(inflateRawStrict(packed, 4), { problem: "too-large" });
 * assertEquals(inflateRawStrict(packed.subarray(0, 6), 5), { problem: "corrupt" });
 * ```
 */
export function inflateRawStrict(
  data: Uint8Array,
  size: number,
): { bytes: Uint8Array } | { problem: "trailing" | "too-large" | "corrupt" } {
  return (++inflates > SCRIPT_FIRST ? inflateRawWasm(data, size) : null) ??
    inflateRawJs(data, size);
}

/**
 * The core's own one-shot inflater ({@linkcode inflateRawStrict}): strict about the end of the
 * stream and the size, and for small entries several times faster than a native one called per
 * entry.
 * The ZIP reader uses it for small entries when it is given no other.
 * @example Usage
 * ```ts
 * import { coreInflater, deflateRaw } from "./deflate.ts";
 * import { assertEquals } from "@std/assert";
 * const text = new TextEncoder().encode("hello, hello, hello");
 * const packed = await deflateRaw(text);
 * assertEquals(coreInflater.inflate(packed, text.length), { bytes: text });
 * assertEquals(coreInflater.inflate(new Uint8Array([...packed, 0]), text.length), {
 *   problem: "trailing",
 * });
 * ```
 */
export const coreInflater: Inflater = { inflate: inflateRawStrict };

/** Smallest sample {@linkcode looksCompressible} judges; anything shorter counts as compressible. */
const MIN_SAMPLE = 64;

/**
 * Deflates bytes held in memory (raw DEFLATE, no zlib or gzip wrapper).
 *
 * The output is byte-for-byte what {@linkcode deflateRawStream} gives for the same bytes,
 * however they are chunked.
 *
 * @param bytes The bytes to compress.
 * @returns The raw DEFLATE stream.
 *
 * @example Usage
 * ```ts
 * import { deflateRaw } from "./deflate.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const text = new TextEncoder().encode("abc".repeat(1000));
 * const packed = await deflateRaw(text);
 * assert(packed.length < 100);
 * assertEquals(await deflateRaw(text), packed);
 * ```
 */
export async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const deflater = new CompressionStream("deflate-raw");
  const output = readAllBytes(deflater.readable as ReadableStream<Uint8Array>);
  const writer = (deflater.writable as WritableStream<Uint8Array>).getWriter();
  try {
    for (let offset = 0; offset < bytes.length; offset += DEFLATE_CHUNK) {
      await writer.write(bytes.subarray(offset, offset + DEFLATE_CHUNK));
    }
    await writer.close();
  } catch (error) {
    output.catch(() => {});
    throw error;
  }
  return await output;
}

/**
 * A transform that deflates a stream (raw DEFLATE). Its input is re-cut into
 * {@linkcode DEFLATE_CHUNK}-byte pieces before it reaches the deflater, so the output depends
 * only on the bytes, never on how they were chunked.
 *
 * @returns A readable/writable pair usable with `pipeThrough`.
 *
 * @example Usage
 * ```ts
 * import { deflateRaw, deflateRawStream } from "./deflate.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const bytes = new TextEncoder().encode("hello, ".repeat(20_000));
 * const pieces = [bytes.subarray(0, 7), bytes.subarray(7, 100_001), bytes.subarray(100_001)];
 * const streamed = await new Response(
 *   ReadableStream.from(pieces).pipeThrough(deflateRawStream()),
 * ).bytes();
 * assertEquals(streamed, await deflateRaw(bytes));
 * ```
 */
export function deflateRawStream(): TransformStream<Uint8Array, Uint8Array> {
  const deflater = new CompressionStream("deflate-raw");
  const rechunk = rechunkStream(DEFLATE_CHUNK);
  // Errors travel both ways through the pipe (abort forward, cancel backward); the pipe's own
  // promise only repeats them.
  rechunk.readable.pipeTo(deflater.writable as WritableStream<Uint8Array>).catch(() => {});
  return { writable: rechunk.writable, readable: deflater.readable as ReadableStream<Uint8Array> };
}

/**
 * A transform that inflates a raw DEFLATE stream.
 *
 * It does not bound its output: a reader of hostile data must count what comes out and feed
 * it small pieces of input (as the ZIP reader does).
 *
 * @returns A readable/writable pair usable with `pipeThrough`.
 *
 * @example Usage
 * ```ts
 * import { deflateRaw, inflateRawStream } from "./deflate.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const text = new TextEncoder().encode("round trip");
 * const packed = await deflateRaw(text);
 * const back = await new Response(
 *   ReadableStream.from([packed]).pipeThrough(inflateRawStream()),
 * ).bytes();
 * assertEquals(back, text);
 * ```
 */
export function inflateRawStream(): TransformStream<Uint8Array, Uint8Array> {
  const inflater = new DecompressionStream("deflate-raw");
  return {
    writable: inflater.writable as WritableStream<Uint8Array>,
    readable: inflater.readable as ReadableStream<Uint8Array>,
  };
}

/**
 * Says whether bytes are worth deflating, judging from a sample (the caller passes up to the
 * first 64 KiB): true when the sample deflates to less than 90% of its size. Samples shorter
 * than 64 bytes always count as compressible (small entries are deflated whole and stored
 * when that does not help).
 *
 * @param sample The first bytes of the data.
 * @returns True when deflating is likely to pay.
 *
 * @example Usage
 * ```ts
 * import { looksCompressible } from "./deflate.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(await looksCompressible(new TextEncoder().encode("log line\n".repeat(500))), true);
 * assertEquals(await looksCompressible(crypto.getRandomValues(new Uint8Array(4096))), false);
 * ```
 */
export async function looksCompressible(sample: Uint8Array): Promise<boolean> {
  if (sample.length < MIN_SAMPLE) return true;
  const deflated = await deflateRaw(sample);
  return deflated.length < sample.length * 0.9;
}

/** A transform that re-cuts a byte stream into `size`-byte chunks (the last may be shorter). */
function rechunkStream(size: number): TransformStream<Uint8Array, Uint8Array> {
  let pending = new Uint8Array(size);
  let filled = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let offset = 0;
      while (offset < chunk.length) {
        if (filled === 0 && chunk.length - offset >= size) {
          // A whole piece straight from the input: hand it on without copying.
          controller.enqueue(chunk.subarray(offset, offset + size));
          offset += size;
          continue;
        }
        const take = Math.min(size - filled, chunk.length - offset);
        pending.set(chunk.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === size) {
          controller.enqueue(pending);
          pending = new Uint8Array(size);
          filled = 0;
        }
      }
    },
    flush(controller) {
      if (filled > 0) controller.enqueue(pending.subarray(0, filled));
    },
  });
}
