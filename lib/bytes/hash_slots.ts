// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * A hash table of numbers by 32-bit hash, in typed arrays: for indexing tens of thousands of
 * names without a map of strings (megabytes of table, copied by the collector as it grows, and
 * a key kept per name). The caller hashes its keys ({@linkcode hashText}) and confirms each hit
 * against its own data, reading the key back from wherever it keeps it.
 *
 * @module
 */
import { grown } from "./bytes.ts";

const EMPTY = -1;
const SEED = 0x811c9dc5;

/**
 * FNV-1a over the UTF-16 code units of `text` (from `start` to `end`), continuing from `hash`.
 *
 * @example Usage
 * ```ts
 * import { hashText } from "./hash_slots.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(hashText("a/b", 0, 1), hashText("a"));
 * assertEquals(hashText("liquid"), hashText("costarring")); // a known collision
 * ```
 */
export function hashText(text: string, start = 0, end = text.length, hash = SEED): number {
  for (let at = start; at < end; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  return hash >>> 0;
}

/**
 * Whether `a` and `b` both have at least `length` characters and agree in the first `length`:
 * how a hit is confirmed against a key kept as the start of a longer string, without a slice.
 *
 * @example Usage
 * ```ts
 * import { startsAlike } from "./hash_slots.ts";
 * import { assert } from "@std/assert";
 *
 * assert(startsAlike("docs/a.txt", "docs/b.txt", 5));
 * assert(!startsAlike("docs", "docs/b.txt", 5));
 * ```
 */
export function startsAlike(a: string, b: string, length: number): boolean {
  if (a.length < length || b.length < length) return false;
  for (let i = 0; i < length; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}

/**
 * Numbers (non-negative 32-bit integers) kept under hashes, several under one hash if need be.
 *
 * @example Usage
 * ```ts
 * import { HashSlots, hashText } from "./hash_slots.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const names = ["liquid", "costarring"];
 * const slots = new HashSlots();
 * names.forEach((name, i) => slots.add(hashText(name), i));
 * assertEquals(slots.find(hashText("costarring"), (i) => names[i] === "costarring"), 1);
 * assertEquals(slots.find(hashText("other"), () => true), -1);
 * ```
 */
export class HashSlots {
  /** Entry numbers by slot, -1 for none; at most half full, so that a probe ends soon. */
  #slots = new Int32Array(64).fill(EMPTY);
  #hashes = new Uint32Array(32);
  #values = new Int32Array(32);
  #count = 0;

  /** How many numbers are kept. */
  get size(): number {
    return this.#count;
  }

  /**
   * The first number kept under `hash` (in the order they were added) that `confirm` accepts.
   *
   * @param hash The hash.
   * @param confirm Says whether a number kept under the hash is the one looked for.
   * @returns The number, or -1.
   */
  find(hash: number, confirm: (value: number) => boolean): number {
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot]!;
      if (entry === EMPTY) return EMPTY;
      if (this.#hashes[entry] === hash && confirm(this.#values[entry]!)) {
        return this.#values[entry]!;
      }
    }
  }

  /**
   * Keeps `value` under `hash`.
   *
   * @param hash The hash.
   * @param value A non-negative 32-bit integer.
   */
  add(hash: number, value: number): void {
    const entry = this.#count++;
    if (entry === this.#hashes.length) {
      this.#hashes = grown(this.#hashes, entry + 1);
      this.#values = grown(this.#values, entry + 1);
    }
    this.#hashes[entry] = hash;
    this.#values[entry] = value;
    if (2 * this.#count > this.#slots.length) {
      this.#slots = new Int32Array(2 * this.#slots.length).fill(EMPTY);
      for (let each = 0; each < this.#count; each++) this.#place(each);
    } else this.#place(entry);
  }

  #place(entry: number): void {
    const mask = this.#slots.length - 1;
    let slot = this.#hashes[entry]! & mask;
    while (this.#slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.#slots[slot] = entry;
  }
}
