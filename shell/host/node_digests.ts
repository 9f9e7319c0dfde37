// Copyright 2026 the taskpack authors. MIT license.
/**
 * Native digests for shells on Deno, Node and Bun: SHA-256 from `node:crypto` and CRC-32 from
 * `node:zlib`, several times faster than the portable ones in the core. Pass
 * {@linkcode nativeDigests} wherever the core accepts a {@linkcode Digests}.
 *
 * Not part of the browser-compatible core: it imports `node:` modules.
 *
 * @module
 */
import { createHash } from "node:crypto";
import * as zlib from "node:zlib";
import { crc32 as portableCrc32, type Digests, type Sha256Hasher } from "../../lib/bytes/mod.ts";

export type { Digests, Sha256Hasher } from "../../lib/bytes/mod.ts";

/** `zlib.crc32(data, value)`, which Node added in 20.15 / 22.2; absent on older runtimes. */
export type NativeCrc32 = (data: Uint8Array, value?: number) => number;

const zlibCrc32: NativeCrc32 | undefined = (zlib as { crc32?: NativeCrc32 }).crc32;

/**
 * Digests over a runtime's CRC-32 (`crc32`, or the portable one when it is undefined) and
 * `node:crypto`'s SHA-256. An empty chunk leaves a running CRC-32 as it is without asking
 * `crc32`: some builds of Node 20 return 0 for an empty view with a starting value, which
 * would restart the running value.
 *
 * @param crc32 The runtime's `zlib.crc32`, or undefined.
 * @returns The digests.
 *
 * @example Usage
 * ```ts
 * import { digestsOver } from "./node_digests.ts";
 * import assert from "node:assert/strict";
 *
 * const zeroOnEmpty = (data: Uint8Array, value = 0) => (data.length === 0 ? 0 : value + 1);
 * assert.equal(digestsOver(zeroOnEmpty).crc32(new Uint8Array(0), 0x1234), 0x1234);
 * ```
 */
export function digestsOver(crc32: NativeCrc32 | undefined): Digests {
  return {
    sha256(): Sha256Hasher {
      const hash = createHash("sha256");
      return {
        update(data: Uint8Array): void {
          hash.update(data);
        },
        digestHex(): string {
          return hash.digest("hex");
        },
      };
    },
    crc32(data: Uint8Array, previous = 0): number {
      if (data.length === 0) return previous >>> 0;
      return crc32 !== undefined ? crc32(data, previous) : portableCrc32(data, previous);
    },
  };
}

/**
 * Digests backed by the runtime: a streaming `createHash("sha256")` and `zlib.crc32` (or the
 * portable CRC-32 when the runtime's `node:zlib` has none).
 *
 * @example Usage
 * ```ts
 * import { nativeDigests } from "./node_digests.ts";
 * import assert from "node:assert/strict";
 *
 * const hasher = nativeDigests.sha256();
 * hasher.update(new TextEncoder().encode("a"));
 * hasher.update(new TextEncoder().encode("bc"));
 * assert.equal(
 *   hasher.digestHex(),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * const crc = nativeDigests.crc32(new TextEncoder().encode("hel"));
 * assert.equal(nativeDigests.crc32(new TextEncoder().encode("lo"), crc), 0x3610a686);
 * ```
 */
export const nativeDigests: Digests = digestsOver(zlibCrc32);
