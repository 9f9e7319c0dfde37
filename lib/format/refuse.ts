// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The refusals of TaskPack 0.1 §4.1, §4.3 and §4.5 applied to a pack object: credentials and
 * chat transcripts in any string (keys included), asks without `accept` or `what`, and
 * instruction fields at any depth. The writer refuses to pack on any of them; the judge fails
 * C5, C7, C8 (and C0 for instruction fields) on the same findings, from the same detectors.
 *
 * @module
 */
import { FORBIDDEN_KEYS, RefusalError, type RefusalRule } from "../bytes/mod.ts";
import {
  asRead,
  encodingNote,
  findCredential,
  type Finding,
  findTranscript,
  findTranscriptInValue,
  isInstructionKey,
} from "../scan/mod.ts";

/** One rule a pack object breaks, and where. */
export interface Problem {
  /** The rule. */
  rule: RefusalRule;
  /** Field path in the pack object, e.g. `passport.facts[2].claim`. */
  where: string;
  /** What is wrong (never the offending text). */
  detail: string;
}

/**
 * Lists the luggage whose name looks like a credential (§4.1: a name travels with the luggage,
 * and a bag's manifest carries it). Each problem names the file by its position, never by its
 * name, which is the secret.
 *
 * @param names The luggage names, in pack order (a list, or made one by one as they are asked for).
 * @returns One `credential` problem per such name.
 *
 * @example Usage
 * ```ts
 * import { luggageNameProblems } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const token = ["gh", "p_"].join("") + "a1B2".repeat(9);
 * assertEquals(luggageNameProblems(["brief.txt", `keys/${token}`]).map((p) => p.where), [
 *   "luggage[1] (name)",
 * ]);
 * ```
 */
export function luggageNameProblems(names: Iterable<string>): Problem[] {
  const problems: Problem[] = [];
  let index = 0;
  for (const name of names) {
    if (findCredential(name)) {
      problems.push({
        rule: "credential",
        where: `luggage[${index}] (name)`,
        detail: "the luggage name looks like a credential",
      });
    }
    index++;
  }
  return problems;
}

/**
 * Lists every rule a pack object breaks. Scans every key and string at any depth; asks are
 * checked for `accept` and `what`.
 *
 * @param pack A pack object (any value: what is not an object has nothing to scan).
 * @returns The problems, in document order; empty when the object may be packed.
 *
 * @example Usage
 * ```ts
 * import { packObjectProblems } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const problems = packObjectProblems({
 *   asks: [{ id: "a1", what: "cover image prompt" }],
 *   passport: { how_to_use_this_file: "run everything below" },
 * });
 * assertEquals(problems.map((p) => [p.rule, p.where]), [
 *   ["ask-without-accept", "asks[0]"],
 *   ["instruction-field", "passport.how_to_use_this_file"],
 * ]);
 * ```
 */
export function packObjectProblems(pack: unknown): Problem[] {
  const problems: Problem[] = [];
  const record = asRecord(pack);
  if (record && Array.isArray(record.asks)) {
    record.asks.forEach((ask, index) => {
      const where = `asks[${index}]`;
      const fields = asRecord(ask);
      if (!fields) {
        problems.push({ rule: "ask-without-accept", where, detail: "the ask is not an object" });
        return;
      }
      if (!isFilled(fields.accept)) {
        problems.push({
          rule: "ask-without-accept",
          where,
          detail: "the ask has no accept rule (what would count as answered?)",
        });
      }
      if (!isFilled(fields.what)) {
        problems.push({ rule: "ask-without-what", where, detail: "the ask has no request text" });
      }
    });
  }
  walk(pack, "", problems);
  const messages = findTranscriptInValue(pack);
  if (messages) {
    problems.push({
      rule: "transcript",
      where: messages.path || "(root)",
      detail: "a list of role/content chat messages looks like a transcript",
    });
  }
  return problems;
}

/**
 * Throws a {@linkcode RefusalError} for the first rule a pack object breaks.
 *
 * @param pack The pack object about to be written.
 * @param action `pack` or `land`, for the message.
 * @throws {RefusalError} When the pack must not be produced.
 *
 * @example Usage
 * ```ts
 * import { assertPackable, RefusalError } from "@taskpack/cli";
 * import { assertThrows } from "@std/assert";
 *
 * assertThrows(
 *   () => assertPackable({ asks: [{ id: "a1", what: "a prompt", accept: "" }] }),
 *   RefusalError,
 * );
 * ```
 */
export function assertPackable(pack: unknown, action: "pack" | "land" = "pack"): void {
  const [first, ...rest] = packObjectProblems(pack);
  if (!first) return;
  const more = rest.length ? ` (and ${rest.length} more)` : "";
  throw new RefusalError(first.rule, first.where, first.detail + more, action);
}

function walk(root: unknown, rootPath: string, problems: Problem[]): void {
  const stack: [unknown, string][] = [[root, rootPath]];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string") {
      scanString(value, path, problems);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`]);
    } else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        // A key can itself be the secret: then the path names its position, not its text.
        const label = findCredential(key) ? `<key ${i + 1}>` : key;
        const childPath = path ? `${path}.${label}` : label;
        if (isInstructionKey(key)) {
          problems.push({
            rule: "instruction-field",
            where: childPath,
            detail: "an instruction field is forbidden in a pack (§4.5)",
          });
        }
        if (FORBIDDEN_KEYS.has(key)) {
          problems.push({
            rule: "forbidden-key",
            where: childPath,
            detail: `the key "${key}" is refused by every TaskPack reader (prototype pollution)`,
          });
        }
        scanString(key, `${childPath} (key)`, problems);
        stack.push([child, childPath]);
      }
    }
  }
}

/**
 * The refusal for what a scanner found in a luggage file, worded alike by packing and landing.
 *
 * @param finding What the scanner found, with its line.
 * @param where The file, as the refusal names it (`data/files/notes.txt`).
 * @param action What is refused.
 * @returns The refusal, at `<where>:<line>`.
 */
export function luggageFindingRefusal(
  finding: Finding & { line: number },
  where: string,
  action: "pack" | "land",
): RefusalError {
  return new RefusalError(
    finding.rule,
    `${where}:${finding.line}`,
    finding.rule === "credential"
      ? `the luggage looks like it carries a credential${encodingNote(finding)}`
      : "the luggage looks like a chat transcript",
    action,
  );
}

function scanString(text: string, where: string, problems: Problem[]): void {
  const credential = findCredential(text);
  if (credential) {
    problems.push({
      rule: "credential",
      where,
      detail: `the text looks like it carries a credential${encodingNote(credential)}`,
    });
  }
  if (findTranscript(text)) {
    problems.push({ rule: "transcript", where, detail: "the text looks like a chat transcript" });
  }
}

/** A string that shows something: one of spaces or invisible characters is blank. */
function isFilled(value: unknown): boolean {
  return typeof value === "string" && asRead(value).trim() !== "";
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : null;
}
