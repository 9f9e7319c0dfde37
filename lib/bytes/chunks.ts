// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Reading a stream without a fresh buffer per chunk, where the stream allows it.
 *
 * @module
 */

const MIN_BUFFER = 4096;
const MIN_REUSE = 64 * 1024;
const MAX_BUFFER = 1 << 20;

/**
 * Yields a stream's chunks, read into one buffer that is used again and again when the stream
 * is a byte stream (read with a BYOB reader), else as the stream hands them out. Allocating a
 * fresh buffer for every megabyte costs more than reading it (the memory is new to the
 * process), so a pass that only looks at each chunk once — hashing, scanning — should read
 * this way. A chunk is valid only until the next one is asked for: copy what you keep.
 *
 * @param stream The stream.
 * @param expected How many bytes the stream should hold, if known: the reused buffer is no
 * larger than needed (between 4 KiB and 1 MiB).
 * @returns The chunks.
 */
export async function* borrowChunks(
  stream: ReadableStream<Uint8Array>,
  expected: number = MAX_BUFFER,
): AsyncGenerator<Uint8Array> {
  const size = Math.min(MAX_BUFFER, Math.max(MIN_BUFFER, expected + 1));
  let byob: ReadableStreamBYOBReader | null = null;
  // A small stream gains nothing from a reused buffer (nor from the failed attempt to get a
  // BYOB reader on a stream that is not a byte stream).
  if (expected >= MIN_REUSE) {
    try {
      byob = stream.getReader({ mode: "byob" });
    } catch {
      // Not a byte stream: read it as it comes.
    }
  }
  if (byob === null) {
    const reader = stream.getReader();
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  let buffer = new Uint8Array(size);
  try {
    while (true) {
      const { done, value } = await byob.read(buffer);
      if (done || value === undefined) return;
      if (value.length > 0) yield value;
      // The read moved the buffer into `value`; take it back for the next read.
      buffer = new Uint8Array(value.buffer, 0, size);
    }
  } finally {
    byob.releaseLock();
  }
}

/** Luggage at most this large is read whole when its source offers `read()`. */
const WHOLE_READ = 1 << 20;

/**
 * A luggage file's chunks: the whole file in one when it is small and its source can read it at
 * once (no stream to set up: thousands of small files cost far less), else its stream's chunks
 * as {@linkcode borrowChunks} lends them.
 *
 * @param file The luggage.
 * @returns The chunks.
 */
export async function* luggageChunks(file: {
  readonly size: number;
  open(): ReadableStream<Uint8Array>;
  read?(): Promise<Uint8Array>;
}): AsyncGenerator<Uint8Array> {
  if (file.read && file.size <= WHOLE_READ) {
    const bytes = await file.read();
    if (bytes.length > 0) yield bytes;
    return;
  }
  yield* borrowChunks(file.open(), file.size);
}
