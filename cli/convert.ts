// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack convert <in> --out <out>`: bag <-> flat, the target chosen by the output name's
 * ending (`.taskpack.json` flat, `.taskpack` bag). The input is read leniently and goes
 * through the same chokepoint as every new pack, so the output is always conformant; any
 * repair that took is reported.
 *
 * @module
 */
import { land } from "../lib/land.ts";
import { encodeBagInto, encodeFlat, type PreparedPack, preparePack } from "../lib/pack.ts";
import type { Progress, ReadLimits } from "../lib/read.ts";
import { progressLine } from "../shell/progress.ts";
import { openFileSource, writeFileAtomic } from "../shell/files.ts";
import { nativeDigests } from "../shell/node_digests.ts";
import type { Deflater } from "../lib/deflate.ts";
import { deflatePool, inflaterOption } from "../shell/deflate_pool.ts";
import { scanPool } from "../shell/scan_pool.ts";
import { EXIT, type Io, UsageError } from "./io.ts";

/**
 * How every bag the CLI writes is deflated: `node:zlib` in 2 MiB blocks (see
 * `deflate_pool.ts`), here on the calling thread. Verbs that move much data pass a pool with
 * workers instead, which gives the very same bytes.
 */
const inlineDeflater: Deflater = deflatePool({ workers: 0 });

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
 * @param maxInline The flat form's inline limit per attachment.
 * @param options How to deflate (default: `node:zlib` blocks on this thread; a
 * `deflatePool()` gives the same bytes faster), and a progress callback.
 * @returns The encoding written.
 */
export async function writePack(
  pack: PreparedPack,
  path: string,
  maxInline?: number,
  options: { deflater?: Deflater; onProgress?: (progress: Progress) => void } = {},
): Promise<"bag" | "flat"> {
  const deflater = options.deflater ?? inlineDeflater;
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
        digests: nativeDigests,
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
  const deflater = deflatePool();
  const scans = scanPool();
  const checking = progressLine("checking", !options.json);
  const packing = progressLine("packing", !options.json);
  const writing = progressLine("writing", !options.json);
  try {
    const landed = await land(source, {
      digests: nativeDigests,
      limits: options.limits ?? {},
      onProgress: checking.update,
      scanner: scans.scanner,
      ...inflaterOption(),
    });
    checking.done();
    const bag = targetEncoding(output) === "bag";
    const pack = await preparePack(landed.object, landed.luggage, {
      digests: nativeDigests,
      onProgress: packing.update,
      scanner: scans.scanner,
      ...(bag ? { deflater } : {}),
    });
    packing.done();
    const encoding = await writePack(pack, output, options.maxInline, {
      deflater,
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
    deflater.close();
    scans.close();
    await source.close();
  }
}
