// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `batch_deflater.ts`: deflates a batch of small entries with the core's own
 * encoder and sends them back in one buffer. It loads nothing but that encoder, so it is
 * answering within a few hundredths of a second of being started.
 *
 * @module
 */
import { deflateRawSmall } from "../../lib/zip/mod.ts";
import { joinPieces, pieceAt, type Pieces } from "../host/pieces.ts";

/** One batch: the entries, joined. */
interface Batch extends Pieces {
  id: number;
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Batch>) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
};

scope.onmessage = (event) => {
  const batch = event.data;
  try {
    const out = joinPieces(
      Array.from(batch.ends, (_, i) => deflateRawSmall(pieceAt(batch, i))),
    );
    scope.postMessage({ id: batch.id, ...out }, [out.data.buffer, out.ends.buffer]);
  } catch (error) {
    scope.postMessage({ id: batch.id, error: String((error as Error)?.message ?? error) });
  }
};
