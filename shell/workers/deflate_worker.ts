// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `deflate_pool.ts`: deflates batches of blocks with `node:zlib` (level 6,
 * raw), each block ending with a sync flush, or finished when it is the last of its stream.
 *
 * @module
 */
import { deflateBlock } from "./deflate_pool.ts";

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
    scope.postMessage({ id, out }, out.map((bytes) => bytes.buffer as ArrayBuffer));
  } catch (error) {
    scope.postMessage({ id, error: String((error as Error)?.message ?? error) }, []);
  }
};
