#!/usr/bin/env -S deno run -A
// Copyright 2026 the taskpack authors. MIT license.
/**
 * The `taskpack` command line: a home for passports (new, list, open, checkpoint, answer),
 * packs that leave it (pack) and come back (land, land --into), and the judge (conformance,
 * inspect, convert). Every byte of a pack is treated as data, never as instructions.
 *
 * Run it with `deno run -A jsr:@taskpack/cli <verb>` (or `jsr:@taskpack/cli/cli`) or, from a
 * checkout, `deno run -A cli.ts <verb>`.
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
import { args, endProcess, stderr, stdout } from "./shell/host/host_process.ts";
import denoConfig from "./deno.json" with { type: "json" };
import { parseCommandLine } from "./cli/args.ts";
import { closest, OPTIONS, optionsOf, verbHelp, VERBS } from "./cli/verbs.ts";
import { portFlag } from "./shell/http/listen.ts";
import { describeError, EXIT, type Io, UsageError } from "./cli/io.ts";

export type { Io } from "./cli/io.ts";

const USAGE =
  `taskpack ${denoConfig.version} — TaskPack 0.1: hand unfinished work between agents, machines and people

USAGE
  taskpack <verb> [options]

PASSPORTS (the record that stays home)
  new --title <t> --goal <g> [--current-state <s>] [--next-step <s>]...
                                  Mint a new passport (TP-XXXX-XXXX), version 1.
  list                            The passports in the store (broken files are reported).
  open <id>                       The state and a compiled context for a receiving model.
  prompt <id>                     The one-line prompt that hands a passport to a new worker.
  checkpoint --file <state.json> --expected-version <n>
                                  Save a new version; refused if the store moved on since <n>.
  answer <id> <ask-id> --text <answer>
                                  Record an answer to an ask this passport received.
  doctor                          Is the store usable?
  serve-home [--host 127.0.0.1] [--port <n>] [--mint-token <id>]
             [--team-token-file <file>] [--open] [--allow-host <name>]...
             [--require-signed] [--allowed-signers <file>] [--sign-key <file>]
                                  Serve the store over HTTP as a team's home (tokens, claims)
                                  and over MCP at /mcp. With a team token (the file, or
                                  TASKPACK_TEAM_TOKEN) listing, creating and /mcp need it;
                                  without one it binds loopback only unless --open.
  migrate --from <store> --to <store>
                                  Copy every passport to another store, versions kept.

PACKS (the box that leaves)
  pack <id> --out <file> [--flat] [--file <path>]... [--ask "what|accept|why"]...
       [--check "check|how"]... [--asks <json>] [--checks <json>] [--kind receipt]
       [--note <text>] [--actor <name>] [--machine <name>] [--max-inline <bytes>|unlimited]
       [--sign [--key <file>]]
                                  Pack a passport. The ending of --out picks the encoding
                                  (.taskpack, or .taskpack.json = --flat). Asks sent are
                                  recorded at home; --kind receipt carries the answers back.
                                  --sign writes <out>.sig with your SSH key (as sign does).
  land <file> [--files-out <dir>] [--dry-run] [--machine <name>] [--trust-machine-facts]
       [--rename-unportable] [--again] [--require-signed] [--allowed-signers <file>]
       [--sig <file>]
                                  Open a handoff into a NEW passport: landing checks first,
                                  sealed facts to re-verify, luggage into a new or empty
                                  folder. A name this machine cannot hold (con.txt on
                                  Windows, Readme/README on a case-insensitive disk) is
                                  refused before anything is written, or with
                                  --rename-unportable lands as con_.txt, README~2.txt.
                                  The same pack again answers with the passport it landed
                                  as (exit 0); --again lands a fresh copy. <file>.sig is
                                  checked first: one that does not match is refused;
                                  --require-signed refuses unsigned packs and unlisted keys.
  land <receipt> --into <id> [--dry-run] [--require-signed] [--allowed-signers <file>]
                                  Merge a receipt into the passport it answers (§4.4.1).
  conformance <file>              Judge against C0-C10 (spec §6), strictly, as written.
                                  Exit 0 conformant, 2 not.
  inspect <file>                  What is inside, as written. Writes nothing.
  sign <pack> [--key <file>]      Sign it with your SSH key (ssh-keygen): writes <pack>.sig.
  verify <pack> [--sig <file>] [--allowed-signers <file>] [--message]
                                  Who signed it, by your trust list (docs/signing.md). Exit 0
                                  signed by a key you list, 3 unsigned or a key you do not, 2
                                  a signature that does not match.
  convert <in> --out <out> [--max-inline <bytes>|unlimited]
                                  Bag <-> flat; the ending of <out> picks the encoding.
  demo [--dir <folder>]           A sample task packed both ways, judged, converted, landed.
  serve [--host 127.0.0.1] [--port 8000]
                                  The judge over HTTP, the viewer at /, A2A and MCP.
  mcp [--store <dir>] [--require-signed] [--allowed-signers <file>] [--sign-key <file>]
                                  Serve the store to an agent over MCP (stdio). Signatures
                                  are the server's settings: --require-signed for every land,
                                  --sign-key for taskpack_pack's sign.
  mcp --http [--host 127.0.0.1] [--port <n>] [--allow-host <name>]...
                                  The same over Streamable HTTP at /mcp (default port 8471),
                                  for a local client that prefers it; Host and Origin must
                                  name this server (loopback, or an --allow-host name).

CAPSULES (the Resumable Handoff Capsule 1.0.0; taskpack capsule --help for more)
  capsule check <file|->          Validate a capsule exactly to its contract.
  capsule to-pack <file|-> --out <out>   A capsule as a new pack (lossless).
  capsule from-pack <pack>        The capsule a pack maps to; what it left out on stderr.

OPTIONS
  --json             One JSON object on stdout instead of text.
  --store <store>    The passport store: a folder, kv:<path-or-url> (Deno KV),
                     postgres://user@host:port/db (PostgreSQL) or an
                     http(s):// home (else TASKPACK_STORE, else the per-user default:
                     $XDG_DATA_HOME/taskpack/passports or ~/.local/share/taskpack/passports).
  --machine <name>   This machine's name (else TASKPACK_MACHINE, else the host name).
  --actor <name>     Who is acting (else TASKPACK_ACTOR, else the user name).
  --limit <name>=<n> Raise or lower one of the reader's limits for conformance, inspect,
                     convert and land (repeatable; a refusal names the limit it hit), e.g.
                     --limit maxTotalSize=200GiB. See docs/security.md for the defaults.
  -h, --help         This help; taskpack <verb> --help (or help <verb>) for one verb's.
  -V, --version      The version.

EXIT CODES
  0  done (conformance: the pack is conformant)
  1  usage error, missing file or passport, or I/O failure
  2  not conformant, or refused: unreadable, hostile, breaking a rule of the format, a stale
     --expected-version, or a receipt for another passport

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
    if (verb === undefined || verb === "-h" || verb === "--help") {
      io.out(USAGE);
      return verb === undefined ? EXIT.usage : EXIT.ok;
    }
    if (verb === "help") {
      const [about] = rest;
      if (about === undefined) io.out(USAGE);
      else if (about === "capsule") {
        return await (await import("./cli/capsule.ts")).runCapsule(["--help"], io);
      } else io.out(verbHelp(knownVerb(about)));
      return EXIT.ok;
    }
    if (verb === "-V" || verb === "--version") {
      io.out(`taskpack ${denoConfig.version}\n`);
      return EXIT.ok;
    }
    // Each verb's module is loaded when it runs, so a small operation pays only for its own
    // code (the MCP SDK, the HTTP home and the capsule contract stay unloaded otherwise).
    // The capsule verbs have options of their own.
    if (verb === "capsule") return await (await import("./cli/capsule.ts")).runCapsule(rest, io);
    knownVerb(verb);
    const { values, positionals } = parse(verb, rest);
    if (values.help) {
      io.out(verbHelp(verb));
      return EXIT.ok;
    }
    // A port that is no port is a mistake in the call, before any verb runs.
    try {
      portFlag(values.port, 0);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const json = values.json === true;
    const maxInline = values["max-inline"] === undefined
      ? undefined
      : byteCount(values["max-inline"]);
    const limits = values.limit
      ? (await import("./cli/limits.ts")).parseLimitFlags(values.limit)
      : {};
    const common = { json, store: values.store, machine: values.machine, actor: values.actor };
    const passports = () => import("./cli/passports.ts");
    switch (verb) {
      case "conformance": {
        const path = onePath(positionals, "conformance <file>");
        return await (await import("./cli/conformance.ts")).runConformance(path, json, io, limits);
      }
      case "inspect": {
        const path = onePath(positionals, "inspect <file>");
        return await (await import("./cli/inspect.ts")).runInspect(path, json, io, limits);
      }
      case "convert": {
        const out = values.out;
        if (typeof out !== "string") throw new UsageError("convert needs --out <file>");
        const path = onePath(positionals, "convert <in> --out <out>");
        return await (await import("./cli/convert.ts")).runConvert(path, out, {
          json,
          limits,
          ...(maxInline === undefined ? {} : { maxInline }),
        }, io);
      }
      case "sign":
        return await (await import("./cli/sign.ts")).runSign(onePath(positionals, "sign <pack>"), {
          key: values.key,
          json,
          limits,
          store: values.store,
        }, io);
      case "verify":
        return await (await import("./cli/verify.ts")).runVerify(
          onePath(positionals, "verify <pack>"),
          {
            sig: values.sig,
            allowedSigners: values["allowed-signers"],
            message: values.message,
            json,
            limits,
          },
          io,
        );
      case "demo":
        if (positionals.length) throw new UsageError("demo takes no file");
        return await (await import("./cli/demo.ts")).runDemo(values.dir, io);
      case "new":
        noPositionals(positionals, "new");
        return await (await passports()).runNew({ ...values, ...common }, io);
      case "list":
        noPositionals(positionals, "list");
        return await (await passports()).runList(common, io);
      case "open":
        return await (await passports()).runOpen(onePath(positionals, "open <id>"), common, io);
      case "prompt":
        return await (await passports()).runPrompt(
          onePath(positionals, "prompt <id>"),
          common,
          io,
        );
      case "checkpoint":
        noPositionals(positionals, "checkpoint");
        return await (await passports()).runCheckpoint({ ...values, ...common }, io);
      case "answer":
        return await (await passports()).runAnswer(positionals, { ...values, ...common }, io);
      case "doctor":
        return await (await passports()).runDoctor({ ...common, compare: values.compare }, io);
      case "pack": {
        const id = onePath(positionals, "pack <id> --out <file>");
        return await (await import("./cli/pack.ts")).runPack(id, {
          ...values,
          ...common,
          maxInline,
        }, io);
      }
      case "land": {
        const path = onePath(positionals, "land <file>");
        return await (await import("./cli/land.ts")).runLand(path, {
          ...values,
          ...common,
          limits,
        }, io);
      }
      case "serve":
        noPositionals(positionals, "serve");
        return await (await import("./cli/serve.ts")).runServe({ ...values, json }, io);
      case "serve-home":
        noPositionals(positionals, "serve-home");
        return await (await import("./cli/serve_home.ts")).runServeHome(
          { ...values, ...common },
          io,
        );
      case "migrate":
        noPositionals(positionals, "migrate");
        return await (await import("./cli/migrate.ts")).runMigrate({ ...values, ...common }, io);
      case "mcp": {
        noPositionals(positionals, "mcp");
        // Every tool runs the operation the CLI's verb runs (app/): one set behind every door.
        const server = {
          store: values.store,
          machine: values.machine,
          actor: values.actor,
          requireSigned: values["require-signed"],
          allowedSigners: values["allowed-signers"],
          signKey: values["sign-key"],
        };
        if (values.http) {
          const { runMcpHttp } = await import("./mcp/http.ts");
          return await runMcpHttp(
            { ...server, host: values.host, port: values.port, allowHosts: values["allow-host"] },
            io,
            json,
          );
        }
        const { runMcp } = await import("./mcp/server.ts");
        return await runMcp(server, io);
      }
      default:
        throw new UsageError(`Unknown verb "${verb}"`);
    }
  } catch (error) {
    const { message, code, reason } = describeError(error);
    io.err(`taskpack: ${message}\n`);
    // With --json a script gets an object on stdout too, shaped like the incumbent's errors.
    if (args.includes("--json") && args[0] !== "capsule") {
      io.out(JSON.stringify({ ok: false, error: message, ...(reason ? { reason } : {}) }) + "\n");
    }
    return code;
  }
}

function parse(verb: string, args: string[]) {
  let parsed;
  try {
    parsed = parseCommandLine(args, OPTIONS);
  } catch (error) {
    throw new UsageError(optionMistake(verb, (error as Error).message));
  }
  // Each verb takes its own options: one meant for another verb is a mistake worth naming.
  const takes = optionsOf(verb);
  for (const name of Object.keys(parsed.values)) {
    if (!takes.has(name)) {
      const hint = closest(name, takes);
      throw new UsageError(
        `${verb} does not take --${name}${hint ? `; did you mean --${hint}?` : ""}`,
      );
    }
  }
  return parsed;
}

/** The parser's complaint as one sentence of ours, with the option meant when there is one. */
function optionMistake(verb: string, message: string): string {
  const unknown = /^Unknown option '(-{1,2})([^']*)'/.exec(message);
  if (unknown) {
    const [, dashes, name] = unknown;
    const hint = dashes === "--" ? closest(name!, optionsOf(verb)) : undefined;
    return `${verb} has no option ${dashes}${name}${hint ? `; did you mean --${hint}?` : ""}`;
  }
  const missing = /^Option '([^']*) <value>' argument (missing|is ambiguous)/.exec(message);
  if (missing) {
    const option = missing[1]!.split(", ").pop()!;
    return missing[2] === "missing"
      ? `${option} needs a value`
      : `${option} needs a value; to give one that starts with a dash, write ${option}=-value`;
  }
  return message;
}

/** The verb, or a usage error naming the one probably meant. */
function knownVerb(verb: string): string {
  if (Object.hasOwn(VERBS, verb)) return verb;
  const hint = closest(verb, [...Object.keys(VERBS), "capsule"]);
  throw new UsageError(`Unknown verb "${verb}"${hint ? `; did you mean "${hint}"?` : ""}`);
}

function noPositionals(positionals: string[], verb: string): void {
  if (positionals.length) {
    throw new UsageError(`${verb} takes no positional argument (got "${positionals[0]}")`);
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
  out: (text) => stdout.write(text),
  err: (text) => stderr.write(text),
};

if (import.meta.main) {
  endProcess(await main(args()));
}
