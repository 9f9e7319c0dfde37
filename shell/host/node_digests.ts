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
type NativeCrc32 = (data: Uint8Array, value?: number) => number;

const zlibCrc32: NativeCrc32 | undefined = (zlib as { crc32?: NativeCrc32 }).crc32;

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
export const nativeDigests: Digests = {
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
    return zlibCrc32 !== undefined ? zlibCrc32(data, previous) : portableCrc32(data, previous);
  },
};
