// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack convert <in> --out <out>`: bag <-> flat, the target chosen by the output name's
 * ending (`.taskpack.json` flat, `.taskpack` bag). The input is read leniently and goes
 * through the same chokepoint as every new pack, so the output is always conformant; any
 * repair that took is reported.
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
  type ReadLimits,
} from "../lib/format/mod.ts";
import { progressLine } from "../shell/host/progress.ts";
import { openFileSource, writeFileAtomic } from "../shell/host/files.ts";
import { type Deflater, SMALL_DEFLATE } from "../lib/zip/mod.ts";
import type { Digests } from "../lib/bytes/mod.ts";
import { type ClosableDeflater, codecsForPack, deflaterFor } from "./codecs.ts";
import { scanPool } from "../shell/workers/scan_pool.ts";
import { EXIT, type Io, UsageError } from "./io.ts";

/** The encoding an output path asks for, from its ending. */
export function targetEncoding(path: string): "bag" | "flat" {
  if (path.endsWith(".taskpack.json")) return "flat";
  if (path.endsWith(".taskpack")) return "bag";
  throw new UsageError(
    `Cannot tell the encoding from "${path}": end it in .taskpack or .taskpack.json`,
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

/**
 * Converts one file into the other encoding.
 *
 * @param input The file to convert.
 * @param output The file to write.
 * @param options `json` output, the flat form's inline limit, and reader limits (`--limit`).
 * @param io Output.
 * @returns The exit code.
 */
export async function runConvert(
  input: string,
  output: string,
  options: { json: boolean; maxInline?: number; limits?: Partial<ReadLimits> },
  io: Io,
): Promise<number> {
  targetEncoding(output);
  const source = await openFileSource(input);
  const codecs = await codecsForPack(source);
  const digests = codecs.digests;
  let deflater: ClosableDeflater | null = null;
  const scans = scanPool();
  const checking = progressLine("checking", !options.json);
  const packing = progressLine("packing", !options.json);
  const writing = progressLine("writing", !options.json);
  try {
    const landed = await land(source, {
      ...codecs,
      limits: options.limits ?? {},
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
      maxInline: options.maxInline,
      onProgress: writing.update,
    });
    writing.done();
    const repairs = [...landed.repairs, ...pack.repairs];
    if (options.json) {
      io.out(
        JSON.stringify(
          {
            ok: true,
            from: landed.encoding,
            to: encoding,
            out: output,
            digest: pack.digest,
            repairs,
          },
          null,
          2,
        ) + "\n",
      );
    } else {
      for (const repair of repairs) {
        io.err(`repaired (${repair.check}) ${repair.where}: ${repair.detail}\n`);
      }
      io.out(
        `wrote ${output} (${landed.encoding} -> ${encoding}), pack digest sha256:${pack.digest}\n`,
      );
    }
    return EXIT.ok;
  } finally {
    checking.done();
    packing.done();
    writing.done();
    deflater?.close();
    scans.close();
    await source.close();
  }
}
