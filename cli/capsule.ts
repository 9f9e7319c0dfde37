// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack capsule <check|to-pack|from-pack>`: the Resumable Handoff Capsule 1.0.0, next to
 * TaskPack.
 *
 * - `check <file|->` validates a capsule exactly to its contract. It prints the contract's
 *   envelope on stdout: `{"ok": true, "result": ...}` with exit 0, or
 *   `{"ok": false, "error": "..."}` with exit 1.
 * - `to-pack <capsule|-> --out <file>` writes the capsule as a new pack. The ending of `<file>`
 *   picks the encoding. The pack goes through the same chokepoint as every pack, so its facts
 *   arrive sealed unless `--fact-scope` vouches for them.
 * - `from-pack <pack>` prints the capsule a pack maps to on stdout, and on stderr what the pack
 *   held that a capsule cannot.
 *
 * The mapping is in `lib/capsule/map.ts` and `docs/capsule.md`.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import process from "node:process";
import { buffer } from "node:stream/consumers";
import {
  CapsuleError,
  type CapsuleFactScope,
  type CapsuleResult,
  capsuleToPack,
  capsuleWarnings,
  packToCapsule,
  parseCapsuleBytes,
} from "../lib/capsule/mod.ts";
import { isPassportId, land, mintPassportId, preparePack } from "../lib/format/mod.ts";
import { openFileSource } from "../shell/host/files.ts";
import { deflaterFor, digestsFor, digestsForPack, targetEncoding, writePack } from "../app/mod.ts";
import { parseCommandLine } from "./args.ts";
import { hostName } from "../shell/host/host_process.ts";
import { describeError, EXIT, type Io, UsageError } from "./io.ts";

/** The help text of `taskpack capsule`. */
export const CAPSULE_USAGE =
  `taskpack capsule — the Resumable Handoff Capsule 1.0.0, next to TaskPack

USAGE
  taskpack capsule check <file|->            Validate a capsule exactly to its contract; print
                                             {"ok": true, "result": ...} (exit 0) or
                                             {"ok": false, "error": "..."} (exit 1).
  taskpack capsule to-pack <file|-> --out <out>
          [--machine <name>] [--actor <name>] Write the capsule as a new pack; the ending of
          [--id <TP-XXXX-XXXX>]               <out> (.taskpack or .taskpack.json) picks the
          [--fact-scope universal|org|machine] encoding. Facts arrive sealed (unverified)
          [--json]                            unless --fact-scope universal or org vouches
                                             for them.
  taskpack capsule from-pack <pack> [--json] Print the capsule a pack maps to (stdout) and what
                                             the pack held that a capsule cannot (stderr).

"-" reads the capsule from standard input. The mapping is documented in docs/capsule.md.
`;

/** Options for {@linkcode runCapsule}. */
export interface CapsuleCliOptions {
  /** Reads all of standard input (default: the process's). */
  stdin?: () => Promise<Uint8Array>;
}

/**
 * Runs `taskpack capsule <check|to-pack|from-pack> ...`.
 *
 * @param args The arguments after `capsule`.
 * @param io Where output goes.
 * @param options Where standard input comes from.
 * @returns The exit code: 0 done; 1 an invalid capsule, a usage error or an I/O failure; 2 a
 * pack that cannot be read or cannot become a capsule, or a capsule the writer refuses.
 * @throws {UsageError} When the command is called wrongly; other errors of `to-pack` and
 * `from-pack` propagate to the caller, which prints them as one sentence.
 */
export async function runCapsule(
  args: string[],
  io: Io,
  options: CapsuleCliOptions = {},
): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === undefined || verb === "-h" || verb === "--help" || verb === "help") {
    io.out(CAPSULE_USAGE);
    return verb === undefined ? EXIT.usage : EXIT.ok;
  }
  const { values, positionals } = parse(rest);
  if (values.help) {
    io.out(CAPSULE_USAGE);
    return EXIT.ok;
  }
  const stdin = options.stdin ?? readStdin;
  const json = values.json === true;
  switch (verb) {
    case "check": {
      allowOnly(values, ["json"], "check");
      return await check(onePath(positionals, "check <file|->"), stdin, io);
    }
    case "to-pack": {
      allowOnly(values, ["json", "out", "machine", "actor", "id", "fact-scope"], "to-pack");
      const input = onePath(positionals, "to-pack <capsule> --out <file>");
      if (typeof values.out !== "string") {
        throw new UsageError("capsule to-pack needs --out <file>");
      }
      targetEncoding(values.out);
      if (values.id !== undefined && !isPassportId(values.id)) {
        throw new UsageError(`--id needs a passport id (TP-XXXX-XXXX), got "${values.id}"`);
      }
      const scope = values["fact-scope"];
      if (scope !== undefined && scope !== "universal" && scope !== "org" && scope !== "machine") {
        throw new UsageError(`--fact-scope is universal, org or machine, not "${scope}"`);
      }
      return await toPack(
        input,
        values.out,
        {
          json,
          ...(values.machine === undefined ? {} : { machine: values.machine }),
          ...(values.actor === undefined ? {} : { actor: values.actor }),
          ...(values.id === undefined ? {} : { id: values.id }),
          ...(scope === undefined ? {} : { factScope: scope }),
        },
        stdin,
        io,
      );
    }
    case "from-pack": {
      allowOnly(values, ["json"], "from-pack");
      return await fromPack(onePath(positionals, "from-pack <pack>"), json, io);
    }
    default:
      throw new UsageError(`Unknown capsule command "${verb}" (check, to-pack or from-pack)`);
  }
}

/** `check`: every failure, even a missing file, is the contract's envelope on stdout. */
async function check(
  path: string,
  stdin: () => Promise<Uint8Array>,
  io: Io,
): Promise<number> {
  try {
    const result = await readCapsule(path, stdin);
    const warnings = capsuleWarnings(result);
    io.out(
      JSON.stringify({ ok: true, result, ...(warnings.length ? { warnings } : {}) }, null, 2) +
        "\n",
    );
    return EXIT.ok;
  } catch (error) {
    io.out(JSON.stringify({ ok: false, error: describeError(error).message }, null, 2) + "\n");
    return EXIT.usage;
  }
}

interface ToPackOptions {
  json: boolean;
  machine?: string;
  actor?: string;
  id?: string;
  factScope?: CapsuleFactScope;
}

async function toPack(
  input: string,
  output: string,
  options: ToPackOptions,
  stdin: () => Promise<Uint8Array>,
  io: Io,
): Promise<number> {
  const capsule = await readCapsule(input, stdin);
  const id = options.id ?? mintPassportId((n) => crypto.getRandomValues(new Uint8Array(n)));
  const object = capsuleToPack(capsule, {
    id,
    packedAt: new Date(),
    machine: options.machine ?? hostName(),
    ...(options.actor === undefined ? {} : { actor: options.actor }),
    ...(options.factScope === undefined ? {} : { factScope: options.factScope }),
  });
  // A capsule carries no luggage: a pack of it is small.
  const digests = await digestsFor(0);
  const pack = await preparePack(object, [], { digests });
  const encoding = await writePack(pack, output, {
    digests,
    deflater: await deflaterFor(0),
  });
  const facts = pack.object.passport.facts ?? [];
  const sealed = facts.filter((fact) => fact.needs_reverify === true).length;
  if (options.json) {
    io.out(
      JSON.stringify(
        {
          ok: true,
          out: output,
          encoding,
          task_id: capsule.task_id,
          passport_id: id,
          digest: pack.digest,
          facts: facts.length,
          sealed_facts: sealed,
          work: capsule.work.length,
          open_ids: capsule.open_ids,
        },
        null,
        2,
      ) + "\n",
    );
  } else {
    io.out(
      `wrote ${output} (${encoding}) from capsule ${JSON.stringify(capsule.task_id)}\n` +
        `  passport ${id}, packed on ${pack.object.origin.machine}\n` +
        `  ${
          plural(facts.length, "fact")
        }, ${sealed} sealed (to be re-verified by the receiver)\n` +
        `  ${plural(capsule.work.length, "work item")}, ${capsule.open_ids.length} open\n` +
        `  pack digest sha256:${pack.digest}\n`,
    );
  }
  return EXIT.ok;
}

async function fromPack(path: string, json: boolean, io: Io): Promise<number> {
  const source = await openFileSource(path);
  try {
    const landed = await land(source, { digests: await digestsForPack(source) });
    let mapped;
    try {
      mapped = packToCapsule(landed.object, { luggage: landed.luggage.map((file) => file.name) });
    } catch (error) {
      if (!(error instanceof CapsuleError)) throw error;
      io.err(`taskpack: ${error.message}\n`);
      return EXIT.refused;
    }
    if (json) {
      io.out(
        JSON.stringify(
          { ok: true, result: mapped.capsule, left_out: mapped.leftOut, repairs: landed.repairs },
          null,
          2,
        ) + "\n",
      );
    } else {
      io.out(JSON.stringify(mapped.capsule, null, 2) + "\n");
      for (const repair of landed.repairs) {
        io.err(`repaired (${repair.check}) ${repair.where}: ${repair.detail}\n`);
      }
      for (const item of mapped.leftOut) io.err(`left out: ${item}\n`);
    }
    return EXIT.ok;
  } finally {
    await source.close();
  }
}

/** Reads a capsule file, or standard input for `-`, and parses it strictly. */
async function readCapsule(
  path: string,
  stdin: () => Promise<Uint8Array>,
): Promise<CapsuleResult> {
  return parseCapsuleBytes(path === "-" ? await stdin() : await readFile(path));
}

async function readStdin(): Promise<Uint8Array> {
  return new Uint8Array(await buffer(process.stdin));
}

function parse(args: string[]) {
  try {
    return parseCommandLine(args, {
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      out: { type: "string", short: "o" },
      machine: { type: "string" },
      actor: { type: "string" },
      id: { type: "string" },
      "fact-scope": { type: "string" },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function allowOnly(values: Record<string, unknown>, allowed: string[], verb: string): void {
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && key !== "help" && !allowed.includes(key)) {
      throw new UsageError(`capsule ${verb} does not take --${key}`);
    }
  }
}

function onePath(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw new UsageError(`Expected: taskpack capsule ${usage}`);
  return positionals[0]!;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
