// Copyright 2026 the taskpack authors. MIT license.
/**
 * A {@linkcode Deflater} that uses the machine's other cores: DEFLATE (level 6, `node:zlib`)
 * in a few workers, while the calling thread reads, hashes and scans.
 *
 * A stream is cut into blocks of {@linkcode DEFLATE_BLOCK} bytes, each deflated on its own and
 * ended with a sync flush (the last one finished), and the pieces are joined in order: one
 * valid raw DEFLATE stream (as `pigz` makes them), a fraction of a percent larger than a single
 * pass. The output depends only on the bytes — not on their chunking, not on how many workers
 * there are, not on whether there are any — so a pack made with it is reproducible on a
 * runtime. Where workers are not available (Node without a global `Worker`), the blocks are
 * deflated on the calling thread, to the same bytes.
 *
 * Not part of the browser-compatible core: it imports `node:` modules.
 *
 * @module
 */
import os from "node:os";
import { constants, createDeflateRaw, deflateRawSync } from "node:zlib";
import { bytesEqual, concatBytes, grown } from "../../lib/bytes/mod.ts";
import { deflateInMemory, type Deflater } from "../../lib/zip/mod.ts";
import { type ZlibEngine, zlibEngine } from "../host/zlib_engine.ts";
import { workerUrl } from "./worker_url.ts";

/** The block size streams are cut into: 2 MiB. */
export const DEFLATE_BLOCK = 2 << 20;
/** Small jobs are sent to a worker in batches of about this many bytes. */
const BATCH_BYTES = 256 * 1024;
/**
 * Bytes held in memory up to this size are deflated on the calling thread: starting a worker
 * takes about 0.1 s on Deno (its own start and `node:zlib`), about what deflating 4 MiB takes,
 * and a pack of 10,000 small files would otherwise wait for one to deflate its 1 MiB manifest
 * (measured: 1.31 s instead of 1.46 s).
 */
const INLINE_BYTES = 4 << 20;
/** Bytes a worker is given before earlier ones come back. */
const WORKER_QUEUE = 2 * DEFLATE_BLOCK;
/**
 * Blocks a stream keeps deflating (or deflated, waiting to be read) per worker, beyond the one
 * being filled and the one held back: with {@linkcode WORKER_QUEUE}, what caps a stream's memory
 * however well its bytes compress.
 */
export const BLOCKS_AHEAD_PER_WORKER = 2;
/** Output buffers smaller than this are not worth sending back to be filled again. */
const MIN_OUTPUT = 64 * 1024;
/**
 * The size of a fresh output buffer once outputs come back to be refilled: room for the block
 * deflated with some to spare (a quarter, in 64 KiB steps), so that the next block fits too.
 *
 * @param size The deflated block's size.
 * @returns The buffer's size.
 */
export function roomFor(size: number): number {
  return Math.ceil((size + size / 4) / MIN_OUTPUT) * MIN_OUTPUT;
}

/**
 * Deflates one block (raw DEFLATE, level 6): ended with a sync flush, or finished when `last`.
 *
 * @param bytes The block.
 * @param last Whether it is the last block of its stream.
 * @returns The deflated block, in a buffer of its own.
 */
export function deflateBlock(bytes: Uint8Array, last: boolean): Uint8Array {
  const out = deflateRawSync(bytes, {
    finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
  });
  return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength
    ? new Uint8Array(out.buffer, 0, out.byteLength)
    : new Uint8Array(out);
}

/**
 * Deflates one block as {@linkcode deflateBlock} does. With `target`, the output goes into the
 * buffer it gives for that many bytes (its start; it may be larger), or into a fresh one of
 * exactly that size when it gives none.
 */
export type BlockDeflate = (
  bytes: Uint8Array,
  last: boolean,
  target?: (size: number) => ArrayBuffer | null,
) => Uint8Array;

/** zlib's output per call in `deflateRawSync` (Node's and Deno's `Z_DEFAULT_CHUNK`). */
const ZLIB_CHUNK = 16 * 1024;

/**
 * A function that does what {@linkcode deflateBlock} does, to the same bytes, without its
 * garbage: one zlib engine reset for each block instead of a new one (whose native state lives
 * until the collector runs), and one output buffer reused, so a stream of any length costs a
 * thread the same memory. It drives the engine as `deflateRawSync` does (16 KiB of output per
 * call: zlib's output can depend on it) and returns a fresh copy of exactly the output.
 *
 * It relies on the engine's handle, which `node:zlib` does not document: where the handle is
 * missing, or a probe does not give what `deflateBlock` gives, it is `deflateBlock` itself.
 *
 * @returns The block deflater.
 *
 * @example Usage
 * ```ts
 * import { blockDeflater, deflateBlock } from "./deflate_pool.ts";
 * import assert from "node:assert/strict";
 *
 * const deflate = blockDeflater();
 * const text = new TextEncoder().encode("a line of a log\n".repeat(10_000));
 * assert.deepEqual(deflate(text, false), deflateBlock(text, false));
 * assert.deepEqual(deflate(text, true), deflateBlock(text, true));
 * ```
 */
export function blockDeflater(): BlockDeflate {
  let engine: ZlibEngine | null;
  try {
    engine = zlibEngine(createDeflateRaw());
  } catch {
    return deflateBlock;
  }
  if (engine === null) return deflateBlock;
  const { handle, state } = engine;
  let out = new Uint8Array(DEFLATE_BLOCK + DEFLATE_BLOCK / 8);
  const deflate: BlockDeflate = (bytes, last, target) => {
    handle.reset();
    const flush = last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH;
    let inOffset = 0;
    let inLength = bytes.length;
    let produced = 0;
    while (true) {
      if (produced + ZLIB_CHUNK > out.length) out = grown(out, out.length, produced);
      handle.writeSync(flush, bytes, inOffset, inLength, out, produced, ZLIB_CHUNK);
      const availableOut = state[0]!;
      const availableIn = state[1]!;
      produced += ZLIB_CHUNK - availableOut;
      inOffset += inLength - availableIn;
      inLength = availableIn;
      if (availableOut !== 0) break;
    }
    const into = target?.(produced);
    if (!into) return out.slice(0, produced);
    const result = new Uint8Array(into, 0, produced);
    result.set(out.subarray(0, produced));
    return result;
  };
  try {
    // The probe: a few blocks' worth of what zlib treats differently (runs, text, noise).
    const probe = new Uint8Array(3 * ZLIB_CHUNK + 999);
    for (let i = 0; i < probe.length; i++) {
      probe[i] = i < ZLIB_CHUNK
        ? 0x61
        : i < 2 * ZLIB_CHUNK
        ? 0x20 + (i % 61)
        : (i * 2654435761) >>> 24;
    }
    for (const last of [false, true]) {
      const mine = deflate(probe, last);
      const theirs = deflateBlock(probe, last);
      if (!bytesEqual(mine, theirs)) return deflateBlock;
    }
  } catch {
    return deflateBlock;
  }
  return deflate;
}

/** A deflater backed by workers; `close()` it when done (workers keep a process alive). */
export interface DeflatePool extends Deflater {
  /** Starts the workers now (they take a moment), rather than on first use. */
  warm(): void;
  /** Stops the workers; jobs still queued fail. */
  close(): void;
  /**
   * What the pool holds now, for tests of its bounds: blocks of streamed input being filled or
   * waiting to be deflated (`blocks`), block buffers kept for reuse (`spare`), and output
   * buffers given back (`recycle`) waiting to go to a worker (`outputs`).
   */
  held(): { blocks: number; spare: number; outputs: number };
}

interface Job {
  bytes: Uint8Array;
  /** `bytes.length`, kept: moved bytes read as empty afterwards. */
  size: number;
  last: boolean;
  /** The bytes are the pool's own (a block it cut), so they may be moved to the worker. */
  owned: boolean;
  resolve(out: Uint8Array): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  queued: number;
  batches: Map<number, Job[]>;
}

/**
 * Creates a deflater that spreads its work over `workers` workers (default: one per core, at
 * most two), started on first use.
 *
 * @param options How many workers (0: deflate on the calling thread).
 * @returns The deflater.
 *
 * @example Usage
 * ```ts
 * import { deflatePool } from "./deflate_pool.ts";
 * import assert from "node:assert/strict";
 * import { inflateRawSync } from "node:zlib";
 *
 * const pool = deflatePool();
 * try {
 *   const text = new TextEncoder().encode("log line\n".repeat(100_000));
 *   const packed = await pool.deflate(text);
 *   assert.deepEqual(new Uint8Array(inflateRawSync(packed)), text);
 * } finally {
 *   pool.close();
 * }
 * ```
 */
export function deflatePool(options: { workers?: number } = {}): DeflatePool {
  const wanted = options.workers ?? Math.min(2, os.availableParallelism?.() ?? os.cpus().length);
  const canSpawn = typeof (globalThis as { Worker?: unknown }).Worker === "function";
  const count = canSpawn ? Math.max(0, wanted) : 0;
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 0;
  let scheduled = false;
  let closed = false;
  let inline: BlockDeflate | null = null;
  // Block buffers come back from the workers with the deflated bytes and are cut again: a
  // stream of any length goes through the same few buffers (fresh ones would pile up as
  // garbage in every worker and here until the collector runs, tens of MiB each).
  const spare: ArrayBuffer[] = [];
  const maxSpare = 2 + Math.max(1, count) * (BLOCKS_AHEAD_PER_WORKER + 1);
  let blocksOut = 0;
  const takeBlock = (): Uint8Array => {
    blocksOut++;
    const buffer = spare.pop();
    return buffer ? new Uint8Array(buffer) : new Uint8Array(DEFLATE_BLOCK);
  };
  const giveBack = (buffer: ArrayBufferLike) => {
    if (
      buffer instanceof ArrayBuffer && buffer.byteLength === DEFLATE_BLOCK &&
      spare.length < maxSpare
    ) spare.push(buffer);
  };
  // Deflated blocks the writer is done with (`recycle`) go back to the workers with the next
  // batches, to be filled again: a worker's fresh output buffer per block would otherwise wait
  // here for the collector, which runs rarely on this small heap (tens of MiB of them).
  const spareOut: ArrayBuffer[] = [];
  let recycling = false;
  /** A block taken here and not sent to a worker, done with. */
  const returnBlock = (buffer: ArrayBufferLike) => {
    blocksOut--;
    giveBack(buffer);
  };

  const spawn = (): Slot => {
    const worker = new Worker(workerUrl("deflate_worker", import.meta.url).href, {
      type: "module",
    });
    const slot: Slot = { worker, queued: 0, batches: new Map() };
    worker.onmessage = (
      event: MessageEvent<
        { id: number; out?: Uint8Array[]; error?: string; back?: ArrayBuffer[] }
      >,
    ) => {
      const { id, out, error, back } = event.data;
      for (const buffer of back ?? []) giveBack(buffer);
      const jobs = slot.batches.get(id) ?? [];
      slot.batches.delete(id);
      jobs.forEach((job, i) => {
        if (job.owned) blocksOut--;
        slot.queued -= job.size;
        if (out) job.resolve(out[i]!);
        else job.reject(new Error(`Cannot deflate: ${error}`));
      });
      dispatch();
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      const error = new Error(`Cannot deflate: the worker failed (${event.message})`);
      for (const jobs of slot.batches.values()) for (const job of jobs) job.reject(error);
      slot.batches.clear();
      slot.queued = Infinity;
      if (slots.length === count && slots.every((s) => s.queued === Infinity)) {
        for (const job of queue.splice(0)) job.reject(error);
      }
    };
    return slot;
  };

  const dispatch = () => {
    scheduled = false;
    while (queue.length > 0) {
      if (slots.length < count && slots.every((slot) => slot.queued > 0)) slots.push(spawn());
      const slot = slots.reduce<Slot | null>(
        (best, s) => (s.queued < WORKER_QUEUE && (!best || s.queued < best.queued) ? s : best),
        null,
      );
      if (!slot) return;
      const jobs: Job[] = [];
      let bytes = 0;
      while (
        queue.length > 0 && (jobs.length === 0 || bytes + queue[0]!.size <= BATCH_BYTES)
      ) {
        const job = queue.shift()!;
        jobs.push(job);
        bytes += job.size;
      }
      const id = nextId++;
      slot.batches.set(id, jobs);
      slot.queued += bytes;
      // Moved, not copied: blocks the pool cut itself, and one fresh buffer holding the
      // caller's bytes (a view would carry its whole underlying buffer along).
      const shared = jobs.filter((job) => !job.owned);
      const pack = new Uint8Array(shared.reduce((sum, job) => sum + job.size, 0));
      let at = 0;
      const blocks = jobs.map((job) => {
        if (job.owned) return { bytes: job.bytes, last: job.last };
        const copy = pack.subarray(at, at + job.size);
        copy.set(job.bytes);
        at += job.size;
        return { bytes: copy, last: job.last };
      });
      const transfer = jobs.filter((job) => job.owned).map((job) =>
        job.bytes.buffer as ArrayBuffer
      );
      if (shared.length > 0) transfer.push(pack.buffer);
      const outputs = spareOut.splice(0, jobs.length);
      transfer.push(...outputs);
      slot.worker.postMessage({ id, blocks, outputs, roomy: recycling }, transfer);
    }
  };

  const submit = (bytes: Uint8Array, last: boolean, owned: boolean): Promise<Uint8Array> => {
    if (closed) return Promise.reject(new Error("Cannot deflate: the pool is closed"));
    if (count === 0 || (!owned && bytes.length <= INLINE_BYTES)) {
      try {
        return Promise.resolve((inline ??= blockDeflater())(bytes, last));
      } catch (error) {
        return Promise.reject(error);
      } finally {
        if (owned) returnBlock(bytes.buffer);
      }
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      queue.push({ bytes, size: bytes.length, last, owned, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(dispatch);
      }
    });
  };

  const deflateStream = (): TransformStream<Uint8Array, Uint8Array> => {
    let block: Uint8Array | null = null;
    let filled = 0;
    let held: Uint8Array | null = null;
    // Blocks submitted and not yet handed on: the transform waits for the oldest past this, so
    // neither the input waiting for a worker nor the output waiting for the reader can grow
    // with the stream (the readable side holds no chunk it was not asked for).
    const order: Promise<Uint8Array>[] = [];
    const ahead = Math.max(1, count) * BLOCKS_AHEAD_PER_WORKER;
    const push = (bytes: Uint8Array, last: boolean) => {
      const deflated = submit(bytes, last, true);
      deflated.catch(() => {}); // awaited in order; a stream given up leaves it unread
      order.push(deflated);
    };
    return new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        let offset = 0;
        while (offset < chunk.length) {
          block ??= takeBlock();
          const take = Math.min(DEFLATE_BLOCK - filled, chunk.length - offset);
          block.set(chunk.subarray(offset, offset + take), filled);
          filled += take;
          offset += take;
          if (filled === DEFLATE_BLOCK) {
            // A full block is held until more bytes show it is not the last one.
            if (held) {
              push(held, false);
              // Before cutting another block: the oldest is handed on once the reader asks.
              while (order.length > ahead) controller.enqueue(await order.shift()!);
            }
            held = block;
            block = null;
            filled = 0;
          }
        }
      },
      async flush(controller) {
        block ??= takeBlock();
        const rest = block.subarray(0, filled);
        if (held && filled > 0) push(held, false);
        push(filled > 0 || !held ? rest : held, true);
        if (held && filled === 0) returnBlock(block.buffer);
        block = held = null;
        while (order.length > 0) controller.enqueue(await order.shift()!);
      },
    });
  };

  const deflateLarge = async (bytes: Uint8Array): Promise<Uint8Array> => {
    if (bytes.length <= DEFLATE_BLOCK) return await submit(bytes, true, false);
    const pieces: Promise<Uint8Array>[] = [];
    for (let at = 0; at < bytes.length; at += DEFLATE_BLOCK) {
      const end = Math.min(bytes.length, at + DEFLATE_BLOCK);
      pieces.push(submit(bytes.subarray(at, end), end === bytes.length, false));
    }
    return concatBytes(await Promise.all(pieces));
  };

  return {
    // Small files by the core's own encoder (a native deflater costs more to set up).
    deflate: (bytes) => deflateInMemory(bytes, deflateLarge),
    deflateStream,
    // Each chunk is copied into a block before its write resolves.
    streamCopiesInput: true,
    recycle(chunk: Uint8Array): void {
      recycling = true;
      const buffer = chunk.buffer;
      // Only a buffer a worker made for one block: the chunk is its start.
      if (
        buffer instanceof ArrayBuffer && chunk.byteOffset === 0 &&
        buffer.byteLength >= MIN_OUTPUT &&
        spareOut.length < maxSpare
      ) spareOut.push(buffer);
    },
    warm(): void {
      while (!closed && slots.length < count) slots.push(spawn());
    },
    held: () => ({ blocks: blocksOut, spare: spare.length, outputs: spareOut.length }),
    close(): void {
      closed = true;
      for (const slot of slots) {
        slot.worker.terminate();
        for (const jobs of slot.batches.values()) {
          for (const job of jobs) job.reject(new Error("Cannot deflate: the pool is closed"));
        }
      }
      for (const job of queue.splice(0)) {
        job.reject(new Error("Cannot deflate: the pool is closed"));
      }
      slots.length = 0;
    },
  };
}
