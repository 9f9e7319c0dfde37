// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Where bytes come from. The core never opens files: a pack to read is a
 * {@linkcode ByteSource} (random access, so a multi-GiB ZIP is never held in memory), and a
 * luggage file to pack is a {@linkcode Luggage} (a name, a size and a stream that can be opened
 * more than once). Shells build these over files; tests and browsers build them over bytes.
 *
 * @module
 */

/** Random-access bytes: a file, a Blob, or an array in memory. */
export interface ByteSource {
  /** Total size in bytes. */
  readonly size: number;
  /**
   * Reads `length` bytes at `offset`. Must return exactly that many bytes when the range is
   * inside the source.
   */
  read(offset: number, length: number): Promise<Uint8Array>;
}

/**
 * A {@linkcode ByteSource} over bytes in memory.
 *
 * @param bytes The bytes.
 * @returns A source that reads from them without copying.
 *
 * @example Usage
 * ```ts
 * import { bytesSource } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const source = bytesSource(new Uint8Array([1, 2, 3, 4]));
 * assertEquals(source.size, 4);
 * assertEquals(await source.read(1, 2), new Uint8Array([2, 3]));
 * ```
 */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read(offset: number, length: number): Promise<Uint8Array> {
      if (offset < 0 || length < 0 || offset + length > bytes.length) {
        return Promise.reject(
          new RangeError(`Cannot read bytes: ${offset}+${length} is out of range`),
        );
      }
      return Promise.resolve(bytes.subarray(offset, offset + length));
    },
  };
}

/**
 * A {@linkcode ByteSource} over a `Blob` (or a browser `File`).
 *
 * @param blob The blob.
 * @returns A source that slices the blob on demand.
 *
 * @example Usage
 * ```ts
 * import { blobSource } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const source = blobSource(new Blob([new Uint8Array([9, 8, 7])]));
 * assertEquals(await source.read(2, 1), new Uint8Array([7]));
 * ```
 */
export function blobSource(blob: Blob): ByteSource {
  return {
    size: blob.size,
    async read(offset: number, length: number): Promise<Uint8Array> {
      if (offset < 0 || length < 0 || offset + length > blob.size) {
        throw new RangeError(`Cannot read blob: ${offset}+${length} is out of range`);
      }
      return new Uint8Array(await blob.slice(offset, offset + length).arrayBuffer());
    },
  };
}

/** One luggage file to pack: `data/files/<name>` in the bag. */
export interface Luggage {
  /** Relative, `/`-separated path under `data/files/`. */
  readonly name: string;
  /** Size in bytes. */
  readonly size: number;
  /** Opens the bytes. Called more than once: packing hashes first, then writes. */
  open(): ReadableStream<Uint8Array>;
  /**
   * All the bytes at once, offered where that is cheap (bytes in memory, a small file, a small
   * ZIP entry). Readers use it for small luggage instead of {@linkcode Luggage.open}: thousands
   * of small files cost far less without a stream each.
   */
  read?(): Promise<Uint8Array>;
  /**
   * True when what {@linkcode Luggage.read} gives is the caller's alone: no one else holds
   * those bytes or changes them (a file read into a fresh buffer). Packing then keeps them
   * as they are; else it keeps a copy, made once they are checked.
   */
  readonly readsOwnBytes?: boolean;
  /**
   * The raw DEFLATE of the bytes {@linkcode Luggage.read} last gave, when the source made it
   * already (a shell that compresses small files on another core as it reads them), else null.
   * Packing uses it instead of deflating those bytes itself, so it must be exactly what the
   * pack's deflater would make of them: the pack stays the same, byte for byte.
   */
  deflated?(): Promise<Uint8Array | null>;
}

/**
 * Luggage held in memory.
 *
 * @param name The path under `data/files/`.
 * @param data The bytes, or a string to store as UTF-8.
 * @returns A luggage file.
 *
 * @example Usage
 * ```ts
 * import { luggageFromBytes } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const file = luggageFromBytes("notes/brief.txt", "hello");
 * assertEquals(file.size, 5);
 * ```
 */
export function luggageFromBytes(name: string, data: Uint8Array | string): Luggage {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return {
    name,
    size: bytes.length,
    open(): ReadableStream<Uint8Array> {
      return chunkedStream(bytes);
    },
    read: () => Promise.resolve(bytes),
  };
}

const CHUNK = 1 << 20;

/** A stream over bytes in 1 MiB chunks (so large arrays still stream in bounded pieces). */
export function chunkedStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      const end = Math.min(bytes.length, offset + CHUNK);
      controller.enqueue(bytes.subarray(offset, end));
      offset = end;
    },
  });
}
