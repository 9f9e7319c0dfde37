// Copyright 2026 the taskpack authors. MIT license.
/**
 * The home's store tools over HTTP: the same operations as the local tools, but no tool names a
 * path on the server's disk. `taskpack_pack` packs into a private temporary file and gives its
 * bytes back (`pack_base64`); `taskpack_land` lands the bytes carried in the call (`pack_base64`
 * or `pack_text`) under the server's receive policy (its size, the inflated bounds relative to
 * it, the work budget), checked before anything is inflated or written: a pack past it is
 * refused naming the bound (`maxRatio`, `maxWorkMs`...). Luggage is never read from the
 * server's disk.
 *
 * @module
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import {
  type Landed,
  landPack,
  type LandRequest,
  OperationError,
  packPassport,
  type Workplace,
} from "../app/mod.ts";
import type { McpSettings } from "./settings.ts";
import {
  DEFAULT_REQUEST_BOUNDS,
  receiveInline,
  type Refusal,
} from "../shell/http/request_bounds.ts";
import { encodeBase64 } from "../lib/bytes/mod.ts";
import { packBytes } from "./direct_tools.ts";
import { LOCAL_TOOLS, packRequest, tool, type ToolSpec } from "./tools.ts";

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
    signature_text: z.string().optional(),
  }),
  run: async (a, work) => {
    const name = `${a.id}${a.encoding === "bag" ? ".taskpack" : ".taskpack.json"}`;
    const dir = await mkdtemp(join(tmpdir(), "taskpack-home-"));
    try {
      const out = join(dir, name);
      const reply = await packPassport(work, {
        ...packRequest(a, work),
        out,
        sentTo: `${name}, returned over the home's MCP`,
      });
      const { signature, ...rest } = reply;
      return {
        ...rest,
        pack: name,
        pack_base64: encodeBase64(await readFile(out)),
        ...(signature ? { signature_text: await readFile(signature, "utf8") } : {}),
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
    signature: z.string().optional().describe("Its .sig text."),
  }),
  run: (a, work, settings) =>
    landInline(settings, packBytes({ pack_base64: a.pack_base64, pack_text: a.pack_text }), {
      ...(a.signature === undefined ? {} : { signature: a.signature }),
      into: a.into,
      dryRun: a.dry_run,
      renameUnportable: a.rename_unportable,
      again: a.again,
    }, work),
});

/** The receive policy's refusal as the operation's: one sentence naming the bound. */
function refusedPack(refusal: Refusal): OperationError {
  // The bound rides along, so an HTTP door can answer with the judge's own refusal.
  return Object.assign(
    new OperationError("refused", refusal.limit, refusal.error, "the pack sent"),
    { refusal },
  );
}

/**
 * Lands a pack that came as bytes (an MCP call, the home's `POST /p`) under the server's receive
 * policy, sized to the pack, before anything is inflated or written, within the work budget.
 *
 * @param settings The server's workplace and bounds.
 * @param bytes The pack.
 * @param request What else the landing takes (a signature, into, dry run ...).
 * @param work The workplace (default: the server's).
 * @returns The landing's reply.
 */
export async function landInline(
  settings: McpSettings,
  bytes: Uint8Array,
  request: Omit<LandRequest, "pack">,
  work: Workplace = settings.workplace,
): Promise<Landed> {
  const received = receiveInline(bytes, settings.bounds ?? DEFAULT_REQUEST_BOUNDS);
  if ("status" in received) throw refusedPack(received);
  try {
    const landed = await landPack({ ...work, limits: received.limits }, {
      ...request,
      // Every read of the pack checks the work budget first.
      pack: { bytes: received.budget.bytes(bytes), name: "the pack sent" },
    });
    if (received.budget.exceeded) throw refusedPack(received.budget.refusal());
    return landed;
  } catch (error) {
    const refusal = received.refusalFor(error) ?? refusalIn(error, received.refusalFor);
    if (refusal) throw refusedPack(refusal);
    throw error;
  }
}

/** The refusal behind an operation's error, when what it wraps is a bound. */
function refusalIn(
  error: unknown,
  refusalFor: (error: unknown) => Refusal | null,
): Refusal | null {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause ? refusalFor(cause) : null;
}

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
