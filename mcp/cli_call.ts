// Copyright 2026 the taskpack authors. MIT license.
/**
 * The one code path every store-backed MCP tool, resource and prompt goes through: a CLI verb
 * run in-process with `--json` and the server's store, machine and actor, its output captured.
 *
 * @module
 */
import type { McpSettings } from "./settings.ts";
import type { Invocation } from "./tools.ts";

/** What a verb printed, and how it ended. */
export interface VerbOutcome {
  /** The exit code. */
  code: number;
  /** Standard output (the `--json` object). */
  out: string;
  /** Standard error. */
  err: string;
}

/**
 * Runs one CLI verb in-process with `--json` on the server's store, machine and actor.
 * Positionals go after `--`, so nothing a client passes as a path or an id becomes a flag.
 *
 * @param settings The server's store, machine, actor and CLI.
 * @param invocation The verb, its flags and its positionals.
 * @returns The exit code and what the verb printed.
 */
export async function runVerb(
  settings: McpSettings,
  invocation: Invocation,
): Promise<VerbOutcome> {
  const { verb, flags = [], positionals = [] } = invocation;
  const argv = [
    verb,
    ...flags,
    "--json",
    `--store=${settings.store}`,
    `--machine=${settings.machine}`,
    ...(settings.actor ? [`--actor=${settings.actor}`] : []),
    "--",
    ...positionals,
  ];
  let out = "";
  let err = "";
  const code = await settings.run(argv, {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
  });
  return { code, out, err };
}

/**
 * Runs a verb that must succeed and returns its JSON object.
 *
 * @param settings The server's store, machine, actor and CLI.
 * @param invocation The verb, its flags and its positionals.
 * @returns The verb's `--json` object.
 * @throws {Error} With the CLI's one sentence when the verb fails.
 */
export async function verbJson(
  settings: McpSettings,
  invocation: Invocation,
): Promise<Record<string, unknown>> {
  const { code, out, err } = await runVerb(settings, invocation);
  if (code === 0) {
    try {
      const value = JSON.parse(out);
      if (value !== null && typeof value === "object" && !Array.isArray(value)) return value;
    } catch {
      // fall through to the error below
    }
  }
  throw new Error(cliSentence(err, code));
}

/**
 * The CLI's one-sentence error, without the pointer to `--help` a client cannot use.
 *
 * @param stderr What the verb wrote to standard error.
 * @param code Its exit code.
 * @returns One sentence.
 */
export function cliSentence(stderr: string, code: number): string {
  const line = stderr.split("\n").reverse().find((l) => l.startsWith("taskpack: "));
  if (!line) return `taskpack failed (exit ${code})`;
  return line.slice("taskpack: ".length).replace(/ \(see --help\)$/, "");
}
