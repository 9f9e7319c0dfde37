// Copyright 2026 the taskpack authors. MIT license.
/**
 * How a pack reaches an operation: a file on this machine, or bytes that came in a request; the
 * source the reader reads it through, and the name sentences call it by.
 *
 * @module
 */
import { type ByteSource, bytesSource } from "../lib/bytes/mod.ts";
import { openFileSource } from "../shell/host/files.ts";

/** A pack to read: a file on this machine, or bytes that came in a request. */
export type PackInput = { path: string } | { bytes: Uint8Array; name?: string };

/** A pack's bytes as the reader reads them; a file's is closed when done. */
export type PackSource = ByteSource & { close?: () => Promise<void> };

/**
 * Opens a pack for reading.
 *
 * @param pack The pack.
 * @returns Its source (close it when done).
 */
export async function openPackInput(pack: PackInput): Promise<PackSource> {
  return "path" in pack ? await openFileSource(pack.path) : bytesSource(pack.bytes);
}

/**
 * The name a pack is called by in sentences.
 *
 * @param pack The pack.
 * @returns Its path, or the name it came with.
 */
export function packInputName(pack: PackInput): string {
  return "path" in pack ? pack.path : pack.name ?? "the pack";
}
