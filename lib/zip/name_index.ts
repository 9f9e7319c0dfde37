// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The index of an archive's names that finds clashes as names come and entries by name after:
 * a hash table in typed arrays rather than maps of strings. For tens of thousands of names a
 * map is megabytes of table, copied by the collector as it grows; this holds a few bytes per
 * name and keeps no string of its own (an earlier name is read back, only to confirm a hit).
 *
 * @module
 */

/** An empty slot of a table. */
const EMPTY = -1;

/** An open-addressed table of positions by 32-bit hash; positions are what the caller keeps. */
class HashSlots {
  #slots = new Int32Array(64).fill(EMPTY);
  #hashes = new Uint32Array(32);
  #count = 0;

  /** Positions whose hash is `hash`, in the order they were added, until `visit` says stop. */
  each(hash: number, visit: (position: number) => boolean): number {
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const position = this.#slots[slot]!;
      if (position === EMPTY) return EMPTY;
      if (this.#hashes[position] === hash && visit(position)) return position;
    }
  }

  /** Adds the next position (the count so far) under `hash`. */
  add(hash: number): number {
    const position = this.#count++;
    if (position === this.#hashes.length) {
      const hashes = new Uint32Array(this.#hashes.length * 2);
      hashes.set(this.#hashes);
      this.#hashes = hashes;
    }
    this.#hashes[position] = hash;
    // At most half full: a probe meets an empty slot soon.
    if (2 * this.#count > this.#slots.length) this.#rehash(this.#slots.length * 2);
    else this.#place(position);
    return position;
  }

  #place(position: number): void {
    const mask = this.#slots.length - 1;
    let slot = this.#hashes[position]! & mask;
    while (this.#slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.#slots[slot] = position;
  }

  #rehash(size: number): void {
    this.#slots = new Int32Array(size).fill(EMPTY);
    for (let position = 0; position < this.#count; position++) this.#place(position);
  }
}

/** Whether `a` and `b` both have at least `length` characters and the first `length` agree. */
function samePrefix(a: string, b: string, length: number): boolean {
  if (a.length < length || b.length < length) return false;
  for (let i = 0; i < length; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}

/** FNV-1a over UTF-16 code units, continuing from `hash`. */
function step(hash: number, code: number): number {
  return Math.imul(hash ^ code, 0x01000193) >>> 0;
}
const SEED = 0x811c9dc5;

/**
 * The names of an archive, added one at a time, each checked against those before it as
 * {@linkcode zipNameClash} does: the same name twice (a directory's `/` aside), or a name
 * inside an earlier file, or a file that earlier names lie inside.
 */
export class NameIndex {
  /** Names by key (a directory's without its `/`): position = the name's index. */
  readonly #keys = new HashSlots();
  /** Folders some name lies in: position = the folder's number. */
  readonly #folders = new HashSlots();
  /** For each folder: the first name inside it (folders are few beside names), its length. */
  readonly #folderFirst: string[] = [];
  #folderLength = new Int32Array(16);
  readonly #nameAt: (index: number) => string;

  /**
   * @param nameAt Reads back the name added at `index`: called only on a hash hit, to confirm
   * it, so a caller may keep its names wherever is cheapest.
   */
  constructor(nameAt: (index: number) => string) {
    this.#nameAt = nameAt;
  }

  /**
   * Adds the next name (its index is the count so far), unless it clashes with an earlier one.
   *
   * @returns Why it clashes, or null when it was added.
   */
  add(name: string): string | null {
    const directory = name.endsWith("/");
    const length = directory ? name.length - 1 : name.length;
    let hash = SEED;
    // Each folder of the name, as the hash passes its end.
    for (let at = 0; at < length; at++) {
      const code = name.charCodeAt(at);
      if (code === 0x2f) {
        const problem = this.#folder(name, at, hash);
        if (problem !== null) return problem;
      }
      hash = step(hash, code);
    }
    const twin = this.#find(name, length, hash);
    if (twin !== EMPTY) {
      const first = this.#nameAt(twin);
      return first === name
        ? "the name appears twice"
        : first.endsWith("/") !== directory
        ? `the name clashes with the ${first.endsWith("/") ? "directory" : "file"} "${first}"`
        : `the name clashes with "${first}"`;
    }
    if (!directory) {
      const folder = this.#findFolder(name, length, hash);
      if (folder !== EMPTY) {
        return `"${this.#folderFirst[folder]}" lies inside the name, which is a file`;
      }
    }
    this.#keys.add(hash);
    return null;
  }

  /**
   * The index of the name whose key is `name`'s own (its first `length` characters), or -1.
   *
   * @param name A name, or any string starting with the key.
   * @param length How much of it is the key.
   */
  find(name: string, length = name.endsWith("/") ? name.length - 1 : name.length): number {
    let hash = SEED;
    for (let at = 0; at < length; at++) hash = step(hash, name.charCodeAt(at));
    return this.#find(name, length, hash);
  }

  #find(name: string, length: number, hash: number): number {
    return this.#keys.each(hash, (index) => {
      const other = this.#nameAt(index);
      const otherLength = other.endsWith("/") ? other.length - 1 : other.length;
      return otherLength === length && samePrefix(other, name, length);
    });
  }

  #findFolder(name: string, length: number, hash: number): number {
    return this.#folders.each(hash, (folder) =>
      this.#folderLength[folder] === length &&
      samePrefix(this.#folderFirst[folder]!, name, length));
  }

  /** Checks the folder of `name` ending at `at` against earlier files, then records it. */
  #folder(name: string, at: number, hash: number): string | null {
    const file = this.#find(name, at, hash);
    if (file !== EMPTY && !this.#nameAt(file).endsWith("/")) {
      return `the name lies inside "${this.#nameAt(file)}", which is a file`;
    }
    if (this.#findFolder(name, at, hash) !== EMPTY) return null;
    const folder = this.#folders.add(hash);
    if (folder === this.#folderLength.length) {
      const lengths = new Int32Array(folder * 2);
      lengths.set(this.#folderLength);
      this.#folderLength = lengths;
    }
    this.#folderFirst.push(name);
    this.#folderLength[folder] = at;
    return null;
  }
}
