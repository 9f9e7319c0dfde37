// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Receipts come home (TaskPack 0.1 §4.4.1). A receipt answers the passport its sender was
 * landed from: the entry before the last in its lineage chain (or `root_id` for a chain of
 * one). {@linkcode mergeReceipt} refuses any other target and refuses a handoff; writes
 * `answer` and `status` (and `answered_by`, `answered_at`) onto the matching asks and nothing
 * else of theirs; never touches the goal, current state or next steps; adopts the receipt's
 * unmatched asks as open asks (with no `answered_by` or `answered_at`); adds the receipt's facts (sealed, as every fact that crosses a
 * machine); and reports, never adopts, the receipt's landing checks.
 *
 * @module
 */
import { isPlainObject } from "../bytes/mod.ts";
import { receiptTarget } from "./lineage.ts";
import type { Ask, Fact, LandingCheck, PackObject, PassportState } from "./model.ts";
import { sealFact } from "./seal.ts";

/** Why a receipt cannot be merged. */
export class ReceiptError extends Error {
  /** `not-a-receipt` or `wrong-target`. */
  readonly code: "not-a-receipt" | "wrong-target";

  /**
   * Creates the error.
   *
   * @param code The reason.
   * @param message One sentence.
   */
  constructor(code: "not-a-receipt" | "wrong-target", message: string) {
    super(message);
    this.name = "ReceiptError";
    this.code = code;
  }
}

/** What a merge did. */
export interface MergeResult {
  /** The target passport after the merge (its version is the store's business). */
  readonly state: PassportState;
  /** Ids of the target's asks that received an answer or a new status. */
  readonly answered: readonly string[];
  /** Ids of the receipt's asks adopted as open asks (questions aimed back at this side). */
  readonly adopted: readonly string[];
  /** Claims of the facts added (sealed when not universal or org). */
  readonly factsAdded: readonly string[];
  /** The receipt's landing checks: they describe the sender's machine and are only reported. */
  readonly reportedChecks: readonly LandingCheck[];
}

/**
 * Merges a receipt into the passport it answers.
 *
 * @param target The passport at home.
 * @param receipt The landed receipt's pack object.
 * @returns The merged state and what changed.
 * @throws {ReceiptError} For a handoff, or a receipt that answers another passport.
 *
 * @example Usage
 * ```ts
 * import { mergeReceipt } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const home = {
 *   id: "TP-AAAA-AAAA",
 *   version: 3,
 *   goal: "ship",
 *   asks: [{ id: "a1", what: "cover prompt", accept: "one prompt", status: "open", answer: null }],
 * };
 * const receipt = {
 *   spec: "task-passport-bag/0.1",
 *   kind: "receipt" as const,
 *   packed_at: "2026-12-03T09:00:00Z",
 *   origin: { actor: "bob", machine: "desk", harness: "" },
 *   lineage: { root_id: "TP-AAAA-AAAA", from_version: 2, chain: ["TP-AAAA-AAAA@2", "TP-BBBB-BBBB@2"] },
 *   note: "",
 *   passport: { id: "TP-BBBB-BBBB", version: 2, goal: "something else" },
 *   asks: [{ id: "a1", what: "cover prompt", accept: "one prompt", status: "answered", answer: "a fox" }],
 *   landing_checks: [],
 * };
 * const merged = mergeReceipt(home, receipt);
 * assertEquals(merged.answered, ["a1"]);
 * assertEquals(merged.state.asks![0]!.answer, "a fox");
 * assertEquals(merged.state.goal, "ship");
 * ```
 */
export function mergeReceipt(target: PassportState, receipt: PackObject): MergeResult {
  if (receipt.kind !== "receipt") {
    throw new ReceiptError(
      "not-a-receipt",
      `Cannot merge: the pack is a ${
        String(receipt.kind)
      }, not a receipt; land it as a new passport instead`,
    );
  }
  const answers = receiptTarget(receipt.lineage);
  if (answers !== target.id) {
    throw new ReceiptError(
      "wrong-target",
      `Cannot merge: this receipt answers ${
        answers ?? "no passport (its lineage is malformed)"
      }, not ${target.id}`,
    );
  }
  const sender = `${receipt.origin?.actor || "someone"}@${
    receipt.origin?.machine || "another machine"
  }`;
  const incoming = (Array.isArray(receipt.asks) ? receipt.asks : []).filter(isPlainObject) as Ask[];
  const asks = [...(target.asks ?? [])];
  const answered: string[] = [];
  const adopted: string[] = [];
  for (const ask of incoming) {
    // A counterpart has the same id and the same question: ids alone can collide when two
    // passports each number their own asks.
    const index = asks.findIndex((mine) => mine?.id === ask.id && mine?.what === ask.what);
    if (index < 0) {
      adopted.push(ask.id);
      // Adopted open (§4.4.1.3): an answer the receipt claims for it is not this side's answer.
      const { answered_by: _by, answered_at: _at, ...question } = ask;
      asks.push({ ...question, status: "open", answer: null, received_from: sender });
      continue;
    }
    const mine = asks[index]!;
    const status = ask.status === "answered" || ask.status === "dropped"
      ? ask.status
      : ask.answer != null && ask.answer !== ""
      ? "answered"
      : null;
    if (status === null) continue;
    if (mine.status === status && sameValue(mine.answer, ask.answer)) continue;
    asks[index] = {
      ...mine,
      status,
      answer: ask.answer ?? null,
      answered_by: typeof ask.answered_by === "string" && ask.answered_by
        ? ask.answered_by
        : sender,
      answered_at: typeof ask.answered_at === "string" && ask.answered_at
        ? ask.answered_at
        : receipt.packed_at,
    };
    answered.push(ask.id);
  }

  const facts = [...(target.facts ?? [])];
  const claims = new Set(facts.map((fact) => fact?.claim));
  const factsAdded: string[] = [];
  const machine = typeof receipt.origin?.machine === "string" ? receipt.origin.machine : "";
  for (
    const fact of (Array.isArray(receipt.passport?.facts) ? receipt.passport.facts : []) as Fact[]
  ) {
    if (!isPlainObject(fact) || typeof fact.claim !== "string" || claims.has(fact.claim)) continue;
    claims.add(fact.claim);
    facts.push(sealFact(fact, machine));
    factsAdded.push(fact.claim);
  }

  const changed = answered.length > 0 || adopted.length > 0 || factsAdded.length > 0;
  const state = changed ? { ...target, asks, facts } : target;
  const reportedChecks = (Array.isArray(receipt.landing_checks) ? receipt.landing_checks : [])
    .filter(isPlainObject) as LandingCheck[];
  return { state, answered, adopted, factsAdded, reportedChecks };
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
