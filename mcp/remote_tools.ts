// Copyright 2026 the taskpack authors. MIT license.
/**
 * The home's store tools over HTTP: the same verbs as the local tools, but no tool names a path
 * on the server's disk. `taskpack_pack` writes the pack to a private scratch file and gives its
 * bytes back (`pack_base64`); `taskpack_land` takes the bytes (`pack_base64` or `pack_text`) and
 * lands them from a scratch file. Luggage is never read from the server's disk.
 *
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { encodeBase64 } from "../lib/bytes/mod.ts";
import { detectEncoding } from "../lib/format/mod.ts";
import { packBytes } from "./direct_tools.ts";
import { LOCAL_TOOLS, tool, type ToolSpec } from "./tools.ts";

const { list, open, create, checkpoint, pack, land, answer } = LOCAL_TOOLS;

const remotePack = tool({
  ...pack,
  description: pack.description.replace(
    /The ending of out picks[^.]*\.[^.]*\.[^.]*\. files are luggage copied in \(files or folders\)\. /,
    "encoding picks the form: 'flat' (default) is one JSON file, readable with nothing " +
      "installed; 'bag' is a zip. The pack comes back in the reply as pack_base64 (nothing is " +
      "kept on the server); luggage cannot be added over this connection. ",
  ).replace(/ Writes out, replacing a file already there\.$/, ""),
  input: pack.input.omit({ out: true, files: true }).extend({
    encoding: z.enum(["flat", "bag"]).optional().describe(
      "flat (default): a .taskpack.json; bag: a .taskpack zip.",
    ),
  }),
  output: pack.output.omit({ pack: true }).extend({
    pack: z.string().describe("A file name for the pack."),
    pack_base64: z.string().describe("The pack's bytes, base64-encoded: save them as pack."),
  }),
  invocation: async (a, scratch) => {
    const name = `${a.id}${a.encoding === "bag" ? ".taskpack" : ".taskpack.json"}`;
    const { encoding: _, ...rest } = a;
    return await pack.invocation({ ...rest, out: await scratch.path(name) }, scratch);
  },
  after: async (result) => {
    const path = String(result.pack);
    const name = path.split(/[\\/]/).pop()!;
    return { ...result, pack: name, pack_base64: encodeBase64(await readFile(path)) };
  },
  summary: (r) => pack.summary(r).replace(/^Wrote /, "Packed "),
});

const remoteLand = tool({
  ...land,
  description: land.description.replace(
    /^Open a TaskPack file someone sent\./,
    "Open a TaskPack someone sent: its bytes go in the call (pack_base64, or pack_text for a " +
      ".taskpack.json).",
  ),
  input: land.input.omit({ path: true, files_out: true }).extend({
    pack_base64: z.string().optional().describe("The pack's bytes, base64-encoded."),
    pack_text: z.string().optional().describe("Or the pack as text (a .taskpack.json)."),
  }),
  invocation: async (a, scratch) => {
    const { pack_base64, pack_text, ...rest } = a;
    const bytes = packBytes({ pack_base64, pack_text });
    const bag = detectEncoding(bytes) === "bag";
    const path = await scratch.path(bag ? "received.taskpack" : "received.taskpack.json");
    await writeFile(path, bytes, { mode: 0o600 });
    return await land.invocation({ ...rest, path }, scratch);
  },
});

/**
 * The home's store tools: list, open, new, checkpoint, answer as on the command line, and pack
 * and land with the pack carried in the call.
 */
// deno-lint-ignore no-explicit-any -- each entry is checked against its own input schema
export const REMOTE_TOOLS: readonly ToolSpec<any>[] = [
  list,
  open,
  create,
  checkpoint,
  remotePack,
  remoteLand,
  answer,
];
