// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The errors the core throws. Two families, each with a stable, machine-readable code:
 * {@linkcode RefusalError} when a pack must not be produced (TaskPack 0.1 §4.1, §4.5), and
 * {@linkcode TaskPackReadError} when bytes cannot be read as a pack.
 *
 * @module
 */

/** Why a pack was refused (TaskPack 0.1 §4.1, §4.3, §4.5). */
export type RefusalRule =
  | "credential"
  | "transcript"
  | "ask-without-accept"
  | "ask-without-what"
  | "instruction-field"
  | "forbidden-key"
  | "luggage-name"
  | "flat-too-large";

/**
 * A pack was not produced because it would break a rule of the format.
 *
 * The message names the rule and where it was broken (a field path such as
 * `passport.facts[2].claim`, or a luggage file and line), never the offending text itself.
 *
 * @example Usage
 * ```ts
 * import { RefusalError } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * const error = new RefusalError("ask-without-accept", "asks[0]", "the ask has no accept rule");
 * assertEquals(error.rule, "ask-without-accept");
 * assertMatch(error.message, /asks\[0\]/);
 * ```
 */
export class RefusalError extends Error {
  /** The rule that was broken. */
  readonly rule: RefusalRule;
  /** Where: a field path in the pack object, or `data/files/<name>:<line>`. */
  readonly where: string;

  /**
   * Creates a refusal.
   *
   * @param rule The rule that was broken.
   * @param where A field path or a luggage file and line.
   * @param detail What is wrong, without quoting secret material.
   * @param action What was refused: `pack` (the default) or `land`.
   */
  constructor(rule: RefusalRule, where: string, detail: string, action: "pack" | "land" = "pack") {
    super(`Cannot ${action}: ${detail} at ${where} (rule: ${rule})`);
    this.name = "RefusalError";
    this.rule = rule;
    this.where = where;
  }
}

/** Stable codes for everything that stops bytes from being read as a pack. */
export type ReadErrorCode =
  | "not-a-pack"
  | "json-syntax"
  | "json-duplicate-key"
  | "json-forbidden-key"
  | "json-too-deep"
  | "json-lone-surrogate"
  | "invalid-utf8"
  | "wrong-type"
  | "unsupported-version"
  | "zip-structure"
  | "zip-crc"
  | "zip-size"
  | "zip-method"
  | "zip-encrypted"
  | "zip-symlink"
  | "zip-name"
  | "zip-duplicate-name"
  | "bag-structure"
  | "bag-manifest"
  | "bag-digest"
  | "bag-unlisted-file"
  | "flat-structure"
  | "flat-attachment"
  | "integrity"
  | "limit"
  /** A conformant pack whose luggage name the landing host cannot hold (see `planHostNames`). */
  | "host-name"
  /** A luggage path through a `.git` folder, which git would run commands from (see `gitProblem`). */
  | "git-folder";

/**
 * Bytes that cannot be read as a TaskPack: broken, hostile or over a limit.
 *
 * @example Usage
 * ```ts
 * import { TaskPackReadError } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const error = new TaskPackReadError("zip-crc", "data/files/a.txt", "the CRC-32 does not match");
 * assertEquals(error.code, "zip-crc");
 * assertEquals(error.message, "Cannot read taskpack: the CRC-32 does not match (data/files/a.txt)");
 * ```
 */
export class TaskPackReadError extends Error {
  /** A stable, machine-readable code. */
  readonly code: ReadErrorCode;
  /** Where in the file: an entry name, a field path, or a byte offset. */
  readonly where: string;

  /**
   * Creates a read error.
   *
   * @param code A stable code.
   * @param where Where in the file the problem is.
   * @param detail One sentence saying what is wrong.
   */
  constructor(code: ReadErrorCode, where: string, detail: string) {
    super(`Cannot read taskpack: ${detail}${where ? ` (${where})` : ""}`);
    this.name = "TaskPackReadError";
    this.code = code;
    this.where = where;
  }
}
