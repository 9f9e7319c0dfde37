// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Small byte helpers shared by the core. For the core's own use: not in the library's public API.
 *
 * @module
 */

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  // Short ASCII text (names, mostly) is copied here: quicker than a call into the runtime,
  // and the same bytes.
  if (text.length > SHORT_TEXT) return encoder.encode(text);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return encoder.encode(text);
    bytes[i] = code;
  }
  return bytes;
}

/** A typed array of any element type. */
export type TypedArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array;

/**
 * A larger copy of a growing typed array: of the same type, at least `needed` long and at least
 * twice as long as `array` (so that growing one element at a time costs amortised constant
 * time), holding the first `used` elements of `array`.
 *
 * @param array The array that is full.
 * @param needed How long the new one must be at least.
 * @param used How many elements of `array` to keep (all of them by default).
 * @returns The new array; the rest of it is zero.
 *
 * @example Usage
 * ```ts
 * import { grown } from "./bytes.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const more = grown(new Uint16Array([1, 2, 3]), 4, 2);
 * assertEquals(more, new Uint16Array([1, 2, 0, 0, 0, 0]));
 * ```
 */
export function grown<T extends TypedArray>(array: T, needed: number, used = array.length): T {
  const length = Math.max(needed, 2 * array.length);
  const larger = new (array.constructor as new (length: number) => T)(length);
  larger.set(used === array.length ? array : array.subarray(0, used) as T);
  return larger;
}

/**
 * Writes `bytes` into `buffer` after its first `used` bytes, first growing it (with
 * {@linkcode grown}) where they do not fit: a buffer that many byte arrays are appended to.
 *
 * @param buffer The buffer.
 * @param used How many of its bytes are in use.
 * @param bytes What to append.
 * @returns The buffer that now holds them (`buffer`, or a larger copy): keep it in its place.
 *
 * @example Usage
 * ```ts
 * import { appendBytes } from "./bytes.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const buffer = appendBytes(new Uint8Array([1, 2]), 1, new Uint8Array([7, 8]));
 * assertEquals(buffer.subarray(0, 3), new Uint8Array([1, 7, 8]));
 * ```
 */
export function appendBytes<T extends Uint8Array>(buffer: T, used: number, bytes: Uint8Array): T {
  const room = used + bytes.length > buffer.length
    ? grown(buffer, used + bytes.length, used)
    : buffer;
  room.set(bytes, used);
  return room;
}

/**
 * How many bytes the UTF-8 encoding of `text` takes (a lone surrogate counts as U+FFFD, 3 bytes,
 * as `TextEncoder` writes it).
 *
 * @example Usage
 * ```ts
 * import { utf8Length } from "./bytes.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(utf8Length("café 😀"), new TextEncoder().encode("café 😀").length);
 * assertEquals(utf8Length("\ud800"), 3);
 * ```
 */
export function utf8Length(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) length += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      length += 2;
    } else length += 2;
  }
  return length;
}

/** How much {@linkcode isValidUtf8} decodes at a time. */
const VALIDATE_STEP = 64 * 1024;

/**
 * Whether `bytes` are valid UTF-8, checked in 64 KiB steps: a large tag file is validated
 * without ever being one string.
 *
 * @example Usage
 * ```ts
 * import { isValidUtf8 } from "./bytes.ts";
 * import { assert } from "@std/assert";
 * assert(isValidUtf8(new Uint8Array([0x63, 0x61, 0x66, 0xc3, 0xa9])));
 * assert(!isValidUtf8(new Uint8Array([0x63, 0x61, 0x66, 0xe9])));
 * ```
 */
export function isValidUtf8(bytes: Uint8Array): boolean {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    for (let at = 0; at < bytes.length; at += VALIDATE_STEP) {
      decoder.decode(bytes.subarray(at, at + VALIDATE_STEP), { stream: true });
    }
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/** Text up to this many characters is tried as ASCII first by {@linkcode utf8}. */
const SHORT_TEXT = 256;

/** Where {@linkcode isUtf8Of} encodes the text it compares (grown when needed). */
let scratch = new Uint8Array(1024);

/**
 * Whether `bytes` are exactly the UTF-8 encoding of `text`, without keeping either: compared
 * in place for ASCII, else through a reused buffer.
 *
 * @example Usage
 * ```ts
 * import { isUtf8Of } from "./bytes.ts";
 * import { assert } from "@std/assert";
 * assert(isUtf8Of(new Uint8Array([0x63, 0x61, 0x66, 0xc3, 0xa9]), "café"));
 * assert(!isUtf8Of(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "café"));
 * ```
 */
export function isUtf8Of(bytes: Uint8Array, text: string): boolean {
  if (bytes.length < text.length) return false;
  let i = 0;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) break;
    if (bytes[i] !== code) return false;
  }
  if (i === text.length) return bytes.length === text.length;
  // At most 3 bytes per UTF-16 unit (a surrogate pair takes 4 for 2).
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  const { read, written } = encoder.encodeInto(text, scratch);
  if (read !== text.length || written !== bytes.length) return false;
  for (let j = i; j < written; j++) if (scratch[j] !== bytes[j]) return false;
  return true;
}

/** Decodes UTF-8, throwing a TypeError on malformed input. A leading BOM is kept. */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  return shortAscii(bytes) ?? strictDecoder.decode(bytes);
}

/**
 * Short ASCII bytes (names, mostly) as a string, decoded here: quicker than a call into the
 * runtime, and the same text. Null for anything else.
 */
function shortAscii(bytes: Uint8Array): string | null {
  if (bytes.length > SHORT_TEXT) return null;
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return null;
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

/** Decodes UTF-8, replacing malformed sequences with U+FFFD. A leading BOM is kept. */
export function decodeUtf8Lenient(bytes: Uint8Array): string {
  return lenientDecoder.decode(bytes);
}

/** Concatenates byte arrays into one. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** True when both arrays hold the same bytes. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const HEX_CODES = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

/**
 * Writes the lower-case hex of `bytes` into `out` at `at`, as ASCII (two bytes each): text made
 * of many digests is then written without a string per digest.
 *
 * @param bytes The bytes.
 * @param out Where to write (`2 * bytes.length` bytes from `at` must be in it).
 * @param at The offset to write at.
 *
 * @example Usage
 * ```ts
 * import { writeHex } from "./bytes.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const out = new Uint8Array(6).fill(0x2e);
 * writeHex(new Uint8Array([0xab, 0x01]), out, 1);
 * assertEquals(new TextDecoder().decode(out), ".ab01.");
 * ```
 */
export function writeHex(bytes: Uint8Array, out: Uint8Array, at: number): void {
  for (let i = 0; i < bytes.length; i++) {
    out[at + 2 * i] = HEX_CODES[bytes[i]! >>> 4]!;
    out[at + 2 * i + 1] = HEX_CODES[bytes[i]! & 15]!;
  }
}

/**
 * Whether the `length` bytes of `bytes` from `at` are all lower-case hex digits in ASCII
 * (`0-9`, `a-f`); false where they run past the end.
 *
 * @param bytes The bytes.
 * @param at Where the digits start.
 * @param length How many there must be.
 * @returns True when every one of them is a lower-case hex digit.
 *
 * @example Usage
 * ```ts
 * import { isLowerHexAscii } from "./bytes.ts";
 * import { assert } from "@std/assert";
 *
 * const text = new TextEncoder().encode("x09afx");
 * assert(isLowerHexAscii(text, 1, 4));
 * assert(!isLowerHexAscii(text, 0, 4));
 * assert(!isLowerHexAscii(text, 3, 4));
 * ```
 */
export function isLowerHexAscii(bytes: Uint8Array, at: number, length: number): boolean {
  if (at < 0 || at + length > bytes.length) return false;
  for (let i = at; i < at + length; i++) {
    const c = bytes[i]!;
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** Lower-case hex of bytes, as one flat string (not a chain of partial ones). */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let at = 0; at < bytes.length; at += 4096) {
    const piece = bytes.subarray(at, at + 4096);
    const codes = new Array<number>(piece.length * 2);
    for (let i = 0; i < piece.length; i++) {
      codes[2 * i] = HEX_CODES[piece[i]! >>> 4]!;
      codes[2 * i + 1] = HEX_CODES[piece[i]! & 15]!;
    }
    // `apply` with a plain array: several times quicker than spreading it.
    out += String.fromCharCode.apply(null, codes);
  }
  return out;
}

/** Reads a whole stream into one byte array, refusing to hold more than `limit` bytes. */
export async function readAllBytes(
  stream: ReadableStream<Uint8Array>,
  limit: number = Number.MAX_SAFE_INTEGER,
  onLimit: () => Error = () => new RangeError(`Cannot read stream: more than ${limit} bytes`),
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        throw onLimit();
      }
      parts.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return parts.length === 1 ? parts[0]! : concatBytes(parts);
}

/**
 * Formats a byte count for people: `5.3 KiB`, `1.0 GiB`.
 *
 * @param bytes The count.
 * @returns The text.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * How many `\n` bytes the first `end` bytes hold. Binary luggage is mostly skipped by the scanner,
 * but its lines are still counted (a later finding names its line), so this reads four bytes at
 * a time: a byte equal to `\n` becomes zero after the XOR, and the zero bytes of a word are
 * counted exactly by the usual carry-free test.
 */
export function countNewlines(bytes: Uint8Array, end: number): number {
  let count = 0;
  let i = 0;
  const head = Math.min(end, (4 - (bytes.byteOffset & 3)) & 3);
  for (; i < head; i++) if (bytes[i] === 0x0a) count++;
  const words = (end - i) >>> 2;
  if (words > 0) {
    const units = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const x = units[k]! ^ 0x0a0a0a0a;
      // Bit 0 of each byte: 1 where the byte of x is not zero.
      const nonzero = ((((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) & 0x80808080) >>> 7;
      if (nonzero !== 0x01010101) count += 4 - (Math.imul(nonzero, 0x01010101) >>> 24);
    }
    i += words * 4;
  }
  for (; i < end; i++) if (bytes[i] === 0x0a) count++;
  return count;
}
