// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Passport state at home: creating one, recording the asks a pack sends (TaskPack 0.1 §4.3:
 * a record that does not remember its own questions has nowhere to put the answers), and
 * recording an answer.
 *
 * @module
 */
import { type Ask, PASSPORT_SPEC, type PassportState } from "../format/mod.ts";

/** Options for {@linkcode newPassportState}. */
export interface NewPassportOptions {
  /** The minted id. */
  id: string;
  /** A short title. */
  title: string;
  /** What done looks like. */
  goal: string;
  /** The time, `YYYY-MM-DDTHH:MM:SSZ` (the core never reads the clock). */
  now: string;
  /** Where the work stands (a default sentence when omitted). */
  currentState?: string;
  /** The first next steps (a default step when omitted). */
  nextSteps?: readonly string[];
  /** The harness creating it. */
  harness?: string;
  /** This machine. */
  machine?: string;
}

/**
 * A new passport state (the `2origin/0.1` record, fields in the incumbent's order), version 1.
 *
 * @param options Id, title, goal, time and the optional fields.
 * @returns The state.
 *
 * @example Usage
 * ```ts
 * import { newPassportState } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const state = newPassportState({
 *   id: "TP-AAAA-BBBB",
 *   title: "release plugin",
 *   goal: "ship it",
 *   now: "2026-12-02T16:46:10Z",
 * });
 * assertEquals(state.version, 1);
 * assertEquals(state.facts, []);
 * ```
 */
export function newPassportState(options: NewPassportOptions): PassportState {
  const title = options.title.trim();
  const goal = options.goal.trim();
  if (!title) throw new TypeError("Cannot create passport: the title is empty");
  if (!goal) throw new TypeError("Cannot create passport: the goal is empty");
  const steps = (options.nextSteps ?? []).map((s) => s.trim()).filter(Boolean);
  return {
    spec: PASSPORT_SPEC,
    kind: "task.origin",
    id: options.id,
    title,
    goal,
    version: 1,
    machine_id: options.machine ?? "",
    harness: options.harness ?? "taskpack",
    scope: "",
    created_at: options.now,
    updated_at: options.now,
    current_state: options.currentState?.trim() || "Passport created; work has not started.",
    facts: [],
    decisions: [],
    actions: [],
    artifacts: [],
    verification: "",
    next_steps: steps.length
      ? steps
      : ["Read the goal, then plan and take the first verifiable step."],
    learnings: [],
    asks: [],
  };
}

/**
 * Gives asks without an id the next free ids (`a1`, `a2`, ...) in a passport.
 *
 * @param state The passport the asks are sent from.
 * @param asks The asks to send.
 * @returns The asks, each with an id no other ask of the passport has.
 *
 * @example Usage
 * ```ts
 * import { assignAskIds } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const state = { id: "TP-AAAA-BBBB", version: 1, asks: [{ id: "a1", what: "x", accept: "y" }] };
 * const asks = assignAskIds(state, [{ what: "cover prompt", accept: "one prompt" }]);
 * assertEquals(asks[0]!.id, "a2");
 * ```
 */
export function assignAskIds(state: PassportState, asks: readonly Partial<Ask>[]): Partial<Ask>[] {
  const used = new Set((state.asks ?? []).map((ask) => ask?.id));
  for (const ask of asks) if (ask.id) used.add(ask.id);
  let next = 1;
  return asks.map((ask) => {
    if (ask.id) return ask;
    while (used.has(`a${next}`)) next++;
    used.add(`a${next}`);
    return { ...ask, id: `a${next}` };
  });
}

/**
 * Records the asks a pack sends in the passport that stays home (§4.3), as open asks, so the
 * answers have somewhere to land. Asks already recorded (same id) are left as they are.
 *
 * @param state The home passport.
 * @param asks The asks, as they were written into the pack.
 * @param to Who they were sent to (e.g. the pack's file name or the receiver).
 * @returns The new state.
 *
 * @example Usage
 * ```ts
 * import { recordSentAsks } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const home = { id: "TP-AAAA-BBBB", version: 1 };
 * const next = recordSentAsks(home, [{ id: "a1", what: "prompt", accept: "one prompt" }], "peer");
 * assertEquals(next.asks![0]!.status, "open");
 * assertEquals(next.asks![0]!.sent_to, "peer");
 * ```
 */
export function recordSentAsks(
  state: PassportState,
  asks: readonly Ask[],
  to: string,
): PassportState {
  const existing = state.asks ?? [];
  const known = new Set(existing.map((ask) => ask?.id));
  const added = asks.filter((ask) => !known.has(ask.id)).map((ask): Ask => ({
    ...ask,
    status: "open",
    answer: null,
    sent_to: to,
  }));
  return added.length ? { ...state, asks: [...existing, ...added] } : state;
}

/**
 * Records an answer on an ask of a passport (the receiving side, before packing a receipt).
 *
 * @param state The passport holding the ask.
 * @param askId The ask's id.
 * @param answer The answer.
 * @param by Who answered (`actor@machine`).
 * @param at When, `YYYY-MM-DDTHH:MM:SSZ`.
 * @returns The new state.
 * @throws {RangeError} When the passport has no such ask.
 *
 * @example Usage
 * ```ts
 * import { answerAsk } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const state = { id: "TP-AAAA-BBBB", version: 1, asks: [{ id: "a1", what: "x", accept: "y" }] };
 * const next = answerAsk(state, "a1", "here it is", "bob@desk", "2026-12-03T09:00:00Z");
 * assertEquals(next.asks![0]!.status, "answered");
 * assertEquals(next.asks![0]!.answered_by, "bob@desk");
 * ```
 */
export function answerAsk(
  state: PassportState,
  askId: string,
  answer: string,
  by: string,
  at: string,
): PassportState {
  const asks = state.asks ?? [];
  const index = asks.findIndex((ask) => ask?.id === askId);
  if (index < 0) {
    const ids = asks.map((ask) => ask?.id).join(", ") || "none";
    throw new RangeError(`Cannot answer: ${state.id} has no ask "${askId}" (its asks: ${ids})`);
  }
  const updated = asks.map((ask, i) =>
    i === index ? { ...ask, status: "answered", answer, answered_by: by, answered_at: at } : ask
  );
  // The step landing added for it ("Answer ask a1: ...") is done once it is answered.
  const step = `Answer ask ${askId}:`;
  const steps = state.next_steps;
  return {
    ...state,
    asks: updated,
    ...(Array.isArray(steps)
      ? { next_steps: steps.filter((s) => !(typeof s === "string" && s.startsWith(step))) }
      : {}),
  };
}
