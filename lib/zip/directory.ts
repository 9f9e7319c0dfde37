// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * What the reader keeps of an archive's entries: their numbers in typed arrays indexed by
 * entry, their names in one string, the rare comment, extra field or unusual error name in
 * maps, and for each entry one small object (its index, and getters for the rest). An archive
 * of 70,000 entries then holds about 40 bytes of objects per entry where it held 300: every
 * object that lives to the end is copied by the collector's young generation first, and enough
 * of them make it grow to its largest (32 MiB twice over).
 *
 * @module
 */
import { appendBytes, decodeUtf8Strict, grown } from "../bytes/mod.ts";
import type { EntryRecord, ZipEntry } from "./entry.ts";

const EMPTY = new Uint8Array(0);

/** The entries of an archive in central directory order, and what the reader keeps of each. */
export class CentralRecords {
  /** The entries, in central directory order (an entry's `index` is its place here). */
  readonly entries: ZipEntry[] = [];
  #methods: Uint8Array;
  #compressedSizes: Float64Array;
  #sizes: Float64Array;
  #crcs: Uint32Array;
  #flags: Uint16Array;
  #localOffsets: Float64Array;
  #dataOffsets: Float64Array;
  /** Every name's UTF-8 bytes, one after another. */
  #nameBytes: Uint8Array;
  #nameByteLength = 0;
  /** Where each name's bytes end in {@linkcode CentralRecords.#nameBytes}. */
  #nameByteEnds: Float64Array;
  /** Where each name ends in {@linkcode CentralRecords.#names}, in UTF-16 code units. */
  #nameEnds: Float64Array;
  /**
   * The names, one after another, decoded once when first asked for (null again after an
   * entry is added): each entry's name is cut from it when asked for, not kept as a string of
   * its own (70,000 strings that live to the end would each be copied twice by the collector).
   */
  #names: string | null = null;
  /** How errors name an entry, where that is not simply its name. */
  readonly #where = new Map<number, string>();
  readonly #comments = new Map<number, Uint8Array>();
  readonly #extras = new Map<number, Uint8Array>();
  readonly #localExtras = new Map<number, Uint8Array>();

  /**
   * @param entries How many entries to make room for at first (the end record says; more
   * grow the arrays).
   * @param nameBytes How many bytes of names to make room for at first.
   */
  constructor(entries = 64, nameBytes = 4096) {
    const room = Math.max(1, entries);
    this.#methods = new Uint8Array(room);
    this.#compressedSizes = new Float64Array(room);
    this.#sizes = new Float64Array(room);
    this.#crcs = new Uint32Array(room);
    this.#flags = new Uint16Array(room);
    this.#localOffsets = new Float64Array(room);
    this.#dataOffsets = new Float64Array(room);
    this.#nameByteEnds = new Float64Array(room);
    this.#nameEnds = new Float64Array(room);
    this.#nameBytes = new Uint8Array(Math.max(1, nameBytes));
  }

  /**
   * Adds the next entry, and returns it; the byte arrays are kept.
   *
   * @param header The entry's fields as its central header (and zip64 record) give them:
   * `nameBytes` is the name's valid UTF-8 (copied), `name` what it decodes to.
   */
  add(
    header: {
      name: string;
      nameBytes: Uint8Array;
      method: 0 | 8;
      compressedSize: number;
      size: number;
      crc32: number;
      flags: number;
      localOffset: number;
    },
    where: string,
    comment: Uint8Array,
    extra: Uint8Array,
  ): ZipEntry {
    const index = this.entries.length;
    if (index === this.#flags.length) this.#grow(index + 1);
    const entry = new CentralEntry(this, index);
    this.entries.push(entry);
    this.#nameBytes = appendBytes(this.#nameBytes, this.#nameByteLength, header.nameBytes);
    this.#nameByteLength += header.nameBytes.length;
    this.#nameByteEnds[index] = this.#nameByteLength;
    this.#nameEnds[index] = this.#nameStart(index) + header.name.length;
    this.#names = null;
    this.#methods[index] = header.method;
    this.#compressedSizes[index] = header.compressedSize;
    this.#sizes[index] = header.size;
    this.#crcs[index] = header.crc32;
    this.#flags[index] = header.flags;
    this.#localOffsets[index] = header.localOffset;
    this.#dataOffsets[index] = -1;
    if (where !== header.name) this.#where.set(index, where);
    if (comment.length > 0) this.#comments.set(index, comment);
    if (extra.length > 0) this.#extras.set(index, extra);
    return entry;
  }

  /** The compression method of entry `index`. */
  method(index: number): 0 | 8 {
    return this.#methods[index] as 0 | 8;
  }

  /** The compressed size of entry `index`. */
  compressedSize(index: number): number {
    return this.#compressedSizes[index]!;
  }

  /** The name of entry `index`. */
  name(index: number): string {
    // Valid UTF-8 names one after another are valid UTF-8: decoded whole, they are the names.
    const names = this.#names ??= decodeUtf8Strict(
      this.#nameBytes.subarray(0, this.#nameByteLength),
    );
    return names.slice(this.#nameStart(index), this.#nameEnds[index]);
  }

  /** Whether the `length` bytes of `bytes` from `at` are exactly entry `index`'s name's. */
  hasNameBytes(index: number, bytes: Uint8Array, at: number, length: number): boolean {
    const start = index === 0 ? 0 : this.#nameByteEnds[index - 1]!;
    if (length !== this.#nameByteEnds[index]! - start || at + length > bytes.length) return false;
    const names = this.#nameBytes;
    for (let i = 0; i < length; i++) if (bytes[at + i] !== names[start + i]) return false;
    return true;
  }

  #nameStart(index: number): number {
    return index === 0 ? 0 : this.#nameEnds[index - 1]!;
  }

  /** The inflated size of entry `index`. */
  size(index: number): number {
    return this.#sizes[index]!;
  }

  /** The CRC-32 of entry `index`. */
  crc32(index: number): number {
    return this.#crcs[index]!;
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
    // Most writers put the local headers in the order of the central directory.
    let sorted = true;
    for (let i = 1; i < order.length && sorted; i++) sorted = offsets[i - 1]! < offsets[i]!;
    return sorted ? order : order.sort((a, b) => offsets[a]! - offsets[b]! || a - b);
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

  #grow(needed: number): void {
    this.#methods = grown(this.#methods, needed);
    this.#compressedSizes = grown(this.#compressedSizes, needed);
    this.#sizes = grown(this.#sizes, needed);
    this.#crcs = grown(this.#crcs, needed);
    this.#flags = grown(this.#flags, needed);
    this.#localOffsets = grown(this.#localOffsets, needed);
    this.#dataOffsets = grown(this.#dataOffsets, needed);
    this.#nameByteEnds = grown(this.#nameByteEnds, needed);
    this.#nameEnds = grown(this.#nameEnds, needed);
  }
}

/** An entry as the reader hands it out: its index; its name and the rest read from its records. */
class CentralEntry implements ZipEntry {
  readonly #records: CentralRecords;

  constructor(records: CentralRecords, readonly index: number) {
    this.#records = records;
    Object.freeze(this);
  }

  get name(): string {
    return this.#records.name(this.index);
  }

  get isDirectory(): boolean {
    return this.name.endsWith("/");
  }

  get method(): 0 | 8 {
    return this.#records.method(this.index);
  }

  get compressedSize(): number {
    return this.#records.compressedSize(this.index);
  }

  get size(): number {
    return this.#records.size(this.index);
  }

  get crc32(): number {
    return this.#records.crc32(this.index);
  }
}
