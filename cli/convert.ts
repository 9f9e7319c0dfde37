// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack convert <in> --out <out>`: the command line over `convertPack` (`app/convert.ts`):
 * bag <-> flat, the target chosen by the output name's ending; repairs reported.
 *
 * @module
 */
import type { ReadLimits } from "../lib/format/mod.ts";
import { convertPack } from "../app/mod.ts";
import { EXIT, type Io } from "./io.ts";

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
  const converted = await convertPack(
    { limits: options.limits ?? {}, showProgress: !options.json },
    input,
    output,
    options.maxInline,
  );
  if (options.json) {
    io.out(JSON.stringify(converted, null, 2) + "\n");
    return EXIT.ok;
  }
  for (const repair of converted.repairs) {
    io.err(`repaired (${repair.check}) ${repair.where}: ${repair.detail}\n`);
  }
  io.out(
    `wrote ${output} (${converted.from} -> ${converted.to}), pack digest sha256:${converted.digest}\n`,
  );
  return EXIT.ok;
}
