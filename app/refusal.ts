// Copyright 2026 the taskpack authors. MIT license.
/**
 * The one way an operation says no: a {@linkcode Refusal}, with a stable `reason` code, one
 * sentence for a person or a model, and where it happened. Every door shows the same sentence:
 * the CLI on standard error (and an exit code from `kind`), MCP as the text of an error result,
 * HTTP as `{error, reason}`.
 *
 * @module
 */
import { RefusalError, TaskPackReadError } from "../lib/bytes/mod.ts";
import { ReceiptError } from "../lib/format/mod.ts";
import { StoreConflictError } from "../lib/home/mod.ts";
import { redactCredentials } from "../lib/scan/mod.ts";

/**
 * What kind of no it is: `usage` (the call was wrong), `missing` (a file or passport that is not
 * there), `refused` (a pack that breaks a rule, a stale version, a receipt for another passport).
 */
export type RefusalKind = "usage" | "missing" | "refused";

/** One refusal, as every door reports it. */
export interface Refusal {
  /** Which kind of no (the CLI's exit code follows from it). */
  kind: RefusalKind;
  /** A stable code a program may branch on (`not-found`, `stale-version`, `bag-digest` ...). */
  reason: string;
  /** One sentence that says what and where. */
  sentence: string;
  /** Where it happened (a file, a field, an id), when there is one place. */
  where?: string;
}

/** An operation's refusal, thrown; {@linkcode refusalOf} turns any error into one. */
export class OperationError extends Error {
  /** Which kind of no. */
  readonly kind: RefusalKind;
  /** The stable code. */
  readonly reason: string;
  /** Where, when there is one place. */
  readonly where: string | undefined;

  /**
   * @param kind Which kind of no.
   * @param reason The stable code.
   * @param sentence One sentence that says what and where.
   * @param where Where, when there is one place.
   */
  constructor(kind: RefusalKind, reason: string, sentence: string, where?: string) {
    super(sentence);
    this.name = "OperationError";
    this.kind = kind;
    this.reason = reason;
    this.where = where;
  }
}

/** A wrong call: a missing or malformed argument. */
export function usage(sentence: string, where?: string): OperationError {
  return new OperationError("usage", "usage", sentence, where);
}

/**
 * Turns anything an operation threw into one refusal, never a stack trace.
 *
 * @param error What was thrown.
 * @returns The refusal.
 */
export function refusalOf(error: unknown): Refusal {
  // Every door prints the sentence: nothing in it quotes what looks like a secret.
  const of = (kind: RefusalKind, reason: string, sentence: string, where?: string): Refusal => ({
    kind,
    reason,
    sentence: redactCredentials(sentence),
    ...(where ? { where: redactCredentials(where) } : {}),
  });
  if (error instanceof OperationError) {
    return of(error.kind, error.reason, error.message, error.where);
  }
  if (error instanceof TaskPackReadError) {
    return of("refused", error.code, error.message, error.where);
  }
  if (error instanceof RefusalError) return of("refused", error.rule, error.message, error.where);
  if (error instanceof StoreConflictError) {
    return of("refused", error.actual === null ? "not-found" : "stale-version", error.message);
  }
  if (error instanceof ReceiptError) return of("refused", "receipt-target", error.message);
  const code = (error as { code?: unknown })?.code;
  const path = (error as { path?: unknown })?.path;
  const at = typeof path === "string" ? path : "(unknown path)";
  if (code === "ENOENT") return of("missing", "no-such-file", `No such file or folder: ${at}`, at);
  if (code === "EACCES" || code === "EPERM") {
    return of("missing", "permission", `Permission denied: ${at}`, at);
  }
  if (code === "ENOTDIR") return of("usage", "not-a-folder", `Not a folder: ${at}`, at);
  if (code === "EISDIR") {
    return of("usage", "is-a-folder", `Expected a file, found a folder: ${at}`, at);
  }
  if (error instanceof Error) return of("usage", "failed", error.message.split("\n")[0]!);
  return of("usage", "failed", String(error));
}
