// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Pre-flight warnings for a pack: things that make a handoff worse but that only the sender can
 * judge (unlike refusals, which nobody may override). A reference to a path on the sender's
 * disk, a fact with no scope (it will travel as machine-scoped and arrive sealed), an accept
 * rule too short to judge an answer by, a member named `constructor` or `prototype`.
 *
 * @module
 */
import { isPlainObject } from "../bytes/mod.ts";
import type { Ask, PassportState } from "./model.ts";
import { memberNameWarnings } from "./shape.ts";

const LOCAL_PATH = /(^|[\s"'(（])([A-Za-z]:[\\/]|\/Users\/|\/home\/|\/root\/|~\/|\\\\[^\\\s]+\\)/;

/**
 * Lists what is worth telling the sender before a pack leaves.
 *
 * @param state The passport being packed.
 * @param luggage The names of the luggage files.
 * @param asks The asks being sent.
 * @returns One sentence per warning.
 *
 * @example Usage
 * ```ts
 * import { packWarnings } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const warnings = packWarnings(
 *   { id: "TP-AAAA-BBBB", version: 1, artifacts: ["/home/alice/build/out.bin"], facts: [{ claim: "it builds" }] },
 *   [],
 *   [{ id: "a1", what: "a prompt", accept: "ok" }],
 * );
 * assertEquals(warnings.length, 3);
 * ```
 */
export function packWarnings(
  state: PassportState,
  luggage: readonly string[],
  asks: readonly Ask[],
): string[] {
  const warnings: string[] = [];
  for (const artifact of Array.isArray(state.artifacts) ? state.artifacts : []) {
    const text = String(artifact ?? "");
    if (
      LOCAL_PATH.test(text) &&
      !luggage.some((name) => name && text.includes(name.split("/").at(-1)!))
    ) {
      warnings.push(
        `an artifact points at a path on this machine the receiver cannot open: "${
          text.slice(0, 120)
        }" ` +
          "(use a git remote and revision, or attach it with --file)",
      );
    }
  }
  (Array.isArray(state.facts) ? state.facts : []).forEach((fact, index) => {
    if (isPlainObject(fact) && fact.scope === undefined) {
      warnings.push(
        `facts[${index}] has no scope: it travels as machine-scoped and arrives to be re-verified`,
      );
    }
  });
  for (const warning of memberNameWarnings({ passport: state, asks })) {
    warnings.push(`${warning.name}: ${warning.reason}`);
  }
  for (const ask of asks) {
    if (typeof ask.accept === "string" && ask.accept.trim().length < 12) {
      warnings.push(
        `ask ${ask.id}'s accept rule is too short to judge an answer by: "${ask.accept}"`,
      );
    }
  }
  return warnings;
}
