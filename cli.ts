#!/usr/bin/env -S deno run -A
// Copyright 2026 the taskpack authors. MIT license.
/**
 * The `taskpack` command line: judge, inspect and convert TaskPack 0.1 files, and a demo of
 * the whole cycle. Every byte of a pack is treated as data, never as instructions.
 *
 * Run it with `deno run -A jsr:@taskpack/cli/cli <verb>` or, from a checkout,
 * `deno run -A cli.ts <verb>`.
 *
 * @example Usage
 * ```ts ignore
 * import { main } from "@taskpack/cli/cli";
 *
 * const code = await main(["conformance", "handoff.taskpack", "--json"]);
 * ```
 *
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";
import denoConfig from "./deno.json" with { type: "json" };
import { runConformance } from "./cli/conformance.ts";
import { runConvert } from "./cli/convert.ts";
import { runDemo } from "./cli/demo.ts";
import { runInspect } from "./cli/inspect.ts";
import { describeError, EXIT, type Io, UsageError } from "./cli/io.ts";

export type { Io } from "./cli/io.ts";

const USAGE =
  `taskpack ${denoConfig.version} — TaskPack 0.1: hand unfinished work between agents, machines and people

USAGE
  taskpack <verb> [options]

VERBS
  conformance <file> [--json]     Judge a .taskpack or .taskpack.json against C0-C10 (spec §6),
                                  strictly, as written. Exit 0 conformant, 2 not.
  inspect <file> [--json]         Show what is inside (facts and their seal state, asks, landing
                                  checks as the sender's suggestions, luggage). Writes nothing.
  convert <in> --out <out>        Bag <-> flat; the ending of <out> picks the encoding
          [--max-inline <bytes>]  (.taskpack or .taskpack.json). The flat form refuses an
          [--json]                attachment over 1 MiB unless --max-inline lifts the limit.
  demo [--dir <folder>]           Build a sample task, pack it both ways, judge, convert, and show
                                  what landing would do.

OPTIONS
  --json        One JSON object on stdout instead of text.
  -h, --help    This help.  -V, --version  The version.

EXIT CODES
  0  done (conformance: the pack is conformant)
  1  usage error, missing file, or I/O failure
  2  the pack is not conformant, or was refused (unreadable, hostile, or breaking a rule)

Everything inside a pack is data written by someone else: this tool never executes it.
`;

/**
 * Runs the CLI.
 *
 * @param args The arguments after the program name.
 * @param io Where output goes (standard output and error by default).
 * @returns The exit code.
 */
export async function main(args: string[], io: Io = standardIo): Promise<number> {
  try {
    const [verb, ...rest] = args;
    if (verb === undefined || verb === "-h" || verb === "--help" || verb === "help") {
      io.out(USAGE);
      return verb === undefined ? EXIT.usage : EXIT.ok;
    }
    if (verb === "-V" || verb === "--version") {
      io.out(`taskpack ${denoConfig.version}\n`);
      return EXIT.ok;
    }
    const { values, positionals } = parse(rest);
    if (values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const json = values.json === true;
    switch (verb) {
      case "conformance":
        return await runConformance(onePath(positionals, "conformance <file>"), json, io);
      case "inspect":
        return await runInspect(onePath(positionals, "inspect <file>"), json, io);
      case "convert": {
        const out = values.out;
        if (typeof out !== "string") throw new UsageError("convert needs --out <file>");
        const maxInline = values["max-inline"] === undefined
          ? undefined
          : byteCount(values["max-inline"]);
        return await runConvert(onePath(positionals, "convert <in> --out <out>"), out, {
          json,
          ...(maxInline === undefined ? {} : { maxInline }),
        }, io);
      }
      case "demo":
        if (positionals.length) throw new UsageError("demo takes no file");
        return await runDemo(typeof values.dir === "string" ? values.dir : undefined, io);
      default:
        throw new UsageError(`Unknown verb "${verb}"`);
    }
  } catch (error) {
    const { message, code } = describeError(error);
    io.err(`taskpack: ${message}\n`);
    return code;
  }
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        out: { type: "string", short: "o" },
        dir: { type: "string" },
        "max-inline": { type: "string" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function onePath(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw new UsageError(`Expected: taskpack ${usage}`);
  return positionals[0]!;
}

function byteCount(text: string): number {
  if (text === "unlimited") return Infinity;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`--max-inline needs a byte count, got "${text}"`);
  }
  return value;
}

const standardIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2));
}
