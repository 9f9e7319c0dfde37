// Copyright 2026 the taskpack authors. MIT license.
/**
 * The digests and codecs a command uses, chosen by how much it has to handle. The native ones
 * (SHA-256 from `node:crypto`, DEFLATE in worker threads over `node:zlib`, a strict streaming
 * inflater) are several times faster on large data, but on Deno loading them loads its Node
 * layer, about 0.05 s: a third of a small command. Below {@linkcode NATIVE_BYTES} the core's
 * portable ones run instead, and they are quicker for that little data.
 *
 * @module
 */
import { type Deflater, type Inflater, platformDeflater, zipEntryCount } from "../lib/zip/mod.ts";
import { type ByteSource, type Digests, portableDigests } from "../lib/bytes/mod.ts";

/** Work of this many bytes or more loads the native digests and codecs. */
export const NATIVE_BYTES = 8 << 20;

/** A deflater to close when the command is done (a pool's workers keep a process alive). */
export interface ClosableDeflater extends Deflater {
  close(): void;
}

/**
 * The digests for work of `bytes` bytes in `files` files.
 *
 * @param bytes How many bytes will be hashed, about.
 * @param files How many files (or entries) they are in: for thousands of small ones the native
 * SHA-256 pays for its loading too (about 2.5 µs per 1 KiB file instead of 6.5).
 * @returns Portable digests for little, native ones for more.
 */
export async function digestsFor(bytes: number, files = 0): Promise<Digests> {
  if (!wantsNative(bytes, files)) return portableDigests;
  return (await import("../shell/host/node_digests.ts")).nativeDigests;
}

/** Whether work of `bytes` bytes in `files` files pays for loading the native codecs. */
function wantsNative(bytes: number, files: number): boolean {
  return bytes >= NATIVE_BYTES || files >= MANY_SMALL_FILES;
}

/**
 * The digests for reading the pack in `source`: by its size and, for a ZIP of thousands of
 * entries of half a KiB or more each (on average), by their number. For tiny entries the
 * portable SHA-256 is as quick as a native call.
 *
 * @param source The pack.
 * @returns The digests.
 */
export async function digestsForPack(source: ByteSource): Promise<Digests> {
  return digestsFor(source.size, await filesOfPack(source));
}

/** The entries of the ZIP in `source` that count for the codecs: none when they are tiny. */
async function filesOfPack(source: ByteSource): Promise<number> {
  const entries = await zipEntryCount(source) ?? 0;
  return source.size >= entries * 512 ? entries : 0;
}

/**
 * Small entries from this many on are deflated on another core, in batches: below it, the
 * worker's start (a few hundredths of a second) costs more than it saves (about 25 µs each).
 */
export const MANY_SMALL_FILES = 4096;

/**
 * The deflater for packing `bytes` bytes: the worker pool for much, else the platform's; in
 * front of either, batches on another core when there are many small files.
 *
 * @param bytes How many bytes will be deflated, about.
 * @param smallFiles How many of them are small files (up to 16 KiB).
 * @returns The deflater; close it when done.
 */
export async function deflaterFor(bytes: number, smallFiles = 0): Promise<ClosableDeflater> {
  const inner: ClosableDeflater = bytes < NATIVE_BYTES
    ? { ...platformDeflater, close() {} }
    : (await import("../shell/workers/deflate_pool.ts")).deflatePool();
  if (smallFiles < MANY_SMALL_FILES) return inner;
  return (await import("../shell/workers/batch_deflater.ts")).batchDeflater(inner);
}

/**
 * The digests and the inflater option of `judge`, `land` and `decodePack` for the pack in
 * `source`: native ones for a large pack or one of thousands of files (see
 * {@linkcode digestsForPack}), else the core's own. For thousands of files the native inflater
 * costs little to load (the native digests load `node:zlib` too) and inflates their 1 MiB
 * manifest in one go rather than in the core's steps (about 25 ms for 10,000 files); their
 * small files are inflated by the core's either way.
 *
 * @param source The pack.
 * @returns `{ digests, inflater }` or `{ digests }`, to spread into the options.
 */
export async function codecsForPack(
  source: ByteSource,
): Promise<{ digests: Digests; inflater?: Inflater }> {
  const files = await filesOfPack(source);
  const digests = await digestsFor(source.size, files);
  if (!wantsNative(source.size, files)) return { digests };
  return { digests, ...(await import("../shell/host/native_inflater.ts")).inflaterOption() };
}
