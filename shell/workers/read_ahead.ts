// Copyright 2026 the taskpack authors. MIT license.
/**
 * Reading thousands of small files on another core: a worker reads them whole, in the order
 * they will be asked for, a few batches ahead, while the calling thread hashes, scans and
 * packs the ones before. Reading a small file takes several system calls, about 20 µs on the
 * calling thread; taking it from a batch costs almost nothing. Asked to, the worker also
 * deflates the small files with the core's encoder (the bytes the pack's deflater would make),
 * so that packing needs no second worker and no second trip for them: those of each batch it
 * reads while the caller still has another to take, so that the work splits between the two
 * threads without either waiting (the caller deflates the rest, to the same bytes).
 *
 * Where a file could not be read, taking it fails with the same error (its `code` and `path`)
 * as reading it here would. Where the worker fails, the caller reads the files itself.
 *
 * Not part of the browser-compatible core.
 *
 * @module
 */
import { pieceAt, type Pieces } from "../host/pieces.ts";
import { workerUrl } from "./worker_url.ts";

/** Batches the worker may read before the calling thread has taken them. */
const AHEAD = 8;

interface Batch extends Pieces {
  start: number;
  /** The files deflated, when asked for: an empty piece where a file was not. */
  deflated: Pieces | null;
  failures: { index: number; message: string; code?: string; path: string }[];
}

/** Small files read ahead by a worker; see the module's documentation. */
export interface ReadAhead {
  /**
   * File `index` of the list, once read. Files are taken in order, each once.
   *
   * @param index Its place in the list.
   * @returns Its bytes, or null when the worker failed: read it yourself.
   */
  take(index: number): Promise<Uint8Array | null>;
  /**
   * File `index` deflated by the core's encoder, when it was asked for, the file is small (up
   * to 16 KiB, not empty) and the worker had the time; else null. Ask right after
   * `take(index)` gave its bytes.
   *
   * @param index Its place in the list.
   * @returns The raw DEFLATE of its bytes, or null.
   */
  deflatedAt(index: number): Uint8Array | null;
  /**
   * Lists more files after those listed so far (for a list started with `more: true`, until
   * {@linkcode ReadAhead.end}): the worker reads them as they come.
   *
   * @param paths The files, in the order they will be taken.
   * @param sizes The size each had when it was listed, if known.
   */
  add(paths: readonly string[], sizes?: readonly number[]): void;
  /** Says the list is complete (for a list started with `more: true`). */
  end(): void;
  /** Stops the worker (it also stops by itself once every file is read). */
  close(): void;
}

/** Options for {@linkcode readAhead}. */
export interface ReadAheadOptions {
  /** The size each file had when it was listed: such files are read with fewer calls. */
  sizes?: readonly number[];
  /** Deflate the small files too (with the core's encoder, as the pack's deflater would). */
  deflate?: boolean;
  /**
   * More files follow, through {@linkcode ReadAhead.add}, until {@linkcode ReadAhead.end}: a
   * walk of a folder hands over what it found so far, and the worker starts reading while the
   * walk goes on. A `take` past the files listed waits for them.
   */
  more?: boolean;
  /** The worker module (default: `read_ahead_worker.ts`; tests pass one that fails). */
  worker?: URL;
}

/**
 * Starts reading `paths` ahead, or returns null where the runtime has no `Worker` (Node).
 *
 * @param paths The files, in the order they will be taken (the first of them, with `more`).
 * @param options Their sizes, if known, whether to deflate them, whether more will follow, and
 * the worker module.
 * @returns The reader, or null.
 *
 * @example Usage
 * ```ts
 * import { readAhead } from "./read_ahead.ts";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "first");
 * await Deno.writeTextFile(`${dir}/b.txt`, "second");
 * const ahead = readAhead([`${dir}/a.txt`, `${dir}/b.txt`])!;
 * try {
 *   assert.equal(new TextDecoder().decode((await ahead.take(0))!), "first");
 *   assert.equal(new TextDecoder().decode((await ahead.take(1))!), "second");
 * } finally {
 *   ahead.close();
 * }
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function readAhead(
  paths: readonly string[],
  options: ReadAheadOptions = {},
): ReadAhead | null {
  if (typeof (globalThis as { Worker?: unknown }).Worker !== "function") return null;
  const url = options.worker ?? workerUrl("read_ahead_worker", import.meta.url);
  const reader = new Worker(url.href, {
    type: "module",
  });
  const batches: Batch[] = [];
  /** How many files are listed, and whether that is all of them. */
  let listed = paths.length;
  let ended = options.more !== true;
  /** How many files the batches that arrived hold, from the first. */
  let received = 0;
  let waiting: (() => void)[] = [];
  let failed = false;
  let closed = false;
  const wake = () => {
    const woken = waiting;
    waiting = [];
    for (const resolve of woken) resolve();
  };

  reader.onmessage = (event: MessageEvent<Batch>) => {
    batches.push(event.data);
    received = event.data.start + event.data.ends.length;
    wake();
  };
  reader.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    failed = true;
    reader.terminate();
    wake();
  };
  // Where the taking is, for the worker to see without a message: it deflates a batch only
  // while this thread has others still to take, and else hands it over as read, to be deflated
  // here (the same bytes), so that neither thread waits for the other.
  const taken = typeof SharedArrayBuffer === "function"
    ? new Int32Array(new SharedArrayBuffer(4))
    : null;
  reader.postMessage({
    paths: [...paths],
    taken,
    ...(options.sizes ? { sizes: [...options.sizes] } : {}),
    deflate: options.deflate === true,
    ahead: AHEAD,
    ended,
  });

  const from = (batch: Batch, index: number): Uint8Array => {
    const at = index - batch.start;
    const failure = batch.failures.find((f) => f.index === index);
    if (failure) {
      throw Object.assign(new Error(failure.message), {
        ...(failure.code ? { code: failure.code } : {}),
        path: failure.path,
      });
    }
    return pieceAt(batch, at);
  };

  return {
    async take(index) {
      if (index < 0 || (ended && index >= listed)) {
        throw new RangeError(`Cannot read ahead: no file ${index} (of ${listed})`);
      }
      if (taken) Atomics.store(taken, 0, index);
      while (!failed && !closed) {
        // Batches arrive in order; those before `index` are dropped, and the worker may read
        // one more for each.
        while (batches.length > 0 && batches[0]!.start + batches[0]!.ends.length <= index) {
          batches.shift();
          reader.postMessage({ more: 1 });
        }
        const batch = batches[0];
        if (batch && batch.start <= index) return from(batch, index);
        if (index < received) return null; // taken out of order: its batch is gone
        if (ended && index >= listed) {
          throw new RangeError(`Cannot read ahead: no file ${index} (of ${listed})`);
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
      return null;
    },
    deflatedAt(index) {
      const batch = batches[0];
      if (!batch?.deflated || index < batch.start || index >= batch.start + batch.ends.length) {
        return null;
      }
      const piece = pieceAt(batch.deflated, index - batch.start);
      return piece.length > 0 ? piece : null;
    },
    add(more, sizes) {
      if (ended) throw new TypeError("Cannot add files to read ahead: the list has ended");
      if (sizes && sizes.length !== more.length) {
        throw new RangeError(
          `Cannot add files to read ahead: ${more.length} paths, ${sizes.length} sizes`,
        );
      }
      listed += more.length;
      if (!closed && !failed) {
        reader.postMessage({ add: [...more], ...(sizes ? { sizes: [...sizes] } : {}) });
      }
    },
    end() {
      if (ended) return;
      ended = true;
      if (!closed && !failed) reader.postMessage({ end: true });
      wake(); // a take past the end now fails instead of waiting
    },
    close() {
      closed = true;
      reader.terminate();
      batches.length = 0;
      wake();
    },
  };
}
