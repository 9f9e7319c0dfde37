// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `batch_writer.ts`: creates the files of a batch, each exclusively, in
 * order, and answers once for the batch: how many it created, and why it stopped if it did.
 *
 * @module
 */
import { writeNewFileSync } from "../host/files.ts";
import { pieceAt, type Pieces } from "../host/pieces.ts";

/** One batch: where each file goes, and their bytes, joined. */
interface Batch extends Pieces {
  id: number;
  paths: string[];
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Batch>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (event) => {
  const { id, paths } = event.data;
  for (let i = 0; i < paths.length; i++) {
    try {
      writeNewFileSync(paths[i]!, pieceAt(event.data, i));
    } catch (error) {
      const e = error as { message?: string; code?: string; path?: string };
      scope.postMessage({
        id,
        written: i,
        error: { message: String(e?.message ?? error), code: e?.code, path: e?.path ?? paths[i] },
      });
      return;
    }
  }
  scope.postMessage({ id, written: paths.length });
};
