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
import { encodeBag, encodeFlat, type PreparedPack, preparePack } from "../lib/pack.ts";
import { openFileSource, writeFileAtomic } from "../shell/files.ts";
import { nativeDigests } from "../shell/node_digests.ts";
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
 * @param maxInline The flat form's inline limit per attachment.
 * @returns The encoding written.
 */
export async function writePack(
  pack: PreparedPack,
  path: string,
  maxInline?: number,
): Promise<"bag" | "flat"> {
  const encoding = targetEncoding(path);
  if (encoding === "flat") {
    const text = await encodeFlat(
      pack,
      maxInline === undefined ? {} : { maxAttachmentBytes: maxInline },
    );
    await writeFileAtomic(path, text);
  } else {
    await writeFileAtomic(path, encodeBag(pack, { digests: nativeDigests }));
  }
  return encoding;
}

/**
 * Converts one file into the other encoding.
 *
 * @param input The file to convert.
 * @param output The file to write.
 * @param options `json` output, and the flat form's inline limit.
 * @param io Output.
 * @returns The exit code.
 */
export async function runConvert(
  input: string,
  output: string,
  options: { json: boolean; maxInline?: number },
  io: Io,
): Promise<number> {
  targetEncoding(output);
  const source = await openFileSource(input);
  try {
    const landed = await land(source, { digests: nativeDigests });
    const pack = await preparePack(landed.object, landed.luggage, { digests: nativeDigests });
    const encoding = await writePack(pack, output, options.maxInline);
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
    await source.close();
  }
}
