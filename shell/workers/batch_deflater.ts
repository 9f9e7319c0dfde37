// Copyright 2026 the taskpack authors. MIT license.
/**
 * A {@linkcode Deflater} for packs of many small files: small entries are gathered into batches
 * and deflated on another core by the core's own encoder, while the calling thread goes on
 * reading, hashing and scanning the next files. Everything else (larger entries, streams) goes
 * to the deflater it wraps. `convert` uses it; `pack` has the files it reads from disk deflated
 * by the worker that reads them (`read_ahead.ts`) instead.
 *
 * The bytes are the same as deflating on the calling thread: entries up to
 * {@linkcode SMALL_DEFLATE} bytes are deflated by that same encoder wherever it runs. Where there
 * is no `Worker`, or the worker fails, the entries are deflated on the calling thread instead.
 *
 * Not part of the browser-compatible core.
 *
 * @module
 */
import { type Deflater, deflateRawSmall, SMALL_DEFLATE } from "../../lib/zip/mod.ts";
import { joinPieces, pieceAt, type Pieces } from "../host/pieces.ts";
import { workerUrl } from "./worker_url.ts";

/** A batch is sent once it holds this many bytes (or when the calling thread next waits). */
const BATCH_BYTES = 64 * 1024;

/** A deflater backed by a worker; `close()` it when done (a worker keeps a process alive). */
export interface BatchDeflater extends Deflater {
  /** Stops the worker and the deflater it wraps; entries not yet deflated fail. */
  close(): void;
}

/** Options for {@linkcode batchDeflater}. */
export interface BatchDeflaterOptions {
  /** Bytes gathered before a batch is sent (default 64 KiB). */
  batchBytes?: number;
  /** The worker module (default: `batch_deflate_worker.ts`; tests pass one that fails). */
  worker?: URL;
}

interface Job {
  bytes: Uint8Array;
  resolve(out: Uint8Array): void;
  reject(error: unknown): void;
}

/**
 * Wraps `inner` so that small entries are deflated in batches on a worker.
 *
 * @param inner The deflater for everything else; closed with this one when it has `close`.
 * @param options Batch size and worker module.
 * @returns The deflater.
 *
 * @example Usage
 * ```ts
 * import { batchDeflater } from "./batch_deflater.ts";
 * import { platformDeflater } from "../../lib/zip/mod.ts";
 * import { deflateRawSmall } from "../../lib/zip/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const deflater = batchDeflater(platformDeflater);
 * try {
 *   const text = new TextEncoder().encode("one small file\n".repeat(20));
 *   assert.deepEqual(await deflater.deflate(text), deflateRawSmall(text));
 * } finally {
 *   deflater.close();
 * }
 * ```
 */
export function batchDeflater(
  inner: Deflater & { close?(): void },
  options: BatchDeflaterOptions = {},
): BatchDeflater {
  const batchBytes = options.batchBytes ?? BATCH_BYTES;
  const canSpawn = typeof (globalThis as { Worker?: unknown }).Worker === "function";
  let worker: Worker | null = null;
  let broken = !canSpawn;
  let closed = false;
  let gathered: Job[] = [];
  let gatheredBytes = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let nextId = 0;
  const sent = new Map<number, Job[]>();

  // Deflated here, to the same bytes the worker makes: no worker, or it failed.
  const inline = (jobs: Job[]) => {
    for (const job of jobs) {
      try {
        job.resolve(deflateRawSmall(job.bytes));
      } catch (error) {
        job.reject(error);
      }
    }
  };

  const start = (): Worker => {
    const made = new Worker(
      (options.worker ?? workerUrl("batch_deflate_worker", import.meta.url)).href,
      { type: "module" },
    );
    made.onmessage = (event: MessageEvent<Partial<Pieces> & { id: number; error?: string }>) => {
      const { id, data, ends } = event.data;
      const jobs = sent.get(id) ?? [];
      sent.delete(id);
      if (!data || !ends || ends.length !== jobs.length) return inline(jobs);
      jobs.forEach((job, i) => job.resolve(pieceAt({ data, ends }, i)));
    };
    made.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      broken = true;
      made.terminate();
      for (const jobs of sent.values()) inline(jobs);
      sent.clear();
    };
    return made;
  };

  const send = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const jobs = gathered;
    gathered = [];
    gatheredBytes = 0;
    if (jobs.length === 0) return;
    if (broken) return inline(jobs);
    const { data, ends } = joinPieces(jobs.map((job) => job.bytes));
    const id = nextId++;
    sent.set(id, jobs);
    worker!.postMessage({ id, data, ends }, [data.buffer, ends.buffer]);
  };

  const failAll = (error: Error) => {
    for (const jobs of [gathered, ...sent.values()]) for (const job of jobs) job.reject(error);
    gathered = [];
    sent.clear();
  };

  return {
    deflate(bytes: Uint8Array): Promise<Uint8Array> {
      if (closed) return Promise.reject(new Error("Cannot deflate: the deflater is closed"));
      if (bytes.length === 0 || bytes.length > SMALL_DEFLATE || broken) {
        return inner.deflate(bytes);
      }
      // Started with the first entry, so that it is ready by the time a batch is.
      worker ??= start();
      return new Promise<Uint8Array>((resolve, reject) => {
        gathered.push({ bytes, resolve, reject });
        gatheredBytes += bytes.length;
        if (gatheredBytes >= batchBytes) send();
        // The last, partial batch goes once the caller waits for anything.
        else timer ??= setTimeout(send, 0);
      });
    },
    deflateStream: () => inner.deflateStream(),
    // Streams are the inner deflater's: so is its promise to copy what it is written.
    ...(inner.streamCopiesInput === true ? { streamCopiesInput: true } : {}),
    close(): void {
      if (closed) return;
      closed = true;
      if (timer !== null) clearTimeout(timer);
      worker?.terminate();
      failAll(new Error("Cannot deflate: the deflater is closed"));
      inner.close?.();
    },
  };
}
