// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `deflate_pool.ts`: deflates batches of blocks with `node:zlib` (level 6,
 * raw), each block ending with a sync flush, or finished when it is the last of its stream. The
 * blocks' buffers are sent back with the result, so the pool can reuse them.
 *
 * @module
 */
import { blockDeflater, roomFor } from "./deflate_pool.ts";

/** One engine and one output buffer for every block this worker deflates. */
const deflateBlock = blockDeflater();

/**
 * One message: blocks to deflate, answered with the same id; output buffers the pool's writer
 * is done with, to fill again; whether to leave room in fresh ones (they will come back).
 */
interface Batch {
  id: number;
  blocks: { bytes: Uint8Array; last: boolean }[];
  outputs?: ArrayBuffer[];
  roomy?: boolean;
}

/** Output buffers back from the pool, waiting to be filled. */
const spare: ArrayBuffer[] = [];
const MAX_SPARE = 8;

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Batch>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
};

scope.onmessage = (event) => {
  const { id, blocks, outputs, roomy } = event.data;
  for (const buffer of outputs ?? []) if (spare.length < MAX_SPARE) spare.push(buffer);
  const target = (size: number): ArrayBuffer | null => {
    const fits = spare.findIndex((buffer) => buffer.byteLength >= size);
    if (fits !== -1) return spare.splice(fits, 1)[0]!;
    return roomy ? new ArrayBuffer(roomFor(size)) : null;
  };
  try {
    const out = blocks.map((block) => deflateBlock(block.bytes, block.last, target));
    // The blocks' buffers go back too, to be filled again (see `deflate_pool.ts`).
    const back = [...new Set(blocks.map((block) => block.bytes.buffer as ArrayBuffer))];
    scope.postMessage({ id, out, back }, [
      ...out.map((bytes) => bytes.buffer as ArrayBuffer),
      ...back,
    ]);
  } catch (error) {
    scope.postMessage({ id, error: String((error as Error)?.message ?? error) }, []);
  }
};
