// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The home of passports (TaskPack 0.1 §3, §4.3): the small interface every store back end
 * implements — list, open, create, save with the version that was read — and an in-memory
 * back end. A pack is the box that leaves; the passport is the record that stays home.
 *
 * Versions are checkpoints: `create` saves version 1, and `save(state, n)` succeeds only while
 * the stored version is still `n`, writing `n + 1`. A stale write is a
 * {@linkcode StoreConflictError}, never an overwrite.
 *
 * @module
 */
import type { PassportState } from "../format/mod.ts";

/** One line of a listing. */
export interface PassportSummary {
  /** The passport id. */
  id: string;
  /** Its current version. */
  version: number;
  /** Its title, if any. */
  title: string;
  /** When it was last saved, if recorded. */
  updated_at: string;
}

/** What a store holds, and what it could not read (listing never stops at a broken file). */
export interface StoreListing {
  /** Readable passports, sorted by id. */
  passports: PassportSummary[];
  /** Entries that are not readable passports, and why. */
  problems: { entry: string; reason: string }[];
}

/** A home for passports. */
export interface PassportStore {
  /** Lists the passports; tolerates stray or broken entries and reports them. */
  list(): Promise<StoreListing>;
  /** The current state of a passport, or null when there is none with that id. */
  open(id: string): Promise<PassportState | null>;
  /**
   * Saves a new passport as version 1 (its `version` field is set to 1).
   * Fails with {@linkcode StoreConflictError} when the id exists.
   */
  create(state: PassportState): Promise<PassportState>;
  /**
   * Saves a checkpoint: succeeds only while the stored version equals `expectedVersion`, and
   * writes version `expectedVersion + 1` (the returned state carries it).
   */
  save(state: PassportState, expectedVersion: number): Promise<PassportState>;
  /**
   * Saves a passport at the version it carries (a whole number, at least 1), only when the
   * store holds no passport with that id: how `taskpack migrate` moves passports between stores
   * without losing versions. Optional; fails with {@linkcode StoreConflictError} when the id
   * exists.
   */
  importState?(state: PassportState): Promise<PassportState>;
}

/**
 * A write that named a version the store no longer holds, or a create over an existing id.
 *
 * @example Usage
 * ```ts
 * import { StoreConflictError } from "@taskpack/cli";
 * import { assertMatch } from "@std/assert";
 *
 * const error = new StoreConflictError("TP-AAAA-BBBB", 3, 4);
 * assertMatch(error.message, /expected version 3, but the store holds version 4/);
 * ```
 */
export class StoreConflictError extends Error {
  /** The passport. */
  readonly id: string;
  /** The version the writer read (0 for a create). */
  readonly expected: number;
  /** The version the store holds (null when there is none). */
  readonly actual: number | null;

  /**
   * Creates the error.
   *
   * @param id The passport.
   * @param expected The version the writer read (0 for a create).
   * @param actual The version the store holds, or null.
   */
  constructor(id: string, expected: number, actual: number | null) {
    super(
      actual === null
        ? `Cannot save ${id}: there is no such passport`
        : expected === 0
        ? `Cannot create ${id}: a passport with that id exists (version ${actual})`
        : `Cannot save ${id}: expected version ${expected}, but the store holds version ${actual}; reopen it and apply your change again`,
    );
    this.name = "StoreConflictError";
    this.id = id;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * Summarises a passport state for a listing.
 *
 * @param state The passport.
 * @returns Its summary.
 *
 * @example Usage
 * ```ts
 * import { summarise } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(summarise({ id: "TP-AAAA-BBBB", version: 2, title: "t" }), {
 *   id: "TP-AAAA-BBBB",
 *   version: 2,
 *   title: "t",
 *   updated_at: "",
 * });
 * ```
 */
export function summarise(state: PassportState): PassportSummary {
  return {
    id: state.id,
    version: state.version,
    title: typeof state.title === "string" ? state.title : "",
    updated_at: typeof state.updated_at === "string" ? state.updated_at : "",
  };
}

/**
 * A store in memory: for tests, browsers and edge functions. States are copied in and out, so
 * callers never share an object with the store.
 *
 * @example Usage
 * ```ts
 * import { MemoryStore, StoreConflictError } from "@taskpack/cli";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * const store = new MemoryStore();
 * const created = await store.create({ id: "TP-AAAA-BBBB", version: 0, title: "t" });
 * assertEquals(created.version, 1);
 * const saved = await store.save({ ...created, goal: "g" }, 1);
 * assertEquals(saved.version, 2);
 * await assertRejects(() => store.save({ ...created, goal: "stale" }, 1), StoreConflictError);
 * assertEquals((await store.open("TP-AAAA-BBBB"))!.goal, "g");
 * ```
 */
export class MemoryStore implements PassportStore {
  #states = new Map<string, PassportState>();

  /** Lists the passports, sorted by id. */
  list(): Promise<StoreListing> {
    const passports = [...this.#states.values()].map(summarise).sort((a, b) =>
      a.id < b.id ? -1 : 1
    );
    return Promise.resolve({ passports, problems: [] });
  }

  /** The current state, or null. */
  open(id: string): Promise<PassportState | null> {
    const state = this.#states.get(id);
    return Promise.resolve(state ? structuredClone(state) : null);
  }

  /** Saves a new passport as version 1. */
  create(state: PassportState): Promise<PassportState> {
    const existing = this.#states.get(state.id);
    if (existing) return Promise.reject(new StoreConflictError(state.id, 0, existing.version));
    const saved = { ...structuredClone(state), version: 1 };
    this.#states.set(state.id, saved);
    return Promise.resolve(structuredClone(saved));
  }

  /** Saves a checkpoint over `expectedVersion`. */
  save(state: PassportState, expectedVersion: number): Promise<PassportState> {
    const existing = this.#states.get(state.id);
    if (!existing || existing.version !== expectedVersion) {
      return Promise.reject(
        new StoreConflictError(state.id, expectedVersion, existing?.version ?? null),
      );
    }
    const saved = { ...structuredClone(state), version: expectedVersion + 1 };
    this.#states.set(state.id, saved);
    return Promise.resolve(structuredClone(saved));
  }

  /** Saves a passport at its own version, only when the id is new. */
  importState(state: PassportState): Promise<PassportState> {
    const existing = this.#states.get(state.id);
    if (existing) return Promise.reject(new StoreConflictError(state.id, 0, existing.version));
    if (!Number.isSafeInteger(state.version) || state.version < 1) {
      return Promise.reject(
        new TypeError(`Cannot import ${state.id}: its version must be 1 or more`),
      );
    }
    const saved = structuredClone(state);
    this.#states.set(state.id, saved);
    return Promise.resolve(structuredClone(saved));
  }
}
