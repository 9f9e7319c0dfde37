// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * SHA-256 digests by index, each kept as its 32 bytes in one growing buffer rather than as a
 * 64-character string: a pack of 70,000 files then holds one buffer instead of 70,000 strings,
 * and the hex is made again when asked for.
 *
 * @module
 */
import { grown, isLowerHexAscii, toHex, writeHex } from "./bytes.ts";

/**
 * SHA-256 digests by index (lower-case hex in, lower-case hex out), 32 bytes each.
 *
 * @example Usage
 * ```ts
 * import { DigestTable } from "./digest_table.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const table = new DigestTable();
 * const hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
 * table.set(3, hex);
 * assertEquals(table.hex(3), hex);
 * assertEquals(table.hex(2), null);
 * assertEquals(table.matches(3, hex), true);
 *
 * table.setFromAscii(0, new TextEncoder().encode(`  ${hex}  a.txt`), 2);
 * assertEquals(table.hex(0), hex);
 *
 * const line = new Uint8Array(64);
 * assertEquals(table.hexInto(3, line, 0), true);
 * assertEquals(new TextDecoder().decode(line), hex);
 * ```
 */
export class DigestTable {
  #bytes: Uint8Array;
  #present: Uint8Array;

  /**
   * Makes an empty table.
   *
   * @param capacity How many digests to make room for at first (it grows as needed).
   */
  constructor(capacity = 16) {
    const room = Math.max(1, capacity);
    this.#bytes = new Uint8Array(room * 32);
    this.#present = new Uint8Array(room);
  }

  /**
   * Keeps the digest for `index`, replacing any.
   *
   * @param index A non-negative integer.
   * @param hex 64 lower-case hex digits.
   * @throws {RangeError} When `hex` is not 64 lower-case hex digits.
   */
  set(index: number, hex: string): void {
    if (!/^[0-9a-f]{64}$/.test(hex)) {
      throw new RangeError(`Cannot keep digest: "${hex}" is not 64 lower-case hex digits`);
    }
    const at = this.#slot(index);
    for (let i = 0; i < 32; i++) {
      this.#bytes[at + i] = (value(hex.charCodeAt(2 * i)) << 4) | value(hex.charCodeAt(2 * i + 1));
    }
    this.#present[index] = 1;
  }

  /**
   * Keeps the digest for `index` from 64 lower-case hex digits in ASCII at `at` of `text`
   * (a manifest's line, say), replacing any: no string is made of them.
   *
   * @param index A non-negative integer.
   * @param text The bytes that hold the digits.
   * @param at Where they start.
   * @throws {RangeError} When those are not 64 lower-case hex digits; nothing is kept then.
   */
  setFromAscii(index: number, text: Uint8Array, at: number): void {
    if (!isLowerHexAscii(text, at, 64)) {
      throw new RangeError(
        `Cannot keep digest: the bytes at ${at} are not 64 lower-case hex digits`,
      );
    }
    const slot = this.#slot(index);
    for (let i = 0; i < 32; i++) {
      this.#bytes[slot + i] = (value(text[at + 2 * i]!) << 4) | value(text[at + 2 * i + 1]!);
    }
    this.#present[index] = 1;
  }

  /** Where the digest for `index` goes, making room for it. */
  #slot(index: number): number {
    if (index >= this.#present.length) {
      this.#present = grown(this.#present, index + 1);
      this.#bytes = grown(this.#bytes, 32 * this.#present.length);
    }
    return index * 32;
  }

  /**
   * Whether a digest is kept for `index`.
   *
   * @param index The index.
   * @returns True when one is.
   */
  has(index: number): boolean {
    return this.#present[index] === 1;
  }

  /**
   * The digest for `index`, as lower-case hex.
   *
   * @param index The index.
   * @returns The hex, or null when none is kept.
   */
  hex(index: number): string | null {
    if (this.#present[index] !== 1) return null;
    return toHex(this.#bytes.subarray(index * 32, index * 32 + 32));
  }

  /**
   * Writes the digest for `index` into `out` at `at`, as 64 lower-case hex digits in ASCII: a
   * manifest of thousands of lines is then written without a string per digest.
   *
   * @param index The index.
   * @param out Where to write.
   * @param at The offset to write at (64 bytes from it must be in `out`).
   * @returns False, writing nothing, when no digest is kept for `index`.
   */
  hexInto(index: number, out: Uint8Array, at: number): boolean {
    if (this.#present[index] !== 1) return false;
    if (at < 0 || at + 64 > out.length) {
      throw new RangeError(`Cannot write digest: no room for 64 bytes at ${at}`);
    }
    writeHex(this.#bytes.subarray(index * 32, index * 32 + 32), out, at);
    return true;
  }

  /**
   * Whether the digest kept for `index` is `hex` (false when none is kept).
   *
   * @param index The index.
   * @param hex The digest to compare, as hex.
   * @returns True when they are the same.
   */
  matches(index: number, hex: string): boolean {
    return this.hex(index) === hex;
  }
}

/** The value of a lower-case hex digit's character code (checked by the caller). */
function value(code: number): number {
  return code <= 57 ? code - 48 : code - 87;
}
