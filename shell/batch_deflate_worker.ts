// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `batch_deflater.ts`: deflates a batch of small entries with the core's own
 * encoder and sends them back in one buffer. It loads nothing but that encoder, so it is
 * answering within a few hundredths of a second of being started.
 *
 * @module
 */
import { deflateRawSmall } from "../lib/_deflate_raw.ts";

/** One batch: the entries' bytes end to end, and where each one ends. */
interface Batch {
  id: number;
  data: Uint8Array;
  ends: Uint32Array;
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Batch>) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
};

scope.onmessage = (event) => {
  const { id, data, ends } = event.data;
  try {
    const pieces: Uint8Array[] = [];
    let total = 0;
    let start = 0;
    for (const end of ends) {
      const piece = deflateRawSmall(data.subarray(start, end));
      pieces.push(piece);
      total += piece.length;
      start = end;
    }
    const out = new Uint8Array(total);
    const outEnds = new Uint32Array(pieces.length);
    let at = 0;
    pieces.forEach((piece, i) => {
      out.set(piece, at);
      at += piece.length;
      outEnds[i] = at;
    });
    scope.postMessage({ id, out, ends: outEnds }, [out.buffer, outEnds.buffer]);
  } catch (error) {
    scope.postMessage({ id, error: String((error as Error)?.message ?? error) });
  }
};
