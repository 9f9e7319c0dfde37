// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The Resumable Handoff Capsule 1.0.0: validating a capsule exactly to its contract.
 *
 * A capsule is one JSON object: `task_id`, `outcome`, `facts[{text, reference}]`,
 * `work[{id, status, evidence}]`, `next_action`, and the derived `open_ids`.
 *
 * The contract, as {@linkcode validateCapsule} applies it:
 *
 * - `task_id` and `outcome` are required strings.
 * - Every fact has a non-empty `reference`.
 * - Work whose status is exactly `done` has at least one evidence reference, and every
 *   evidence reference is non-empty.
 * - `next_action` is required while any work is open. Open means any status other than
 *   exactly `done`: `pending`, `blocked`, `Done` and `DONE` are all open, because strings are
 *   case-sensitive.
 * - A field that is not declared is rejected: at the top level, in a fact, and in a work
 *   item.
 * - Types are checked, and array order is kept.
 * - {@linkcode parseCapsuleText} also rejects duplicate keys and non-finite numbers: `NaN`,
 *   `Infinity`, and numbers such as `1e999` that overflow to `Infinity`.
 *
 * Where the contract says nothing, this module decides as follows:
 *
 * - Every string must have a character other than whitespace. Strings are kept exactly as
 *   written, and are never trimmed.
 * - `facts` and `work` are optional. When they are missing, the result holds empty lists.
 *   A work item may leave out `evidence` unless it is done; the result then holds `[]`.
 * - Work ids may repeat (the contract is silent), but {@linkcode capsuleWarnings} warns: `open_ids`
 *   names work by id.
 * - `next_action` must be a string when it is present, even when no work is open.
 * - `null` counts as missing for a required field. For an optional field it is the wrong
 *   type.
 * - An input may carry `open_ids`, so that a result can be checked again. It must then equal
 *   the derived list exactly.
 * - The result lists its keys in the contract's order: `task_id`, `outcome`, `facts`, `work`,
 *   `next_action` (when present), then `open_ids`, which holds the ids of open work in work
 *   order.
 *
 * The mapping to and from a pack object is in `capsule_map.ts` (`capsuleToPack`,
 * `packToCapsule`).
 *
 * @example Validate, pack and come back
 * ```ts
 * import { capsuleToPack, packToCapsule, parseCapsuleText, preparePack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const capsule = parseCapsuleText(`{
 *   "task_id": "t1",
 *   "outcome": "Publish guide",
 *   "facts": [{ "text": "Draft saved", "reference": "file:guide.md" }],
 *   "work": [{ "id": "upload", "status": "pending", "evidence": [] }],
 *   "next_action": "Upload the reviewed guide"
 * }`);
 * assertEquals(capsule.open_ids, ["upload"]);
 *
 * const pack = capsuleToPack(capsule, {
 *   id: "TP-9CB7-J5MK",
 *   packedAt: "2026-12-02T16:46:10Z",
 *   machine: "vm",
 * });
 * const ready = await preparePack(pack, []);
 * assertEquals(ready.object.passport.facts![0]!.needs_reverify, true); // arrives unverified
 *
 * const back = packToCapsule(ready.object);
 * assertEquals(back.capsule, capsule);
 * assertEquals(back.leftOut, []);
 * ```
 *
 * @module
 */
import { isPlainObject, parseJsonStrict, TaskPackReadError } from "../bytes/mod.ts";

/** The contract this module implements; also the `contract` of `passport.capsule`. */
export const CAPSULE_CONTRACT = "resumable-handoff-capsule/1.0.0";

/** The one work status that is not open. Compared exactly: `Done` is open. */
export const CAPSULE_DONE = "done";

/** A fact of a capsule: what is known, and where it can be checked. */
export interface CapsuleFact {
  /** The fact. */
  text: string;
  /** Where it comes from: a file, a URL, a command output. Required. */
  reference: string;
}

/** A work item of a capsule. */
export interface CapsuleWork {
  /** Unique within the capsule. */
  id: string;
  /** Exactly `done` when done; any other value means open. */
  status: string;
  /** Evidence references; at least one when done. */
  evidence: string[];
}

/** A capsule, normalised: every list present, keys in the contract's order. */
export interface Capsule {
  /** The task's id. */
  task_id: string;
  /** What the task is for. */
  outcome: string;
  /** Facts with their references, in order. */
  facts: CapsuleFact[];
  /** Work items, in order. */
  work: CapsuleWork[];
  /** What to do next; required while any work is open. */
  next_action?: string;
}

/** A validated capsule: the input normalised, with the derived `open_ids` added last. */
export interface CapsuleResult extends Capsule {
  /** Ids of the work that is not done, in work order. */
  open_ids: string[];
}

/** Why a capsule (or a pack, on its way to a capsule) was rejected. */
export type CapsuleRule =
  | "invalid-json"
  | "duplicate-key"
  | "non-finite-number"
  | "wrong-type"
  | "missing-field"
  | "extra-field"
  | "empty-string"
  | "fact-without-reference"
  | "done-without-evidence"
  | "next-action-required"
  | "open-ids-mismatch";

/**
 * A capsule that breaks its contract, or a pack that cannot become one. `rule` is a stable
 * code, and `path` names the field (`$.work[1].evidence` in a capsule,
 * `passport.capsule.work[1]` in a pack).
 *
 * @example Usage
 * ```ts
 * import { CapsuleError, validateCapsule } from "@taskpack/cli";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const error = assertThrows(
 *   () => validateCapsule({ task_id: "t1", outcome: "Ship", facts: [{ text: "Saved" }] }),
 *   CapsuleError,
 * );
 * assertEquals(error.rule, "fact-without-reference");
 * assertEquals(error.path, "$.facts[0].reference");
 * ```
 */
export class CapsuleError extends TypeError {
  /** The rule that was broken. */
  readonly rule: CapsuleRule;
  /** The field path. */
  readonly path: string;

  /**
   * Creates a capsule error.
   *
   * @param rule The rule that was broken.
   * @param path The field path.
   * @param detail What is wrong; the message is `Cannot <action>: <detail>`.
   * @param action What could not be done.
   */
  constructor(
    rule: CapsuleRule,
    path: string,
    detail: string,
    action: "read capsule" | "validate capsule" | "convert pack to capsule" = "validate capsule",
  ) {
    super(`Cannot ${action}: ${detail}`);
    this.name = "CapsuleError";
    this.rule = rule;
    this.path = path;
  }
}

// ---------------------------------------------------------------------------------------------
// Validation

const CAPSULE_FIELDS = ["task_id", "outcome", "facts", "work", "next_action", "open_ids"];
const FACT_FIELDS = ["text", "reference"];
const WORK_FIELDS = ["id", "status", "evidence"];

/** @internal A top-level capsule field. */
export type TopField = "task_id" | "outcome" | "facts" | "work" | "next_action" | "open_ids";

/** Where the fields being checked live, and how errors read. */
/** @internal What a check is for, and how its errors read. */
export interface Context {
  /** The path of the object itself. */
  readonly root: string;
  /** The path of one of its fields. */
  path(field: TopField): string;
  readonly action: "validate capsule" | "convert pack to capsule";
}

const CAPSULE_CONTEXT: Context = {
  root: "$",
  path: (field) => `$.${field}`,
  action: "validate capsule",
};

/**
 * Validates a capsule exactly to its contract (see the module documentation for the rules and
 * the decisions where the contract is silent) and returns it normalised, with `open_ids`
 * added.
 *
 * @param value The capsule, such as parsed JSON.
 * @returns A new, normalised capsule; the input is not changed.
 * @throws {CapsuleError} At the first rule broken, naming the field path.
 *
 * @example Usage
 * ```ts
 * import { validateCapsule } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const result = validateCapsule({
 *   task_id: "t1",
 *   outcome: "Publish guide",
 *   work: [
 *     { id: "draft", status: "done", evidence: ["file:guide.md"] },
 *     { id: "upload", status: "pending" },
 *   ],
 *   next_action: "Upload the reviewed guide",
 * });
 * assertEquals(Object.keys(result), [
 *   "task_id",
 *   "outcome",
 *   "facts",
 *   "work",
 *   "next_action",
 *   "open_ids",
 * ]);
 * assertEquals(result.work[1], { id: "upload", status: "pending", evidence: [] });
 * assertEquals(result.open_ids, ["upload"]);
 * ```
 *
 * @example Strings are case-sensitive
 * ```ts
 * import { CapsuleError, validateCapsule } from "@taskpack/cli";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * // "Done" is not "done": the work is open, so a next action is required.
 * const error = assertThrows(
 *   () =>
 *     validateCapsule({
 *       task_id: "t1",
 *       outcome: "Publish guide",
 *       work: [{ id: "upload", status: "Done", evidence: ["log:upload"] }],
 *     }),
 *   CapsuleError,
 * );
 * assertEquals(error.rule, "next-action-required");
 * ```
 */
export function validateCapsule(value: unknown): CapsuleResult {
  return checkCapsule(value, CAPSULE_CONTEXT);
}

/** @internal Shared with `capsule_map.ts`. */
export function checkCapsule(value: unknown, context: Context): CapsuleResult {
  const fail: Fail = failer(context.action);
  const record = expectObject(value, context.root, "a capsule", fail);
  rejectExtraFields(record, context.root, CAPSULE_FIELDS, "a capsule", fail);
  const task_id = requiredString(record.task_id, context.path("task_id"), fail);
  const outcome = requiredString(record.outcome, context.path("outcome"), fail);

  const factsPath = context.path("facts");
  const facts = optionalList(record.facts, factsPath, fail).map((fact, i) =>
    checkFact(fact, `${factsPath}[${i}]`, fail)
  );
  const work = checkWorkList(record.work, context.path("work"), fail);

  const open = work.filter((item) => item.status !== CAPSULE_DONE);
  const open_ids = open.map((item) => item.id);
  const next_action = checkNextAction(record.next_action, context, open, fail);

  const given = record.open_ids;
  if (given !== undefined) {
    const path = context.path("open_ids");
    if (!Array.isArray(given) || !given.every((id) => typeof id === "string")) {
      fail("wrong-type", path, `${path} must be a list of strings, not ${describeType(given)}`);
    }
    if (given.length !== open_ids.length || given.some((id, i) => id !== open_ids[i])) {
      fail(
        "open-ids-mismatch",
        path,
        `${path} does not match the open work: expected ${JSON.stringify(open_ids)}`,
      );
    }
  }

  return {
    task_id,
    outcome,
    facts,
    work,
    ...(next_action === undefined ? {} : { next_action }),
    open_ids,
  };
}

function checkFact(value: unknown, path: string, fail: Fail): CapsuleFact {
  const record = expectObject(value, path, "a fact", fail);
  rejectExtraFields(record, path, FACT_FIELDS, "a fact", fail);
  const text = requiredString(record.text, `${path}.text`, fail);
  const reference = record.reference;
  const where = `${path}.reference`;
  if (reference === undefined || reference === null) {
    fail("fact-without-reference", where, `${where} is missing: every fact needs a reference`);
  }
  if (typeof reference !== "string") {
    fail("wrong-type", where, `${where} must be a string, not ${describeType(reference)}`);
  }
  if (isBlank(reference)) {
    fail("fact-without-reference", where, `${where} is empty: every fact needs a reference`);
  }
  return { text, reference };
}

function checkWorkList(value: unknown, path: string, fail: Fail): CapsuleWork[] {
  return optionalList(value, path, fail).map((item, i) => checkWork(item, `${path}[${i}]`, fail));
}

/**
 * What is worth a warning in a valid capsule, where the contract is silent: two work items with
 * the same id (`open_ids` names work by id, so it cannot tell them apart). The capsule is valid
 * all the same; `capsule check` prints these as `warnings`.
 *
 * @param capsule A validated capsule (`validateCapsule`'s result).
 * @returns One sentence per warning, naming the field.
 *
 * @example Usage
 * ```ts
 * import { capsuleWarnings, validateCapsule } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * const capsule = validateCapsule({
 *   task_id: "t1",
 *   outcome: "Publish guide",
 *   work: [{ id: "upload", status: "pending" }, { id: "upload", status: "blocked" }],
 *   next_action: "Upload again",
 * });
 * assertEquals(capsule.open_ids, ["upload", "upload"]);
 * assertMatch(capsuleWarnings(capsule)[0]!, /\$\.work\[1\]\.id/);
 * ```
 */
export function capsuleWarnings(capsule: Capsule): string[] {
  const warnings: string[] = [];
  const seen = new Map<string, number>();
  capsule.work.forEach((work, i) => {
    const first = seen.get(work.id);
    if (first === undefined) seen.set(work.id, i);
    else {
      warnings.push(
        `$.work[${i}].id ${
          JSON.stringify(work.id)
        } is already the id of $.work[${first}]: open_ids names work by id and cannot tell them apart`,
      );
    }
  });
  return warnings;
}

function checkWork(value: unknown, path: string, fail: Fail): CapsuleWork {
  const record = expectObject(value, path, "a work item", fail);
  rejectExtraFields(record, path, WORK_FIELDS, "a work item", fail);
  const id = requiredString(record.id, `${path}.id`, fail);
  const status = requiredString(record.status, `${path}.status`, fail);
  const done = status === CAPSULE_DONE;
  const raw = record.evidence;
  const where = `${path}.evidence`;
  const noEvidence = () =>
    fail(
      "done-without-evidence",
      where,
      `${path} is done but ${where} holds no evidence reference`,
    );
  if (raw === undefined || (raw === null && done)) {
    if (done) noEvidence();
    return { id, status, evidence: [] };
  }
  if (!Array.isArray(raw)) {
    fail("wrong-type", where, `${where} must be a list, not ${describeType(raw)}`);
  }
  const evidence = raw.map((reference: unknown, i: number): string => {
    const at = `${where}[${i}]`;
    if (typeof reference !== "string") {
      fail("wrong-type", at, `${at} must be a string, not ${describeType(reference)}`);
    }
    if (isBlank(reference)) {
      if (done) {
        fail("done-without-evidence", at, `${path} is done but ${at} is an empty reference`);
      }
      fail("empty-string", at, `${at} is empty`);
    }
    return reference;
  });
  if (done && evidence.length === 0) noEvidence();
  return { id, status, evidence };
}

function checkNextAction(
  value: unknown,
  context: Context,
  open: readonly CapsuleWork[],
  fail: Fail,
): string | undefined {
  const path = context.path("next_action");
  const first = open[0];
  if (first !== undefined && (value === undefined || value === null || isBlank(value))) {
    const state = value === undefined || value === null ? "missing" : "empty";
    fail(
      "next-action-required",
      path,
      `${path} is ${state}, but work is open (${JSON.stringify(first.id)} is ${
        JSON.stringify(first.status)
      }, not ${JSON.stringify(CAPSULE_DONE)})`,
    );
  }
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    fail("wrong-type", path, `${path} must be a string, not ${describeType(value)}`);
  }
  if (isBlank(value)) fail("empty-string", path, `${path} is empty`);
  return value;
}

/** @internal How a check fails: throws a {@linkcode CapsuleError}. */
export type Fail = (rule: CapsuleRule, path: string, detail: string) => never;

/** @internal Shared with `capsule_map.ts`. */
export function failer(action: Context["action"]): Fail {
  return (rule, path, detail) => {
    throw new CapsuleError(rule, path, detail, action);
  };
}

/** @internal Shared with `capsule_map.ts`. */
export function expectObject(
  value: unknown,
  path: string,
  what: string,
  fail: Fail,
): Record<string, unknown> {
  if (!isPlainObject(value)) {
    fail("wrong-type", path, `${path} must be ${what} (an object), not ${describeType(value)}`);
  }
  return value;
}

function rejectExtraFields(
  record: Record<string, unknown>,
  path: string,
  allowed: readonly string[],
  what: string,
  fail: Fail,
): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      const where = `${path}${keySegment(key)}`;
      fail(
        "extra-field",
        where,
        `${where} is not a field of ${what} (allowed: ${allowed.join(", ")})`,
      );
    }
  }
}

function requiredString(value: unknown, path: string, fail: Fail): string {
  if (value === undefined || value === null) fail("missing-field", path, `${path} is required`);
  if (typeof value !== "string") {
    fail("wrong-type", path, `${path} must be a string, not ${describeType(value)}`);
  }
  if (isBlank(value)) fail("empty-string", path, `${path} is empty`);
  return value;
}

function optionalList(value: unknown, path: string, fail: Fail): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    fail("wrong-type", path, `${path} must be a list, not ${describeType(value)}`);
  }
  return value;
}

/** @internal Shared with `capsule_map.ts`. */
export function isBlank(value: unknown): boolean {
  return typeof value === "string" && value.trim() === "";
}

/** @internal Shared with `capsule_map.ts`. */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return Number.isFinite(value) ? "a number" : String(value);
  if (typeof value === "boolean") return "a boolean";
  return typeof value;
}

/** `.key` for identifier-like keys, `["key"]` otherwise. */
/** @internal Shared with `capsule_map.ts`. */
export function keySegment(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

// ---------------------------------------------------------------------------------------------
// Reading JSON text

/**
 * Parses capsule text strictly and validates it: exactly one JSON object, no duplicate key at
 * any depth, no non-finite number (`NaN`, `Infinity`, or a number such as `1e999` that
 * overflows), no byte order mark; then {@linkcode validateCapsule}.
 *
 * @param text The JSON text.
 * @returns The normalised capsule, with `open_ids`.
 * @throws {CapsuleError} `invalid-json`, `duplicate-key`, `non-finite-number` or
 * `extra-field` (a key such as `__proto__`) while reading, then any rule of the contract.
 *
 * @example Usage
 * ```ts
 * import { parseCapsuleText } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const result = parseCapsuleText('{"task_id": "t1", "outcome": "Publish guide"}');
 * assertEquals(result, { task_id: "t1", outcome: "Publish guide", facts: [], work: [], open_ids: [] });
 * ```
 *
 * @example Duplicate keys and non-finite numbers
 * ```ts
 * import { CapsuleError, parseCapsuleText } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const ruleOf = (text: string): string => {
 *   try {
 *     parseCapsuleText(text);
 *     return "accepted";
 *   } catch (error) {
 *     return error instanceof CapsuleError ? error.rule : "other";
 *   }
 * };
 * assertEquals(ruleOf('{"task_id": "a", "task_id": "b", "outcome": "x"}'), "duplicate-key");
 * assertEquals(ruleOf('{"task_id": "a", "outcome": "x", "work": 1e999}'), "non-finite-number");
 * assertEquals(ruleOf('{"task_id": "a", "outcome": NaN}'), "non-finite-number");
 * ```
 */
export function parseCapsuleText(text: string): CapsuleResult {
  let value: unknown;
  try {
    value = parseJsonStrict(text);
  } catch (error) {
    if (error instanceof TaskPackReadError) throw readError(error, text);
    throw error;
  }
  const bad = findNonFinite(value, "$");
  if (bad) {
    throw new CapsuleError(
      "non-finite-number",
      bad.path,
      `${bad.path} is ${bad.value}, not a finite number`,
      "read capsule",
    );
  }
  return validateCapsule(value);
}

/**
 * Reads capsule bytes as strict UTF-8 (a byte order mark is kept, and so refused) and parses
 * them with {@linkcode parseCapsuleText}.
 *
 * @param bytes The file's bytes.
 * @returns The normalised capsule, with `open_ids`.
 * @throws {CapsuleError} `invalid-json` when the bytes are not UTF-8, then as
 * {@linkcode parseCapsuleText}.
 *
 * @example Usage
 * ```ts
 * import { CapsuleError, parseCapsuleBytes } from "@taskpack/cli";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const text = '{"task_id": "t1", "outcome": "Publish guide"}';
 * assertEquals(parseCapsuleBytes(new TextEncoder().encode(text)).task_id, "t1");
 * const error = assertThrows(() => parseCapsuleBytes(new Uint8Array([0x7b, 0xff, 0x7d])), CapsuleError);
 * assertEquals(error.rule, "invalid-json");
 * ```
 */
export function parseCapsuleBytes(bytes: Uint8Array): CapsuleResult {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CapsuleError("invalid-json", "$", "the capsule is not valid UTF-8", "read capsule");
  }
  return parseCapsuleText(text);
}

/** Rewords a strict-JSON error for a capsule, recognising a `NaN` or `Infinity` literal. */
function readError(error: TaskPackReadError, text: string): CapsuleError {
  const where = error.where || "$";
  const prefix = "Cannot read taskpack: ";
  const suffix = error.where ? ` (${error.where})` : "";
  let detail = error.message;
  if (detail.startsWith(prefix) && detail.endsWith(suffix)) {
    detail = detail.slice(prefix.length, detail.length - suffix.length);
  }
  if (error.code === "json-syntax") {
    const literal = firstNonFiniteLiteral(text);
    if (literal && detail.endsWith(` at ${lineColumn(text, literal.at)}`)) {
      return new CapsuleError(
        "non-finite-number",
        where,
        `${literal.word} is not a finite number (JSON has none) at ${
          lineColumn(text, literal.at)
        } (${where})`,
        "read capsule",
      );
    }
  }
  const rule: CapsuleRule = error.code === "json-duplicate-key"
    ? "duplicate-key"
    : error.code === "json-forbidden-key"
    ? "extra-field"
    : "invalid-json";
  return new CapsuleError(rule, where, `${detail} (${where})`, "read capsule");
}

/** The first `NaN` or `Infinity` outside a string: where its letters start, and the word. */
function firstNonFiniteLiteral(text: string): { at: number; word: string } | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c) i++;
      }
    } else if (text.startsWith("NaN", i)) {
      return { at: i, word: "NaN" };
    } else if (text.startsWith("Infinity", i)) {
      return { at: i, word: text.charCodeAt(i - 1) === 0x2d ? "-Infinity" : "Infinity" };
    }
  }
  return null;
}

/** `line L, column C` as the strict JSON reader counts them (columns in code points). */
function lineColumn(text: string, at: number): string {
  let line = 1;
  let column = 1;
  for (let i = 0; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      column = 1;
    } else if (c !== 0x0d) {
      const next = text.charCodeAt(i + 1);
      if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff && i + 1 < at) i++;
      column++;
    }
  }
  return `line ${line}, column ${column}`;
}

function findNonFinite(value: unknown, path: string): { path: string; value: number } | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : { path, value };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNonFinite(value[i], `${path}[${i}]`);
      if (found) return found;
    }
  } else if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const found = findNonFinite(child, `${path}${keySegment(key)}`);
      if (found) return found;
    }
  }
  return null;
}
