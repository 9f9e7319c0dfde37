// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `deflate_pool.ts`: deflates batches of blocks with `node:zlib` (level 6,
 * raw), each block ending with a sync flush, or finished when it is the last of its stream. The
 * blocks' buffers are sent back with the result, so the pool can reuse them.
 *
 * @module
 */
import { blockDeflater } from "./deflate_pool.ts";

/** One engine and one output buffer for every block this worker deflates. */
const deflateBlock = blockDeflater();

/** One message: blocks to deflate, answered with the same id. */
interface Batch {
  id: number;
  blocks: { bytes: Uint8Array; last: boolean }[];
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Batch>) => void) | null;
  postMessage(message: unknown, transfer: Transferable[]): void;
};

scope.onmessage = (event) => {
  const { id, blocks } = event.data;
  try {
    const out = blocks.map((block) => deflateBlock(block.bytes, block.last));
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
