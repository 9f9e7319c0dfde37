// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * A streaming ZIP reader and writer that holds against hostile archives: the central
 * directory is read and checked before any body is inflated, sizes and CRCs are verified as
 * bodies stream, and names, modes and limits are judged by the same rules in the reader and the
 * writer. DEFLATE and inflate come in two kinds: the platform's streams, and a small strict core
 * of its own for short entries and for hosts without them.
 *
 * It knows nothing of TaskPack: it uses only `bytes/`, and reports with its read error
 * (codes `zip-*`).
 *
 * @example Usage
 * ```ts
 * import { openZip, writeZip, zipToBytes } from "./mod.ts";
 * import { bytesSource, utf8 } from "../bytes/mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const modified = new Date(Date.UTC(2026, 0, 1));
 * const bytes = await zipToBytes(writeZip([{ name: "a.txt", bytes: utf8("hello") }], { modified }));
 * const archive = await openZip(bytesSource(bytes));
 * assertEquals(archive.entries.map((entry) => entry.name), ["a.txt"]);
 * ```
 *
 * @module
 */

export {
  coreInflater,
  deflateInMemory,
  type Deflater,
  deflateRaw,
  deflateRawSmall,
  type Inflater,
  inflateRawStrict,
  type InflateSteps,
  looksCompressible,
  platformDeflater,
  SMALL_DEFLATE,
} from "./deflate.ts";
export { deflateRawJs } from "./deflate_raw.ts";
export { type NameClash, NameIndex } from "./name_index.ts";
export {
  DEFAULT_ZIP_LIMITS,
  openZip,
  type ZipArchive,
  type ZipEntry,
  zipEntryCount,
  type ZipLimits,
  zipNameClash,
  zipNameProblem,
} from "./reader.ts";
export {
  writeZip,
  type WriteZipOptions,
  writeZipTo,
  zipToBytes,
  type ZipWriteEntry,
} from "./writer.ts";
