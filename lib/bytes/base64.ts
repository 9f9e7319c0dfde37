// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Canonical base64 (RFC 4648 §4, standard alphabet, padded). For the core's own use: not in the
 * library's public API. Uses the native `Uint8Array.prototype.toBase64` / `Uint8Array.fromBase64`
 * when the runtime has them, and a table-driven implementation otherwise.
 *
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PAD = 0x3d; // "="

/** Alphabet index to ASCII code. */
const ENCODE = new Uint8Array(64);
/** ASCII code to alphabet index, or -1 (also for "="). Look-ups mask codes to 7 bits. */
const DECODE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  const code = ALPHABET.charCodeAt(i);
  ENCODE[i] = code;
  DECODE[code] = i;
}

/** Output characters per chunk in the portable encoder (a multiple of 4). */
const ENCODE_CHUNK_CHARS = 1 << 16;
/** Turns the encoder's ASCII output into a string (any ASCII-compatible label would do). */
const latin1 = new TextDecoder("latin1");

/** The native base64 methods, typed loosely so this module type-checks without them. */
interface NativeBase64 {
  toBase64?: (this: Uint8Array) => string;
  fromBase64?: (text: string, options?: { lastChunkHandling?: string }) => Uint8Array;
}

const nativeToBase64 = (Uint8Array.prototype as unknown as NativeBase64).toBase64;
const nativeFromBase64 = (globalThis.Uint8Array as unknown as NativeBase64).fromBase64;

/**
 * Base64 of bytes with the portable implementation (standard alphabet, `=` padding).
 * Exported for tests; use {@linkcode encodeBase64}.
 */
export function encodeBase64Js(bytes: Uint8Array): string {
  const length = bytes.length;
  const outLength = Math.ceil(length / 3) * 4;
  const chunk = new Uint8Array(Math.min(outLength, ENCODE_CHUNK_CHARS));
  const parts: string[] = [];
  const whole = length - (length % 3);
  let i = 0;
  while (i < whole) {
    const stop = Math.min(whole, i + (chunk.length / 4) * 3);
    let o = 0;
    for (; i < stop; i += 3) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      chunk[o] = ENCODE[n >>> 18]!;
      chunk[o + 1] = ENCODE[(n >>> 12) & 63]!;
      chunk[o + 2] = ENCODE[(n >>> 6) & 63]!;
      chunk[o + 3] = ENCODE[n & 63]!;
      o += 4;
    }
    parts.push(latin1.decode(o === chunk.length ? chunk : chunk.subarray(0, o)));
  }
  const rest = length - whole;
  if (rest === 1) {
    const n = bytes[whole]!;
    parts.push(String.fromCharCode(ENCODE[n >>> 2]!, ENCODE[(n & 3) << 4]!, PAD, PAD));
  } else if (rest === 2) {
    const n = (bytes[whole]! << 8) | bytes[whole + 1]!;
    parts.push(
      String.fromCharCode(ENCODE[n >>> 10]!, ENCODE[(n >>> 4) & 63]!, ENCODE[(n & 15) << 2]!, PAD),
    );
  }
  return parts.length === 1 ? parts[0]! : parts.join("");
}

/**
 * Base64 of bytes: standard alphabet, `=` padding, no line breaks.
 *
 * @param bytes The bytes.
 * @returns The canonical encoding.
 */
export function encodeBase64(bytes: Uint8Array): string {
  return nativeToBase64 !== undefined ? nativeToBase64.call(bytes) : encodeBase64Js(bytes);
}

/** The error for text that is not canonical base64. */
function invalid(reason: string, offset: number): TypeError {
  return new TypeError(`Cannot decode base64: ${reason} at offset ${offset}`);
}

/** True for the characters of the standard alphabet. */
function isAlphabet(code: number): boolean {
  return code < 0x80 && DECODE[code]! >= 0;
}

/** Says why a character that is neither in the alphabet nor "=" is refused. */
function describe(code: number): string {
  if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) {
    return "whitespace is not allowed";
  }
  if (code === 0x2d || code === 0x5f) return "the URL-safe alphabet is not allowed";
  return `invalid character U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Finds the first reason `text` is not canonical base64. Slow but thorough; only called once
 * the fast path has failed.
 *
 * @returns The error to throw, or `undefined` when the text is canonical.
 */
function diagnose(text: string): TypeError | undefined {
  const length = text.length;
  let dataEnd = length;
  for (let j = 0; j < length; j++) {
    const code = text.charCodeAt(j);
    if (isAlphabet(code)) continue;
    if (code !== PAD) return invalid(describe(code), j);
    let k = j + 1;
    while (k < length && text.charCodeAt(k) === PAD) k++;
    if (k < length) {
      const next = text.charCodeAt(k);
      if (!isAlphabet(next)) return invalid(describe(next), k);
      return invalid("padding is only allowed at the end", j);
    }
    if (k - j > 2) return invalid("too much padding", j);
    dataEnd = j;
    break;
  }
  const pad = length - dataEnd;
  const rest = dataEnd % 4;
  if (rest === 1) return invalid("incomplete final group", dataEnd - 1);
  const expected = rest === 0 ? 0 : 4 - rest;
  if (pad < expected) return invalid("missing padding", length);
  if (pad > expected) return invalid("too much padding", dataEnd + expected);
  if (rest === 2 && (DECODE[text.charCodeAt(dataEnd - 1)]! & 15) !== 0) {
    return invalid("non-zero trailing bits", dataEnd - 1);
  }
  if (rest === 3 && (DECODE[text.charCodeAt(dataEnd - 1)]! & 3) !== 0) {
    return invalid("non-zero trailing bits", dataEnd - 1);
  }
  return undefined;
}

/** Throws the reason `text` is not canonical base64. */
function fail(text: string): never {
  throw diagnose(text) ?? invalid("not canonical", 0);
}

/**
 * Decodes canonical base64 with the portable implementation. Exported for tests; use
 * {@linkcode decodeBase64Strict}.
 *
 * @throws {TypeError} When `text` is not the canonical encoding of some bytes.
 */
export function decodeBase64Js(text: string): Uint8Array {
  const length = text.length;
  if (length % 4 !== 0) fail(text);
  let pad = 0;
  if (length > 0 && text.charCodeAt(length - 1) === PAD) {
    pad = text.charCodeAt(length - 2) === PAD ? 2 : 1;
  }
  const out = new Uint8Array((length / 4) * 3 - pad);
  const whole = pad === 0 ? length : length - 4;
  // Negative once any character is outside the alphabet (codes are masked to 7 bits for the
  // table look-up, so the raw codes are also or-ed together and checked against 0x7f).
  let indexes = 0;
  let codes = 0;
  let o = 0;
  for (let i = 0; i < whole; i += 4) {
    const c0 = text.charCodeAt(i);
    const c1 = text.charCodeAt(i + 1);
    const c2 = text.charCodeAt(i + 2);
    const c3 = text.charCodeAt(i + 3);
    const a = DECODE[c0 & 0x7f]!;
    const b = DECODE[c1 & 0x7f]!;
    const c = DECODE[c2 & 0x7f]!;
    const d = DECODE[c3 & 0x7f]!;
    codes |= c0 | c1 | c2 | c3;
    indexes |= a | b | c | d;
    out[o] = (a << 2) | (b >>> 4);
    out[o + 1] = (b << 4) | (c >>> 2);
    out[o + 2] = (c << 6) | d;
    o += 3;
  }
  if (indexes < 0 || codes > 0x7f) fail(text);
  if (pad === 0) return out;
  const c0 = text.charCodeAt(whole);
  const c1 = text.charCodeAt(whole + 1);
  if (!isAlphabet(c0) || !isAlphabet(c1)) fail(text);
  const a = DECODE[c0]!;
  const b = DECODE[c1]!;
  out[o] = (a << 2) | (b >>> 4);
  if (pad === 2) {
    if ((b & 15) !== 0) fail(text);
    return out;
  }
  const c2 = text.charCodeAt(whole + 2);
  if (!isAlphabet(c2)) fail(text);
  const c = DECODE[c2]!;
  if ((c & 3) !== 0) fail(text);
  out[o + 1] = (b << 4) | (c >>> 2);
  return out;
}

/**
 * Decodes base64, accepting only the canonical encoding: the standard alphabet, no whitespace
 * or line breaks, a length that is a multiple of 4, `=` padding exactly where needed, and zero
 * bits in the unused part of the last character. So `encodeBase64(decodeBase64Strict(s)) === s`
 * for every `s` it accepts.
 *
 * @param text The base64 text.
 * @returns The bytes.
 * @throws {TypeError} When `text` is not canonical base64; the message names the reason and
 *   the offset.
 */
export function decodeBase64Strict(text: string): Uint8Array {
  if (nativeFromBase64 === undefined) return decodeBase64Js(text);
  const length = text.length;
  if (length % 4 !== 0) fail(text);
  let pad = 0;
  if (length > 0 && text.charCodeAt(length - 1) === PAD) {
    pad = text.charCodeAt(length - 2) === PAD ? 2 : 1;
  }
  let bytes: Uint8Array | undefined;
  try {
    bytes = nativeFromBase64(text, { lastChunkHandling: "strict" });
  } catch {
    fail(text);
  }
  // The native decoder skips ASCII whitespace anywhere. Each skipped character makes the output
  // shorter than a whitespace-free text of this length and padding gives, so an exact length
  // means every character was in the alphabet, or padding at the very end.
  if (bytes.length !== (length / 4) * 3 - pad) fail(text);
  return bytes;
}
