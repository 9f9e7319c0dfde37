// Copyright 2026 the taskpack authors. MIT license.
/**
 * Scanning large luggage for credentials and transcripts on another core: a
 * {@linkcode ScannerFactory} whose scanners send each chunk to a worker running the core's own
 * {@linkcode TextScanner}, while the calling thread reads, inflates and hashes. The findings are
 * the same as scanning on the calling thread (the same scanner sees the same bytes in the same
 * order); only where the work happens changes.
 *
 * Small files and binary ones are scanned on the calling thread (a message costs more than the
 * scan, and a binary file is only looked at for runs of token bytes), and so is everything
 * where there is no `Worker` or the runtime is not Deno. At most
 * {@linkcode SCAN_AHEAD} bytes wait for the worker: past that, `push` returns a promise, so
 * memory stays bounded however far behind the worker falls.
 *
 * Not part of the browser-compatible core.
 *
 * @module
 */
import { concatBytes } from "../../lib/bytes/mod.ts";
import {
  type LuggageScanner,
  readsAsText,
  type ScannerFactory,
  type ScanResult,
  TextScanner,
} from "../../lib/scan/mod.ts";
import { workerUrl } from "./worker_url.ts";

/** Files smaller than this are scanned on the calling thread. */
const WORKER_MIN_SIZE = 1 << 20;
/** Bytes sent to the worker and not yet scanned, before `push` makes the caller wait. */
export const SCAN_AHEAD = 2 << 20;

/** A scanner factory backed by one worker; `close()` it when done. */
export interface ScanPool {
  /** Makes the scanner for one luggage file of `size` bytes. */
  scanner: ScannerFactory;
  /** Stops the worker (started on first use); scans still running fail. */
  close(): void;
}

/** A promise's two ends. */
interface Settle<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

/** One file being scanned in the worker. */
interface Pending {
  /** Bytes sent and not yet acknowledged. */
  ahead: number;
  /** A `push` waiting for the worker to catch up. */
  waiting: Settle<void> | null;
  /** A `finish` waiting for the result. */
  done: Settle<ScanResult> | null;
  /** Set once the scan failed: every later call fails with it. */
  failure: Error | null;
}

/**
 * Creates the pool. The worker starts with the first file of {@linkcode WORKER_MIN_SIZE} bytes
 * or more.
 *
 * @param options `workers: 0` scans everything on the calling thread.
 * @returns The pool.
 *
 * @example Usage
 * ```ts
 * import { scanPool } from "./scan_pool.ts";
 * import assert from "node:assert/strict";
 *
 * const pool = scanPool();
 * try {
 *   const token = "gh" + "p_" + "A".repeat(36);
 *   const bytes = new TextEncoder().encode(`${"x".repeat(2 << 20)}\nTOKEN=${token}\n`);
 *   const scanner = pool.scanner(bytes.length);
 *   const step = 1 << 20;
 *   for (let i = 0; i < bytes.length; i += step) await scanner.push(bytes.subarray(i, i + step));
 *   assert.equal((await scanner.finish()).finding?.kind, "github-token");
 * } finally {
 *   pool.close();
 * }
 * ```
 */
export function scanPool(options: { workers?: 0 | 1 } = {}): ScanPool {
  const usable = options.workers !== 0 &&
    typeof (globalThis as { Deno?: unknown }).Deno === "object" &&
    typeof (globalThis as { Worker?: unknown }).Worker === "function";
  let worker: Worker | null = null;
  let closed = false;
  let nextId = 0;
  const pending = new Map<number, Pending>();

  const start = (): Worker => {
    const spawned = new Worker(workerUrl("scan_worker", import.meta.url).href, {
      type: "module",
    });
    spawned.onmessage = (
      event: MessageEvent<{ id: number; scanned?: number; result?: ScanResult; error?: string }>,
    ) => {
      const { id, scanned, result, error } = event.data;
      const scan = pending.get(id);
      if (!scan) return;
      if (error !== undefined) return fail(id, scan, new Error(`Cannot scan: ${error}`));
      if (result) {
        pending.delete(id);
        return scan.done?.resolve(result);
      }
      scan.ahead -= scanned ?? 0;
      if (scan.ahead <= SCAN_AHEAD / 2 && scan.waiting) {
        const waiting = scan.waiting;
        scan.waiting = null;
        waiting.resolve();
      }
    };
    spawned.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      const error = new Error(`Cannot scan: the worker failed (${event.message})`);
      for (const [id, scan] of pending) fail(id, scan, error);
    };
    return spawned;
  };

  const fail = (id: number, scan: Pending, error: Error): void => {
    scan.failure = error;
    pending.delete(id);
    scan.waiting?.reject(error);
    scan.done?.reject(error);
  };

  const remote = (): LuggageScanner => {
    if (closed) throw new Error("Cannot scan: the pool is closed");
    worker ??= start();
    const target = worker;
    const id = nextId++;
    const scan: Pending = { ahead: 0, waiting: null, done: null, failure: null };
    pending.set(id, scan);
    return {
      push(bytes) {
        if (scan.failure) return Promise.reject(scan.failure);
        const chunk = bytes.slice(); // the caller may reuse its buffer
        scan.ahead += chunk.length;
        target.postMessage({ id, chunk }, [chunk.buffer]);
        if (scan.ahead <= SCAN_AHEAD) return;
        return new Promise<void>((resolve, reject) => scan.waiting = { resolve, reject });
      },
      finish() {
        if (scan.failure) return Promise.reject(scan.failure);
        return new Promise<ScanResult>((resolve, reject) => {
          scan.done = { resolve, reject };
          target.postMessage({ id, finish: true });
        });
      },
    };
  };

  // Binary files are scanned for credentials only, which is cheap (a quick look for runs of
  // token bytes): they stay on the calling thread. Text is sent to the worker once the first
  // 8 KiB have shown which it is.
  const deciding = (): LuggageScanner => {
    let held: Uint8Array[] = [];
    let chosen: LuggageScanner | null = null;
    const choose = (text: boolean): Promise<void> => {
      chosen = text ? remote() : new TextScanner();
      const chunks = held;
      held = [];
      return pushAll(chosen, chunks);
    };
    return {
      push(bytes) {
        if (chosen) return chosen.push(bytes);
        held.push(bytes.slice());
        const text = readsAsText(held.length === 1 ? held[0]! : concatBytes(held), false);
        if (text !== null) return choose(text);
      },
      async finish() {
        if (!chosen) await choose(false); // under 8 KiB in all: not worth a message
        return await chosen!.finish();
      },
    };
  };

  return {
    scanner: (size) => usable && size >= WORKER_MIN_SIZE ? deciding() : new TextScanner(),
    close() {
      closed = true;
      worker?.terminate();
      worker = null;
      const error = new Error("Cannot scan: the pool is closed");
      for (const [id, scan] of pending) fail(id, scan, error);
    },
  };
}

async function pushAll(scanner: LuggageScanner, chunks: readonly Uint8Array[]): Promise<void> {
  for (const chunk of chunks) {
    const behind = scanner.push(chunk);
    if (behind) await behind;
  }
}
