// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * A hardened ZIP reader (PKWARE APPNOTE 6.3.x, the subset a `.taskpack` needs: stored and
 * deflated entries, data descriptors, ZIP64). Every archive is treated as hostile input:
 *
 * - Only the end records and the central directory are read up front, in bounded pieces;
 *   entry bodies are streamed on demand from a {@linkcode ByteSource}, so a multi-GiB archive
 *   is never held in memory.
 * - The file must tile exactly: local records back to back from offset 0, then the central
 *   directory, then the end records, with no byte unaccounted for and no two entries sharing
 *   a body. Local and central headers must agree.
 * - Encryption, methods other than stored and deflate, symbolic links and other special
 *   files, unsafe or ambiguous names, and duplicates (also after Unicode normalisation and
 *   case folding) are refused before any body is read.
 * - Declared sizes are checked against {@linkcode ZipLimits} before inflating, inflation stops
 *   the moment the output passes the declared size, and sizes and CRC-32 are verified.
 *
 * Every refusal is a {@linkcode TaskPackReadError} with a `zip-*` or `limit` code.
 *
 * @module
 */
import {
  type ByteSource,
  decodeUtf8Strict,
  type Digests,
  portableDigests,
  readAllBytes,
  TaskPackReadError,
} from "../bytes/mod.ts";
import type { Inflater } from "./deflate.ts";
import { CentralRecords } from "./directory.ts";
import { NameIndex, zipClashProblem } from "./name_index.ts";
import {
  canReadInto,
  openBody,
  readExact,
  readExactInto,
  type ReadIntoSource,
  SourceFailure,
  wholeBody,
  type ZipEntry,
} from "./entry.ts";

export type { ZipEntry };

/** Limits an archive must keep within; each is checked before any entry is inflated. */
export interface ZipLimits {
  /** Most entries (files and directories). */
  maxEntries: number;
  /** Largest declared (inflated) size of one entry, in bytes. */
  maxEntrySize: number;
  /** Largest sum of the declared sizes of all entries, in bytes. */
  maxTotalSize: number;
  /** Highest declared size / compressed size, checked for entries over 1 MiB inflated. */
  maxRatio: number;
  /** Longest entry name, in UTF-8 bytes. */
  maxNameBytes: number;
  /** Most path segments in an entry name. */
  maxDepth: number;
}

/**
 * The limits {@linkcode openZip} applies unless told otherwise: 100,000 entries, 64 GiB per
 * entry and in total, a compression ratio of 1100 for entries over 1 MiB (DEFLATE cannot do
 * better than about 1032:1, so a higher declared ratio is a lie), names of 1024 bytes and 64
 * segments.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_ZIP_LIMITS } from "./reader.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(DEFAULT_ZIP_LIMITS.maxEntries, 100_000);
 * ```
 */
export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = Object.freeze({
  maxEntries: 100_000,
  maxEntrySize: 64 * 1024 ** 3,
  maxTotalSize: 64 * 1024 ** 3,
  maxRatio: 1100,
  maxNameBytes: 1024,
  maxDepth: 64,
});

/** An opened archive: its entries, and their bodies on demand. */
export interface ZipArchive {
  /** The entries, in central directory order. */
  readonly entries: readonly ZipEntry[];
  /**
   * Streams an entry's body, inflated. The stream errors with a {@linkcode TaskPackReadError}
   * (`zip-size`, `zip-crc`) when the body does not match its declared size or CRC-32; it never
   * delivers more than the declared size.
   */
  open(entry: ZipEntry): ReadableStream<Uint8Array>;
  /**
   * Reads an entry's whole body into memory, refusing (`limit`) entries over `maxBytes`
   * before reading anything.
   */
  read(entry: ZipEntry, maxBytes: number): Promise<Uint8Array>;
  /**
   * The entry of exactly this name (a directory's with its trailing `/`), found without a
   * search: through the index the reader made of every name when it checked them for clashes.
   *
   * @example Usage
   * ```ts
   * import { openZip } from "./reader.ts";
   * import { writeZip, zipToBytes } from "./writer.ts";
   * import { bytesSource } from "../bytes/source.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const modified = new Date(Date.UTC(2026, 0, 1));
   * const zip = await zipToBytes(writeZip([
   *   { name: "docs/", bytes: new Uint8Array(0) },
   *   { name: "docs/a.txt", bytes: new Uint8Array(1) },
   * ], { modified }));
   * const archive = await openZip(bytesSource(zip));
   * assertEquals(archive.find("docs/a.txt"), archive.entries[1]);
   * assertEquals(archive.find("docs"), undefined);
   * assertEquals(archive.find("b.txt"), undefined);
   * ```
   */
  find(name: string): ZipEntry | undefined;
  /** The archive comment, as raw bytes (empty when there is none). */
  readonly comment: Uint8Array;
  /**
   * What an entry carries besides its name and body, as raw bytes: its comment and every
   * record of its central and local extra fields (known or not). The reader gives them
   * unread, for whoever must judge them (a scan for secrets, say).
   *
   * @example Usage
   * ```ts
   * import { openZip } from "./reader.ts";
   * import { writeZip, zipToBytes } from "./writer.ts";
   * import { bytesSource } from "../bytes/source.ts";
   * import { assertEquals } from "@std/assert";
   *
   * const zip = await zipToBytes(
   *   writeZip([{ name: "a.txt", bytes: new Uint8Array(0) }], {
   *     modified: new Date(Date.UTC(2026, 0, 1)),
   *   }),
   * );
   * const archive = await openZip(bytesSource(zip));
   * assertEquals(archive.comment.length, 0);
   * assertEquals(archive.metadata(archive.entries[0]!).comment.length, 0);
   * ```
   */
  metadata(entry: ZipEntry): ZipEntryMetadata;
}

/** The bytes an entry carries besides its name and body (see {@linkcode ZipArchive.metadata}). */
export interface ZipEntryMetadata {
  /** The file comment of its central header (empty when there is none). */
  readonly comment: Uint8Array;
  /** Every extra field record, central ones first, in the order they are written. */
  readonly extraFields: readonly ZipExtraField[];
}

/** One record of an extra field. */
export interface ZipExtraField {
  /** The header ID, such as 0x0001 (zip64) or 0x5455 (extended timestamp). */
  readonly id: number;
  /** True when it is in the local header, false when in the central directory. */
  readonly local: boolean;
  /** The record's data, without its ID and length. */
  readonly bytes: Uint8Array;
}

/** Options for {@linkcode openZip}. */
export interface OpenZipOptions {
  /** Overrides for some of {@linkcode DEFAULT_ZIP_LIMITS}. */
  limits?: Partial<ZipLimits>;
  /**
   * CRC-32 implementation.
   *
   * @default {portableDigests}
   */
  digests?: Digests;
  /**
   * A one-shot decoder for small deflated entries (up to 256 KiB compressed and 4 MiB
   * inflated); without one, every entry streams through `DecompressionStream`. Either way the
   * size and CRC-32 are checked, and the DEFLATE data must end where the entry does.
   */
  inflater?: Inflater;
}

// Signatures (APPNOTE 4.3.7, 4.3.9.3, 4.3.12, 4.3.14, 4.3.15, 4.3.16).
const SIG_LOCAL = 0x04034b50;
const SIG_DESCRIPTOR = 0x08074b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_EOCD = 0x06054b50;

const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const EOCD = 22;
const ZIP64_EOCD = 56;
const ZIP64_LOCATOR = 20;
const MAX_COMMENT = 0xffff;

const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

const EXTRA_ZIP64 = 0x0001;
const EXTRA_UNICODE_PATH = 0x7075;
/**
 * Info-ZIP's "ASi" Unix extra field: a CRC-32, then a Unix mode (2 bytes), the size of a link
 * target, a user and a group, then the target. Info-ZIP's unzip takes the mode from it when
 * the external attributes carry none.
 */
const EXTRA_ASI_UNIX = 0x756e;

// General purpose flags (APPNOTE 4.4.4).
const FLAG_ENCRYPTED = 1 << 0;
const FLAG_DESCRIPTOR = 1 << 3;
const FLAG_STRONG_ENCRYPTION = 1 << 6;
const FLAG_UTF8 = 1 << 11;
const FLAG_MASKED_HEADERS = 1 << 13;
/** Flags a reader may meet and ignore: deflate options (bits 1-2), descriptor, UTF-8. */
const FLAGS_KNOWN = 0b110 | FLAG_DESCRIPTOR | FLAG_UTF8;

// Unix file types (st_mode & S_IFMT), found in the high 16 bits of the external attributes.
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** Set-user-ID and set-group-ID (S_ISUID | S_ISGID). */
const S_ISUGID = 0o6000;

/** How much the central directory and local headers are read in at a time. */
const WINDOW = 1 << 20;
/** The ratio limit applies above this inflated size. */
const RATIO_FLOOR = 1 << 20;

const encoder = new TextEncoder();

/**
 * Opens a ZIP archive for reading, checking its whole structure first.
 *
 * Reads the end records, the central directory and every local header (in bounded pieces),
 * and refuses the archive unless it is well formed, unambiguous and within `limits`. Bodies
 * are not read until {@linkcode ZipArchive.open} or {@linkcode ZipArchive.read}.
 *
 * @param source Where the archive's bytes are.
 * @param options Limits and the CRC-32 implementation.
 * @returns The archive.
 * @throws {TaskPackReadError} When the archive is malformed, hostile or over a limit. Errors
 * of the source itself are passed on unchanged.
 *
 * @example Usage
 * ```ts
 * import { openZip } from "./reader.ts";
 * import { writeZip, zipToBytes } from "./writer.ts";
 * import { bytesSource } from "../bytes/mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const text = new TextEncoder().encode("hello");
 * const zip = await zipToBytes(
 *   writeZip([{ name: "a/hello.txt", bytes: text }], { modified: new Date(Date.UTC(2026, 0, 1)) }),
 * );
 * const archive = await openZip(bytesSource(zip));
 * assertEquals(archive.entries.map((e) => e.name), ["a/hello.txt"]);
 * assertEquals(await archive.read(archive.entries[0]!, 1024), text);
 * ```
 *
 * @example Refusals
 * ```ts
 * import { openZip } from "./reader.ts";
 * import { bytesSource } from "../bytes/mod.ts";
 * import { TaskPackReadError } from "../bytes/mod.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * const error = await assertRejects(
 *   () => openZip(bytesSource(new TextEncoder().encode("not a zip at all, just text"))),
 *   TaskPackReadError,
 * );
 * assertEquals(error.code, "zip-structure");
 * ```
 */
export async function openZip(
  source: ByteSource,
  options: OpenZipOptions = {},
): Promise<ZipArchive> {
  const limits = resolveLimits(options.limits);
  const digests = options.digests ?? portableDigests;
  let records: CentralRecords;
  let comment: Uint8Array;
  let names: NameIndex;
  try {
    ({ records, comment, names } = await readStructure(source, limits));
  } catch (error) {
    throw asReadError(error);
  }
  const entries = Object.freeze(records.entries);
  return {
    entries,
    comment,
    find(name: string): ZipEntry | undefined {
      const entry = entries[names.find(name)];
      return entry?.name === name ? entry : undefined;
    },
    metadata(entry: ZipEntry): ZipEntryMetadata {
      const { where } = records.record(entry);
      const { comment, extra, localExtra } = records.extraBytes(entry.index);
      // Most entries carry no extra field: asked of each of thousands, nothing is parsed.
      if (extra.length === 0 && localExtra.length === 0) return { comment, extraFields: [] };
      const fields = (raw: Uint8Array, local: boolean) =>
        [...parseExtra(raw, where)].map(([id, bytes]) => ({ id, local, bytes }));
      return {
        comment,
        extraFields: [...fields(extra, false), ...fields(localExtra, true)],
      };
    },
    open(entry: ZipEntry): ReadableStream<Uint8Array> {
      return openBody(source, records.record(entry), digests, options.inflater);
    },
    async read(entry: ZipEntry, maxBytes: number): Promise<Uint8Array> {
      const record = records.record(entry);
      if (entry.size > maxBytes) {
        throw new TaskPackReadError(
          "limit",
          entry.name,
          `entry size ${entry.size} is over the limit of ${maxBytes} bytes for this read`,
        );
      }
      return await (wholeBody(source, record, digests, options.inflater) ??
        readAllBytes(openBody(source, record, digests, options.inflater), maxBytes));
    },
  };
}

/**
 * Says what is wrong with a ZIP entry name, or returns null when it is safe to extract
 * anywhere: non-empty, within `maxNameBytes` UTF-8 bytes and `maxDepth` segments, relative
 * (no leading `/`, no drive letter), `/`-separated with no backslash, no empty, `.` or `..`
 * segment (one trailing `/` marks a directory), no control character (C0, DEL, C1), and valid
 * Unicode.
 *
 * @param name The decoded name.
 * @param limits The name limits.
 * @param byteLength The length of its UTF-8 bytes, when the caller has them (else it is encoded).
 * @returns A short reason, or null.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_ZIP_LIMITS, zipNameProblem } from "./reader.ts";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * assertEquals(zipNameProblem("data/files/a.txt", DEFAULT_ZIP_LIMITS), null);
 * assertEquals(zipNameProblem("data/", DEFAULT_ZIP_LIMITS), null);
 * assertMatch(zipNameProblem("../etc/passwd", DEFAULT_ZIP_LIMITS)!, /\.\./);
 * assertMatch(zipNameProblem("C:/x", DEFAULT_ZIP_LIMITS)!, /drive/);
 * ```
 */
export function zipNameProblem(
  name: string,
  limits: Pick<ZipLimits, "maxNameBytes" | "maxDepth">,
  byteLength?: number,
): string | null {
  if (isPlainZipName(name, limits)) return null;
  if (name.length === 0) return "the name is empty";
  if (LONE_SURROGATE.test(name)) return "the name is not valid Unicode";
  const bytes = byteLength ?? encoder.encode(name).length;
  if (bytes > limits.maxNameBytes) {
    return `the name is ${bytes} bytes, over the limit of ${limits.maxNameBytes} (raise maxNameBytes)`;
  }
  if (CONTROL.test(name)) return "the name holds a control character";
  if (name.includes("\\")) return "the name holds a backslash";
  if (name.startsWith("/")) return "the name is absolute";
  if (/^[A-Za-z]:/.test(name)) return "the name starts with a drive letter";
  const body = name.endsWith("/") ? name.slice(0, -1) : name;
  const segments = body.split("/");
  for (const segment of segments) {
    if (segment === "") return "the name has an empty segment";
    if (segment === "." || segment === "..") return `the name has a "${segment}" segment`;
  }
  if (segments.length > limits.maxDepth) {
    return `the name is ${segments.length} levels deep, over the limit of ${limits.maxDepth} (raise maxDepth)`;
  }
  return null;
}

/**
 * Finds two names that would land on the same path on every system: the same name twice (a
 * directory entry `a/` counts as `a`), or a file that is also a directory of another name (`a`
 * and `a/b`). Names equal only under case folding or Unicode normalisation are different
 * entries: whether a host can hold both is for whoever extracts them to decide.
 *
 * @param names The names, in archive order.
 * @returns The later of the two names (its index) and the reason, or null.
 *
 * @example Usage
 * ```ts
 * import { zipNameClash } from "./reader.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(zipNameClash(["a/", "a/b.txt", "c"]), null);
 * assertEquals(zipNameClash(["Read.me", "read.ME"]), null);
 * assertEquals(zipNameClash(["a.md", "a.md"])?.index, 1);
 * assertEquals(zipNameClash(["a/b", "a"])?.index, 1);
 * ```
 */
export function zipNameClash(
  names: readonly string[],
): { index: number; problem: string } | null {
  return indexNames(names.length, (at) => names[at]!).clash;
}

/**
 * The index of `count` names (the name at an index read by `nameAt`), each held against the
 * ones before it as it is added, up to the first that clashes with one of them.
 */
function indexNames(
  count: number,
  nameAt: (index: number) => string,
): { names: NameIndex; clash: { index: number; problem: string } | null } {
  const names = new NameIndex(nameAt);
  for (let index = 0; index < count; index++) {
    const name = nameAt(index);
    const clash = names.add(name);
    if (clash !== null) return { names, clash: { index, problem: zipClashProblem(name, clash) } };
  }
  return { names, clash: null };
}

/**
 * The common case of {@linkcode zipNameProblem}, decided by one regular expression: ASCII
 * letters, digits, `_`, `-` and `.`, no segment of only one or two dots, within the limits.
 * What this passes, every rule passes; anything else takes the rules one by one.
 */
function isPlainZipName(
  name: string,
  limits: Pick<ZipLimits, "maxNameBytes" | "maxDepth">,
): boolean {
  if (name.length > limits.maxNameBytes || !PLAIN_ZIP_NAME.test(name)) return false;
  let depth = 1;
  const last = name.length - 1;
  for (let at = name.indexOf("/"); at !== -1 && at < last; at = name.indexOf("/", at + 1)) {
    depth++;
  }
  return depth <= limits.maxDepth;
}

const PLAIN_ZIP_NAME = /^(?!\.\.?(?:\/|$))[\w.-]+(?:\/(?!\.\.?(?:\/|$))[\w.-]+)*\/?$/;

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function resolveLimits(partial: Partial<ZipLimits> | undefined): ZipLimits {
  const limits = { ...DEFAULT_ZIP_LIMITS, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== "number" || !(value >= 0)) {
      throw new RangeError(`Cannot open zip: limit "${key}" must be a number >= 0, got ${value}`);
    }
  }
  return limits;
}

/** Converts anything thrown while parsing into a TaskPackReadError (source failures excepted). */
function asReadError(error: unknown): unknown {
  if (error instanceof SourceFailure) return error.error;
  if (error instanceof TaskPackReadError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new TaskPackReadError("zip-structure", "", `the archive is malformed (${detail})`);
}

function structure(where: string, detail: string): TaskPackReadError {
  return new TaskPackReadError("zip-structure", where, detail);
}

/** Little-endian field access over one record's bytes. */
class Fields {
  readonly #view: DataView;
  readonly #where: string;
  constructor(bytes: Uint8Array, where: string) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#where = where;
  }
  u16(offset: number): number {
    return this.#view.getUint16(offset, true);
  }
  u32(offset: number): number {
    return this.#view.getUint32(offset, true);
  }
  u64(offset: number): number {
    const value = this.#view.getBigUint64(offset, true);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw structure(this.#where, `a 64-bit field holds ${value}, which is too large`);
    }
    return Number(value);
  }
}

/** The little-endian 16-bit field at `at` of a record's bytes (no view object per record). */
function u16(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}

/** The little-endian 32-bit field at `at` of a record's bytes. */
function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>>
    0;
}

/**
 * Reads [start, end) of a source front to back through a window, so that many small records
 * cost one read, and no read goes past `end`.
 */
class WindowReader {
  readonly #source: ByteSource;
  readonly #end: number;
  readonly #reuse: boolean;
  #windowStart = 0;
  #window: Uint8Array = new Uint8Array(0);

  /**
   * @param reuse Read each window into the same buffer, where the source can read into one:
   * what {@linkcode WindowReader.at} and {@linkcode WindowReader.bytes} give is then valid only
   * until the next read (a pass that keeps nothing, and touches no new memory per window).
   */
  constructor(source: ByteSource, end: number, reuse = false) {
    this.#source = source;
    this.#end = end;
    this.#reuse = reuse && canReadInto(source);
  }

  /**
   * Bytes [offset, offset + length) when the window holds them already, else null: no read,
   * no await (thousands of small records pay for each).
   */
  at(offset: number, length: number): Uint8Array | null {
    const at = this.reach(offset, length);
    return at < 0 ? null : this.#window.subarray(at, at + length);
  }

  /** The window's bytes, where {@linkcode WindowReader.reach} and `load` point into. */
  get held(): Uint8Array {
    return this.#window;
  }

  /**
   * Where bytes [offset, offset + length) lie in {@linkcode WindowReader.held}, or -1 when the
   * window does not hold them: a record's fields are then read in place, with no array made.
   */
  reach(offset: number, length: number): number {
    const relative = offset - this.#windowStart;
    if (
      offset < 0 || offset + length > this.#end || relative < 0 ||
      relative + length > this.#window.length
    ) {
      return -1;
    }
    return relative;
  }

  /** Reads so that the window holds [offset, offset + length); returns where they lie in it. */
  async load(offset: number, length: number, where: string, what: string): Promise<number> {
    await this.bytes(offset, length, where, what);
    return offset - this.#windowStart;
  }

  /** Bytes [offset, offset + length), which must lie before `end`. */
  async bytes(offset: number, length: number, where: string, what: string): Promise<Uint8Array> {
    if (offset < 0 || offset + length > this.#end) {
      throw structure(where, `${what} runs past the end of its region (at offset ${offset})`);
    }
    const held = this.at(offset, length);
    if (held !== null) return held;
    const size = Math.min(this.#end - offset, Math.max(length, WINDOW));
    if (this.#reuse) {
      const buffer = this.#window.buffer.byteLength >= size
        ? new Uint8Array(this.#window.buffer, 0, size)
        : new Uint8Array(Math.max(size, WINDOW)).subarray(0, size);
      // Emptied first: should the read fail, nothing stale is served from it afterwards.
      this.#window = new Uint8Array(0);
      await readExactInto(this.#source as ReadIntoSource, offset, buffer);
      this.#window = buffer;
    } else {
      this.#window = await readExact(this.#source, offset, size);
    }
    this.#windowStart = offset;
    return this.#window.subarray(0, length);
  }
}

interface EndRecords {
  count: number;
  cdOffset: number;
  cdSize: number;
  /** Where the central directory must end: the ZIP64 end record, or the end record. */
  cdEnd: number;
  /** The archive comment. */
  comment: Uint8Array;
}

async function readEnd(source: ByteSource): Promise<EndRecords> {
  const size = source.size;
  if (!Number.isSafeInteger(size) || size < EOCD) {
    throw structure("", `the file is ${size} bytes, too short to be a zip archive`);
  }
  const tailLength = Math.min(size, EOCD + MAX_COMMENT);
  const tailStart = size - tailLength;
  const tail = await readExact(source, tailStart, tailLength);
  const fields = new Fields(tail, "end of central directory");
  const candidates: number[] = [];
  let signatures = 0;
  for (let p = tailLength - EOCD; p >= 0; p--) {
    if (tail[p] !== 0x50 || fields.u32(p) !== SIG_EOCD) continue;
    signatures++;
    if (p + EOCD + fields.u16(p + 20) === tailLength) candidates.push(p);
  }
  if (candidates.length === 0) {
    throw structure(
      "end of central directory",
      signatures === 0
        ? "no end of central directory record (not a zip archive, or truncated)"
        : "the end of central directory record does not reach the end of the file (bytes after the archive)",
    );
  }
  if (candidates.length > 1) {
    throw structure(
      "end of central directory",
      "more than one end of central directory record fits the file",
    );
  }
  const p = candidates[0]!;
  const eocdOffset = tailStart + p;
  const comment = p + EOCD < tailLength ? tail.slice(p + EOCD) : EMPTY;
  const disk = fields.u16(p + 4);
  const cdDisk = fields.u16(p + 6);
  const diskCount = fields.u16(p + 8);
  const count16 = fields.u16(p + 10);
  const cdSize32 = fields.u32(p + 12);
  const cdOffset32 = fields.u32(p + 16);

  // A ZIP64 end of central directory locator sits right before the end record.
  const locatorAt = p - ZIP64_LOCATOR;
  const hasLocator = locatorAt >= 0 && fields.u32(locatorAt) === SIG_ZIP64_LOCATOR;
  if (!hasLocator) {
    if (disk !== 0 || cdDisk !== 0) {
      throw structure("end of central directory", "multi-disk archives are not supported");
    }
    if (diskCount !== count16) {
      throw structure("end of central directory", "the entry counts of the end record disagree");
    }
    return {
      count: count16,
      cdOffset: cdOffset32,
      cdSize: cdSize32,
      cdEnd: eocdOffset,
      comment,
    };
  }

  const locatorDisk = fields.u32(locatorAt + 4);
  const recordOffset = fields.u64(locatorAt + 8);
  const totalDisks = fields.u32(locatorAt + 16);
  if (locatorDisk !== 0 || totalDisks > 1) {
    throw structure(
      "zip64 end of central directory locator",
      "multi-disk archives are not supported",
    );
  }
  const locatorOffset = eocdOffset - ZIP64_LOCATOR;
  if (recordOffset + ZIP64_EOCD !== locatorOffset) {
    throw structure(
      "zip64 end of central directory locator",
      `the zip64 end record should end where the locator begins (offset ${locatorOffset}), but the locator points to offset ${recordOffset}`,
    );
  }
  const record = await readExact(source, recordOffset, ZIP64_EOCD);
  const r = new Fields(record, "zip64 end of central directory");
  if (r.u32(0) !== SIG_ZIP64_EOCD) {
    throw structure("zip64 end of central directory", "the zip64 end record has a bad signature");
  }
  if (r.u64(4) !== ZIP64_EOCD - 12) {
    throw structure(
      "zip64 end of central directory",
      "the zip64 end record has an unexpected size",
    );
  }
  const disk64 = r.u32(16);
  const cdDisk64 = r.u32(20);
  const diskCount64 = r.u64(24);
  const count64 = r.u64(32);
  const cdSize64 = r.u64(40);
  const cdOffset64 = r.u64(48);
  if (disk64 !== 0 || cdDisk64 !== 0) {
    throw structure("zip64 end of central directory", "multi-disk archives are not supported");
  }
  if (diskCount64 !== count64) {
    throw structure(
      "zip64 end of central directory",
      "the entry counts of the zip64 end record disagree",
    );
  }
  const agree = (classic: number, marker: number, value: number) =>
    classic === marker || classic === value;
  if (
    !agree(disk, U16_MAX, 0) || !agree(cdDisk, U16_MAX, 0) || !agree(diskCount, U16_MAX, count64) ||
    !agree(count16, U16_MAX, count64) || !agree(cdSize32, U32_MAX, cdSize64) ||
    !agree(cdOffset32, U32_MAX, cdOffset64)
  ) {
    throw structure("end of central directory", "the end record and the zip64 end record disagree");
  }
  return {
    count: count64,
    cdOffset: cdOffset64,
    cdSize: cdSize64,
    cdEnd: recordOffset,
    comment,
  };
}

/**
 * How many entries a ZIP says it holds, from its end records alone (no entry is read): a quick
 * look to choose how to read it. Nothing is checked beyond the end records.
 *
 * @param source The archive.
 * @returns The count, or null when the end records cannot be read (`openZip` says why).
 *
 * @example Usage
 * ```ts
 * import { zipEntryCount } from "./reader.ts";
 * import { writeZip } from "./writer.ts";
 * import { bytesSource } from "../bytes/mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const entries = [{ name: "a.txt", bytes: new TextEncoder().encode("a") }];
 * const modified = new Date(Date.UTC(2026, 0, 1));
 * const zip = new Uint8Array(await new Response(writeZip(entries, { modified })).arrayBuffer());
 * assertEquals(await zipEntryCount(bytesSource(zip)), 1);
 * assertEquals(await zipEntryCount(bytesSource(new Uint8Array(30))), null);
 * ```
 */
export async function zipEntryCount(source: ByteSource): Promise<number | null> {
  try {
    return (await readEnd(source)).count;
  } catch {
    return null;
  }
}

const NO_EXTRA: ReadonlyMap<number, Uint8Array> = new Map();
const EMPTY = new Uint8Array(0);

/** Extra field records of one header, parsed strictly (they must fill the field exactly). */
function parseExtra(extra: Uint8Array, where: string): ReadonlyMap<number, Uint8Array> {
  if (extra.length === 0) return NO_EXTRA;
  const fields = new Map<number, Uint8Array>();
  const view = new Fields(extra, where);
  let offset = 0;
  while (offset < extra.length) {
    if (offset + 4 > extra.length) {
      throw structure(where, "the extra field ends in the middle of a record");
    }
    const id = view.u16(offset);
    const length = view.u16(offset + 2);
    if (offset + 4 + length > extra.length) {
      throw structure(where, "an extra field record runs past the extra field");
    }
    if (fields.has(id)) {
      throw structure(
        where,
        `the extra field holds record 0x${id.toString(16).padStart(4, "0")} twice`,
      );
    }
    fields.set(id, extra.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
  return fields;
}

/** Checks an Info-ZIP Unicode path record (0x7075) against the name it travels with. */
function checkUnicodePath(record: Uint8Array | undefined, name: string, where: string): void {
  if (record === undefined) return;
  let path: string | null = null;
  if (record.length >= 5 && record[0] === 1) {
    try {
      path = decodeUtf8Strict(record.subarray(5));
    } catch {
      path = null;
    }
  }
  if (path !== name) {
    throw new TaskPackReadError(
      "zip-name",
      where,
      "the Unicode path extra field disagrees with the name",
    );
  }
}

async function readStructure(
  source: ByteSource,
  limits: ZipLimits,
): Promise<{ records: CentralRecords; comment: Uint8Array; names: NameIndex }> {
  const end = await readEnd(source);
  const { count, cdOffset, cdSize, cdEnd } = end;
  if (count > limits.maxEntries) {
    throw new TaskPackReadError(
      "limit",
      "",
      `entry count ${count} is over the limit of ${limits.maxEntries} (raise maxEntries)`,
    );
  }
  if (cdOffset + cdSize !== cdEnd) {
    throw structure(
      "central directory",
      `the central directory (offset ${cdOffset}, ${cdSize} bytes) does not end where the end records begin (offset ${cdEnd})`,
    );
  }
  if (cdSize < count * CENTRAL_HEADER) {
    throw structure("central directory", `${cdSize} bytes cannot hold ${count} entries`);
  }

  const records = await readCentralDirectory(source, end, limits);
  // The names checked for clashes as zipNameClash checks them, into the index that finds
  // entries by name afterwards.
  const entries = records.entries;
  const { names, clash } = indexNames(entries.length, (at) => entries[at]!.name);
  if (clash !== null) {
    throw new TaskPackReadError("zip-duplicate-name", entries[clash.index]!.name, clash.problem);
  }
  await checkLocalRecords(source, records, cdOffset);
  return { records, comment: end.comment, names };
}

async function readCentralDirectory(
  source: ByteSource,
  end: EndRecords,
  limits: ZipLimits,
): Promise<CentralRecords> {
  const { count, cdOffset, cdEnd } = end;
  // Reused: each entry keeps a copy of its name, and nothing else of the window.
  const window = new WindowReader(source, cdEnd, true);
  // Room for every entry the end record counts, as far as the directory's bytes can hold them.
  const room = Math.min(count, Math.floor((cdEnd - cdOffset) / CENTRAL_HEADER));
  const records = new CentralRecords(room, cdEnd - cdOffset - room * CENTRAL_HEADER);
  let totalSize = 0;
  let offset = cdOffset;
  for (let index = 0; index < count; index++) {
    let where = `central directory entry #${index}`;
    let h = window.reach(offset, CENTRAL_HEADER);
    if (h < 0) h = await window.load(offset, CENTRAL_HEADER, where, "the central directory entry");
    const header = window.held;
    if (u32(header, h) !== SIG_CENTRAL) {
      throw structure(where, "the central directory entry has a bad signature");
    }
    const flags = u16(header, h + 8);
    const method = u16(header, h + 10);
    const crc = u32(header, h + 16);
    let compressedSize = u32(header, h + 20);
    let size = u32(header, h + 24);
    const nameLength = u16(header, h + 28);
    const extraLength = u16(header, h + 30);
    const commentLength = u16(header, h + 32);
    let diskStart = u16(header, h + 34);
    const externalAttributes = u32(header, h + 38);
    let localOffset = u32(header, h + 42);
    const variableLength = nameLength + extraLength + commentLength;
    const variable = window.at(offset + CENTRAL_HEADER, variableLength) ??
      await window.bytes(
        offset + CENTRAL_HEADER,
        variableLength,
        where,
        "the central directory entry",
      );
    // Copied into the records, which keep every name's bytes in one buffer.
    const nameBytes = variable.subarray(0, nameLength);
    const extra = variable.subarray(nameLength, nameLength + extraLength);
    offset += CENTRAL_HEADER + nameLength + extraLength + commentLength;

    let name: string;
    try {
      name = decodeUtf8Strict(nameBytes);
    } catch {
      throw new TaskPackReadError("zip-name", where, "the name is not valid UTF-8");
    }
    // From here on the entry is named by its name (JSON-quoted when it needs escaping).
    where = /^[\u0020-\u007e\u00a0-\uffff]*$/.test(name)
      ? name
      : `${where} ${JSON.stringify(name)}`;

    // Without bit 11 APPNOTE (appendix D) reads the name as code page 437, as unzip and
    // Windows do: a non-ASCII name would land under another name there. (Only an ASCII name
    // decodes to as many characters as it has bytes.)
    if ((flags & FLAG_UTF8) === 0 && name.length !== nameBytes.length) {
      throw new TaskPackReadError(
        "zip-name",
        where,
        "the name is not ASCII but the entry does not set the UTF-8 flag (bit 11), so other readers take it as code page 437",
      );
    }
    if (flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_MASKED_HEADERS)) {
      throw new TaskPackReadError("zip-encrypted", where, "the entry is encrypted");
    }
    if (method !== 0 && method !== 8) {
      throw new TaskPackReadError(
        "zip-method",
        where,
        `compression method ${method} is not supported (only 0 and 8)`,
      );
    }
    if (flags & ~FLAGS_KNOWN) {
      throw structure(
        where,
        `the entry sets unsupported flags 0x${(flags & ~FLAGS_KNOWN).toString(16)}`,
      );
    }

    const extras = parseExtra(extra, where);
    const zip64 = extras.get(EXTRA_ZIP64);
    {
      // APPNOTE 4.5.3: the zip64 record holds exactly the fields whose header value is the
      // marker, in this order.
      const needed = (size === U32_MAX ? 8 : 0) + (compressedSize === U32_MAX ? 8 : 0) +
        (localOffset === U32_MAX ? 8 : 0) + (diskStart === U16_MAX ? 4 : 0);
      if (needed === 0 && zip64 !== undefined && zip64.length !== 0) {
        throw structure(where, "the entry has a zip64 extra field but no field that needs it");
      }
      if (needed > 0) {
        if (zip64 === undefined) {
          throw structure(where, "the entry lacks the zip64 extra field its header needs");
        }
        if (zip64.length !== needed) {
          throw structure(
            where,
            `the zip64 extra field is ${zip64.length} bytes where ${needed} were expected`,
          );
        }
        const z = new Fields(zip64, where);
        let at = 0;
        if (size === U32_MAX) size = z.u64(at), at += 8;
        if (compressedSize === U32_MAX) compressedSize = z.u64(at), at += 8;
        if (localOffset === U32_MAX) localOffset = z.u64(at), at += 8;
        if (diskStart === U16_MAX) diskStart = z.u32(at);
      }
    }
    if (diskStart !== 0) throw structure(where, "multi-disk archives are not supported");

    const problem = zipNameProblem(name, limits, nameBytes.length);
    if (problem !== null) throw new TaskPackReadError("zip-name", where, problem);
    checkUnicodePath(extras.get(EXTRA_UNICODE_PATH), name, where);

    const isDirectory = name.endsWith("/");
    // The Unix mode is read whatever host "version made by" names: readers differ on whether
    // they trust these bits under other hosts, and a pack must land the same in all of them.
    // So is the mode of an ASi extra field (which unzip reads when the attributes have none).
    checkMode(externalAttributes >>> 16, isDirectory, where, "");
    checkAsiMode(extras.get(EXTRA_ASI_UNIX), isDirectory, where, "");
    // A directory holds nothing: no content, and no compressed bytes but, deflated, the two of
    // an empty stream (checked with the local record). Bytes there would travel unscanned.
    if (
      isDirectory &&
      (size !== 0 || crc !== 0 || (compressedSize !== 0 && !(method === 8 && compressedSize === 2)))
    ) {
      throw structure(where, "the directory entry holds data");
    }
    if (method === 0 && compressedSize !== size) {
      throw new TaskPackReadError(
        "zip-size",
        where,
        `the stored entry declares ${compressedSize} bytes stored but ${size} bytes of content`,
      );
    }

    if (size > limits.maxEntrySize) {
      throw new TaskPackReadError(
        "limit",
        where,
        `entry size ${size} is over the limit of ${limits.maxEntrySize} (raise maxEntrySize)`,
      );
    }
    totalSize += size;
    if (totalSize > limits.maxTotalSize) {
      throw new TaskPackReadError(
        "limit",
        where,
        `total size ${totalSize} is over the limit of ${limits.maxTotalSize} (raise maxTotalSize)`,
      );
    }
    if (size > RATIO_FLOOR) {
      const ratio = size / Math.max(compressedSize, 1);
      if (ratio > limits.maxRatio) {
        throw new TaskPackReadError(
          "limit",
          where,
          `compression ratio ${
            Math.round(ratio)
          } is over the limit of ${limits.maxRatio} (raise maxRatio)`,
        );
      }
    }
    if (localOffset >= cdOffset || compressedSize > cdOffset) {
      throw structure(where, "the entry points outside the area before the central directory");
    }

    records.add(
      {
        name,
        nameBytes,
        method: method as 0 | 8,
        compressedSize,
        size,
        crc32: crc,
        flags,
        localOffset,
      },
      where,
      // Copies (the window is reused), and none at all in the usual case of no bytes.
      commentLength > 0 ? variable.slice(nameLength + extraLength) : EMPTY,
      extraLength > 0 ? extra.slice() : EMPTY,
    );
  }
  if (offset !== cdEnd) {
    throw structure(
      "central directory",
      `the central directory holds ${
        cdEnd - offset
      } bytes after the ${count} entries the end record counts`,
    );
  }
  return records;
}

/** Reads every local header in file order, checking that the records tile the file exactly. */
async function checkLocalRecords(
  source: ByteSource,
  records: CentralRecords,
  cdOffset: number,
): Promise<void> {
  const order = records.fileOrder();
  // Reused: this pass only checks, and keeps nothing of the window.
  const window = new WindowReader(source, cdOffset, true);
  let expected = 0;
  for (let i = 0; i < order.length; i++) {
    const index = order[i]!;
    // How errors name the entry: made only for an error (thousands of entries pass).
    const where = () => records.where(index);
    const localOffset = records.localOffset(index);
    if (localOffset !== expected) {
      throw structure(
        where(),
        localOffset > expected
          ? i === 0
            ? `the archive starts with ${localOffset} bytes that belong to no entry`
            : `${localOffset - expected} bytes that belong to no entry lie before the entry`
          : "the entry overlaps the entry before it",
      );
    }
    let h = window.reach(localOffset, LOCAL_HEADER);
    if (h < 0) h = await window.load(localOffset, LOCAL_HEADER, where(), "the local header");
    const header = window.held;
    if (u32(header, h) !== SIG_LOCAL) {
      throw structure(where(), "the local header has a bad signature");
    }
    const flags = u16(header, h + 6);
    const method = u16(header, h + 8);
    const crc = u32(header, h + 14);
    let compressedSize = u32(header, h + 18);
    let size = u32(header, h + 22);
    const nameLength = u16(header, h + 26);
    const extraLength = u16(header, h + 28);
    const variableOffset = localOffset + LOCAL_HEADER;
    let v = window.reach(variableOffset, nameLength + extraLength);
    if (v < 0) {
      v = await window.load(variableOffset, nameLength + extraLength, where(), "the local header");
    }
    const variable = window.held;
    if (!records.hasNameBytes(index, variable, v, nameLength)) {
      throw structure(
        where(),
        "the local header names a different file than the central directory",
      );
    }
    if (flags !== records.flags(index)) {
      throw structure(where(), "the local header's flags differ from the central directory's");
    }
    const centralMethod = records.method(index);
    if (method !== centralMethod) {
      throw structure(
        where(),
        "the local header's compression method differs from the central directory's",
      );
    }
    let extra = EMPTY;
    let extras = NO_EXTRA;
    if (extraLength > 0) {
      extra = variable.slice(v + nameLength, v + nameLength + extraLength);
      extras = parseExtra(extra, where());
      checkUnicodePath(extras.get(EXTRA_UNICODE_PATH), records.name(index), where());
      checkAsiMode(
        extras.get(EXTRA_ASI_UNIX),
        records.name(index).endsWith("/"),
        where(),
        "local ",
      );
    }
    if (size === U32_MAX || compressedSize === U32_MAX) {
      // APPNOTE 4.5.3: a local zip64 record holds both sizes.
      const zip64 = extras.get(EXTRA_ZIP64);
      if (zip64 === undefined || zip64.length < 16) {
        throw structure(where(), "the local header lacks the zip64 extra field its sizes need");
      }
      const z = new Fields(zip64, where());
      if (size === U32_MAX) size = z.u64(0);
      if (compressedSize === U32_MAX) compressedSize = z.u64(8);
    }
    const centralCompressed = records.compressedSize(index);
    const centralSize = records.size(index);
    const hasDescriptor = (flags & FLAG_DESCRIPTOR) !== 0;
    // A stored body has no end of its own: a streaming reader that is not told its size in
    // the local header looks for a descriptor inside it, where the body may have hidden one.
    if (
      hasDescriptor && centralMethod === 0 &&
      (compressedSize !== centralCompressed || size !== centralSize)
    ) {
      throw structure(
        where(),
        "the stored entry has a data descriptor but its local header does not give its sizes, so a streaming reader cannot tell where its data ends",
      );
    }
    // With a descriptor, the local header may leave the CRC and sizes as zero.
    if (
      !agrees(crc, records.crc32(index), hasDescriptor) ||
      !agrees(compressedSize, centralCompressed, hasDescriptor) ||
      !agrees(size, centralSize, hasDescriptor)
    ) {
      throw structure(
        where(),
        "the local header's CRC-32 or sizes differ from the central directory's",
      );
    }

    const dataOffset = localOffset + LOCAL_HEADER + nameLength + extraLength;
    records.setLocal(index, dataOffset, extra);
    const dataEnd = dataOffset + centralCompressed;
    if (centralCompressed === 2 && records.name(index).endsWith("/")) {
      // A deflated directory: its two bytes must be an empty stream (a final fixed block
      // holding only its end).
      const body = await window.bytes(dataOffset, centralCompressed, where(), "the entry's data");
      if (body[0] !== 0x03 || body[1] !== 0x00) {
        throw structure(where(), "the directory entry holds data");
      }
    }
    const next = i + 1 < order.length ? records.localOffset(order[i + 1]!) : cdOffset;
    if (hasDescriptor) {
      expected = dataEnd +
        await checkDescriptor(
          window,
          records.entries[index]!,
          where(),
          dataEnd,
          next,
          extras.has(EXTRA_ZIP64),
        );
    } else {
      expected = dataEnd;
    }
    if (expected > next) {
      throw structure(
        where(),
        i + 1 < order.length
          ? "the entry overlaps the next entry"
          : "the entry runs into the central directory",
      );
    }
  }
  if (expected !== cdOffset) {
    throw structure(
      order.length > 0 ? records.where(order[order.length - 1]!) : "central directory",
      order.length > 0
        ? `${
          cdOffset - expected
        } bytes that belong to no entry lie between the entry and the central directory`
        : `the archive starts with ${cdOffset} bytes that belong to no entry`,
    );
  }
}

/**
 * Refuses a Unix mode (`st_mode`) that is not a plain file or directory as the name says: a
 * symbolic link, a device, a FIFO or a socket, a directory named as a file, set-user-ID or
 * set-group-ID. `from` names where the mode came from ("" for the external attributes).
 */
function checkMode(mode: number, isDirectory: boolean, where: string, from: string): void {
  const type = mode & S_IFMT;
  const problem = type === S_IFLNK
    ? "is a symbolic link"
    : type !== 0 && type !== S_IFREG && type !== S_IFDIR
    ? "is a special file (not a regular file or directory)"
    : type === S_IFDIR && !isDirectory
    ? "is marked as a directory but named as a file"
    : (mode & S_ISUGID) !== 0
    ? "sets the setuid or setgid bit"
    : null;
  if (problem === null) return;
  const detail = from === ""
    ? `${problem.startsWith("sets") ? "the entry's mode" : "the entry"} ${problem}`
    : `by the mode in its ${from}, the entry ${problem}`;
  throw new TaskPackReadError("zip-symlink", where, detail);
}

/** Checks the mode of an ASi Unix extra field (`central ` or `local `), if there is one. */
function checkAsiMode(
  asi: Uint8Array | undefined,
  isDirectory: boolean,
  where: string,
  which: "" | "local ",
): void {
  if (asi === undefined) return;
  if (asi.length < 10) {
    throw structure(where, `the ${which}ASi Unix extra field (0x756e) is too short to hold a mode`);
  }
  checkMode(asi[4]! | asi[5]! << 8, isDirectory, where, `${which}ASi Unix extra field (0x756e)`);
}

/** Whether a local header's value agrees with the central one (a descriptor allows zero). */
function agrees(local: number, central: number, hasDescriptor: boolean): boolean {
  return local === central || (hasDescriptor && local === 0);
}

/**
 * Checks the data descriptor between `dataEnd` and `next` against the central values, and
 * returns its length. Its form (with or without signature, 4- or 8-byte sizes) follows from
 * the room it takes: 12, 16, 20 or 24 bytes; its sizes must be 8 bytes exactly when the local
 * header has a zip64 extra field (`localZip64`).
 */
async function checkDescriptor(
  window: WindowReader,
  entry: ZipEntry,
  where: string,
  dataEnd: number,
  next: number,
  localZip64: boolean,
): Promise<number> {
  const room = next - dataEnd;
  if (room !== 12 && room !== 16 && room !== 20 && room !== 24) {
    throw structure(
      where,
      room < 12
        ? "the entry has no room for its data descriptor"
        : `${room} bytes lie between the entry's data and the next record, which fits no data descriptor`,
    );
  }
  const bytes = await window.bytes(dataEnd, room, where, "the data descriptor");
  const d = new Fields(bytes, where);
  const signed = room === 16 || room === 24;
  if (signed && d.u32(0) !== SIG_DESCRIPTOR) {
    throw structure(where, "the data descriptor has a bad signature");
  }
  const at = signed ? 4 : 0;
  const crc = d.u32(at);
  const wide = room >= 20;
  // APPNOTE 4.3.9.2: the sizes are 8 bytes exactly when the local header has a zip64 extra
  // field. A streaming reader goes by that, not by the room: it would read other sizes.
  if (wide !== localZip64) {
    throw structure(
      where,
      wide
        ? "the data descriptor has 8-byte sizes but the local header has no zip64 extra field (APPNOTE 4.3.9.2)"
        : "the data descriptor has 4-byte sizes but the local header has a zip64 extra field (APPNOTE 4.3.9.2)",
    );
  }
  const compressedSize = wide ? d.u64(at + 4) : d.u32(at + 4);
  const size = wide ? d.u64(at + 12) : d.u32(at + 8);
  if (crc !== entry.crc32 || compressedSize !== entry.compressedSize || size !== entry.size) {
    throw structure(where, "the data descriptor differs from the central directory");
  }
  return room;
}
