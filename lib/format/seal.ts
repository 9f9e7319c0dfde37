// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Sealing (TaskPack 0.1 §4.2): a verified fact does not stay verified when it crosses a
 * machine. At pack time every fact whose scope is not exactly `universal` or `org` (a missing
 * scope, `machine`, `Machine`, anything else) is sealed: `verified: false`,
 * `needs_reverify: true`, and `verified_on` = the machine where it was proven.
 *
 * @module
 */
import type { Fact, PackObject, Repair } from "./model.ts";

/**
 * Whether a scope keeps `verified` across a machine: exactly `universal` or `org`.
 *
 * @param scope The fact's `scope` field, whatever its type.
 * @returns True for `universal` and `org` only.
 *
 * @example Usage
 * ```ts
 * import { isPortableScope } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isPortableScope("org"), true);
 * assertEquals(isPortableScope("Machine"), false);
 * assertEquals(isPortableScope(undefined), false);
 * ```
 */
export function isPortableScope(scope: unknown): boolean {
  return scope === "universal" || scope === "org";
}

/**
 * Whether a fact must be sealed and is not yet exactly sealed.
 *
 * @param fact A fact (any value: non-objects are left alone).
 * @param machine The sender's machine, used when the fact has no `verified_on`.
 * @returns True when {@linkcode sealFact} would change it.
 *
 * @example Usage
 * ```ts
 * import { needsSealing } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(needsSealing({ claim: "port 8080 is free", verified: true }, "vm"), true);
 * assertEquals(needsSealing({ claim: "x", scope: "universal", verified: true }, "vm"), false);
 * ```
 */
export function needsSealing(fact: unknown, machine: string): boolean {
  if (!isFactObject(fact) || isPortableScope(fact.scope)) return false;
  return fact.verified !== false || fact.needs_reverify !== true ||
    fact.verified_on !== sealedOn(fact, machine);
}

/**
 * Seals one fact. Idempotent: sealing a sealed fact returns it unchanged, and the keys of a
 * fact keep their order, so a sealed pack re-serialises to the same bytes.
 *
 * @param fact The fact.
 * @param machine The sender's machine, recorded as `verified_on` unless one is already set.
 * @returns The sealed fact (the same object when nothing had to change).
 *
 * @example Usage
 * ```ts
 * import { type Fact, sealFact } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const fact: Fact = { claim: "node 20 at /usr/bin/node", scope: "machine", verified: true };
 * const sealed = sealFact(fact, "vm");
 * assertEquals(sealed, {
 *   claim: "node 20 at /usr/bin/node",
 *   scope: "machine",
 *   verified: false,
 *   needs_reverify: true,
 *   verified_on: "vm",
 * });
 * assertEquals(sealFact(sealed, "elsewhere"), sealed);
 * ```
 */
export function sealFact<T>(fact: T, machine: string): T {
  if (!needsSealing(fact, machine)) return fact;
  const f = fact as Fact;
  return { ...f, verified: false, needs_reverify: true, verified_on: sealedOn(f, machine) } as T;
}

/**
 * Seals every fact of a pack object's passport. Returns the object unchanged (the same
 * reference) when nothing needed sealing, and lists what was sealed.
 *
 * @param pack A pack object (possibly as read from an untrusted file).
 * @returns The sealed pack and the repairs made.
 *
 * @example Usage
 * ```ts
 * import { sealPack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const pack = {
 *   origin: { actor: "alice", machine: "vm", harness: "" },
 *   passport: { id: "TP-AAAA-BBBB", version: 1, facts: [{ claim: "it builds", verified: true }] },
 * };
 * const { pack: sealed, repairs } = sealPack(pack);
 * assertEquals(sealed.passport.facts[0]!.verified, false);
 * assertEquals(repairs[0]!.where, "passport.facts[0]");
 * ```
 */
export function sealPack<T extends Partial<PackObject> | Record<string, unknown>>(
  pack: T,
): { pack: T; repairs: Repair[] } {
  const state = (pack as Partial<PackObject>).passport;
  if (!isFactObject(state) || !Array.isArray(state.facts)) return { pack, repairs: [] };
  const origin = (pack as Partial<PackObject>).origin;
  const machine = isFactObject(origin) && typeof origin.machine === "string" ? origin.machine : "";
  const repairs: Repair[] = [];
  const facts = state.facts.map((fact, index) => {
    if (!needsSealing(fact, machine)) return fact;
    repairs.push({
      check: "C6",
      where: `passport.facts[${index}]`,
      detail: "sealed a fact that is not universal or org (verified: false, needs_reverify: true)",
    });
    return sealFact(fact, machine);
  });
  if (repairs.length === 0) return { pack, repairs };
  return { pack: { ...pack, passport: { ...state, facts } }, repairs };
}

function sealedOn(fact: Fact, machine: string): string {
  return typeof fact.verified_on === "string" && fact.verified_on !== ""
    ? fact.verified_on
    : machine;
}

function isFactObject(value: unknown): value is Record<string, unknown> & Fact {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
