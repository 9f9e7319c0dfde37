// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * A canonical ZIP writer (PKWARE APPNOTE 6.3.x): the same entries and options give the same
 * bytes, every time, within one runtime.
 *
 * - Entries are written in the order given, with one timestamp (the DOS time of
 *   `options.modified`, in UTC), UTF-8 names (flag bit 11), version 2.0 (4.5 where ZIP64 is
 *   used), no comments, no extra fields but the ZIP64 one where needed, and fixed Unix modes
 *   (0644 files, 0755 directories) under a Unix "made by" (so Info-ZIP `unzip` reads the names
 *   as UTF-8 and extracts files readable).
 * - Entries held in memory are deflated whole and stored deflated only when that is strictly
 *   smaller. Streamed entries say up front whether to deflate (see `looksCompressible` in
 *   `deflate.ts`); deflated ones carry a data descriptor.
 * - The archive is produced as a pull-based stream: a streamed entry is never held in memory,
 *   and nothing is read from an entry before the consumer asks for more output.
 * - ZIP64 (APPNOTE 4.5.3, 4.3.14) is used for entries of 4 GiB or more (or that may deflate to
 *   that), for offsets past 4 GiB, and for 65,535 entries or more.
 *
 * Everything written can be read back by `openZip` with its default limits (names follow the
 * same rules), and by Info-ZIP `unzip`.
 *
 * @module
 */
import {
  borrowChunks,
  decodeUtf8Strict,
  type Digests,
  grown,
  portableDigests,
  readAllBytes,
  utf8,
} from "../bytes/mod.ts";
import { DEFAULT_ZIP_LIMITS, zipNameProblem } from "./reader.ts";
import { NameIndex, zipClashProblem } from "./name_index.ts";
import { type Deflater, platformDeflater } from "./deflate.ts";

/** An entry whose bytes are in memory: the writer computes its CRC and picks stored or deflated. */
export interface ZipMemoryEntry {
  /** The name; a trailing `/` makes a directory entry (which must have no bytes). */
  readonly name: string;
  /** The whole content. */
  readonly bytes: Uint8Array;
  /**
   * The raw DEFLATE of `bytes`, when it is made already or under way (made by the same
   * deflater, so that the archive is the same as if the writer had made it). Kept only when
   * smaller.
   */
  readonly deflated?: Promise<Uint8Array> | Uint8Array;
}

/**
 * An entry streamed from elsewhere (a file). Its size and CRC-32 are known beforehand (the
 * caller hashed it); the writer checks them again while streaming.
 */
export interface ZipStreamEntry {
  /** The name. */
  readonly name: string;
  /** The size in bytes. */
  readonly size: number;
  /** The CRC-32 of the content. */
  readonly crc32: number;
  /** Whether to deflate (ignored for empty entries, which are always stored). */
  readonly compress: boolean;
  /** Opens the content; called once, when the writer reaches the entry. */
  open(): ReadableStream<Uint8Array>;
}

/** One entry to write: in memory, or streamed. */
export type ZipWriteEntry = ZipMemoryEntry | ZipStreamEntry;

/** Options for {@linkcode writeZip}. */
export interface WriteZipOptions {
  /** The modification time of every entry (stored as a DOS time, in UTC, to 2 seconds). */
  modified: Date;
  /**
   * CRC-32 implementation.
   *
   * @default {portableDigests}
   */
  digests?: Digests;
  /**
   * DEFLATE implementation (the output is reproducible for a given deflater).
   *
   * @default {platformDeflater}
   */
  deflater?: Deflater;
  /**
   * Told, as the archive is written, of content bytes of entry `index` passed on (`bytes`), and
   * when that entry is done.
   */
  onProgress?: (index: number, bytes: number, done: boolean) => void;
  /**
   * For tests: write every ZIP64 structure (extra fields with sizes and offsets, the ZIP64
   * end of central directory record and locator) even when nothing needs them.
   *
   * @default {false}
   */
  forceZip64?: boolean;
}

const SIG_LOCAL = 0x04034b50;
const SIG_DESCRIPTOR = 0x08074b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_EOCD = 0x06054b50;

const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;
const VERSION = 20;
const VERSION_ZIP64 = 45;
/**
 * "Made by" Unix, so Info-ZIP `unzip` honours the UTF-8 flag (it reads names from an MS-DOS
 * host as code page 437), with the fixed modes that then go in the external attributes:
 * `-rw-r--r--` for files, `drwxr-xr-x` (and the MS-DOS directory bit) for directories.
 */
const HOST_UNIX = 3;
const ATTRIBUTES_FILE = (0o100644 << 16) >>> 0;
const ATTRIBUTES_DIRECTORY = ((0o040755 << 16) | 0x10) >>> 0;
const FLAG_DESCRIPTOR = 1 << 3;
const FLAG_UTF8 = 1 << 11;
const METHOD_STORED = 0;
const METHOD_DEFLATED = 8;

/** Output pieces smaller than this are gathered into one chunk of about {@linkcode GATHER}. */
const SMALL = 16_384;
const GATHER = 65_536;

/**
 * Writes a ZIP archive as a stream.
 *
 * The stream is pull-based: entries are opened and read only as the consumer reads, and only
 * a few chunks are buffered at a time (small records are gathered into chunks of about
 * 64 KiB), besides the central directory, which is kept until the end. It errors with a `TypeError`
 * when an entry name is unsafe or clashes with another (the rules `openZip` reads by), and
 * when a streamed entry's bytes do not match its declared size and CRC-32
 * (`Cannot write zip: "<name>" changed while packing (size or CRC differs)`).
 *
 * @param entries The entries, in archive order.
 * @param options The timestamp and CRC-32 implementation.
 * @returns The archive's bytes.
 * @throws {RangeError} When `options.modified` is not a date between 1980 and 2107.
 *
 * @example Usage
 * ```ts
 * import { writeZip, zipToBytes } from "./writer.ts";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const modified = new Date(Date.UTC(2026, 4, 1, 12, 0, 0));
 * const entries = [
 *   { name: "bagit.txt", bytes: new TextEncoder().encode("BagIt-Version: 1.0\n") },
 *   { name: "data/big.log", bytes: new TextEncoder().encode("line\n".repeat(10_000)) },
 * ];
 * const first = await zipToBytes(writeZip(entries, { modified }));
 * const second = await zipToBytes(writeZip(entries, { modified }));
 * assertEquals(first, second);
 * assert(first.length < 1000);
 * ```
 */
export function writeZip(
  entries: AsyncIterable<ZipWriteEntry> | Iterable<ZipWriteEntry>,
  options: WriteZipOptions,
): ReadableStream<Uint8Array> {
  const iterator = produce(entries, settingsOf(options, false));
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return(undefined);
    },
  }, { highWaterMark: 0 });
}

/**
 * Writes a ZIP archive into `sink`, chunk by chunk: the same bytes as {@linkcode writeZip}. A
 * chunk is only valid during the call that hands it over (the sink must use or copy it before
 * returning), which lets stored entries pass from their source to the sink through one reused
 * buffer, without a fresh allocation per chunk.
 *
 * @param entries The entries, in archive order.
 * @param sink Receives the archive's bytes, in order; awaited before the next chunk.
 * @param options The timestamp and CRC-32 implementation.
 * @throws {RangeError} When `options.modified` is not a date between 1980 and 2107.
 * @throws {TypeError} As {@linkcode writeZip}'s stream errors.
 *
 * @example Usage
 * ```ts
 * import { writeZip, writeZipTo, zipToBytes } from "./writer.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const modified = new Date(Date.UTC(2026, 4, 1, 12, 0, 0));
 * const entries = [{ name: "a.txt", bytes: new TextEncoder().encode("hello") }];
 * const parts: Uint8Array<ArrayBuffer>[] = [];
 * await writeZipTo(entries, (chunk) => void parts.push(chunk.slice()), { modified });
 * const whole = new Uint8Array(await new Blob(parts).arrayBuffer());
 * assertEquals(whole, await zipToBytes(writeZip(entries, { modified })));
 * ```
 */
export async function writeZipTo(
  entries: AsyncIterable<ZipWriteEntry> | Iterable<ZipWriteEntry>,
  sink: (chunk: Uint8Array) => void | Promise<void>,
  options: WriteZipOptions,
): Promise<void> {
  for await (const chunk of produce(entries, settingsOf(options, true))) await sink(chunk);
}

function settingsOf(options: WriteZipOptions, borrow: boolean): Settings {
  const { date, time } = dosDateTime(options.modified);
  return {
    date,
    time,
    digests: options.digests ?? portableDigests,
    deflater: options.deflater ?? platformDeflater,
    onProgress: options.onProgress ?? null,
    forceZip64: options.forceZip64 === true,
    borrow,
  };
}

/**
 * Collects a stream (such as {@linkcode writeZip}'s) into one byte array. For tests and small
 * archives.
 *
 * @param stream The stream.
 * @returns All its bytes.
 *
 * @example Usage
 * ```ts
 * import { writeZip, zipToBytes } from "./writer.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const empty = await zipToBytes(writeZip([], { modified: new Date(Date.UTC(2026, 0, 1)) }));
 * assertEquals(empty.length, 22);
 * ```
 */
export async function zipToBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return await readAllBytes(stream);
}

interface Settings {
  date: number;
  time: number;
  digests: Digests;
  deflater: Deflater;
  onProgress: ((index: number, bytes: number, done: boolean) => void) | null;
  forceZip64: boolean;
  /**
   * The consumer uses each chunk before asking for the next (`writeZipTo`): stored entries may
   * then be read into one reused buffer and handed on as they are.
   */
  borrow: boolean;
}

/** In-memory entries deflated ahead of the one being written: at most this many... */
const AHEAD_ENTRIES = 32;
/** ...and at most this many bytes. */
const AHEAD_BYTES = 4 << 20;

/**
 * With the entries in hand (an array), in-memory ones are deflated a few ahead of the one being
 * written (a deflater with more than one core works on several at once); each is still written
 * in order. Entries that come with their deflated bytes made already need none of it.
 */
class DeflateAhead {
  readonly #entries: UpcomingEntries | null;
  readonly #deflater: Deflater;
  readonly #started = new Map<number, Promise<Uint8Array>>();
  #startedBytes = 0;
  #upTo = 0;

  constructor(entries: UpcomingEntries | null, deflater: Deflater) {
    this.#entries = entries;
    this.#deflater = deflater;
  }

  /** Entry `index` deflated (begun now, if it was not yet), and the next few begun. */
  deflated(index: number, entry: ZipMemoryEntry): Promise<Uint8Array> | Uint8Array {
    const started = this.#started.get(index);
    if (started !== undefined) {
      this.#started.delete(index);
      this.#startedBytes -= entry.bytes.length;
    }
    this.#startFrom(index + 1);
    return started ?? this.#begin(entry);
  }

  #begin(entry: ZipMemoryEntry): Promise<Uint8Array> | Uint8Array {
    const begun = entry.deflated ?? this.#deflater.deflate(entry.bytes);
    if (begun instanceof Promise) begun.catch(() => {}); // awaited when its entry is written
    return begun;
  }

  #startFrom(from: number): void {
    const entries = this.#entries;
    if (entries === null) return;
    this.#upTo = Math.max(this.#upTo, from);
    while (this.#upTo < from + AHEAD_ENTRIES && this.#startedBytes < AHEAD_BYTES) {
      const next = entries.at(this.#upTo);
      if (next === undefined) break;
      if (
        next && "bytes" in next && next.bytes instanceof Uint8Array && next.bytes.length > 0 &&
        !(next.deflated instanceof Uint8Array)
      ) {
        const begun = this.#begin(next);
        if (begun instanceof Promise) {
          this.#started.set(this.#upTo, begun);
          this.#startedBytes += next.bytes.length;
        }
      }
      this.#upTo++;
    }
  }
}

/**
 * Entries given as an array or any other synchronous iterable: walked without an await each
 * (thousands of small ones would pay for it), and open to a look a few entries ahead. An
 * iterable's entries are taken from it only as far as that look reaches, so a caller may make
 * them as they are asked for instead of holding them all.
 */
class UpcomingEntries {
  readonly #list: readonly ZipWriteEntry[] | null;
  readonly #iterator: Iterator<ZipWriteEntry> | null;
  /** Entries taken from the iterator, from position `#first` on. */
  readonly #queue: ZipWriteEntry[] = [];
  #first = 0;
  #done = false;

  constructor(entries: Iterable<ZipWriteEntry>) {
    this.#list = Array.isArray(entries) ? entries : null;
    this.#iterator = this.#list === null ? entries[Symbol.iterator]() : null;
  }

  /** The entry at `index` (not before one already passed with `pass`), or undefined at the end. */
  at(index: number): ZipWriteEntry | undefined {
    if (this.#list !== null) return index < this.#list.length ? this.#list[index] : undefined;
    while (!this.#done && this.#first + this.#queue.length <= index) {
      const next = this.#iterator!.next();
      if (next.done) this.#done = true;
      else this.#queue.push(next.value);
    }
    return this.#queue[index - this.#first];
  }

  /** Says the entries up to `index` are written: they are not kept any longer. */
  pass(index: number): void {
    while (this.#first <= index && this.#queue.length > 0) {
      this.#queue.shift();
      this.#first++;
    }
  }

  /** Lets the iterator close what it holds, when the walk stops early. */
  stop(): void {
    if (!this.#done) this.#iterator?.return?.();
  }
}

/** What the central directory needs to know about a written entry. */
interface Written {
  nameBytes: Uint8Array;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  /** Sizes go in the zip64 extra field (decided when the local header was written). */
  zip64Sizes: boolean;
  offset: number;
}

/** The central directory grows by doubling up to this size, then in blocks of it. */
const DIRECTORY_BLOCK = 1 << 20;

/**
 * The central directory, made entry by entry as each is written: bytes rather than a record
 * and a name per entry kept to the end (70,000 files would hold about 20 MiB more), in blocks
 * of a MiB once it is that large, so that it is never copied whole as it grows (a doubled
 * buffer holds the old one and up to half its size unused until the collector frees it).
 */
class CentralDirectory {
  /** The blocks filled, then the one being filled. */
  readonly #blocks: Uint8Array[] = [];
  #block = new Uint8Array(1 << 16);
  #used = 0;
  /** Where each entry's header is: its block, and where in it. */
  #blockOf = new Uint32Array(64);
  #starts = new Uint32Array(64);
  /** Entries added. */
  count = 0;

  /** Adds one entry's central directory header. */
  add(header: Uint8Array): void {
    if (this.count === this.#starts.length) {
      this.#starts = grown(this.#starts, this.count + 1);
      this.#blockOf = grown(this.#blockOf, this.#starts.length);
    }
    if (this.#used + header.length > this.#block.length) {
      if (this.#used + header.length <= DIRECTORY_BLOCK) {
        this.#block = grown(this.#block, this.#used + header.length, this.#used);
      } else {
        this.#blocks.push(this.#block.subarray(0, this.#used));
        this.#block = new Uint8Array(Math.max(DIRECTORY_BLOCK, header.length));
        this.#used = 0;
      }
    }
    this.#blockOf[this.count] = this.#blocks.length;
    this.#starts[this.count] = this.#used;
    this.#block.set(header, this.#used);
    this.#used += header.length;
    this.count++;
  }

  /** The name of entry `index`, read back from its header. */
  nameAt(index: number): string {
    const block = this.#blockOf[index] === this.#blocks.length
      ? this.#block
      : this.#blocks[this.#blockOf[index]!]!;
    const start = this.#starts[index]!;
    const length = block[start + 28]! | (block[start + 29]! << 8);
    return decodeUtf8Strict(block.subarray(start + 46, start + 46 + length));
  }

  /** The headers so far, in order, in parts. */
  get parts(): Uint8Array[] {
    return [...this.#blocks, this.#block.subarray(0, this.#used)];
  }
}

/** The DOS date and time (APPNOTE 4.4.6) of a moment, in UTC. */
function dosDateTime(modified: Date): { date: number; time: number } {
  if (!(modified instanceof Date) || Number.isNaN(modified.getTime())) {
    throw new RangeError("Cannot write zip: options.modified must be a valid Date");
  }
  const year = modified.getUTCFullYear();
  if (year < 1980 || year > 2107) {
    throw new RangeError(
      `Cannot write zip: a ZIP time must lie between 1980 and 2107, got ${year}`,
    );
  }
  return {
    date: ((year - 1980) << 9) | ((modified.getUTCMonth() + 1) << 5) | modified.getUTCDate(),
    time: (modified.getUTCHours() << 11) | (modified.getUTCMinutes() << 5) |
      (modified.getUTCSeconds() >> 1),
  };
}

/**
 * Gathers small pieces of output into chunks of {@linkcode GATHER} bytes, copied as they come
 * (so a header may be built in a scratch buffer); large pieces pass through uncopied. Writing
 * is synchronous: the chunks it makes wait in {@linkcode Output.take} (no generator per piece,
 * which thousands of small entries would pay for twice each). For a consumer done with each
 * chunk before it asks for the next (`reuse`), the buffers it gathers into are used again once
 * their chunks have been taken and handed on: a fresh buffer costs more to touch than to fill.
 */
class Output {
  #buffer = new Uint8Array(GATHER);
  #filled = 0;
  #ready: Uint8Array[] = [];
  /** With `reuse`: buffers gathered into since the last take, and those free again. */
  #gathered: Uint8Array<ArrayBuffer>[] = [];
  #spare: Uint8Array<ArrayBuffer>[] = [];
  /** Bytes written so far (gathered or not). */
  offset = 0;

  constructor(readonly reuse: boolean) {}

  /** Takes `bytes`: a small piece is copied at once, so it may be reused afterwards. */
  write(bytes: Uint8Array): void {
    this.offset += bytes.length;
    if (bytes.length >= SMALL) {
      this.flush();
      this.#ready.push(bytes);
      return;
    }
    if (this.#filled + bytes.length > GATHER) this.flush();
    this.#buffer.set(bytes, this.#filled);
    this.#filled += bytes.length;
  }

  /** Makes what is gathered a chunk of its own. */
  flush(): void {
    if (this.#filled === 0) return;
    this.#ready.push(this.#buffer.subarray(0, this.#filled));
    if (this.reuse) this.#gathered.push(this.#buffer);
    this.#buffer = this.#spare.pop() ?? new Uint8Array(GATHER);
    this.#filled = 0;
  }

  /**
   * The chunks made so far, in order, handed over: hand each on before writing more (a large
   * piece is the caller's own buffer). With `reuse`, the buffers behind them are free again
   * from the next write on: the consumer is done with each chunk before asking for the next.
   */
  take(): readonly Uint8Array[] {
    if (this.reuse) {
      this.#spare.push(...this.#gathered);
      this.#gathered = [];
    }
    if (this.#ready.length === 0) return NOTHING;
    const ready = this.#ready;
    this.#ready = [];
    return ready;
  }
}

const NOTHING: readonly Uint8Array[] = Object.freeze([]);

function changed(name: string): TypeError {
  return new TypeError(
    `Cannot write zip: ${JSON.stringify(name)} changed while packing (size or CRC differs)`,
  );
}

function checkName(name: unknown): Uint8Array {
  if (typeof name !== "string") {
    throw new TypeError("Cannot write zip: an entry name must be a string");
  }
  const bytes = utf8(name);
  const problem = zipNameProblem(name, DEFAULT_ZIP_LIMITS, bytes.length);
  if (problem !== null) {
    throw new TypeError(`Cannot write zip: ${JSON.stringify(name)}: ${problem}`);
  }
  return bytes;
}

/** The largest a deflated stream of `size` bytes can be: zlib's bound plus our flushes, padded. */
function deflateBound(size: number): number {
  return size + Math.ceil(size / 1024) + 1024;
}

async function* produce(
  entries: AsyncIterable<ZipWriteEntry> | Iterable<ZipWriteEntry>,
  settings: Settings,
): AsyncGenerator<Uint8Array> {
  const out = new Output(settings.borrow);
  const central = new CentralDirectory();
  // Each name is held against the ones before it as it comes (as zipNameClash does), read
  // back from the central directory when a hash says it may clash: no list of names is kept.
  const names = new NameIndex((index) => central.nameAt(index));
  const upcoming = Array.isArray(entries) || !(Symbol.asyncIterator in entries)
    ? new UpcomingEntries(entries as Iterable<ZipWriteEntry>)
    : null;
  const ahead = new DeflateAhead(upcoming, settings.deflater);
  const iterator = upcoming === null
    ? (entries as AsyncIterable<ZipWriteEntry>)[Symbol.asyncIterator]()
    : null;
  let walked = false;
  try {
    for (let index = 0;; index++) {
      let entry: ZipWriteEntry;
      if (upcoming !== null) {
        const next = upcoming.at(index);
        if (next === undefined) break;
        entry = next;
        upcoming.pass(index);
      } else {
        const next = await iterator!.next();
        if (next.done) break;
        entry = next.value;
      }
      const nameBytes = checkName(entry?.name);
      const clash = names.add(entry.name);
      if (clash !== null) {
        throw new TypeError(
          `Cannot write zip: ${JSON.stringify(entry.name)}: ${zipClashProblem(entry.name, clash)}`,
        );
      }
      const offset = out.offset;
      if ("bytes" in entry) {
        const bytes = entry.bytes;
        if (!(bytes instanceof Uint8Array)) {
          throw new TypeError(`Cannot write zip: ${JSON.stringify(entry.name)} has no bytes`);
        }
        if (entry.name.endsWith("/") && bytes.length > 0) {
          throw new TypeError(
            `Cannot write zip: the directory entry ${JSON.stringify(entry.name)} has bytes`,
          );
        }
        const crc = settings.digests.crc32(bytes, 0);
        const pending = bytes.length > 0 ? ahead.deflated(index, entry) : bytes;
        const deflated = pending instanceof Uint8Array ? pending : await pending;
        const useDeflate = deflated.length < bytes.length;
        const data = useDeflate ? deflated : bytes;
        const item: Written = {
          nameBytes,
          flags: FLAG_UTF8,
          method: useDeflate ? METHOD_DEFLATED : METHOD_STORED,
          crc,
          compressedSize: data.length,
          size: bytes.length,
          zip64Sizes: settings.forceZip64 || bytes.length >= U32_MAX || data.length >= U32_MAX,
          offset,
        };
        out.write(localHeader(item, settings));
        out.write(data);
        for (const chunk of out.take()) yield chunk;
        central.add(centralHeader(item, settings));
        settings.onProgress?.(index, bytes.length, true);
        continue;
      }

      const { name, size, crc32: declaredCrc } = entry;
      if (!Number.isSafeInteger(size) || size < 0) {
        throw new RangeError(
          `Cannot write zip: the size of ${JSON.stringify(name)} must be an integer >= 0`,
        );
      }
      if (!Number.isInteger(declaredCrc) || declaredCrc < 0 || declaredCrc > U32_MAX) {
        throw new RangeError(
          `Cannot write zip: the CRC-32 of ${
            JSON.stringify(name)
          } must be a 32-bit unsigned integer`,
        );
      }
      if (name.endsWith("/") && size > 0) {
        throw new TypeError(
          `Cannot write zip: the directory entry ${JSON.stringify(name)} has bytes`,
        );
      }
      const compress = entry.compress === true && size > 0;
      const item: Written = {
        nameBytes,
        flags: FLAG_UTF8 | (compress ? FLAG_DESCRIPTOR : 0),
        method: compress ? METHOD_DEFLATED : METHOD_STORED,
        crc: declaredCrc,
        compressedSize: size,
        size,
        zip64Sizes: settings.forceZip64 || (compress ? deflateBound(size) : size) >= U32_MAX,
        offset,
      };
      out.write(localHeader(item, settings));
      for (const chunk of out.take()) yield chunk;

      // Count and CRC the content as it passes, refusing the moment it outgrows its declaration.
      let seen = 0;
      let crc = 0;
      if (!compress && settings.borrow) {
        // Stored, for a consumer that is done with each chunk before the next: one reused buffer.
        for await (const chunk of borrowChunks(entry.open(), size)) {
          seen += chunk.length;
          if (seen > size) throw changed(name);
          crc = settings.digests.crc32(chunk, crc);
          settings.onProgress?.(index, chunk.length, false);
          out.write(chunk);
          for (const ready of out.take()) yield ready;
        }
        if (seen !== size || crc !== declaredCrc) throw changed(name);
        central.add(centralHeader(item, settings));
        settings.onProgress?.(index, 0, true);
        continue;
      }
      const inspect = (chunk: Uint8Array) => {
        seen += chunk.length;
        if (seen > size) throw changed(name);
        crc = settings.digests.crc32(chunk, crc);
        settings.onProgress?.(index, chunk.length, false);
      };
      const ended = () => {
        if (seen !== size || crc !== declaredCrc) throw changed(name);
      };
      let reader: ReadableStreamDefaultReader<Uint8Array>;
      let feeding: Promise<void> | null = null;
      if (compress && settings.deflater.streamCopiesInput === true) {
        // The deflater copies what it keeps: its input is read into one reused buffer, each
        // chunk written (and the write awaited) before the next is read. Memory then stays
        // flat however long the entry is, and the deflater's own bounds are the only ones.
        const transform = settings.deflater.deflateStream();
        reader = transform.readable.getReader();
        feeding = feed(entry.open(), size, inspect, ended, transform.writable);
        feeding.catch(() => {}); // its failure also errors the readable, read below
      } else {
        const check = new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            inspect(chunk);
            controller.enqueue(chunk);
          },
          flush: ended,
        });
        const content = entry.open().pipeThrough(check);
        reader = (compress ? content.pipeThrough(settings.deflater.deflateStream()) : content)
          .getReader();
      }
      let emitted = 0;
      let done = false;
      try {
        // Borrowed output is done with once handed on: a deflater may fill its buffer again.
        const recycle = compress && settings.borrow ? settings.deflater.recycle : undefined;
        while (true) {
          const result = await reader.read();
          if (result.done) break;
          emitted += result.value.length;
          out.write(result.value);
          for (const chunk of out.take()) yield chunk;
          recycle?.call(settings.deflater, result.value);
        }
        done = true;
        if (feeding) await feeding;
      } finally {
        if (!done) await reader.cancel().catch(() => {});
      }
      if (seen !== size || crc !== declaredCrc) throw changed(name);
      if (compress) {
        if (!item.zip64Sizes && emitted >= U32_MAX) {
          throw new RangeError(
            `Cannot write zip: ${JSON.stringify(name)} deflated to 4 GiB or more without ZIP64`,
          );
        }
        item.compressedSize = emitted;
        out.write(dataDescriptor(item));
        for (const chunk of out.take()) yield chunk;
      }
      central.add(centralHeader(item, settings));
      settings.onProgress?.(index, 0, true);
    }
    walked = true;
  } finally {
    // Stopped early (a bad entry, or the consumer is gone): the source may close what it holds.
    if (!walked) {
      try {
        upcoming?.stop();
        await iterator?.return?.();
      } catch {
        // The failure that stopped the walk is the one to report.
      }
    }
  }

  const cdOffset = out.offset;
  for (const part of central.parts) out.write(part);
  const cdSize = out.offset - cdOffset;
  const count = central.count;
  const zip64End = settings.forceZip64 || count >= U16_MAX || cdSize >= U32_MAX ||
    cdOffset >= U32_MAX;
  if (zip64End) {
    const recordOffset = out.offset;
    out.write(zip64EndRecord(count, cdSize, cdOffset));
    out.write(zip64Locator(recordOffset));
  }
  out.write(endRecord(count, cdSize, cdOffset, settings.forceZip64));
  out.flush();
  for (const chunk of out.take()) yield chunk;
}

/**
 * Feeds `source` into `sink`, each chunk inspected first and its write awaited before the next
 * is read into the same reused buffer (see `borrowChunks`: for a sink that copies what it
 * keeps); `ended` runs after the last. A failure aborts the sink, so that its readable side
 * errors too, and cancels the source.
 */
async function feed(
  source: ReadableStream<Uint8Array>,
  size: number,
  inspect: (chunk: Uint8Array) => void,
  ended: () => void,
  sink: WritableStream<Uint8Array>,
): Promise<void> {
  const writer = sink.getWriter();
  try {
    for await (const chunk of borrowChunks(source, size)) {
      inspect(chunk);
      await writer.write(chunk);
    }
    ended();
    await writer.close();
  } catch (error) {
    await writer.abort(error).catch(() => {});
    await source.cancel(error).catch(() => {});
    throw error;
  }
}

/** Headers up to this size are built in one scratch buffer, copied out at once by `Output`. */
const SCRATCH = 1024;
const scratch = new Uint8Array(SCRATCH);
const scratchView = new DataView(scratch.buffer);

/**
 * Little-endian writer: over the scratch buffer for a header that fits (valid only until the
 * next one is built: hand it to `Output.write` straight away), else over a fresh buffer.
 */
class Bytes {
  readonly bytes: Uint8Array;
  readonly #view: DataView;
  #at = 0;
  constructor(length: number) {
    if (length <= SCRATCH) {
      this.bytes = scratch.subarray(0, length);
      this.#view = scratchView;
    } else {
      this.bytes = new Uint8Array(length);
      this.#view = new DataView(this.bytes.buffer);
    }
  }
  u16(value: number): this {
    this.#view.setUint16(this.#at, value, true);
    this.#at += 2;
    return this;
  }
  u32(value: number): this {
    this.#view.setUint32(this.#at, value, true);
    this.#at += 4;
    return this;
  }
  u64(value: number): this {
    this.#view.setBigUint64(this.#at, BigInt(value), true);
    this.#at += 8;
    return this;
  }
  raw(bytes: Uint8Array): this {
    this.bytes.set(bytes, this.#at);
    this.#at += bytes.length;
    return this;
  }
}

function versionOf(item: Written, settings: Settings): number {
  return item.zip64Sizes || settings.forceZip64 || item.offset >= U32_MAX ? VERSION_ZIP64 : VERSION;
}

/** Local file header (APPNOTE 4.3.7), with a zip64 extra field holding both sizes if needed. */
function localHeader(item: Written, settings: Settings): Uint8Array {
  const descriptor = (item.flags & FLAG_DESCRIPTOR) !== 0;
  const extraLength = item.zip64Sizes ? 20 : 0;
  const b = new Bytes(30 + item.nameBytes.length + extraLength)
    .u32(SIG_LOCAL)
    .u16(versionOf(item, settings))
    .u16(item.flags)
    .u16(item.method)
    .u16(settings.time)
    .u16(settings.date)
    .u32(descriptor ? 0 : item.crc);
  if (item.zip64Sizes) b.u32(U32_MAX).u32(U32_MAX);
  else if (descriptor) b.u32(0).u32(0);
  else b.u32(item.compressedSize).u32(item.size);
  b.u16(item.nameBytes.length).u16(extraLength).raw(item.nameBytes);
  if (item.zip64Sizes) {
    b.u16(0x0001).u16(16);
    if (descriptor) b.u64(0).u64(0);
    else b.u64(item.size).u64(item.compressedSize);
  }
  return b.bytes;
}

/** Data descriptor with signature (APPNOTE 4.3.9), 8-byte sizes for zip64 entries. */
function dataDescriptor(item: Written): Uint8Array {
  const b = new Bytes(item.zip64Sizes ? 24 : 16).u32(SIG_DESCRIPTOR).u32(item.crc);
  if (item.zip64Sizes) b.u64(item.compressedSize).u64(item.size);
  else b.u32(item.compressedSize).u32(item.size);
  return b.bytes;
}

/** Central directory header (APPNOTE 4.3.12), with the zip64 fields that are needed. */
function centralHeader(item: Written, settings: Settings): Uint8Array {
  const zip64Offset = settings.forceZip64 || item.offset >= U32_MAX;
  const zip64Length = (item.zip64Sizes ? 16 : 0) + (zip64Offset ? 8 : 0);
  const extraLength = zip64Length > 0 ? 4 + zip64Length : 0;
  const version = versionOf(item, settings);
  const b = new Bytes(46 + item.nameBytes.length + extraLength)
    .u32(SIG_CENTRAL)
    .u16((HOST_UNIX << 8) | version)
    .u16(version)
    .u16(item.flags)
    .u16(item.method)
    .u16(settings.time)
    .u16(settings.date)
    .u32(item.crc)
    .u32(item.zip64Sizes ? U32_MAX : item.compressedSize)
    .u32(item.zip64Sizes ? U32_MAX : item.size)
    .u16(item.nameBytes.length)
    .u16(extraLength)
    .u16(0) // comment length
    .u16(0) // disk number start
    .u16(0) // internal attributes
    .u32(
      item.nameBytes[item.nameBytes.length - 1] === 0x2f ? ATTRIBUTES_DIRECTORY : ATTRIBUTES_FILE,
    )
    .u32(zip64Offset ? U32_MAX : item.offset)
    .raw(item.nameBytes);
  if (zip64Length > 0) {
    b.u16(0x0001).u16(zip64Length);
    if (item.zip64Sizes) b.u64(item.size).u64(item.compressedSize);
    if (zip64Offset) b.u64(item.offset);
  }
  return b.bytes;
}

/** ZIP64 end of central directory record (APPNOTE 4.3.14), with no extensible data. */
function zip64EndRecord(count: number, cdSize: number, cdOffset: number): Uint8Array {
  return new Bytes(56)
    .u32(SIG_ZIP64_EOCD)
    .u64(44)
    .u16(VERSION_ZIP64)
    .u16(VERSION_ZIP64)
    .u32(0)
    .u32(0)
    .u64(count)
    .u64(count)
    .u64(cdSize)
    .u64(cdOffset)
    .bytes;
}

/** ZIP64 end of central directory locator (APPNOTE 4.3.15). */
function zip64Locator(recordOffset: number): Uint8Array {
  return new Bytes(20).u32(SIG_ZIP64_LOCATOR).u32(0).u64(recordOffset).u32(1).bytes;
}

/** End of central directory record (APPNOTE 4.3.16); fields that overflow hold the marker. */
function endRecord(count: number, cdSize: number, cdOffset: number, force: boolean): Uint8Array {
  const entries = force || count >= U16_MAX ? U16_MAX : count;
  return new Bytes(22)
    .u32(SIG_EOCD)
    .u16(force ? U16_MAX : 0)
    .u16(force ? U16_MAX : 0)
    .u16(entries)
    .u16(entries)
    .u32(force || cdSize >= U32_MAX ? U32_MAX : cdSize)
    .u32(force || cdOffset >= U32_MAX ? U32_MAX : cdOffset)
    .u16(0)
    .bytes;
}
