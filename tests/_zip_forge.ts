// Copyright 2026 the taskpack authors. MIT license.
/**
 * A raw ZIP builder for tests: it writes exactly the headers it is told to, right or wrong,
 * so tests (and the hostile corpus) can build archives that no honest writer produces.
 *
 * Every field of every record can be overridden. By default {@linkcode forgeZip} writes a
 * plain, valid archive: local records back to back from offset 0, the central directory, and
 * the end record (plus the ZIP64 end records when asked), with all headers agreeing.
 *
 * ```ts
 * // Two central entries sharing one body:
 * const zip = forgeZip([{ name: "a", data: utf8("x") }, { name: "a", data: utf8("y"), offset: 0 }]);
 * ```
 *
 * @module
 */
import { crc32 } from "../lib/bytes/crc32.ts";
import { deflateRaw } from "../lib/zip/deflate.ts";

/** One entry to forge. `data` is the body exactly as stored in the archive. */
export interface ForgeEntry {
  /** Central directory name (a string is written as UTF-8). */
  name: string | Uint8Array;
  /** Local header name. Default: `name`. */
  localName?: string | Uint8Array;
  /** The body as stored (already deflated for method 8). Default: empty. */
  data?: Uint8Array;
  /** The content the body stands for; sets the default CRC-32 and size. Default: `data`. */
  content?: Uint8Array;
  /** Compression method in both headers. Default: 0. */
  method?: number;
  /** Local header method. Default: `method`. */
  localMethod?: number;
  /** General purpose flags in both headers. Default: 0x0800 (UTF-8). */
  flags?: number;
  /** Local header flags. Default: `flags`. */
  localFlags?: number;
  /** CRC-32 in the central header. Default: CRC-32 of `content`. */
  crc32?: number;
  /** Compressed size in the central header. Default: `data.length`. */
  compressedSize?: number;
  /** Uncompressed size in the central header. Default: `content.length`. */
  size?: number;
  /** CRC-32 in the local header. Default: the central value (0 when flag bit 3 is set). */
  localCrc32?: number;
  /** Compressed size in the local header. Default: the central value (0 with bit 3). */
  localCompressedSize?: number;
  /** Uncompressed size in the local header. Default: the central value (0 with bit 3). */
  localSize?: number;
  /** Version made by (host << 8 | version). Default: 20 (MS-DOS, 2.0). */
  madeBy?: number;
  /** Version needed, both headers. Default: 20. */
  versionNeeded?: number;
  /** External attributes. Default: 0. */
  externalAttributes?: number;
  /** Central extra field, raw. Default: empty. */
  extra?: Uint8Array;
  /** Local extra field, raw. Default: empty. */
  localExtra?: Uint8Array;
  /** Central file comment. Default: empty. */
  comment?: Uint8Array;
  /** Disk number start in the central header. Default: 0. */
  diskStart?: number;
  /** Local header signature. Default: 0x04034b50. */
  localSignature?: number;
  /** Central header signature. Default: 0x02014b50. */
  centralSignature?: number;
  /** Bytes written right after the body (a data descriptor, or junk). Default: none. */
  after?: Uint8Array;
  /** Local header offset in the central header. Default: where the local record was written. */
  offset?: number;
  /** Write no local record for this entry (its central offset then defaults to 0). */
  noLocal?: boolean;
  /** Write no central header for this entry. */
  noCentral?: boolean;
}

/** Archive-level overrides for {@linkcode forgeZip}. */
export interface ForgeOptions {
  /** Bytes before the first local record. */
  prefix?: Uint8Array;
  /** Bytes between the last local record and the central directory. */
  beforeCentral?: Uint8Array;
  /** Bytes between the central directory and the end records. */
  afterCentral?: Uint8Array;
  /** Bytes after the end of central directory record (after its comment). */
  suffix?: Uint8Array;
  /** Central headers in this order (indexes into the entries). Default: entry order. */
  centralOrder?: number[];
  /** Entry count in the end records (both fields). Default: central headers written. */
  count?: number;
  /** "Entries on this disk" in the end records. Default: `count`. */
  diskCount?: number;
  /** Central directory size in the end records. Default: actual. */
  cdSize?: number;
  /** Central directory offset in the end records. Default: actual. */
  cdOffset?: number;
  /** Disk number fields of the end record. Default: 0 and 0. */
  disk?: number;
  cdDisk?: number;
  /** End record comment. Default: empty. */
  comment?: Uint8Array;
  /** Comment length field of the end record. Default: `comment.length`. */
  commentLength?: number;
  /**
   * Write a ZIP64 end record and locator. `true` writes them with the real values and puts
   * the markers (0xFFFF, 0xFFFFFFFF) in the classic end record; an object overrides fields.
   */
  zip64?: boolean | ForgeZip64;
}

/** Overrides for the ZIP64 end records. */
export interface ForgeZip64 {
  /** Put the marker values in the classic end record. Default: true. */
  markers?: boolean;
  count?: number;
  diskCount?: number;
  cdSize?: number;
  cdOffset?: number;
  disk?: number;
  cdDisk?: number;
  /** The "size of zip64 end of central directory record" field. Default: 44. */
  recordSize?: number;
  /** Bytes of extensible data written after the record's fixed fields. */
  extensible?: Uint8Array;
  /** Record offset in the locator. Default: where the record was written. */
  recordOffset?: number;
  /** Locator disk fields. Defaults: 0 and 1. */
  locatorDisk?: number;
  totalDisks?: number;
  /** Record signature. Default: 0x06064b50. */
  signature?: number;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** CRC-32 of bytes. */
export function crc(bytes: Uint8Array): number {
  return crc32(bytes, 0);
}

/** Raw-deflates bytes (the body of a method 8 entry). */
export function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  return deflateRaw(bytes);
}

/** Little-endian byte builder. */
export class LE {
  #parts: number[] = [];
  /** Appends a 16-bit value. */
  u16(value: number): this {
    this.#parts.push(value & 0xff, (value >>> 8) & 0xff);
    return this;
  }
  /** Appends a 32-bit value. */
  u32(value: number): this {
    for (let i = 0; i < 4; i++) this.#parts.push((value >>> (8 * i)) & 0xff);
    return this;
  }
  /** Appends a 64-bit value (a safe integer). */
  u64(value: number): this {
    const big = BigInt(value);
    for (let i = 0n; i < 8n; i++) this.#parts.push(Number((big >> (8n * i)) & 0xffn));
    return this;
  }
  /** Appends raw bytes. */
  raw(bytes: Uint8Array): this {
    for (const byte of bytes) this.#parts.push(byte);
    return this;
  }
  /** The bytes so far. */
  get bytes(): Uint8Array {
    return new Uint8Array(this.#parts);
  }
}

/** One extra field record (id, then its data). */
export function extraRecord(id: number, data: Uint8Array): Uint8Array {
  return new LE().u16(id).u16(data.length).raw(data).bytes;
}

/** A ZIP64 extended information extra field holding the given 8-byte values, in order. */
export function zip64Extra(...values: number[]): Uint8Array {
  const data = new LE();
  for (const value of values) data.u64(value);
  return extraRecord(0x0001, data.bytes);
}

/** An Info-ZIP Unicode path extra field (0x7075) for a header name. */
export function unicodePathExtra(headerName: Uint8Array, path: string): Uint8Array {
  return extraRecord(
    0x7075,
    new LE().raw(new Uint8Array([1])).u32(crc(headerName)).raw(utf8(path)).bytes,
  );
}

/** A data descriptor: with or without signature, with 4- or 8-byte sizes. */
export function descriptor(
  crc32: number,
  compressedSize: number,
  size: number,
  options: { signature?: boolean; zip64?: boolean } = {},
): Uint8Array {
  const b = new LE();
  if (options.signature !== false) b.u32(0x08074b50);
  b.u32(crc32);
  if (options.zip64) b.u64(compressedSize).u64(size);
  else b.u32(compressedSize).u32(size);
  return b.bytes;
}

function nameBytes(name: string | Uint8Array): Uint8Array {
  return typeof name === "string" ? utf8(name) : name;
}

/**
 * Builds an archive from raw parts, writing every field as given (see {@linkcode ForgeEntry}
 * and {@linkcode ForgeOptions} for the defaults, which make a valid archive).
 *
 * @param entries The entries, in local record order.
 * @param options Archive-level overrides.
 * @returns The archive's bytes.
 */
export function forgeZip(entries: readonly ForgeEntry[], options: ForgeOptions = {}): Uint8Array {
  const parts: Uint8Array[] = [];
  let offset = 0;
  const push = (bytes: Uint8Array | undefined) => {
    if (bytes === undefined || bytes.length === 0) return;
    parts.push(bytes);
    offset += bytes.length;
  };
  push(options.prefix);

  const offsets: number[] = [];
  for (const entry of entries) {
    offsets.push(entry.noLocal ? 0 : offset);
    if (entry.noLocal) continue;
    const data = entry.data ?? new Uint8Array(0);
    const content = entry.content ?? data;
    const flags = entry.flags ?? 0x0800;
    const localFlags = entry.localFlags ?? flags;
    const deferred = (localFlags & 0x08) !== 0;
    const crc32 = entry.crc32 ?? crc(content);
    const compressedSize = entry.compressedSize ?? data.length;
    const size = entry.size ?? content.length;
    const name = nameBytes(entry.localName ?? entry.name);
    const extra = entry.localExtra ?? new Uint8Array(0);
    push(
      new LE()
        .u32(entry.localSignature ?? 0x04034b50)
        .u16(entry.versionNeeded ?? 20)
        .u16(localFlags)
        .u16(entry.localMethod ?? entry.method ?? 0)
        .u16(0) // time
        .u16(0x21) // date: 1980-01-01
        .u32(entry.localCrc32 ?? (deferred ? 0 : crc32))
        .u32(entry.localCompressedSize ?? (deferred ? 0 : compressedSize))
        .u32(entry.localSize ?? (deferred ? 0 : size))
        .u16(name.length)
        .u16(extra.length)
        .raw(name)
        .raw(extra)
        .bytes,
    );
    push(data);
    push(entry.after);
  }
  push(options.beforeCentral);

  const cdOffset = offset;
  let written = 0;
  const order = options.centralOrder ?? entries.map((_, index) => index);
  for (const index of order) {
    const entry = entries[index]!;
    if (entry.noCentral) continue;
    const data = entry.data ?? new Uint8Array(0);
    const content = entry.content ?? data;
    const name = nameBytes(entry.name);
    const extra = entry.extra ?? new Uint8Array(0);
    const comment = entry.comment ?? new Uint8Array(0);
    push(
      new LE()
        .u32(entry.centralSignature ?? 0x02014b50)
        .u16(entry.madeBy ?? 20)
        .u16(entry.versionNeeded ?? 20)
        .u16(entry.flags ?? 0x0800)
        .u16(entry.method ?? 0)
        .u16(0)
        .u16(0x21)
        .u32(entry.crc32 ?? crc(content))
        .u32(entry.compressedSize ?? data.length)
        .u32(entry.size ?? content.length)
        .u16(name.length)
        .u16(extra.length)
        .u16(comment.length)
        .u16(entry.diskStart ?? 0)
        .u16(0)
        .u32(entry.externalAttributes ?? 0)
        .u32(entry.offset ?? offsets[index]!)
        .raw(name)
        .raw(extra)
        .raw(comment)
        .bytes,
    );
    written++;
  }
  const cdSize = offset - cdOffset;
  push(options.afterCentral);

  const count = options.count ?? written;
  const diskCount = options.diskCount ?? count;
  const z = options.zip64 === true ? {} : options.zip64 === false ? undefined : options.zip64;
  const markers = z !== undefined && z.markers !== false;
  if (z !== undefined) {
    const recordOffset = offset;
    const extensible = z.extensible ?? new Uint8Array(0);
    push(
      new LE()
        .u32(z.signature ?? 0x06064b50)
        .u64(z.recordSize ?? 44 + extensible.length)
        .u16(45)
        .u16(45)
        .u32(z.disk ?? 0)
        .u32(z.cdDisk ?? 0)
        .u64(z.diskCount ?? z.count ?? diskCount)
        .u64(z.count ?? count)
        .u64(z.cdSize ?? options.cdSize ?? cdSize)
        .u64(z.cdOffset ?? options.cdOffset ?? cdOffset)
        .raw(extensible)
        .bytes,
    );
    push(
      new LE()
        .u32(0x07064b50)
        .u32(z.locatorDisk ?? 0)
        .u64(z.recordOffset ?? recordOffset)
        .u32(z.totalDisks ?? 1)
        .bytes,
    );
  }
  const comment = options.comment ?? new Uint8Array(0);
  push(
    new LE()
      .u32(0x06054b50)
      .u16(options.disk ?? 0)
      .u16(options.cdDisk ?? 0)
      .u16(markers ? 0xffff : diskCount)
      .u16(markers ? 0xffff : count)
      .u32(markers ? 0xffffffff : options.cdSize ?? cdSize)
      .u32(markers ? 0xffffffff : options.cdOffset ?? cdOffset)
      .u16(options.commentLength ?? comment.length)
      .raw(comment)
      .bytes,
  );
  push(options.suffix);

  const out = new Uint8Array(offset);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
