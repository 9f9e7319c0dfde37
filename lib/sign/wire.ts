// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The SSH wire encoding (RFC 4251 §5): big-endian `uint32`, length-prefixed `string`, and
 * `mpint`, read strictly (no trailing bytes, minimal integers) and written.
 *
 * @module
 */
import { concatBytes, decodeUtf8Strict, utf8 } from "../bytes/mod.ts";
import { SignatureError, type SignatureErrorCode } from "./errors.ts";

/** Reads SSH wire fields in order; every fault is a {@linkcode SignatureError}. */
export class WireReader {
  readonly #bytes: Uint8Array;
  readonly #code: SignatureErrorCode;
  readonly #where: string;
  #at = 0;

  /**
   * @param bytes What to read.
   * @param code The code of the error a fault raises.
   * @param where What these bytes are, for the error's message.
   */
  constructor(bytes: Uint8Array, code: SignatureErrorCode, where: string) {
    this.#bytes = bytes;
    this.#code = code;
    this.#where = where;
  }

  /** The bytes not yet read. */
  get remaining(): number {
    return this.#bytes.length - this.#at;
  }

  /** Raises the reader's error about `field`. */
  fail(field: string, detail: string): never {
    throw new SignatureError(this.#code, this.#where, `${field}: ${detail}`);
  }

  /** `n` raw bytes. */
  raw(n: number, field: string): Uint8Array {
    if (n > this.remaining) this.fail(field, "the data ends early");
    const out = this.#bytes.subarray(this.#at, this.#at + n);
    this.#at += n;
    return out;
  }

  /** One byte. */
  byte(field: string): number {
    return this.raw(1, field)[0]!;
  }

  /** A big-endian unsigned 32-bit integer. */
  uint32(field: string): number {
    const b = this.raw(4, field);
    return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  }

  /** A length-prefixed byte string. */
  string(field: string): Uint8Array {
    return this.raw(this.uint32(field), field);
  }

  /** A length-prefixed UTF-8 text. */
  text(field: string): string {
    const bytes = this.string(field);
    try {
      return decodeUtf8Strict(bytes);
    } catch {
      return this.fail(field, "the text is not UTF-8");
    }
  }

  /** A non-negative `mpint`, minimally encoded; returned without its sign byte. */
  mpint(field: string): Uint8Array {
    const bytes = this.string(field);
    if (bytes.length === 0) return bytes;
    if (bytes[0]! & 0x80) this.fail(field, "the integer is negative");
    if (bytes[0] === 0 && (bytes.length === 1 || !(bytes[1]! & 0x80))) {
      this.fail(field, "the integer is not minimally encoded");
    }
    return bytes[0] === 0 ? bytes.subarray(1) : bytes;
  }

  /** Checks that nothing is left. */
  end(field: string): void {
    if (this.remaining !== 0) this.fail(field, `${this.remaining} bytes follow the last field`);
  }
}

/** A big-endian `uint32`. */
export function wireUint32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/** A length-prefixed string of bytes or UTF-8 text. */
export function wireString(value: Uint8Array | string): Uint8Array {
  const bytes = typeof value === "string" ? utf8(value) : value;
  return concatBytes([wireUint32(bytes.length), bytes]);
}

/** A non-negative `mpint` from its magnitude (leading zeros dropped, a sign byte added). */
export function wireMpint(magnitude: Uint8Array): Uint8Array {
  let start = 0;
  while (start < magnitude.length && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  return trimmed.length && trimmed[0]! & 0x80
    ? wireString(concatBytes([new Uint8Array(1), trimmed]))
    : wireString(trimmed);
}
