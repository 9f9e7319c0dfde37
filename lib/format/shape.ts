// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * One reading for values: fields a receiver acts on must hold the type the spec gives them, or
 * two readers act differently on the same pack. The judge fails C2 on each problem found here,
 * and `land` refuses the first, so both read a pack the same way.
 *
 * @module
 */
import { isPlainObject } from "../bytes/mod.ts";

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
