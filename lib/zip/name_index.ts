// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The index of an archive's names that finds clashes as names come and entries by name after:
 * a hash table in typed arrays ({@linkcode HashSlots}) rather than maps of strings. For tens of
 * thousands of names a map is megabytes of table, copied by the collector as it grows; this
 * holds a few bytes per name and keeps no name of its own (an earlier one is read back, only
 * to confirm a hit).
 *
 * @module
 */
import { HashSlots, hashText, startsAlike } from "../bytes/mod.ts";

/** How a name clashes with an earlier one, `other`. */
export interface NameClash {
  /**
   * `same`: the same name (a directory's `/` aside); `inside`: the name lies inside `other`, a
   * file; `holds`: `other` lies inside the name, a file.
   */
  readonly kind: "same" | "inside" | "holds";
  readonly other: string;
}

/**
 * A clash in the words of a ZIP archive's refusal (`zipNameClash`, the reader, the writer).
 *
 * @param name The name that clashes.
 * @param clash How.
 * @returns One short sentence.
 */
export function zipClashProblem(name: string, clash: NameClash): string {
  const { kind, other } = clash;
  if (kind === "inside") return `the name lies inside "${other}", which is a file`;
  if (kind === "holds") return `"${other}" lies inside the name, which is a file`;
  return other === name
    ? "the name appears twice"
    : other.endsWith("/") !== name.endsWith("/")
    ? `the name clashes with the ${other.endsWith("/") ? "directory" : "file"} "${other}"`
    : `the name clashes with "${other}"`;
}

/**
 * The names of an archive (or of a pack's luggage), added one at a time, each checked against
 * those before it: the same name twice (a directory's `/` aside), a name inside an earlier
 * file, or a file that earlier names lie inside. After a clash it is not used again.
 */
export class NameIndex {
  /** Names by key (a directory's without its `/`), as their index. */
  readonly #keys = new HashSlots();
  /** Folders some name lies in, as their number. */
  readonly #folders = new HashSlots();
  /** For each folder: the first name inside it (folders are few beside names). */
  readonly #folderFirst: string[] = [];
  readonly #folderLength: number[] = [];
  readonly #nameAt: (index: number) => string;
  /**
   * The last name added, where its folder ends and the hash up to there: the next name in the
   * same folder has no folder left to check.
   */
  #previous = "";
  #previousSlash = -1;
  #previousHash = 0;

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
   * @returns How it clashes, or null when it was added.
   */
  add(name: string): NameClash | null {
    const directory = name.endsWith("/");
    const length = directory ? name.length - 1 : name.length;
    const slash = length > 0 ? name.lastIndexOf("/", length - 1) : -1;
    // The hash of the name up to its last `/`, and of all of it.
    let folderHash: number;
    let hash: number;
    if (
      slash !== -1 && slash === this.#previousSlash && startsAlike(name, this.#previous, slash + 1)
    ) {
      // In the folder of the name added before: its folders were checked and recorded then, and
      // adding that name (longer than any of them) changed nothing for them.
      folderHash = this.#previousHash;
      hash = hashText(name, slash + 1, length, folderHash);
    } else {
      // Each folder of the name, as the hash passes its end.
      hash = folderHash = hashText("");
      for (let at = 0; at < length; at++) {
        if (name.charCodeAt(at) === 0x2f) {
          const clash = this.#folder(name, at, hash);
          if (clash !== null) return clash;
        }
        hash = hashText(name, at, at + 1, hash);
        if (at === slash) folderHash = hash;
      }
    }
    const twin = this.#find(name, length, hash);
    if (twin !== -1) return { kind: "same", other: this.#nameAt(twin) };
    if (!directory) {
      const folder = this.#findFolder(name, length, hash);
      if (folder !== -1) return { kind: "holds", other: this.#folderFirst[folder]! };
    }
    this.#keys.add(hash, this.#keys.size);
    this.#previous = name;
    this.#previousSlash = slash;
    this.#previousHash = folderHash;
    return null;
  }

  /**
   * The index of the name whose key is `name`'s (a directory's `/` aside), or -1.
   *
   * @param name A name.
   */
  find(name: string): number {
    const length = name.endsWith("/") ? name.length - 1 : name.length;
    return this.#find(name, length, hashText(name, 0, length));
  }

  // What a lookup confirms a hit against, set before each (the confirming functions are made
  // once: a closure per lookup would be a few per name, and names come by the ten thousand).
  #probe = "";
  #probeLength = 0;
  readonly #isKey = (index: number): boolean => {
    const other = this.#nameAt(index);
    const otherLength = other.endsWith("/") ? other.length - 1 : other.length;
    return otherLength === this.#probeLength && startsAlike(other, this.#probe, otherLength);
  };
  readonly #isFolder = (folder: number): boolean =>
    this.#folderLength[folder] === this.#probeLength &&
    startsAlike(this.#folderFirst[folder]!, this.#probe, this.#probeLength);

  #find(name: string, length: number, hash: number): number {
    this.#probe = name;
    this.#probeLength = length;
    return this.#keys.find(hash, this.#isKey);
  }

  #findFolder(name: string, length: number, hash: number): number {
    this.#probe = name;
    this.#probeLength = length;
    return this.#folders.find(hash, this.#isFolder);
  }

  /** Checks the folder of `name` ending at `at` against earlier files, then records it. */
  #folder(name: string, at: number, hash: number): NameClash | null {
    const file = this.#find(name, at, hash);
    if (file !== -1 && !this.#nameAt(file).endsWith("/")) {
      return { kind: "inside", other: this.#nameAt(file) };
    }
    if (this.#findFolder(name, at, hash) !== -1) return null;
    this.#folders.add(hash, this.#folderFirst.length);
    this.#folderFirst.push(name);
    this.#folderLength.push(at);
    return null;
  }
}
