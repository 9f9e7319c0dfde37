// Copyright 2026 the taskpack authors. MIT license.
/**
 * Writing a pack to a file in the encoding its name asks for, and `convert`: bag <-> flat, the
 * target chosen by the output name's ending (`.taskpack.json` flat, `.taskpack` bag). The input
 * is read leniently and goes through the same chokepoint as every new pack, so the output is
 * always conformant; any repair that took is reported.
 *
 * @module
 */
import {
  encodeBagInto,
  encodeFlat,
  land,
  type PreparedPack,
  preparePack,
  type Progress,
} from "../lib/format/mod.ts";
import { progressLine } from "../shell/host/progress.ts";
import { openFileSource, writeFileAtomic } from "../shell/host/files.ts";
import { type Deflater, SMALL_DEFLATE } from "../lib/zip/mod.ts";
import type { Digests } from "../lib/bytes/mod.ts";
import { type ClosableDeflater, codecsForPack, deflaterFor } from "./codecs.ts";
import { scanPool } from "../shell/workers/scan_pool.ts";
import { usage } from "./refusal.ts";
import type { ReaderSettings } from "./workplace.ts";

/** The encoding an output path asks for, from its ending. */
export function targetEncoding(path: string): "bag" | "flat" {
  if (path.endsWith(".taskpack.json")) return "flat";
  if (path.endsWith(".taskpack")) return "bag";
  throw usage(
    `Cannot tell the encoding from "${path}": end it in .taskpack or .taskpack.json`,
    path,
  );
}

/**
 * Writes a prepared pack to a file in the given encoding, atomically.
 *
 * @param pack The prepared pack.
 * @param path The output file.
 * @param options How to deflate and hash (see `codecs.ts`), the flat form's inline limit per
 * attachment, and a progress callback.
 * @returns The encoding written.
 */
export async function writePack(
  pack: PreparedPack,
  path: string,
  options: {
    deflater: Deflater;
    digests: Digests;
    maxInline?: number | undefined;
    onProgress?: (progress: Progress) => void;
  },
): Promise<"bag" | "flat"> {
  const { deflater, digests, maxInline } = options;
  const encoding = targetEncoding(path);
  if (encoding === "flat") {
    const text = await encodeFlat(
      pack,
      maxInline === undefined ? {} : { maxAttachmentBytes: maxInline },
    );
    await writeFileAtomic(path, text);
  } else {
    await writeFileAtomic(path, (write) =>
      encodeBagInto(pack, write, {
        digests,
        deflater,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      }));
  }
  return encoding;
}

/** What `convert` did. */
export interface Converted {
  /** Always true. */
  ok: true;
  /** The encoding read. */
  from: string;
  /** The encoding written. */
  to: "bag" | "flat";
  /** The file written. */
  out: string;
  /** The pack digest (the same for both encodings). */
  digest: string;
  /** What was repaired on the way. */
  repairs: { check: string; where: string; detail: string }[];
}

/**
 * `convert`: one file into the other encoding.
 *
 * @param work The workplace (limits, progress).
 * @param input The file to convert.
 * @param output The file to write; its ending picks the encoding.
 * @param maxInline The flat form's largest inline attachment, in bytes.
 * @returns What was written.
 */
export async function convertPack(
  work: ReaderSettings,
  input: string,
  output: string,
  maxInline?: number,
): Promise<Converted> {
  targetEncoding(output);
  const source = await openFileSource(input);
  const codecs = await codecsForPack(source);
  const digests = codecs.digests;
  let deflater: ClosableDeflater | null = null;
  const scans = scanPool();
  const checking = progressLine("checking", work.showProgress);
  const packing = progressLine("packing", work.showProgress);
  const writing = progressLine("writing", work.showProgress);
  try {
    const landed = await land(source, {
      ...codecs,
      limits: work.limits,
      onProgress: checking.update,
      scanner: scans.scanner,
    });
    checking.done();
    const bag = targetEncoding(output) === "bag";
    // Thousands of small files are deflated on another core, in batches (the same bytes).
    const smallFiles = landed.luggage.filter((file) => file.size <= SMALL_DEFLATE).length;
    deflater = await deflaterFor(source.size, smallFiles);
    const pack = await preparePack(landed.object, landed.luggage, {
      digests,
      onProgress: packing.update,
      scanner: scans.scanner,
      ...(bag ? { deflater } : {}),
    });
    packing.done();
    const encoding = await writePack(pack, output, {
      deflater,
      digests,
      maxInline,
      onProgress: writing.update,
    });
    writing.done();
    return {
      ok: true,
      from: landed.encoding,
      to: encoding,
      out: output,
      digest: pack.digest,
      repairs: [...landed.repairs, ...pack.repairs],
    };
  } finally {
    checking.done();
    packing.done();
    writing.done();
    deflater?.close();
    scans.close();
    await source.close();
  }
}
