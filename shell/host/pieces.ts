// Copyright 2026 the taskpack authors. MIT license.
/**
 * Many small byte arrays as one buffer and the offsets where each ends: how the workers for
 * thousands of small files send them in one message (and one transfer) rather than one each.
 *
 * @module
 */

/** Byte arrays end to end, and where each one ends. */
export interface Pieces {
  data: Uint8Array<ArrayBuffer>;
  ends: Uint32Array<ArrayBuffer>;
}

/**
 * Joins byte arrays into one buffer.
 *
 * @param pieces The arrays, in order.
 * @returns Their bytes end to end (in a fresh buffer, to transfer), and where each ends.
 *
 * @example Usage
 * ```ts
 * import { joinPieces, pieceAt } from "./pieces.ts";
 * import assert from "node:assert/strict";
 *
 * const joined = joinPieces([new Uint8Array([1, 2]), new Uint8Array(0), new Uint8Array([3])]);
 * assert.deepEqual(joined.data, new Uint8Array([1, 2, 3]));
 * assert.deepEqual(pieceAt(joined, 2), new Uint8Array([3]));
 * ```
 */
export function joinPieces(pieces: readonly Uint8Array[]): Pieces {
  let total = 0;
  for (const piece of pieces) total += piece.length;
  const data = new Uint8Array(total);
  const ends = new Uint32Array(pieces.length);
  let at = 0;
  pieces.forEach((piece, i) => {
    data.set(piece, at);
    at += piece.length;
    ends[i] = at;
  });
  return { data, ends };
}

/**
 * One of the joined arrays.
 *
 * @param joined The result of {@linkcode joinPieces} (or a message carrying it).
 * @param index Which one.
 * @returns A view of its bytes.
 */
export function pieceAt(
  joined: { data: Uint8Array; ends: Uint32Array },
  index: number,
): Uint8Array {
  return joined.data.subarray(index === 0 ? 0 : joined.ends[index - 1], joined.ends[index]);
}
