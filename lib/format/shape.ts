// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * One reading for values: fields a receiver acts on must hold the type the spec gives them, or
 * two readers act differently on the same pack. The judge fails C2 on each problem found here,
 * and `land` refuses the first, so both read a pack the same way.
 *
 * @module
 */
import { isPlainObject, SHADOWING_KEYS } from "../bytes/mod.ts";
import type { PortabilityWarning } from "./host_names.ts";

/** A field of the wrong type, and where. */
export interface ShapeProblem {
  /** Field path in the pack object, such as `landing_checks[0].required`. */
  where: string;
  /** What is wrong, in one sentence (no final period). */
  detail: string;
}

/**
 * The landing checks whose `required` is present but not a boolean (§4.4: `"required": true`).
 * A string `"false"` is required to a reader that tests `!== false`, optional to one that tests
 * truthiness: one pack, two landings.
 *
 * @param checks The pack's `landing_checks` (any value: only a list has anything to check).
 * @returns One problem per such check, in order.
 *
 * @example Usage
 * ```ts
 * import { landingCheckProblems } from "./shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const problems = landingCheckProblems([{ id: "c1", required: "false" }, { id: "c2" }]);
 * assertEquals(problems.map((p) => p.where), ["landing_checks[0].required"]);
 * ```
 */
export function landingCheckProblems(checks: unknown): ShapeProblem[] {
  if (!Array.isArray(checks)) return [];
  const problems: ShapeProblem[] = [];
  checks.forEach((check, index) => {
    if (
      isPlainObject(check) && check.required !== undefined && typeof check.required !== "boolean"
    ) {
      problems.push({
        where: `landing_checks[${index}].required`,
        detail: `required is ${
          check.required === null
            ? "null"
            : `a ${Array.isArray(check.required) ? "list" : typeof check.required}`
        }, not true or false: readers would disagree on whether the check is required`,
      });
    }
  });
  return problems;
}

/** Fields the format gives a string (or, for the versions, a number) to, by where they are. */
const TOP_TEXT = ["spec", "kind", "packed_at", "note"];
const ORIGIN_TEXT = ["actor", "machine", "harness"];
const LINEAGE_TEXT = ["root_id", "from_version"];
const STATE_TEXT = ["id", "version", "title", "goal", "current_state", "harness", "machine_id"];
const FACT_TEXT = ["claim", "scope", "verified_by", "verified_on", "source", "source_actor"];
const DECISION_TEXT = ["what", "why"];
const ASK_TEXT = [
  "id",
  "to",
  "what",
  "why",
  "accept",
  "status",
  "answered_by",
  "answered_at",
  "received_from",
];
const CHECK_TEXT = ["id", "check", "how"];

/**
 * The first field where the format wants a string or a number (§3, §4.2-§4.4: `note`,
 * `origin.actor`, `lineage.root_id`, `passport.version`, a fact's `claim`, an ask's `what`, a
 * landing check's `check`, each entry of `lineage.chain`, `next_steps` and `artifacts`, ...)
 * but the pack holds an object or a list. Every reader turns such a field into text, and an
 * object does not become text the same way twice (one with its own `toString` member cannot
 * become text at all), so the pack is refused as unreadable rather than read some way.
 * `null` and the other scalars are left to the checks that care.
 *
 * @param pack The pack object as written.
 * @returns The field and why, or null.
 *
 * @example Usage
 * ```ts
 * import { fieldTypeProblem } from "./shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(fieldTypeProblem({ note: "hi", asks: [{ what: "x" }] }), null);
 * assertEquals(fieldTypeProblem({ asks: [{ what: { toString: 1 } }] })?.where, "asks[0].what");
 * ```
 */
export function fieldTypeProblem(pack: unknown): ShapeProblem | null {
  if (!isPlainObject(pack)) return null;
  const state = isPlainObject(pack.passport) ? pack.passport : {};
  const lineage = isPlainObject(pack.lineage) ? pack.lineage : {};
  return inFields(pack, TOP_TEXT, "") ??
    (isPlainObject(pack.origin) ? inFields(pack.origin, ORIGIN_TEXT, "origin.") : null) ??
    inFields(lineage, LINEAGE_TEXT, "lineage.") ??
    inList(lineage.chain, "lineage.chain") ??
    inFields(state, STATE_TEXT, "passport.") ??
    inEach(state.facts, FACT_TEXT, "passport.facts") ??
    inEach(state.decisions, DECISION_TEXT, "passport.decisions") ??
    inList(state.artifacts, "passport.artifacts") ??
    inList(state.next_steps, "passport.next_steps") ??
    inEach(state.asks, ASK_TEXT, "passport.asks") ??
    inEach(pack.asks, ASK_TEXT, "asks") ??
    inEach(pack.landing_checks, CHECK_TEXT, "landing_checks");
}

function notText(value: unknown, where: string): ShapeProblem | null {
  if (typeof value !== "object" || value === null) return null;
  return {
    where,
    detail: `${where} is ${
      Array.isArray(value) ? "a list" : "an object"
    } where the format wants a string or a number`,
  };
}

function inFields(
  record: Record<string, unknown>,
  fields: readonly string[],
  prefix: string,
): ShapeProblem | null {
  for (const field of fields) {
    if (!Object.hasOwn(record, field)) continue;
    const problem = notText(record[field], `${prefix}${field}`);
    if (problem) return problem;
  }
  return null;
}

function inList(list: unknown, where: string): ShapeProblem | null {
  if (!Array.isArray(list)) return null;
  for (let i = 0; i < list.length; i++) {
    const problem = notText(list[i], `${where}[${i}]`);
    if (problem) return problem;
  }
  return null;
}

function inEach(list: unknown, fields: readonly string[], where: string): ShapeProblem | null {
  if (!Array.isArray(list)) return null;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isPlainObject(item)) continue;
    const problem = inFields(item, fields, `${where}[${i}].`);
    if (problem) return problem;
  }
  return null;
}

/**
 * The members named `constructor` or `prototype`, at any depth, as warnings. Every JSON reader
 * reads them alike (only `__proto__` is read two ways, and that one is refused), so the spec's
 * silence stands and they are conformant; JavaScript code that looks a member up by name
 * without asking whether the object has it as its own could still mistake one for what every
 * object inherits.
 *
 * @param pack The pack object.
 * @returns One warning per such member, in document order (at most 20).
 *
 * @example Usage
 * ```ts
 * import { memberNameWarnings } from "./shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const warnings = memberNameWarnings({ passport: { facts: [{ constructor: "x" }] } });
 * assertEquals(warnings.map((w) => w.name), ["passport.facts[0].constructor"]);
 * ```
 */
export function memberNameWarnings(pack: unknown): PortabilityWarning[] {
  const warnings: PortabilityWarning[] = [];
  const stack: [unknown, string][] = [[pack, ""]];
  while (stack.length && warnings.length < 20) {
    const [value, path] = stack.pop()!;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`]);
    } else if (isPlainObject(value)) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const where = path ? `${path}.${key}` : key;
        stack.push([value[key], where]);
      }
      for (const key of keys) {
        if (!SHADOWING_KEYS.has(key)) continue;
        warnings.push({
          name: path ? `${path}.${key}` : key,
          systems: "JavaScript code that reads members without an own-property check",
          reason:
            `a member named "${key}" is read alike by every JSON reader (the spec allows it), but shadows what every JavaScript object inherits`,
          field: true,
        });
      }
    }
  }
  return warnings;
}

/**
 * What the writer refuses for one reading of values: the first field of the wrong type
 * ({@linkcode fieldTypeProblem}, {@linkcode landingCheckProblems}) or string holding a lone
 * surrogate (which JSON can only write as the escape I-JSON forbids, RFC 7493 §2.1), so no pack
 * is written that the judge would fail C2 for.
 *
 * @param pack The pack object about to be written.
 * @returns The field and why, or null.
 *
 * @example Usage
 * ```ts
 * import { writableProblem } from "./shape.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(writableProblem({ note: "fine" }), null);
 * assertEquals(writableProblem({ note: "half \ud83d" })?.where, "note");
 * ```
 */
export function writableProblem(pack: unknown): ShapeProblem | null {
  const typed = fieldTypeProblem(pack) ?? landingCheckProblems(
    isPlainObject(pack) ? pack.landing_checks : undefined,
  )[0];
  if (typed) return typed;
  const stack: [unknown, string][] = [[pack, ""]];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string") {
      if (!value.isWellFormed()) {
        return {
          where: path || "(root)",
          detail: "the text holds a lone surrogate, which I-JSON forbids (RFC 7493 §2.1)",
        };
      }
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`]);
    } else if (isPlainObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        const where = path ? `${path}.${key}` : key;
        if (!key.isWellFormed()) {
          return { where, detail: "a member name holds a lone surrogate (RFC 7493 §2.1)" };
        }
        stack.push([child, where]);
      }
    }
  }
  return null;
}
