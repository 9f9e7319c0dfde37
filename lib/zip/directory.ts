// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * What the reader keeps of an archive's entries besides each {@linkcode ZipEntry}: the numbers
 * in typed arrays indexed by entry, and the rare comment, extra field or unusual error name in
 * maps. An archive of 70,000 entries then holds one object per entry (its `ZipEntry`) instead
 * of two, which is what keeps the collector's young generation from growing to its largest.
 *
 * @module
 */
import type { EntryRecord, ZipEntry } from "./entry.ts";

const EMPTY = new Uint8Array(0);

/** The entries of an archive in central directory order, and what the reader keeps of each. */
export class CentralRecords {
  /** The entries, in central directory order (an entry's `index` is its place here). */
  readonly entries: ZipEntry[] = [];
  #flags = new Uint16Array(64);
  #localOffsets = new Float64Array(64);
  #dataOffsets = new Float64Array(64);
  /** How errors name an entry, where that is not simply its name. */
  readonly #where = new Map<number, string>();
  readonly #comments = new Map<number, Uint8Array>();
  readonly #extras = new Map<number, Uint8Array>();
  readonly #localExtras = new Map<number, Uint8Array>();

  /** Adds the next entry (its `index` must be the count so far); the byte arrays are kept. */
  add(
    entry: ZipEntry,
    flags: number,
    localOffset: number,
    where: string,
    comment: Uint8Array,
    extra: Uint8Array,
  ): void {
    const index = this.entries.length;
    if (index === this.#flags.length) this.#grow();
    this.entries.push(entry);
    this.#flags[index] = flags;
    this.#localOffsets[index] = localOffset;
    this.#dataOffsets[index] = -1;
    if (where !== entry.name) this.#where.set(index, where);
    if (comment.length > 0) this.#comments.set(index, comment);
    if (extra.length > 0) this.#extras.set(index, extra);
  }

  /** The general purpose flags of entry `index`'s central header. */
  flags(index: number): number {
    return this.#flags[index]!;
  }

  /** Where entry `index`'s local header starts. */
  localOffset(index: number): number {
    return this.#localOffsets[index]!;
  }

  /** How errors name entry `index`. */
  where(index: number): string {
    return this.#where.get(index) ?? this.entries[index]!.name;
  }

  /** The central comment and extra field of entry `index`, and its local extra field. */
  extraBytes(index: number): { comment: Uint8Array; extra: Uint8Array; localExtra: Uint8Array } {
    return {
      comment: this.#comments.get(index) ?? EMPTY,
      extra: this.#extras.get(index) ?? EMPTY,
      localExtra: this.#localExtras.get(index) ?? EMPTY,
    };
  }

  /** Records what entry `index`'s local header said: where its data starts, its extra field. */
  setLocal(index: number, dataOffset: number, localExtra: Uint8Array): void {
    this.#dataOffsets[index] = dataOffset;
    if (localExtra.length > 0) this.#localExtras.set(index, localExtra);
  }

  /** The indices of the entries in the order of their local headers in the file. */
  fileOrder(): Uint32Array {
    const order = new Uint32Array(this.entries.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    const offsets = this.#localOffsets;
    return order.sort((a, b) => offsets[a]! - offsets[b]! || a - b);
  }

  /**
   * What reading `entry`'s body needs, made for the read (not kept).
   *
   * @throws {TypeError} When the entry is not one of these.
   */
  record(entry: ZipEntry): EntryRecord {
    const index = entry?.index;
    if (typeof index !== "number" || this.entries[index] !== entry) {
      throw new TypeError("Cannot open zip entry: the entry does not belong to this archive");
    }
    return { entry, dataOffset: this.#dataOffsets[index]!, where: this.where(index) };
  }

  #grow(): void {
    const length = this.#flags.length * 2;
    const flags = new Uint16Array(length);
    flags.set(this.#flags);
    this.#flags = flags;
    const local = new Float64Array(length);
    local.set(this.#localOffsets);
    this.#localOffsets = local;
    const data = new Float64Array(length);
    data.set(this.#dataOffsets);
    this.#dataOffsets = data;
  }
}
