// Copyright 2026 the taskpack authors. MIT license.
/**
 * Creating thousands of small files on another core: the calling thread gathers them into
 * batches and a worker creates each one exclusively (never over an existing file, never
 * through a symbolic link), in order. On Deno an asynchronous file call costs the calling
 * thread about 36 µs; handing a file to the worker costs it about 2 µs, while it goes on
 * reading and checking the next ones.
 *
 * A failure stops the sending: the first one is thrown by the next call, and {@linkcode
 * BatchWriter.settle} waits until the worker has answered for every batch sent, so the caller
 * can then remove what was written knowing nothing more will appear.
 *
 * Not part of the browser-compatible core.
 *
 * @module
 */
import { joinPieces } from "../host/pieces.ts";
import { workerUrl } from "./worker_url.ts";

/** A batch is sent once it holds this many bytes or files. */
const BATCH_BYTES = 256 * 1024;
const BATCH_FILES = 256;
/** Bytes sent and not yet written, before `write` makes the caller wait. */
const AHEAD_BYTES = 8 << 20;

/** Creates files on a worker; see the module's documentation. */
export interface BatchWriter {
  /**
   * Queues a new file. Its folder must exist already.
   *
   * @param path The file to create.
   * @param bytes Its content, kept until its batch is sent: do not change it.
   * @returns A promise to await before the next write when too much is waiting, else nothing.
   * @throws The first failure so far.
   */
  write(path: string, bytes: Uint8Array): Promise<void> | void;
  /** Sends what is gathered and waits until every file is written; throws the first failure. */
  finish(): Promise<void>;
  /** Waits until the worker has answered for every batch sent (it then writes nothing more). */
  settle(): Promise<void>;
  /** Stops the worker. */
  close(): void;
}

/** Options for {@linkcode batchWriter}. */
export interface BatchWriterOptions {
  /** Told of each batch written: how many files, how many bytes. */
  onWritten?: (files: number, bytes: number) => void;
  /** The worker module (default: `batch_write_worker.ts`; tests pass one that fails). */
  worker?: URL;
}

interface Sent {
  sizes: number[];
  bytes: number;
}

interface Answer {
  id: number;
  written: number;
  error?: { message: string; code?: string; path?: string };
}

/**
 * Starts a batch writer, or returns null where the runtime has no `Worker` (Node): the caller
 * then writes on its own thread.
 *
 * @param options Progress, and the worker module.
 * @returns The writer, or null.
 *
 * @example Usage
 * ```ts
 * import { batchWriter } from "./batch_writer.ts";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const writer = batchWriter()!;
 * try {
 *   for (let i = 0; i < 3; i++) await writer.write(`${dir}/${i}.txt`, new Uint8Array([48 + i]));
 *   await writer.finish();
 * } finally {
 *   writer.close();
 * }
 * assert.equal(await Deno.readTextFile(`${dir}/2.txt`), "2");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function batchWriter(options: BatchWriterOptions = {}): BatchWriter | null {
  if (typeof (globalThis as { Worker?: unknown }).Worker !== "function") return null;
  const worker = new Worker(
    (options.worker ?? workerUrl("batch_write_worker", import.meta.url)).href,
    { type: "module" },
  );
  let paths: string[] = [];
  let pieces: Uint8Array[] = [];
  let gatheredBytes = 0;
  let nextId = 0;
  const sent = new Map<number, Sent>();
  let aheadBytes = 0;
  let failure: Error | null = null;
  // Whoever waits (for room, or for every answer) is woken after each answer.
  let waiting: (() => void)[] = [];
  const answered = () => new Promise<void>((resolve) => waiting.push(resolve));
  const notify = () => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };

  worker.onmessage = (event: MessageEvent<Answer>) => {
    const { id, written, error } = event.data;
    const batch = sent.get(id);
    if (!batch) return;
    sent.delete(id);
    aheadBytes -= batch.bytes;
    let bytes = 0;
    for (let i = 0; i < written; i++) bytes += batch.sizes[i]!;
    if (written > 0) options.onWritten?.(written, bytes);
    if (error && !failure) {
      failure = Object.assign(new Error(error.message), {
        ...(error.code ? { code: error.code } : {}),
        ...(error.path ? { path: error.path } : {}),
      });
    }
    notify();
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    failure ??= new Error(`Cannot write luggage: the worker failed (${event.message})`);
    // A worker that failed writes nothing more: nothing is in flight any longer.
    sent.clear();
    aheadBytes = 0;
    notify();
  };

  const send = () => {
    // After a failure nothing more is sent: the worker may be gone, and would never answer.
    if (paths.length === 0 || failure) return;
    const { data, ends } = joinPieces(pieces);
    const sizes = pieces.map((piece) => piece.length);
    const id = nextId++;
    worker.postMessage({ id, paths, data, ends }, [data.buffer, ends.buffer]);
    // Counted once sent: a batch that never left would be waited for forever by `settle`.
    sent.set(id, { sizes, bytes: gatheredBytes });
    aheadBytes += gatheredBytes;
    paths = [];
    pieces = [];
    gatheredBytes = 0;
  };

  const waitForRoom = async () => {
    while (aheadBytes > AHEAD_BYTES && !failure) await answered();
    if (failure) throw failure;
  };

  const settle = async () => {
    while (sent.size > 0) await answered();
  };

  return {
    write(path, bytes) {
      if (failure) throw failure;
      paths.push(path);
      pieces.push(bytes);
      gatheredBytes += bytes.length;
      if (gatheredBytes >= BATCH_BYTES || paths.length >= BATCH_FILES) send();
      return aheadBytes > AHEAD_BYTES ? waitForRoom() : undefined;
    },
    async finish() {
      if (failure) throw failure;
      send();
      await settle();
      if (failure) throw failure;
    },
    settle,
    close() {
      worker.terminate();
      sent.clear();
      notify();
    },
  };
}
