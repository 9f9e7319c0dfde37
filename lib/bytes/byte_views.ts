// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Byte arrays by index, each kept as where it lies (its buffer, offset and length) in typed
 * arrays rather than as an array object of its own: 70,000 small files held in a few shared
 * buffers then cost a few bytes each, not a hundred, and the view is made again when asked for.
 *
 * @module
 */
import { grown } from "./bytes.ts";

/**
 * Byte arrays by index, kept as positions in their buffers; consecutive arrays of one buffer
 * (slices of a slab, files of one batch) share its entry.
 *
 * @example Usage
 * ```ts
 * import { ByteViews } from "./byte_views.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const slab = new Uint8Array([1, 2, 3, 4, 5]);
 * const views = new ByteViews();
 * views.set(0, slab.subarray(0, 2));
 * views.set(2, slab.subarray(2));
 * assertEquals(views.get(0), new Uint8Array([1, 2]));
 * assertEquals(views.get(1), null);
 * assertEquals(views.get(2), new Uint8Array([3, 4, 5]));
 * ```
 */
export class ByteViews {
  readonly #buffers: ArrayBufferLike[] = [];
  /** Which of the buffers holds each array, plus one (0 for none). */
  #which: Int32Array;
  #offsets: Float64Array;
  #lengths: Float64Array;

  /**
   * Makes an empty set.
   *
   * @param capacity How many arrays to make room for at first (it grows as needed).
   */
  constructor(capacity = 16) {
    const room = Math.max(1, capacity);
    this.#which = new Int32Array(room);
    this.#offsets = new Float64Array(room);
    this.#lengths = new Float64Array(room);
  }

  /**
   * Keeps where `bytes` lies as the array for `index` (null forgets it). The array's buffer is
   * kept alive, and read again by {@linkcode ByteViews.get}: it must not be reused for anything
   * else meanwhile.
   *
   * @param index A non-negative integer.
   * @param bytes The array, or null.
   */
  set(index: number, bytes: Uint8Array | null): void {
    if (index >= this.#which.length) {
      this.#which = grown(this.#which, index + 1);
      this.#offsets = grown(this.#offsets, this.#which.length);
      this.#lengths = grown(this.#lengths, this.#which.length);
    }
    if (bytes === null) {
      this.#which[index] = 0;
      return;
    }
    const buffers = this.#buffers;
    if (buffers[buffers.length - 1] !== bytes.buffer) buffers.push(bytes.buffer);
    this.#which[index] = buffers.length;
    this.#offsets[index] = bytes.byteOffset;
    this.#lengths[index] = bytes.length;
  }

  /**
   * The array kept for `index`, as a new view of its buffer.
   *
   * @param index The index.
   * @returns The view, or null when none is kept.
   */
  get(index: number): Uint8Array | null {
    const which = this.#which[index] ?? 0;
    if (which === 0) return null;
    return new Uint8Array(this.#buffers[which - 1]!, this.#offsets[index]!, this.#lengths[index]!);
  }
}
