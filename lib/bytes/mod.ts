// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The ground every other package stands on: UTF-8, base64, the strict JSON scanner and
 * canonical JSON, SHA-256 and CRC-32 behind one digest interface, byte sources, chunking,
 * progress counting, and the two errors every layer reports with (a read error with a stable
 * code, a refusal with the rule it breaks).
 *
 * It imports nothing, and never touches I/O, the clock or randomness.
 *
 * @example Usage
 * ```ts
 * import { decodeBase64Strict, encodeBase64, portableDigests, sha256Hex, utf8 } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(decodeBase64Strict(encodeBase64(utf8("abc"))), utf8("abc"));
 * assertEquals(
 *   sha256Hex(portableDigests, utf8("abc")),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * ```
 *
 * @module
 */

export { decodeBase64Js, decodeBase64Strict, encodeBase64, encodeBase64Js } from "./base64.ts";
export {
  appendBytes,
  bytesEqual,
  concatBytes,
  countNewlines,
  decodeUtf8Strict,
  formatBytes,
  grown,
  isLowerHexAscii,
  isUtf8Of,
  isValidUtf8,
  readAllBytes,
  type TypedArray,
  utf8,
  utf8Length,
} from "./bytes.ts";
export { ByteViews } from "./byte_views.ts";
export { borrowChunks, luggageChunks } from "./chunks.ts";
export { crc32 } from "./crc32.ts";
export { DigestTable } from "./digest_table.ts";
export { HashSlots, hashText, startsAlike } from "./hash_slots.ts";
export { type Digests, portableDigests, type Sha256Hasher, sha256Hex } from "./digests.ts";
export { type ReadErrorCode, RefusalError, type RefusalRule, TaskPackReadError } from "./errors.ts";
export {
  canonicalJson,
  FORBIDDEN_KEYS,
  isPlainObject,
  parseJsonStrict,
  SHADOWING_KEYS,
} from "./json.ts";
export { type Progress, progressCounter } from "./progress.ts";
export { Sha256 } from "./sha256.ts";
export {
  blobSource,
  type ByteSource,
  bytesSource,
  chunkedStream,
  type Luggage,
  luggageFromBytes,
} from "./source.ts";
