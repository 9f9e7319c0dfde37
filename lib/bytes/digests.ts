// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Hashing and CRC-32, injectable. The core defaults to portable code that runs anywhere;
 * a shell on Deno, Node or Bun passes native, streaming implementations that are several
 * times faster (see `node_digests.ts`).
 *
 * @module
 */
import { Sha256 } from "./sha256.ts";
import { crc32 } from "./crc32.ts";

/** An incremental SHA-256. */
export interface Sha256Hasher {
  /** Feeds more bytes. */
  update(data: Uint8Array): void;
  /** Finishes and returns the lower-case hex digest. */
  digestHex(): string;
}

/** The hash functions the core uses, so a shell can pass native ones. */
export interface Digests {
  /** Starts a new incremental SHA-256. */
  sha256(): Sha256Hasher;
  /**
   * CRC-32 (ISO-HDLC, as ZIP uses it) of `data`, continuing from `previous`.
   *
   * @param data The bytes.
   * @param previous The CRC of the bytes before `data` (0 to start).
   */
  crc32(data: Uint8Array, previous?: number): number;
}

/**
 * Portable digests: a pure TypeScript SHA-256 and a table CRC-32. Used when the caller
 * passes none.
 *
 * @example Usage
 * ```ts
 * import { portableDigests } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const hasher = portableDigests.sha256();
 * hasher.update(new TextEncoder().encode("abc"));
 * assertEquals(
 *   hasher.digestHex(),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * assertEquals(portableDigests.crc32(new TextEncoder().encode("hello")), 0x3610a686);
 * ```
 */
export const portableDigests: Digests = {
  sha256(): Sha256Hasher {
    return new Sha256();
  },
  crc32(data: Uint8Array, previous = 0): number {
    return crc32(data, previous);
  },
};

/**
 * SHA-256 of one byte array, as lower-case hex.
 *
 * @param digests Which implementation to use.
 * @param data The bytes.
 * @returns The hex digest.
 *
 * @example Usage
 * ```ts
 * import { portableDigests, sha256Hex } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(
 *   sha256Hex(portableDigests, new Uint8Array()),
 *   "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
 * );
 * ```
 */
export function sha256Hex(digests: Digests, data: Uint8Array): string {
  const hasher = digests.sha256();
  hasher.update(data);
  return hasher.digestHex();
}
