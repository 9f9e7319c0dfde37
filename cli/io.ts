// Copyright 2026 the taskpack authors. MIT license.
/**
 * What every CLI verb shares: where output goes, the exit codes, and how an error becomes one
 * clear sentence (never a stack trace).
 *
 * @module
 */
import { readTextFile } from "../shell/host/host_fs.ts";
import { parseJsonStrict, TaskPackReadError } from "../lib/bytes/mod.ts";
import { refusalOf } from "../app/mod.ts";

export { formatBytes } from "../lib/bytes/mod.ts";

/** Exit codes, as documented in `--help` and the README. */
export const EXIT = {
  /** Done; for `conformance`: the pack is conformant. */
  ok: 0,
  /** A usage error, a missing file, or an I/O failure. */
  usage: 1,
  /**
   * The pack is not conformant, or was refused: unreadable, hostile, breaking a rule of the
   * format, a stale version, or a receipt for another passport.
   */
  refused: 2,
} as const;

/** Where a verb writes. Injected so tests can capture it. */
export interface Io {
  /** Writes to standard output (results). */
  out(text: string): void;
  /** Writes to standard error (progress, warnings, errors). */
  err(text: string): void;
}

/** A mistake in how the command was called: printed with a pointer to `--help`, exit 1. */
export class UsageError extends Error {
  /** @param message What is wrong with the call. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Turns any error into one sentence and an exit code.
 *
 * @param error What was thrown.
 * @returns The sentence, the code, and the refusal's stable reason (a read error's `code`, a
 * refusal's `rule`, an operation's `reason`).
 */
export function describeError(
  error: unknown,
): { message: string; code: number; reason?: string } {
  if (error instanceof UsageError) {
    return { message: `${error.message} (see --help)`, code: EXIT.usage };
  }
  const refusal = refusalOf(error);
  const code = refusal.kind === "refused" ? EXIT.refused : EXIT.usage;
  const generic = refusal.reason === "usage" || refusal.reason === "failed";
  return { message: refusal.sentence, code, ...(generic ? {} : { reason: refusal.reason }) };
}

/**
 * Reads a JSON file the person wrote (a state to checkpoint, asks or checks to pack), as
 * strictly as a pack is read: a byte order mark is allowed, duplicate keys and prototype keys
 * are not.
 *
 * @param path The file.
 * @returns The parsed value.
 * @throws {UsageError} When the file is not valid JSON, saying where.
 */
export async function readJsonFile(path: string): Promise<unknown> {
  const text = (await readTextFile(path)).replace(/^\ufeff/, "");
  try {
    return parseJsonStrict(text, { where: path });
  } catch (error) {
    if (!(error instanceof TaskPackReadError)) throw error;
    throw new UsageError(
      `${path} is not valid JSON: ${error.message.replace(/^Cannot read taskpack: /, "")}`,
    );
  }
}
