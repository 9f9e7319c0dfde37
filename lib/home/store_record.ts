// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * What every store back end checks before it writes a passport, and how it encodes one: the
 * same rules for a folder, Deno KV and anything that follows.
 *
 * @module
 */
import { canonicalJson, isPlainObject, parseJsonStrict } from "../bytes/mod.ts";
import { isPassportId, type PassportState } from "../format/mod.ts";

/** Accepts only passport ids, so a file name or key can never be anything else. */
export function checkPassportId(id: unknown): string {
  if (!isPassportId(id)) {
    const shown = typeof id === "string" ? JSON.stringify(id.slice(0, 40)) : typeof id;
    throw new TypeError(`Cannot use ${shown} as a passport id: expected TP-XXXX-XXXX`);
  }
  return id;
}

/** The id of a state about to be saved, once it is known to be an object with a passport id. */
export function checkPassportState(state: PassportState): string {
  if (!isPlainObject(state)) throw new TypeError("Cannot save: the passport is not an object");
  return checkPassportId(state.id);
}

/** Refuses an expected version that is not a whole number (0 or more). */
export function checkExpectedVersion(id: string, expectedVersion: number): void {
  if (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0) {
    throw new TypeError(
      `Cannot save ${id}: the expected version must be a whole number, not ${
        String(expectedVersion)
      }`,
    );
  }
}

/** Refuses to import a state whose own version is not a whole number of at least 1. */
export function checkImportVersion(id: string, version: unknown): void {
  if (!Number.isSafeInteger(version) || (version as number) < 1) {
    throw new TypeError(`Cannot import ${id}: its version must be a whole number of at least 1`);
  }
}

/**
 * The canonical JSON of a state; refuses a state the reader could not read back (a prototype
 * key, nesting too deep), so a checkpoint can never make its own passport unreadable.
 */
export function encodePassportState(state: PassportState): string {
  let text: string;
  try {
    text = canonicalJson(state);
    parseJsonStrict(text);
  } catch (error) {
    throw new TypeError(
      `Cannot save ${state.id}: ${messageOf(error).replace(/^Cannot read taskpack: /, "")}`,
      { cause: error },
    );
  }
  return text;
}

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A stored passport that cannot be read as one (a KV record, a database row): which store,
 * which passport, and what is wrong with it.
 */
export class PassportRecordError extends Error {
  /** The passport. */
  readonly id: string;
  /** What is wrong with it. */
  readonly reason: string;

  /**
   * Creates the error.
   *
   * @param where The store.
   * @param id The passport.
   * @param reason What is wrong with it.
   */
  constructor(where: string, id: string, reason: string) {
    super(`Cannot read passport ${id} in ${where}: ${reason}`);
    this.name = "PassportRecordError";
    this.id = id;
    this.reason = reason;
  }
}
