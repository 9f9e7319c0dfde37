// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * A documented, lossless mapping between a Resumable Handoff Capsule 1.0.0 (validated by
 * `capsule.ts`) and a TaskPack 0.1 pack object.
 *
 * {@linkcode capsuleToPack} and {@linkcode packToCapsule}; `docs/capsule.md` has the full table:
 *
 * | capsule                | pack object                                                       |
 * | ---------------------- | ----------------------------------------------------------------- |
 * | `task_id`              | `passport.capsule.task_id`, and `passport.title`                  |
 * | `outcome`              | `passport.goal`                                                   |
 * | `facts[i].text`        | `passport.facts[i].claim`                                         |
 * | `facts[i].reference`   | `passport.facts[i].source`                                        |
 * | (fact scope)           | none, so the fact is sealed (unverified) unless a scope is given  |
 * | `work[i]`              | `passport.capsule.work[i]`, verbatim (id, status, evidence)       |
 * | `next_action`          | `passport.capsule.next_action`, and the first of `next_steps`     |
 * | open work              | one `next_steps` entry each, after `next_action`                  |
 * | all work               | a summary in `passport.current_state`                             |
 * | `open_ids`             | derived again on the way back                                     |
 *
 * The passport id comes from the caller, because the core never draws random numbers.
 *
 * A pack that was not made from a capsule maps back as follows. `task_id` is `lineage.root_id`
 * (the task's identity across hops, spec §5). `outcome` is `goal`, or else `title`. A fact
 * with no `source` gets a reference that names the pack (`taskpack:<id>@<version>#...`). Each
 * next step becomes an open work item whose id is the step's own text, and the first step is
 * also `next_action`. {@linkcode packToCapsule} lists everything a capsule cannot hold:
 * asks, landing checks, decisions, artifacts, luggage, earlier hops, a fact's scope and ✓,
 * and other fields.
 *
 * @module
 */
import { isPlainObject } from "../bytes/mod.ts";
import {
  buildPackObject,
  type Fact,
  isPassportId,
  isPortableScope,
  type PackObject,
  type PassportState,
} from "../format/mod.ts";
import {
  type Capsule,
  CAPSULE_CONTRACT,
  CAPSULE_DONE,
  type CapsuleFact,
  type CapsuleResult,
  type CapsuleWork,
  checkCapsule,
  describeType,
  expectObject,
  type Fail,
  failer,
  isBlank,
  keySegment,
  type TopField,
  validateCapsule,
} from "./capsule.ts";

/** A fact scope a caller can vouch for (TaskPack 0.1 §4.2). */
export type CapsuleFactScope = "universal" | "org" | "machine";

/** Options for {@linkcode capsuleToPack}. */
export interface CapsuleToPackOptions {
  /**
   * The passport id, `TP-XXXX-XXXX`. A capsule's `task_id` is not one, and the core draws no
   * random numbers: mint one with `mintPassportId`.
   */
  id: string;
  /** When the pack is made: a `Date` or an ISO string. */
  packedAt: Date | string;
  /** The sender's machine name. Facts that are sealed record it as `verified_on`. */
  machine: string;
  /** Who packs it. */
  actor?: string;
  /**
   * The scope of the capsule's facts, when the caller knows it. `universal` and `org` facts
   * cross with `verified: true`. With no scope, or `machine`, facts arrive sealed: unverified
   * and marked for re-verification (§4.2).
   */
  factScope?: CapsuleFactScope;
}

/**
 * Maps a capsule onto a TaskPack pack object, losing nothing (see the module documentation for
 * the table). The capsule is validated first. Nothing is sealed or refused here: pass the
 * result to `preparePack`, the one chokepoint every pack goes through.
 *
 * @param capsule The capsule, with or without `open_ids`.
 * @param options The passport id, the time, the machine, the actor, and the facts' scope.
 * @returns The pack object, a `handoff`.
 * @throws {CapsuleError} When the capsule breaks its contract.
 * @throws {RangeError} When `id` is not a passport id, or `factScope` is not a scope.
 *
 * @example Usage
 * ```ts
 * import { capsuleToPack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const pack = capsuleToPack({
 *   task_id: "t1",
 *   outcome: "Publish guide",
 *   facts: [{ text: "Draft saved", reference: "file:guide.md" }],
 *   work: [
 *     { id: "draft", status: "done", evidence: ["file:guide.md"] },
 *     { id: "upload", status: "pending", evidence: [] },
 *   ],
 *   next_action: "Upload the reviewed guide",
 * }, { id: "TP-9CB7-J5MK", packedAt: "2026-12-02T16:46:10Z", machine: "vm", actor: "alice" });
 *
 * assertEquals(pack.passport.goal, "Publish guide");
 * assertEquals(pack.passport.facts, [
 *   { claim: "Draft saved", verified: true, source: "file:guide.md" },
 * ]);
 * assertEquals(pack.passport.next_steps, [
 *   "Upload the reviewed guide",
 *   'Resolve work item "upload" (status: pending)',
 * ]);
 * assertEquals(pack.passport.current_state, '1 of 2 work items done: "draft"; open: "upload".');
 * assertEquals(pack.lineage.chain, ["TP-9CB7-J5MK@1"]);
 * ```
 */
export function capsuleToPack(capsule: Capsule, options: CapsuleToPackOptions): PackObject {
  const valid = validateCapsule(capsule);
  if (!isPassportId(options.id)) {
    throw new RangeError(
      `Cannot convert capsule: ${JSON.stringify(options.id)} is not a passport id (TP-XXXX-XXXX)`,
    );
  }
  const scope = options.factScope;
  if (scope !== undefined && scope !== "universal" && scope !== "org" && scope !== "machine") {
    throw new RangeError(
      `Cannot convert capsule: factScope ${JSON.stringify(scope)} is not universal, org or machine`,
    );
  }
  const summary = workSummary(valid.work);
  const state: PassportState = {
    id: options.id,
    version: 1,
    title: valid.task_id,
    goal: valid.outcome,
    ...(summary === undefined ? {} : { current_state: summary }),
    facts: valid.facts.map((fact): Fact => ({
      claim: fact.text,
      ...(scope === undefined ? {} : { scope }),
      verified: true,
      source: fact.reference,
    })),
    next_steps: derivedNextSteps(valid),
    capsule: {
      contract: CAPSULE_CONTRACT,
      task_id: valid.task_id,
      work: valid.work,
      ...(valid.next_action === undefined ? {} : { next_action: valid.next_action }),
    },
  };
  return buildPackObject(state, {
    packedAt: options.packedAt,
    machine: options.machine,
    ...(options.actor === undefined ? {} : { actor: options.actor }),
  });
}

/** `next_action` first, then one step per open work item. */
function derivedNextSteps(capsule: Capsule): string[] {
  return [
    ...(capsule.next_action === undefined ? [] : [capsule.next_action]),
    ...capsule.work
      .filter((item) => item.status !== CAPSULE_DONE)
      .map((item) => `Resolve work item ${JSON.stringify(item.id)} (status: ${item.status})`),
  ];
}

/** `1 of 2 work items done: "draft"; open: "upload".`, or nothing when there is no work. */
function workSummary(work: readonly CapsuleWork[]): string | undefined {
  if (work.length === 0) return undefined;
  const ids = (items: CapsuleWork[]) => items.map((item) => JSON.stringify(item.id)).join(", ");
  const done = work.filter((item) => item.status === CAPSULE_DONE);
  const open = work.filter((item) => item.status !== CAPSULE_DONE);
  const noun = work.length === 1 ? "work item" : "work items";
  const parts = [`${done.length} of ${work.length} ${noun} done`];
  if (done.length) parts[0] += `: ${ids(done)}`;
  if (open.length) parts.push(`open: ${ids(open)}`);
  return `${parts.join("; ")}.`;
}

// ---------------------------------------------------------------------------------------------
// Pack -> capsule

/** Options for {@linkcode packToCapsule}. */
export interface PackToCapsuleOptions {
  /** The names of the pack's luggage files, which a capsule cannot carry. */
  luggage?: readonly string[];
}

/** A capsule made from a pack, and what the pack held that the capsule cannot. */
export interface PackToCapsuleResult {
  /** The capsule, validated, with `open_ids`. */
  capsule: CapsuleResult;
  /**
   * One line per thing left out or filled in, each starting with its path in the pack object,
   * for example `asks: 1 item (a1)`. Empty for a pack made from a capsule and not changed
   * since.
   */
  leftOut: string[];
}

/** Pack object fields that are the envelope of any pack; never reported. */
const PACK_ENVELOPE = new Set(["spec", "kind", "packed_at", "origin", "lineage", "passport"]);
/** Passport fields that are bookkeeping, or mapped; never reported as such. */
const PASSPORT_MAPPED = new Set([
  "id",
  "version",
  "spec",
  "kind",
  "machine_id",
  "harness",
  "created_at",
  "updated_at",
  "lineage",
  "title",
  "goal",
  "current_state",
  "facts",
  "next_steps",
  "capsule",
]);
/** Fact fields a capsule fact stands for: the claim, its source, and its seal state. */
const FACT_MAPPED = new Set(["claim", "source", "needs_reverify", "verified_on"]);

/**
 * Maps a pack object back onto a capsule (see the module documentation for the table). A
 * pack made by {@linkcode capsuleToPack} gives back exactly the capsule it was made from,
 * even after sealing and both encodings. Any other pack gives the closest valid capsule. In
 * both cases `leftOut` lists what the capsule cannot hold.
 *
 * @param pack The pack object, such as `land(...).object`.
 * @param options The luggage names, so that they are listed as left out.
 * @returns The capsule and what was left out.
 * @throws {CapsuleError} When the pack has no goal or title for the outcome, or its
 * `passport.capsule` record breaks the contract.
 *
 * @example Usage
 * ```ts
 * import { packToCapsule } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const { capsule, leftOut } = packToCapsule({
 *   spec: "task-passport-bag/0.1",
 *   kind: "handoff",
 *   packed_at: "2026-12-02T16:46:10Z",
 *   origin: { actor: "alice", machine: "vm", harness: "" },
 *   lineage: { root_id: "TP-9CB7-J5MK", from_version: 2, chain: ["TP-9CB7-J5MK@2"] },
 *   note: "",
 *   passport: {
 *     id: "TP-9CB7-J5MK",
 *     version: 2,
 *     goal: "ship the plugin tonight",
 *     facts: [{ claim: "CI is green", source: "ci:run/42" }],
 *     decisions: [{ what: "no dark theme", why: "not ready" }],
 *     next_steps: ["publish to registry"],
 *   },
 *   asks: [{ id: "a1", what: "cover image", accept: "one prompt" }],
 *   landing_checks: [],
 * });
 * assertEquals(capsule.task_id, "TP-9CB7-J5MK");
 * assertEquals(capsule.next_action, "publish to registry");
 * assertEquals(capsule.open_ids, ["publish to registry"]);
 * assertEquals(leftOut, ["asks: 1 item (a1)", "passport.decisions: 1 item"]);
 * ```
 */
export function packToCapsule(
  pack: PackObject,
  options: PackToCapsuleOptions = {},
): PackToCapsuleResult {
  const fail: Fail = failer("convert pack to capsule");
  const object = expectObject(pack, "(root)", "a pack object", fail);
  const state = expectObject(object.passport, "passport", "a passport", fail);
  const leftOut: string[] = [];

  const record = isPlainObject(state.capsule) && state.capsule.contract === CAPSULE_CONTRACT
    ? state.capsule
    : null;

  // task_id
  const lineage = isPlainObject(object.lineage) ? object.lineage : {};
  const task_id = record
    ? record.task_id
    : !isBlank(lineage.root_id) && typeof lineage.root_id === "string"
    ? lineage.root_id
    : state.id;

  // outcome
  const goal = state.goal;
  const title = state.title;
  const useGoal = typeof goal === "string" && !isBlank(goal);
  const outcome = useGoal ? goal : title;
  if (typeof outcome !== "string" || isBlank(outcome)) {
    fail(
      "missing-field",
      "passport.goal",
      "passport.goal is missing, and so is passport.title: a capsule needs an outcome",
    );
  }

  // facts
  const facts = mapFacts(state, leftOut);

  // work and next_action
  let work: unknown;
  let next_action: unknown;
  if (record) {
    work = record.work;
    next_action = record.next_action;
    for (const [key, value] of Object.entries(record)) {
      if (!["contract", "task_id", "work", "next_action"].includes(key)) {
        report(leftOut, `passport.capsule${keySegment(key)}`, value);
      }
    }
  } else {
    const steps = stepsOf(state.next_steps, leftOut);
    work = uniqueIds(steps).map((id) => ({ id, status: "pending", evidence: [] }));
    next_action = steps[0];
  }

  const candidate = {
    task_id,
    outcome,
    facts,
    work,
    ...(next_action === undefined ? {} : { next_action }),
  };
  const capsulePath = (field: TopField): string =>
    field === "outcome"
      ? useGoal ? "passport.goal" : "passport.title"
      : field === "facts"
      ? "passport.facts"
      : record
      ? `passport.capsule.${field}`
      : field === "task_id"
      ? "lineage.root_id"
      : "passport.next_steps";
  const capsule = checkCapsule(candidate, {
    root: "passport",
    path: capsulePath,
    action: "convert pack to capsule",
  });

  // What the capsule cannot hold: the views it derives, if they were changed, then the rest.
  if (useGoal && !isEmptyValue(title) && title !== capsule.task_id) {
    report(leftOut, "passport.title", title);
  }
  if (record) {
    if (!isEmptyValue(state.current_state) && state.current_state !== workSummary(capsule.work)) {
      leftOut.push("passport.current_state: changed since the capsule was packed");
    }
    if (!sameStrings(state.next_steps, derivedNextSteps(capsule))) {
      leftOut.push("passport.next_steps: changed since the capsule was packed");
    }
  } else if (!isEmptyValue(state.current_state)) {
    report(leftOut, "passport.current_state", state.current_state);
  }
  if (state.capsule !== undefined && !record && !isEmptyValue(state.capsule)) {
    leftOut.push(`passport.capsule: not a ${CAPSULE_CONTRACT} record`);
  }
  for (const [key, value] of Object.entries(state)) {
    if (!PASSPORT_MAPPED.has(key)) report(leftOut, `passport${keySegment(key)}`, value);
  }
  const packLeftOut: string[] = [];
  if (object.kind === "receipt") {
    packLeftOut.push("kind: a receipt (answers to asks); a capsule cannot say so");
  }
  const chain = Array.isArray(lineage.chain) ? lineage.chain : [];
  if (chain.length > 1) {
    packLeftOut.push(
      `lineage: ${chain.length - 1} earlier hop(s) (${chain.slice(0, -1).join(", ")})`,
    );
  }
  for (const [key, value] of Object.entries(object)) {
    if (!PACK_ENVELOPE.has(key)) report(packLeftOut, keySegment(key).replace(/^\./, ""), value);
  }
  const luggage = options.luggage ?? [];
  if (luggage.length) {
    packLeftOut.push(
      `luggage: ${luggage.length} ${luggage.length === 1 ? "file" : "files"} (${
        luggage.join(", ")
      })`,
    );
  }
  return { capsule, leftOut: [...packLeftOut, ...leftOut] };
}

function mapFacts(state: Record<string, unknown>, leftOut: string[]): CapsuleFact[] {
  const list = state.facts;
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    report(leftOut, "passport.facts", list);
    return [];
  }
  const facts: CapsuleFact[] = [];
  list.forEach((fact: unknown, i: number) => {
    const path = `passport.facts[${i}]`;
    if (!isPlainObject(fact)) {
      leftOut.push(`${path}: not a fact object`);
      return;
    }
    if (typeof fact.claim !== "string" || isBlank(fact.claim)) {
      leftOut.push(`${path}: no claim, so no capsule fact`);
      return;
    }
    const notes: string[] = [];
    let reference: string;
    if (typeof fact.source === "string" && !isBlank(fact.source)) {
      reference = fact.source;
    } else {
      reference = `taskpack:${String(state.id)}@${String(state.version)}#${path}`;
      notes.push(`no source, so its reference names the pack (${reference})`);
    }
    if (fact.scope !== undefined && fact.scope !== "machine" && !isEmptyValue(fact.scope)) {
      notes.push(`scope ${JSON.stringify(fact.scope)}`);
    }
    if (fact.verified === true) {
      notes.push(
        isPortableScope(fact.scope) ? "verified: true" : "verified: true (not sealed)",
      );
    }
    for (const [key, value] of Object.entries(fact)) {
      if (!FACT_MAPPED.has(key) && key !== "scope" && key !== "verified" && !isEmptyValue(value)) {
        notes.push(key);
      }
    }
    if (notes.length) leftOut.push(`${path}: ${notes.join(", ")}`);
    facts.push({ text: fact.claim, reference });
  });
  return facts;
}

/** The usable next steps of a pack that was not made from a capsule. */
function stepsOf(value: unknown, leftOut: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    report(leftOut, "passport.next_steps", value);
    return [];
  }
  const steps: string[] = [];
  value.forEach((step: unknown, i: number) => {
    if (typeof step === "string" && !isBlank(step)) steps.push(step);
    else leftOut.push(`passport.next_steps[${i}]: not a step (${describeType(step)})`);
  });
  return steps;
}

/** Each step as a work id; a repeated step gets ` (2)`, ` (3)` ... to keep ids unique. */
function uniqueIds(steps: readonly string[]): string[] {
  const used = new Set<string>();
  return steps.map((step) => {
    let id = step;
    for (let n = 2; used.has(id); n++) id = `${step} (${n})`;
    used.add(id);
    return id;
  });
}

function sameStrings(value: unknown, expected: readonly string[]): boolean {
  return Array.isArray(value) && value.length === expected.length &&
    value.every((item, i) => item === expected[i]);
}

/** Adds `<path>: <summary>` unless the value is empty (nothing is lost then). */
function report(leftOut: string[], path: string, value: unknown): void {
  if (isEmptyValue(value)) return;
  leftOut.push(`${path}: ${summarise(value)}`);
}

function summarise(value: unknown): string {
  if (Array.isArray(value)) {
    const ids = value
      .map((item) => isPlainObject(item) && typeof item.id === "string" ? item.id : null)
      .filter((id): id is string => id !== null);
    const count = `${value.length} ${value.length === 1 ? "item" : "items"}`;
    return ids.length ? `${count} (${ids.join(", ")})` : count;
  }
  if (typeof value === "string") {
    const chars = [...value];
    const short = chars.length > 60 ? `${chars.slice(0, 59).join("")}…` : value;
    return JSON.stringify(short);
  }
  if (isPlainObject(value)) return "an object";
  return JSON.stringify(value) ?? String(value);
}

function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === "string") return value.trim() === "";
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) return Object.keys(value).length === 0;
  return false;
}
