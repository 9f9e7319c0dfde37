// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `read_ahead.ts`: reads small files whole, in the order given (as they are
 * listed, when the list comes in parts), deflates them when asked, and sends them back in
 * batches (one buffer each, and one for the deflated ones), a few batches ahead of what the
 * caller has taken.
 *
 * @module
 */
import { deflateRawSmall, SMALL_DEFLATE } from "../../lib/zip/mod.ts";
import { readIntoSync, readWholeSync } from "../host/files.ts";
import { joinPieces } from "../host/pieces.ts";

/** Files per batch, and bytes: a batch is sent when either is reached. */
const BATCH_FILES = 256;
const BATCH_BYTES = 1 << 20;

type Message =
  | {
    paths: string[];
    taken: Int32Array | null;
    sizes?: number[];
    deflate?: boolean;
    ahead: number;
    ended: boolean;
  }
  | { add: string[]; sizes?: number[] }
  | { end: true }
  | { more: number };

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Message>) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
  close(): void;
};

const paths: string[] = [];
/** The size each file had when listed; -1 where it is not known. */
const sizes: number[] = [];
/** Whether every file is listed. */
let ended = true;
let deflate = false;
/** The index the caller is taking (shared with it), when it can be seen. */
let taken: Int32Array | null = null;
let next = 0;
let credit = 0;
/** Where a batch's files of known size are read (each batch is copied out before the next). */
let slab = new Uint8Array(0);
let used = 0;

/**
 * A file's bytes: read into the slab when its size is known and it still has that size (the
 * cheaper way), else whole.
 */
function read(path: string, size: number): Uint8Array {
  if (size < 0 || size >= BATCH_BYTES) return readWholeSync(path);
  if (used + size + 1 > slab.length) {
    slab = new Uint8Array(Math.max(2 * BATCH_BYTES, size + 1));
    used = 0;
  }
  const target = slab.subarray(used, used + size + 1);
  const got = readIntoSync(path, target);
  if (got > size) return readWholeSync(path); // it grew since it was listed
  used += got;
  return target.subarray(0, got);
}

/** Reads and sends batches while the caller has room for them. */
function pump(): void {
  while (credit > 0 && next < paths.length) {
    const start = next;
    const pieces: Uint8Array[] = [];
    const failures: { index: number; message: string; code?: string | undefined; path: string }[] =
      [];
    let bytes = 0;
    while (next < paths.length && next - start < BATCH_FILES && bytes < BATCH_BYTES) {
      const path = paths[next]!;
      try {
        const piece = read(path, sizes[next]!);
        pieces.push(piece);
        bytes += piece.length;
      } catch (error) {
        const e = error as { message?: string; code?: string };
        failures.push({ index: next, message: String(e?.message ?? error), code: e?.code, path });
        pieces.push(new Uint8Array(0));
      }
      next++;
    }
    // Deflated by the core's encoder for small files (what the pack's deflater makes of them);
    // an empty piece where there is none (deflating never gives nothing).
    const deflated = deflate && callerIsBusy(start)
      ? joinPieces(
        pieces.map((p) =>
          p.length > 0 && p.length <= SMALL_DEFLATE ? deflateRawSmall(p) : p.subarray(0, 0)
        ),
      )
      : null;
    const { data, ends } = joinPieces(pieces);
    used = 0; // copied out: the slab is free again
    credit--;
    const transfer = [data.buffer, ends.buffer];
    if (deflated) transfer.push(deflated.data.buffer, deflated.ends.buffer);
    scope.postMessage({ start, data, ends, failures, deflated }, transfer);
  }
  if (ended && next >= paths.length) scope.close();
}

/**
 * Whether the caller still has a batch before `start` to take: then deflating this one costs
 * it no wait. Otherwise it gets the batch as read, and deflates it while this thread reads on.
 */
function callerIsBusy(start: number): boolean {
  return taken === null || start - Atomics.load(taken, 0) >= BATCH_FILES;
}

/** Lists files after those listed so far. */
function list(more: string[], known: number[] | undefined): void {
  for (let i = 0; i < more.length; i++) {
    paths.push(more[i]!);
    sizes.push(known?.[i] ?? -1);
  }
}

scope.onmessage = (event) => {
  const message = event.data;
  if ("paths" in message) {
    list(message.paths, message.sizes);
    deflate = message.deflate === true;
    taken = message.taken;
    credit = message.ahead;
    ended = message.ended;
  } else if ("add" in message) {
    list(message.add, message.sizes);
  } else if ("end" in message) {
    ended = true;
  } else {
    credit += message.more;
  }
  pump();
};
