// Copyright 2026 the taskpack authors. MIT license.
/**
 * The worker side of `scan_pool.ts`: one {@linkcode TextScanner} per luggage file, fed the
 * chunks it is sent; each chunk is acknowledged once scanned, and `finish` answers with the
 * result.
 *
 * @module
 */
import { type ScanResult, TextScanner } from "../../lib/scan/mod.ts";

/** A message from the pool. */
type Request = { id: number; chunk: Uint8Array } | { id: number; finish: true };

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Request>) => void) | null;
  postMessage(message: { id: number; scanned?: number; result?: ScanResult; error?: string }): void;
};

const scanners = new Map<number, TextScanner>();
/** The most bytes scanned at once. */
const SCAN_PIECE = 16 * 1024;

scope.onmessage = (event) => {
  const request = event.data;
  try {
    let scanner = scanners.get(request.id);
    if (!scanner) scanners.set(request.id, scanner = new TextScanner());
    if ("chunk" in request) {
      // In pieces: the text decoded from each dies young, so the heap stays small.
      const chunk = request.chunk;
      for (let at = 0; at < chunk.length; at += SCAN_PIECE) {
        scanner.push(chunk.subarray(at, at + SCAN_PIECE));
      }
      scope.postMessage({ id: request.id, scanned: request.chunk.length });
      return;
    }
    scanners.delete(request.id);
    scope.postMessage({ id: request.id, result: scanner.finish() });
  } catch (error) {
    scanners.delete(request.id);
    scope.postMessage({ id: request.id, error: String((error as Error)?.message ?? error) });
  }
};
