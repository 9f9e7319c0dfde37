// Copyright 2026 the taskpack authors. MIT license.
/**
 * One table for the command line: every option the parser reads, and for each verb the options
 * it takes, what each means, its default and one real example. `taskpack <verb> --help`, the
 * parser's checks and the "did you mean" suggestions all read this table, so they cannot drift.
 *
 * @module
 */
import type { OptionSpec } from "./args.ts";

/** Every option any verb reads, as the parser reads it. */
export const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  out: { type: "string", short: "o" },
  dir: { type: "string" },
  "max-inline": { type: "string" },
  limit: { type: "string", multiple: true },
  store: { type: "string" },
  machine: { type: "string" },
  actor: { type: "string" },
  title: { type: "string" },
  goal: { type: "string" },
  "current-state": { type: "string" },
  "next-step": { type: "string", multiple: true },
  file: { type: "string", multiple: true },
  "expected-version": { type: "string" },
  text: { type: "string" },
  flat: { type: "boolean" },
  ask: { type: "string", multiple: true },
  check: { type: "string", multiple: true },
  asks: { type: "string" },
  checks: { type: "string" },
  kind: { type: "string" },
  note: { type: "string" },
  into: { type: "string" },
  "files-out": { type: "string" },
  "dry-run": { type: "boolean" },
  "trust-machine-facts": { type: "boolean" },
  again: { type: "boolean" },
  "rename-unportable": { type: "boolean" },
  host: { type: "string" },
  port: { type: "string" },
  "mint-token": { type: "string" },
  http: { type: "boolean" },
  "allow-host": { type: "string", multiple: true },
  "team-token-file": { type: "string" },
  open: { type: "boolean" },
  from: { type: "string" },
  to: { type: "string" },
  key: { type: "string" },
  sig: { type: "string" },
  "allowed-signers": { type: "string" },
  message: { type: "boolean" },
  "require-signed": { type: "boolean" },
  sign: { type: "boolean" },
  "sign-key": { type: "string" },
  compare: { type: "string" },
} as const satisfies Record<string, OptionSpec>;

/** An option's name. */
export type OptionName = keyof typeof OPTIONS;

/** One option as a verb's help shows it. */
export interface FlagHelp {
  /** The option. */
  name: OptionName;
  /** What its value is, for an option that takes one (`<file>`). */
  value?: string;
  /** What it does. */
  about: string;
  /** What holds when it is not given. */
  default?: string;
}

/** One verb: its usage line, what it does, its options and one real example. */
export interface VerbHelp {
  /** The usage line after `taskpack `. */
  usage: string;
  /** What it does, in a sentence or two. */
  summary: string;
  /** Its own options (the common ones are added to every verb). */
  flags: FlagHelp[];
  /** One command a person would type. */
  example: string;
}

const STORE: FlagHelp = {
  name: "store",
  value: "<store>",
  about: "the passport store: a folder, kv:<path-or-url>, postgres://user@host:port/db or an " +
    "http(s):// home",
  default: "TASKPACK_STORE, else ~/.local/share/taskpack/passports",
};
const MACHINE: FlagHelp = {
  name: "machine",
  value: "<name>",
  about: "this machine's name",
  default: "TASKPACK_MACHINE, else the host name",
};
const ACTOR: FlagHelp = {
  name: "actor",
  value: "<name>",
  about: "who is acting",
  default: "TASKPACK_ACTOR, else the user name",
};
const LIMIT: FlagHelp = {
  name: "limit",
  value: "<name>=<n>",
  about: "raise or lower one of the reader's limits, e.g. maxTotalSize=200GiB (repeatable; " +
    "docs/security.md lists them)",
};
const MAX_INLINE: FlagHelp = {
  name: "max-inline",
  value: "<bytes>|unlimited",
  about: "flat form only: the largest attachment carried inline",
};
const HOST: FlagHelp = {
  name: "host",
  value: "<address>",
  about: "the address to listen on",
  default: "127.0.0.1",
};
const REQUIRE_SIGNED: FlagHelp = {
  name: "require-signed",
  about: "refuse a pack that is unsigned or signed by a key the trust list does not name",
};
const TRUST_LIST: FlagHelp = {
  name: "allowed-signers",
  value: "<file>",
  about: "the trust list, in git's allowed_signers format",
  default: "taskpack's, else git's gpg.ssh.allowedSignersFile",
};
const SIGN_KEY: FlagHelp = {
  name: "sign-key",
  value: "<file>",
  about: "the SSH key packs are signed with when a tool asks to sign",
};
const ALLOW_HOST: FlagHelp = {
  name: "allow-host",
  value: "<name>",
  about: "one more name the Host and Origin headers may carry (a proxy's name; repeatable)",
};

/** Options every verb takes. */
export const COMMON: readonly FlagHelp[] = [
  { name: "json", about: "one JSON object on stdout instead of text" },
  { name: "help", about: "this help" },
];

/** The verbs and their help (`capsule` has its own: `taskpack capsule --help`). */
export const VERBS: Readonly<Record<string, VerbHelp>> = {
  new: {
    usage: "new --title <t> --goal <g> [--current-state <s>] [--next-step <s>]...",
    summary: "Mint a new passport (TP-XXXX-XXXX) at version 1.",
    flags: [
      { name: "title", value: "<text>", about: "a short name for the task (required)" },
      { name: "goal", value: "<text>", about: "what done looks like (required)" },
      { name: "current-state", value: "<text>", about: "where the work stands" },
      { name: "next-step", value: "<text>", about: "a next step (repeatable, in order)" },
      STORE,
      MACHINE,
      ACTOR,
    ],
    example: 'taskpack new --title "Release the plugin" --goal "v1.2 on the registry"',
  },
  list: {
    usage: "list",
    summary: "The passports in the store; files that cannot be read are reported.",
    flags: [STORE],
    example: "taskpack list --store ./passports",
  },
  open: {
    usage: "open <id>",
    summary: "The compiled context a receiving model reads (the state with --json).",
    flags: [STORE],
    example: "taskpack open TP-9CB7-J5MK",
  },
  prompt: {
    usage: "prompt <id>",
    summary: "The one-line prompt that hands a passport to a new worker.",
    flags: [STORE],
    example: "taskpack prompt TP-9CB7-J5MK",
  },
  checkpoint: {
    usage: "checkpoint --file <state.json> --expected-version <n>",
    summary: "Save a new version; refused if the store moved on since version <n>.",
    flags: [
      { name: "file", value: "<state.json>", about: "the whole state, as open --json gave it" },
      { name: "expected-version", value: "<n>", about: "the version you read (required)" },
      STORE,
    ],
    example: "taskpack checkpoint --file state.json --expected-version 3",
  },
  answer: {
    usage: "answer <id> <ask-id> --text <answer>",
    summary: "Record the answer to an ask this passport received.",
    flags: [
      { name: "text", value: "<answer>", about: "the answer (required)" },
      STORE,
      MACHINE,
      ACTOR,
    ],
    example: 'taskpack answer TP-2WQX-7KDM a1 --text "a fox on a hill, teal"',
  },
  doctor: {
    usage: "doctor [--compare <store>]",
    summary: "Is the store usable? It examines the store; it never makes it. With --compare, " +
      "says whether two stores hold the same passports, record for record (after a migrate). " +
      "Exit 0 usable (and the same), 1 not usable, 2 different.",
    flags: [
      STORE,
      {
        name: "compare",
        value: "<store>",
        about: "another store to compare with, record for record",
      },
    ],
    example: "taskpack doctor --store ./passports --compare postgres://team@db/taskpack",
  },
  "serve-home": {
    usage: "serve-home [--host 127.0.0.1] [--port <n>] [--team-token-file <file>]",
    summary: "Serve the store over HTTP as a team's home (tokens, claims) and over MCP at " +
      "/mcp. With a team token, listing, creating and /mcp need it; without one it binds " +
      "loopback only unless --open.",
    flags: [
      HOST,
      { name: "port", value: "<n>", about: "the port (0: any free one)", default: "8470" },
      {
        name: "team-token-file",
        value: "<file>",
        about: "the team's token (at least 16 characters)",
        default: "TASKPACK_TEAM_TOKEN",
      },
      { name: "mint-token", value: "<id>", about: "print a new token for one passport and end" },
      { name: "open", about: "serve beyond loopback without a team token" },
      ALLOW_HOST,
      REQUIRE_SIGNED,
      TRUST_LIST,
      SIGN_KEY,
      STORE,
      MACHINE,
      ACTOR,
    ],
    example: "taskpack serve-home --store ./team --team-token-file ~/.team-token",
  },
  migrate: {
    usage: "migrate --from <store> --to <store>",
    summary: "Copy every passport to another store, versions kept.",
    flags: [
      { name: "from", value: "<store>", about: "the store to copy from (required)" },
      { name: "to", value: "<store>", about: "the store to copy into (required)" },
    ],
    example: "taskpack migrate --from ./passports --to postgres://team@db/taskpack",
  },
  pack: {
    usage: "pack <id> --out <file> [--file <path>]... [--ask what|accept|why]... " +
      "[--check check|how]... [--kind receipt]",
    summary: "Pack a passport. The ending of --out picks the encoding (.taskpack, or " +
      ".taskpack.json for the flat form). Asks sent are recorded at home; --kind receipt " +
      "carries the answers back to the passport this one was landed from.",
    flags: [
      { name: "out", value: "<file>", about: "the pack to write (required)" },
      { name: "flat", about: "insist on the flat form (--out must end in .taskpack.json)" },
      { name: "file", value: "<path>", about: "luggage: a file or folder to carry (repeatable)" },
      {
        name: "ask",
        value: '"what|accept|why"',
        about: "a question for the receiver, with what would count as an answer (repeatable)",
      },
      { name: "asks", value: "<json>", about: "a JSON file with a list of asks" },
      {
        name: "check",
        value: '"check|how"',
        about: "a landing check the receiver runs first (repeatable; how is a suggestion)",
      },
      { name: "checks", value: "<json>", about: "a JSON file with a list of landing checks" },
      { name: "kind", value: "handoff|receipt", about: "what the pack is", default: "handoff" },
      { name: "note", value: "<text>", about: "a note to the receiver" },
      { name: "sign", about: "sign the pack with your SSH key (ssh-keygen): writes <out>.sig" },
      {
        name: "key",
        value: "<file>",
        about: "the key --sign uses",
        default: "git's user.signingKey, else ~/.ssh/id_ed25519",
      },
      MAX_INLINE,
      STORE,
      MACHINE,
      ACTOR,
    ],
    example: "taskpack pack TP-9CB7-J5MK --out handoff.taskpack --file notes.md --ask " +
      '"cover image prompt|one prompt, 750x400"',
  },
  land: {
    usage: "land <file> [--into <id>] [--files-out <dir>] [--dry-run] [--again]",
    summary: "Open a handoff into a NEW passport: landing checks first, sealed facts to " +
      "re-verify, luggage into a new or empty folder. With --into, merge a receipt into the " +
      "passport it answers. The same pack again answers with the passport it landed as.",
    flags: [
      { name: "into", value: "<id>", about: "merge a receipt into this passport" },
      {
        name: "files-out",
        value: "<dir>",
        about: "a new or empty folder for the luggage",
        default: "<store>/<id>.files",
      },
      { name: "dry-run", about: "report what would happen; write nothing" },
      { name: "again", about: "land a fresh copy of a pack this store landed before" },
      {
        name: "rename-unportable",
        about: "land names this machine cannot hold (con.txt on Windows) under safe ones",
      },
      {
        name: "trust-machine-facts",
        about: "keep ✓ on facts proven on a machine with this one's name: only if it is",
      },
      { name: "sig", value: "<file>", about: "the pack's signature", default: "<file>.sig" },
      REQUIRE_SIGNED,
      TRUST_LIST,
      LIMIT,
      STORE,
      MACHINE,
    ],
    example: "taskpack land handoff.taskpack --dry-run",
  },
  conformance: {
    usage: "conformance <file>",
    summary: "Judge a pack against C0-C10 (spec §6), strictly, as written. Exit 0 " +
      "conformant, 2 not.",
    flags: [LIMIT],
    example: "taskpack conformance handoff.taskpack",
  },
  inspect: {
    usage: "inspect <file>",
    summary: "What is inside a pack, as written, and what landing would refuse. Writes nothing.",
    flags: [LIMIT],
    example: "taskpack inspect handoff.taskpack.json",
  },
  convert: {
    usage: "convert <in> --out <out>",
    summary: "Bag <-> flat; the ending of --out picks the encoding. The output is conformant.",
    flags: [
      { name: "out", value: "<file>", about: "the file to write (required)" },
      MAX_INLINE,
      LIMIT,
    ],
    example: "taskpack convert handoff.taskpack --out handoff.taskpack.json",
  },
  sign: {
    usage: "sign <pack> [--key <file>]",
    summary: "Sign a pack with your SSH key through ssh-keygen: writes <pack>.sig.",
    flags: [{
      name: "key",
      value: "<file>",
      about: "the key",
      default: "git's user.signingKey, else ~/.ssh/id_ed25519",
    }],
    example: "taskpack sign handoff.taskpack",
  },
  verify: {
    usage: "verify <pack> [--sig <file>] [--allowed-signers <file>]",
    summary: "Who signed a pack, by your trust list (docs/signing.md). Exit 0 signed by a key " +
      "you list, 3 unsigned or a key you do not, 2 a signature that does not match.",
    flags: [
      { name: "sig", value: "<file>", about: "the signature", default: "<pack>.sig" },
      {
        name: "allowed-signers",
        value: "<file>",
        about: "the trust list, in git's format",
        default: "taskpack's, else git's gpg.ssh.allowedSignersFile",
      },
      { name: "message", about: "print the signed line, to pipe into ssh-keygen -Y verify" },
    ],
    example: "taskpack verify handoff.taskpack",
  },
  demo: {
    usage: "demo [--dir <folder>]",
    summary: "A sample task packed both ways, judged, converted and landed.",
    flags: [{
      name: "dir",
      value: "<folder>",
      about: "where to work",
      default: "a new temporary folder",
    }],
    example: "taskpack demo",
  },
  serve: {
    usage: "serve [--host 127.0.0.1] [--port 8000]",
    summary: "The judge over HTTP: the viewer at /, /conformance, A2A and MCP.",
    flags: [
      HOST,
      { name: "port", value: "<n>", about: "the port (0: any free one)", default: "8000" },
      ALLOW_HOST,
    ],
    example: "taskpack serve --port 8123",
  },
  mcp: {
    usage: "mcp [--http [--host 127.0.0.1] [--port <n>]]",
    summary: "Serve the store to an agent over MCP: stdio, or Streamable HTTP at /mcp with " +
      "--http (Host and Origin must name this server).",
    flags: [
      { name: "http", about: "serve Streamable HTTP instead of stdio" },
      HOST,
      { name: "port", value: "<n>", about: "the port for --http", default: "8471" },
      ALLOW_HOST,
      REQUIRE_SIGNED,
      TRUST_LIST,
      SIGN_KEY,
      STORE,
      MACHINE,
      ACTOR,
    ],
    example: "taskpack mcp --store ./passports",
  },
};

/**
 * A verb's help: its usage, what it does, each option with its meaning and default, one example.
 *
 * @param verb The verb.
 * @returns The text.
 */
export function verbHelp(verb: string): string {
  const help = VERBS[verb]!;
  const rows = [...help.flags, ...COMMON].map((flag) => {
    const left = `--${flag.name}${flag.value ? ` ${flag.value}` : ""}`;
    const fallback = flag.default ? ` (default: ${flag.default})` : "";
    return `  ${left.padEnd(30)} ${flag.about}${fallback}`;
  });
  return [
    `USAGE\n  taskpack ${help.usage}`,
    wrap(help.summary),
    `OPTIONS\n${rows.join("\n")}`,
    `EXAMPLE\n  ${help.example}`,
  ].join("\n\n") + "\n";
}

function wrap(text: string, width = 98): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join("\n");
}

/** Options every verb accepts, where they matter or not: scripts pass them to every call. */
const ANYWHERE = ["json", "help", "store", "machine", "actor"];

/**
 * The option names a verb takes (its own, and those every verb accepts).
 *
 * @param verb The verb.
 * @returns Their names.
 */
export function optionsOf(verb: string): Set<string> {
  return new Set([...(VERBS[verb]?.flags ?? []).map((flag) => flag.name), ...ANYWHERE]);
}

/**
 * The candidate closest to `word`, if one is close enough to be what was meant: within two
 * edits (a transposition counts as one), or one that starts with it.
 *
 * @param word What was typed.
 * @param candidates What it could have been.
 * @returns The suggestion, or undefined.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const prefix = (candidate.startsWith(word) && word.length >= 2) ||
      (word.startsWith(candidate) && candidate.length >= 3);
    const distance = prefix ? 1 : edits(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.min(2, Math.max(1, Math.floor(word.length / 3))) ? best : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, transpositions. */
function edits(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}
