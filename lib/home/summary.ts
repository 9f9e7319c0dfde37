// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * What is inside a pack, as written: the summary `taskpack inspect --json`, the HTTP judge's
 * `POST /inspect` and the viewer page all show. Pure: it reads a decoded pack and the judge's
 * report, and never repairs, follows or executes anything it finds (landing checks are
 * marked as the sender's suggestions).
 *
 * @module
 */
import { isPlainObject } from "../bytes/mod.ts";
import {
  type CheckId,
  type DecodedPack,
  instructionsFound,
  isPortableScope,
  type LuggageVerdict,
  type PortabilityWarning,
  type Report,
} from "../format/mod.ts";
import { type Imperative, redactValue } from "../scan/mod.ts";

/**
 * A fact's state as it crosses: `verified` (proven and portable), `unverified`, `sealed`
 * (machine-scoped: the receiver must prove it again on its own machine), or
 * `machine-verified` (machine-scoped yet still marked verified, which fails C6).
 */
export type FactState = "verified" | "unverified" | "sealed" | "machine-verified";

/**
 * Classifies a fact as written.
 *
 * @param fact The fact.
 * @returns Its state.
 *
 * @example Usage
 * ```ts
 * import { factState } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(factState({ claim: "x", scope: "universal", verified: true }), "verified");
 * assertEquals(factState({ claim: "x", scope: "machine", needs_reverify: true }), "sealed");
 * assertEquals(factState({ claim: "x", verified: true }), "machine-verified");
 * ```
 */
export function factState(fact: Record<string, unknown>): FactState {
  if (isPortableScope(fact.scope)) return fact.verified === true ? "verified" : "unverified";
  if (fact.verified === true) return "machine-verified";
  return fact.needs_reverify === true ? "sealed" : "unverified";
}

/** A JSON object as written in a pack. */
export type PackFields = Record<string, unknown>;

/** What is inside a pack, as written (the `inspect` summary). */
export interface PackSummary {
  /** `bag`, `flat` or `tpx`. */
  encoding: string;
  /** The pack digest, when the judge could compute it. */
  digest: string | null;
  /** Whether the judge found the file conformant as written. */
  conformant: boolean;
  /** The checks it failed. */
  failed_checks: CheckId[];
  /** `handoff` or `receipt` (as written: anything else fails C3). */
  kind: unknown;
  /** When it was packed, as written. */
  packed_at: unknown;
  /** Who packed it, where. */
  origin: unknown;
  /** Where the task has been. */
  lineage: unknown;
  /** The sender's one line. */
  note: unknown;
  /** The passport's identity and state. */
  passport: {
    /** Passport id. */
    id: unknown;
    /** Checkpoint version. */
    version: unknown;
    /** Title. */
    title: unknown;
    /** Goal. */
    goal: unknown;
    /** Current state. */
    current_state: unknown;
  };
  /** Facts as written, each with its {@linkcode FactState}. */
  facts: (PackFields & { state: FactState })[];
  /** Decisions as written. */
  decisions: PackFields[];
  /** The sender's next steps as written. */
  next_steps: unknown[];
  /** Asks as written (each with its `accept` rule). */
  asks: PackFields[];
  /** Landing checks as written, marked as the sender's suggestions. */
  landing_checks: (PackFields & { how_is_senders_suggestion: true })[];
  /**
   * Luggage: name under `data/files/`, size, declared digest, and, when the files were checked
   * (`checkLuggage`), whether `land` lets each through, and if not why.
   */
  luggage: LuggageRow[];
  /** Instruction-like passages, exactly as `land` reports them (see `instructionsFound`). */
  instructions_found: Imperative[];
  /** Luggage names some systems cannot hold, as the judge reports them. */
  warnings: PortabilityWarning[];
}

/** One luggage file in a {@linkcode PackSummary}. */
export interface LuggageRow {
  /** The name under `data/files/`. */
  name: string;
  /** Its size, as written. */
  bytes: number;
  /** The digest its manifest declares. */
  sha256: string | null;
  /** False when `land` refuses the file: it must not be offered to save. Absent when unchecked. */
  ok?: boolean;
  /** The SHA-256 of its bytes as read, when checked. */
  actual_sha256?: string | null;
  /** Why it is refused (`bag-digest`, `credential`, ...), when it is. */
  reason?: string;
  /** The refusal in one line, when it is refused. */
  detail?: string;
}

/**
 * Summarises a decoded pack and its report: origin, lineage, facts with their seal state,
 * decisions, asks, landing checks (as the sender's suggestions), luggage and the verdict.
 *
 * @param decoded The pack as written (from `decodePack`).
 * @param report The judge's report on the same file.
 * @param verdicts The luggage checked as `land` checks it (`checkLuggage`), to show per file.
 * @returns The summary; serialise it with `JSON.stringify`.
 *
 * @example Usage
 * ```ts
 * import {
 *   buildPackObject,
 *   decodePack,
 *   encodeFlat,
 *   judge,
 *   preparePack,
 *   summarisePack,
 * } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const state = {
 *   id: "TP-9CB7-J5MK",
 *   version: 2,
 *   goal: "ship it",
 *   facts: [{ claim: "port 8080 is free", scope: "machine", verified: true }],
 * };
 * const pack = buildPackObject(state, { packedAt: "2026-12-02T16:46:10Z", machine: "vm" });
 * const bytes = new TextEncoder().encode(await encodeFlat(await preparePack(pack, [])));
 * const summary = summarisePack(await decodePack(bytes), await judge(bytes));
 * assertEquals(summary.conformant, true);
 * assertEquals(summary.passport.goal, "ship it");
 * assertEquals(summary.facts[0]!.state, "sealed");
 * ```
 */
export function summarisePack(
  decoded: DecodedPack,
  report: Report,
  verdicts?: readonly LuggageVerdict[],
): PackSummary {
  const pack = isPlainObject(decoded.object) ? decoded.object : {};
  const state = isPlainObject(pack.passport) ? pack.passport : {};
  const list = (value: unknown): PackFields[] =>
    Array.isArray(value) ? value.filter(isPlainObject) : [];
  // A summary is printed and served: whatever in it looks like a secret is shown redacted (the
  // judge's C7 fails on it).
  return redactValue({
    encoding: decoded.encoding,
    digest: report.digest,
    conformant: report.ok,
    failed_checks: report.checks.filter((c) => !c.ok).map((c) => c.id),
    kind: pack.kind,
    packed_at: pack.packed_at,
    origin: pack.origin,
    lineage: pack.lineage,
    note: pack.note,
    passport: {
      id: state.id,
      version: state.version,
      title: state.title,
      goal: state.goal,
      current_state: state.current_state,
    },
    facts: list(state.facts).map((fact) => ({ ...fact, state: factState(fact) })),
    decisions: list(state.decisions),
    next_steps: Array.isArray(state.next_steps) ? state.next_steps : [],
    asks: list(pack.asks),
    landing_checks: list(pack.landing_checks).map((check) => ({
      ...check,
      how_is_senders_suggestion: true as const,
    })),
    luggage: decoded.luggage.map((file, index) => {
      const row: LuggageRow = { name: file.name, bytes: file.size, sha256: file.declaredSha256 };
      const verdict = verdicts?.[index];
      if (verdict) {
        row.ok = verdict.ok;
        row.actual_sha256 = verdict.actual_sha256;
        if (verdict.reason !== null) row.reason = verdict.reason;
        if (verdict.detail !== null) row.detail = verdict.detail;
      }
      return row;
    }),
    instructions_found: instructionsFound(pack),
    warnings: report.warnings,
  });
}
