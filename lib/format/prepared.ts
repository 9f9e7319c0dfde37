// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * What preparing a pack keeps of each luggage file until it is encoded: its numbers and digest
 * in typed arrays, its bytes (when small) and what was deflated of them early as positions in
 * shared slabs, read back by position. No object is made per file unless one is asked for
 * (`PreparedPack.luggage`): every object that lives to the end is copied by the collector once
 * or twice, and enough of them make V8 double its young generation, tens of MiB for a pack of
 * 70,000 small files.
 *
 * @module
 */
import { ByteViews, DigestTable, type Luggage } from "../bytes/mod.ts";
import type { Deflater } from "../zip/mod.ts";

/** One luggage file after the chokepoint: hashed, scanned, its storage decided. */
export interface PreparedLuggage {
  /** Path under `data/files/`. */
  readonly name: string;
  /** Byte count. */
  readonly size: number;
  /** Lower-case hex SHA-256. */
  readonly sha256: string;
  /** CRC-32, for the ZIP entry. */
  readonly crc32: number;
  /** Whether the bag deflates it (large files: decided from a sample; small: by trying). */
  readonly compress: boolean;
  /** The bytes, when small enough to be held. */
  readonly bytes: Uint8Array | null;
  /** Opens the bytes again for writing. */
  open(): ReadableStream<Uint8Array>;
}

/** Small luggage is copied into slabs of this size (see {@linkcode SlabCopier}). */
const SLAB_BYTES = 256 * 1024;

/**
 * The luggage of one pack as prepared, by position: what the encoders read, with no object per
 * file (a {@linkcode PreparedLuggage} is made only when one is asked for).
 */
export class PreparedStore {
  /** The deflater that made what {@linkcode PreparedStore.deflatedFor} gives, if any. */
  readonly deflater: Deflater | null;
  /** The luggage as given, in pack order (its names and sources). */
  readonly sources: readonly Luggage[];
  readonly #digests: DigestTable;
  readonly #bytes: ByteViews;
  readonly #deflated: ByteViews;
  /** Deflating that has not finished yet (or failed), by position. */
  readonly #pending = new Map<number, Promise<Uint8Array>>();
  readonly #copies = new SlabCopier();
  readonly #sizes: Float64Array;
  readonly #crcs: Uint32Array;
  readonly #compress: Uint8Array;

  /**
   * @param sources The luggage, in pack order.
   * @param deflater The deflater that deflates small files early, if any.
   */
  constructor(sources: readonly Luggage[], deflater: Deflater | null) {
    this.sources = sources;
    this.deflater = deflater;
    const room = Math.max(1, sources.length);
    this.#digests = new DigestTable(room);
    this.#bytes = new ByteViews(room);
    this.#deflated = new ByteViews(room);
    this.#sizes = new Float64Array(room);
    this.#crcs = new Uint32Array(room);
    this.#compress = new Uint8Array(room);
  }

  /** How many files the store holds. */
  get count(): number {
    return this.sources.length;
  }

  /** A copy of `bytes` in a shared slab (see {@linkcode SlabCopier}). */
  copy(bytes: Uint8Array): Uint8Array {
    return this.#copies.copy(bytes);
  }

  /** Keeps what was found of the file at `index`. */
  add(
    index: number,
    found: { size: number; sha256: string; crc32: number; compress: boolean },
    bytes: Uint8Array | null,
  ): void {
    if (!(index >= 0 && index < this.sources.length)) {
      throw new RangeError(`Cannot keep luggage ${index}: the pack has ${this.count} files`);
    }
    this.#digests.set(index, found.sha256);
    this.#sizes[index] = found.size;
    this.#crcs[index] = found.crc32;
    this.#compress[index] = found.compress ? 1 : 0;
    this.#bytes.set(index, bytes);
  }

  /**
   * Keeps what `deflater` made (or is making) of the file at `index`: once made, it is copied
   * into a slab; a failure stays for the encoder to report, if the pack gets that far.
   */
  setDeflated(index: number, made: Uint8Array | Promise<Uint8Array>): void {
    if (made instanceof Uint8Array) {
      // One deflated on this thread has a buffer of its own: copied into a slab, so that the
      // store does not hold a buffer per file.
      const own = made.byteOffset === 0 && made.byteLength === made.buffer.byteLength;
      this.#deflated.set(index, own ? this.#copies.copy(made) : made);
      return;
    }
    this.#pending.set(index, made);
    made.then((bytes) => {
      this.#deflated.set(index, this.#copies.copy(bytes));
      this.#pending.delete(index);
    }, () => {});
  }

  /**
   * What `deflater` made of the file at `index` while it was prepared (or the promise of it),
   * or null: nothing made early, or made by another deflater.
   */
  deflatedFor(index: number, deflater: Deflater): Uint8Array | Promise<Uint8Array> | null {
    if (this.deflater !== deflater) return null;
    return this.#pending.get(index) ?? this.#deflated.get(index);
  }

  /** The path under `data/files/` of the file at `index`. */
  name(index: number): string {
    return this.sources[index]!.name;
  }

  /** Opens the bytes of the file at `index` again. */
  open(index: number): ReadableStream<Uint8Array> {
    return this.sources[index]!.open();
  }

  /** The lower-case hex SHA-256 of the file at `index`. */
  sha256(index: number): string {
    return this.#digests.hex(index)!;
  }

  /** Writes the SHA-256 of the file at `index` into `out` at `at`, as 64 ASCII hex digits. */
  sha256Into(index: number, out: Uint8Array, at: number): void {
    if (!this.#digests.hexInto(index, out, at)) {
      throw new RangeError(`Cannot write the digest of luggage ${index}: it was not prepared`);
    }
  }

  /** The byte count of the file at `index`. */
  size(index: number): number {
    return this.#sizes[index]!;
  }

  /** The CRC-32 of the file at `index`. */
  crc32(index: number): number {
    return this.#crcs[index]!;
  }

  /** Whether the bag deflates the file at `index`. */
  compress(index: number): boolean {
    return this.#compress[index] === 1;
  }

  /** The bytes of the file at `index`, when small enough to be held (a new view each time). */
  bytes(index: number): Uint8Array | null {
    return this.#bytes.get(index);
  }

  /** The file at `index` as one object (a new one each time). */
  file(index: number): PreparedLuggage {
    return new PreparedFile(this, index);
  }
}

/** A luggage file as prepared: its place in the store that holds it. */
class PreparedFile implements PreparedLuggage {
  readonly #store: PreparedStore;
  readonly #index: number;

  constructor(store: PreparedStore, index: number) {
    this.#store = store;
    this.#index = index;
  }

  get name(): string {
    return this.#store.name(this.#index);
  }

  get size(): number {
    return this.#store.size(this.#index);
  }

  get sha256(): string {
    return this.#store.sha256(this.#index);
  }

  get crc32(): number {
    return this.#store.crc32(this.#index);
  }

  get compress(): boolean {
    return this.#store.compress(this.#index);
  }

  get bytes(): Uint8Array | null {
    return this.#store.bytes(this.#index);
  }

  open(): ReadableStream<Uint8Array> {
    return this.#store.open(this.#index);
  }
}

/**
 * Copies small byte arrays into shared slabs: thousands of small files then cost a few dozen
 * buffers rather than one each (each buffer costs its allocation, the collector's attention,
 * and the runtime's teardown). A slab lives as long as any copy in it, as the files do.
 */
class SlabCopier {
  #slab = new Uint8Array(0);
  #used = 0;

  copy(bytes: Uint8Array): Uint8Array {
    if (bytes.length > SLAB_BYTES / 16) return bytes.slice();
    if (this.#used + bytes.length > this.#slab.length) {
      this.#slab = new Uint8Array(SLAB_BYTES);
      this.#used = 0;
    }
    const copy = this.#slab.subarray(this.#used, this.#used + bytes.length);
    copy.set(bytes);
    this.#used += bytes.length;
    return copy;
  }
}
