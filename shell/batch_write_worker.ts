// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `batch_writer.ts`: creates the files of a batch, each exclusively, in
 * order, and answers once for the batch: how many it created, and why it stopped if it did.
 *
 * @module
 */
import { writeNewFileSync } from "./files.ts";

/** One batch: where each file goes, and their bytes end to end. */
interface Batch {
  id: number;
  paths: string[];
  data: Uint8Array;
  ends: Uint32Array;
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Batch>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (event) => {
  const { id, paths, data, ends } = event.data;
  let start = 0;
  for (let i = 0; i < paths.length; i++) {
    try {
      writeNewFileSync(paths[i]!, data.subarray(start, ends[i]));
    } catch (error) {
      const e = error as { message?: string; code?: string; path?: string };
      scope.postMessage({
        id,
        written: i,
        error: { message: String(e?.message ?? error), code: e?.code, path: e?.path ?? paths[i] },
      });
      return;
    }
    start = ends[i]!;
  }
  scope.postMessage({ id, written: paths.length });
};
