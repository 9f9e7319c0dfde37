// Copyright 2026 the taskpack authors. MIT license.
// What every passport store back end must do (lib/home/store.ts). Back-end neutral: it only uses the
// PassportStore interface, so the folder store, a Deno KV store or an HTTP store can all run it:
//
//   storeConformance("folder", async () => ({ store, cleanup }));
import assert from "node:assert/strict";
import type { PassportState } from "../lib/format/model.ts";
import { type PassportStore, StoreConflictError, summarise } from "../lib/home/store.ts";

/** A fresh, empty store and a way to throw it away. */
export type MakeStore = () => Promise<{ store: PassportStore; cleanup(): Promise<void> }>;

const ID_A = "TP-AAAA-2222";
const ID_B = "TP-BBBB-3333";
const ID_C = "TP-CCCC-4444";

/** A passport with every kind of field, including ones this version does not know. */
function richState(id: string = ID_A): PassportState {
  return {
    id,
    version: 0,
    spec: "2origin/0.1",
    title: "release plugin ✓",
    goal: "ship the plugin tonight",
    zeta_unknown: { nested: [1, 2, { deep: "yes", "key with spaces": null }] },
    current_state: "Build is green on CI; cover image missing.",
    facts: [{ claim: "port 8080 is free", scope: "machine", verified: false, x_extra: true }],
    next_steps: ["generate cover image", "publish to registry"],
    asks: [{ id: "a1", what: "cover image prompt", accept: "one prompt", status: "open" }],
    alpha_unknown: "kept, and kept after zeta_unknown",
    updated_at: "2026-12-02T16:46:10Z",
  };
}

/** Runs `body` against a fresh store, then cleans up whatever happened. */
async function withStore(
  makeStore: MakeStore,
  body: (store: PassportStore) => Promise<void>,
): Promise<void> {
  const { store, cleanup } = await makeStore();
  try {
    await body(store);
  } finally {
    await cleanup();
  }
}

/** Expects a StoreConflictError and returns it. */
async function conflict(promise: Promise<unknown>): Promise<StoreConflictError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof StoreConflictError, `expected a StoreConflictError, got ${caught}`);
  return caught;
}

/**
 * Registers the `Deno.test` cases every {@linkcode PassportStore} must pass.
 *
 * @param name The back end, used in the test names.
 * @param makeStore Makes a fresh, empty store.
 */
export function storeConformance(name: string, makeStore: MakeStore): void {
  const test = (what: string, body: (store: PassportStore) => Promise<void>) =>
    Deno.test(`store conformance (${name}): ${what}`, () => withStore(makeStore, body));

  test("create saves version 1", async (store) => {
    const created = await store.create({ ...richState(), version: 7 });
    assert.equal(created.version, 1);
    assert.equal(created.goal, "ship the plugin tonight");
    const opened = await store.open(ID_A);
    assert.deepEqual(opened, created);
  });

  test("save increments the version", async (store) => {
    const created = await store.create(richState());
    const second = await store.save({ ...created, goal: "second" }, 1);
    assert.equal(second.version, 2);
    const third = await store.save({ ...second, goal: "third" }, 2);
    assert.equal(third.version, 3);
    const opened = await store.open(ID_A);
    assert.equal(opened?.version, 3);
    assert.equal(opened?.goal, "third");
    // The version in the state passed in does not matter; the expected version does.
    const fourth = await store.save({ ...third, version: 99, goal: "fourth" }, 3);
    assert.equal(fourth.version, 4);
    assert.equal((await store.open(ID_A))?.version, 4);
  });

  test("a stale save is a conflict and changes nothing", async (store) => {
    const created = await store.create(richState());
    const saved = await store.save({ ...created, goal: "won" }, 1);
    const before = await store.open(ID_A);
    for (const stale of [1, 0, 3, 100]) {
      const error = await conflict(store.save({ ...created, goal: "lost" }, stale));
      assert.equal(error.id, ID_A);
      assert.equal(error.expected, stale);
      assert.equal(error.actual, 2);
    }
    assert.deepEqual(await store.open(ID_A), before);
    assert.deepEqual(before, saved);
  });

  test("saving a passport the store does not hold is a conflict", async (store) => {
    const error = await conflict(store.save(richState(ID_B), 1));
    assert.equal(error.actual, null);
    assert.equal(await store.open(ID_B), null);
    assert.deepEqual((await store.list()).passports, []);
  });

  test("create over an existing id is a conflict and changes nothing", async (store) => {
    await store.create(richState());
    const saved = await store.save({ ...richState(), goal: "v2" }, 1);
    const error = await conflict(store.create({ ...richState(), goal: "intruder" }));
    assert.equal(error.expected, 0);
    assert.equal(error.actual, 2);
    assert.deepEqual(await store.open(ID_A), saved);
  });

  test("open of a missing passport is null", async (store) => {
    assert.equal(await store.open(ID_A), null);
    await store.create(richState(ID_B));
    assert.equal(await store.open(ID_A), null);
  });

  test("list is sorted by id, with summaries", async (store) => {
    assert.deepEqual(await store.list(), { passports: [], problems: [] });
    const c = await store.create({ id: ID_C, version: 0 });
    const a = await store.create(richState(ID_A));
    const b = await store.create({ id: ID_B, version: 0, title: "bee" });
    const b2 = await store.save({ ...b, updated_at: "2026-12-03T00:00:00Z" }, 1);
    const listing = await store.list();
    assert.deepEqual(listing.problems, []);
    assert.deepEqual(listing.passports, [summarise(a), summarise(b2), summarise(c)]);
    assert.deepEqual(listing.passports[1], {
      id: ID_B,
      version: 2,
      title: "bee",
      updated_at: "2026-12-03T00:00:00Z",
    });
    assert.deepEqual(listing.passports[2], { id: ID_C, version: 1, title: "", updated_at: "" });
  });

  test("a round trip keeps unknown fields and key order", async (store) => {
    const input = richState();
    const created = await store.create(input);
    const expected = { ...input, version: 1 };
    const opened = await store.open(ID_A);
    assert.deepEqual(opened, expected);
    assert.equal(JSON.stringify(opened), JSON.stringify(expected));
    assert.equal(JSON.stringify(created), JSON.stringify(expected));
    // A state without a version key gets one at the end; later saves keep that order.
    const { version: _, ...unversioned } = { ...input, id: ID_B };
    await store.create(unversioned as PassportState);
    const savedB = await store.save({ ...(await store.open(ID_B))!, added_last: 1 }, 1);
    const keys = Object.keys((await store.open(ID_B))!);
    assert.deepEqual(keys, Object.keys(savedB));
    assert.deepEqual(keys.slice(-2), ["version", "added_last"]);
  });

  test("states are copies in and out", async (store) => {
    const input = richState();
    const created = await store.create(input);
    const snapshot = structuredClone(created);
    // Mutating what was passed in, or what came back, never reaches the store.
    input.goal = "changed input";
    input.next_steps!.push("changed input");
    created.goal = "changed result";
    created.facts![0]!.claim = "changed result";
    const opened = (await store.open(ID_A))!;
    assert.deepEqual(opened, snapshot);
    opened.title = "changed open";
    (opened.zeta_unknown as { nested: unknown[] }).nested.push("changed open");
    assert.deepEqual(await store.open(ID_A), snapshot);
    const saved = await store.save({ ...snapshot, goal: "v2" }, 1);
    const savedSnapshot = structuredClone(saved);
    saved.asks![0]!.status = "changed result";
    assert.deepEqual(await store.open(ID_A), savedSnapshot);
    const listing = await store.list();
    listing.passports[0]!.title = "changed listing";
    assert.equal((await store.list()).passports[0]!.title, snapshot.title);
  });
}
