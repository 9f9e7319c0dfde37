// Copyright 2026 the taskpack authors. MIT license.
// The passport stores: the conformance suite for every back end, then the folder store's own
// promises — stray files, ids as file names, locking across processes, crash safety.
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../lib/bytes/json.ts";
import type { PassportState } from "../lib/format/model.ts";
import { MemoryStore, StoreConflictError } from "../lib/home/store.ts";
import {
  defaultStoreDir,
  FolderStore,
  PassportFileError,
  resolveStoreDir,
  StoreLockTimeoutError,
} from "../shell/stores/folder_store.ts";
import { decoder, tempDir } from "./_helpers.ts";
import { storeConformance } from "./store_conformance.ts";

const WORKER = fileURLToPath(new URL("./_store_worker.ts", import.meta.url));
const ID = "TP-9CB7-J5MK";
const OTHER = "TP-2345-6789";

storeConformance("memory", () => {
  return Promise.resolve({ store: new MemoryStore(), cleanup: () => Promise.resolve() });
});

storeConformance("folder", async () => {
  const dir = await tempDir({ prefix: "taskpack-store-" });
  return {
    store: new FolderStore(join(dir, "passports")),
    cleanup: () => Deno.remove(dir, { recursive: true }),
  };
});

/** A temporary folder (not created) inside a temporary parent, removed afterwards. */
async function withFolder(body: (dir: string) => Promise<void>): Promise<void> {
  const parent = await tempDir({ prefix: "taskpack-store-" });
  try {
    await body(join(parent, "passports"));
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Names in a folder, sorted. */
async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

/** A pid that certainly belonged to a process that has exited (and was reaped). */
async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", ""],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await child.status;
  return child.pid;
}

async function writeLock(
  dir: string,
  id: string,
  lock: { pid: number; host: string; time: string; token: string } | string,
): Promise<string> {
  const path = join(dir, `.${id}.lock`);
  await Deno.writeTextFile(path, typeof lock === "string" ? lock : JSON.stringify(lock));
  return path;
}

Deno.test("folder store: a passport is one canonical JSON file, the folder made on first write", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir);
    assert.deepEqual(await store.list(), { passports: [], problems: [] });
    assert.equal(await store.open(ID), null);
    await assert.rejects(store.save({ id: ID, version: 1 }, 1), StoreConflictError);
    assert.equal(await exists(dir), false, "reading and a refused save create nothing");

    const created = await store.create({ id: ID, version: 0, title: "t", goal: "g ✓" });
    assert.equal(store.pathOf(ID), join(dir, `${ID}.json`));
    const text = await Deno.readTextFile(store.pathOf(ID));
    assert.equal(text, canonicalJson(created));
    assert.ok(text.endsWith("}\n") && text.includes('\n  "title": "t",\n'));
    assert.deepEqual(await names(dir), [`${ID}.json`], "no lock or temporary file is left");

    // A conflict releases the lock too.
    await assert.rejects(store.save(created, 5), StoreConflictError);
    await assert.rejects(store.create(created), StoreConflictError);
    assert.deepEqual(await names(dir), [`${ID}.json`]);
  });
});

Deno.test("folder store: only passport ids name files, so no path ever leaves the folder", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir);
    const bad = [
      "../x",
      "../TP-9CB7-J5MK",
      "TP-9CB7-J5MK/../../x",
      "tp-9cb7-j5mk",
      "",
      "TP-9CB7-J5M",
      "TP-9CB7-J5MK.json",
    ];
    for (const id of bad) {
      await assert.rejects(store.open(id), TypeError, id);
      await assert.rejects(store.create({ id, version: 0 }), /Cannot use .* as a passport id/);
      await assert.rejects(store.save({ id, version: 1 }, 1), TypeError);
      assert.throws(() => store.pathOf(id), TypeError);
    }
    await assert.rejects(
      store.create({ id: 42, version: 0 } as unknown as PassportState),
      TypeError,
    );
    assert.equal(await exists(dir), false);
  });
});

Deno.test("folder store: a state the reader could not read back is refused before writing", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir);
    const created = await store.create({ id: ID, version: 0, goal: "g" });
    const hostile = JSON.parse('{"id":"TP-9CB7-J5MK","version":1,"x":{"__proto__":{"a":1}}}');
    await assert.rejects(store.save(hostile, 1), TypeError);
    await assert.rejects(store.save({ ...created, big: 10n as unknown }, 1), TypeError);
    assert.deepEqual(await store.open(ID), created);
    assert.deepEqual(await names(dir), [`${ID}.json`]);
  });
});

Deno.test("folder store: a broken passport file is an error naming the file", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir);
    await store.create({ id: ID, version: 0 });
    const cases: [string | Uint8Array, RegExp][] = [
      ['{"id": "TP-9CB7-J5MK", "version": 2,', /line 1/],
      ["[1, 2]", /not a JSON object/],
      ['{"id": "TP-2345-6789", "version": 2}', /its id is "TP-2345-6789", not TP-9CB7-J5MK/],
      ['{"id": "TP-9CB7-J5MK", "version": "2"}', /version/],
      [new Uint8Array([0x7b, 0xff, 0x7d]), /not UTF-8/],
    ];
    for (const [content, reason] of cases) {
      if (typeof content === "string") await Deno.writeTextFile(store.pathOf(ID), content);
      else await Deno.writeFile(store.pathOf(ID), content);
      const error = await store.open(ID).then(() => null, (e) => e);
      assert.ok(error instanceof PassportFileError, String(error));
      assert.equal(error.path, store.pathOf(ID));
      assert.ok(error.message.includes(store.pathOf(ID)), error.message);
      assert.match(error.reason, reason);
      // Nothing overwrites a file it could not read.
      await assert.rejects(store.save({ id: ID, version: 1 }, 1), PassportFileError);
      await assert.rejects(store.create({ id: ID, version: 1 }), PassportFileError);
    }
    // A byte order mark (an editor's doing) is tolerated.
    await Deno.writeTextFile(store.pathOf(ID), '\ufeff{"id": "TP-9CB7-J5MK", "version": 3}\n');
    assert.equal((await store.open(ID))?.version, 3);
  });
});

Deno.test("folder store: listing reports stray and broken files, ignores locks and temporary files", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir);
    await store.create({ id: ID, version: 0, title: "good" });
    await store.create({ id: OTHER, version: 0, title: "also good" });
    const broken = "TP-BBBB-BBBB.json";
    const mismatched = "TP-MMMM-MMMM.json";
    await Deno.writeTextFile(join(dir, "notes.txt"), "shopping list\n");
    await Deno.writeTextFile(join(dir, "passport.json"), "{}\n");
    await Deno.writeTextFile(join(dir, broken), '{"id": "TP-BBBB-BBBB", "version": ');
    await Deno.writeTextFile(join(dir, mismatched), '{"id": "TP-9CB7-J5MK", "version": 4}\n');
    await Deno.mkdir(join(dir, "TP-DDDD-DDDD.json"));
    await Deno.mkdir(join(dir, `${ID}.files`)); // landed luggage: not a problem
    const youngTemp = join(dir, `.${ID}.json.123-abcdef.tmp`);
    const oldTemp = join(dir, `.${OTHER}.json.456-abcdef.tmp`);
    const oldBroken = join(dir, `.${OTHER}.lock.abcdef.broken`);
    await Deno.writeTextFile(youngTemp, '{"id": "TP-9CB7-J5MK", "ver');
    await Deno.writeTextFile(oldTemp, "{");
    await Deno.writeTextFile(oldBroken, "{}");
    const hourAgo = new Date(Date.now() - 3_600_000);
    await Deno.utime(oldTemp, hourAgo, hourAgo);
    await Deno.utime(oldBroken, hourAgo, hourAgo);
    await writeLock(dir, ID, { pid: process.pid, host: hostname(), time: "now", token: "t" });
    await Deno.writeTextFile(join(dir, ".DS_Store"), "\0\0");

    const listing = await store.list();
    assert.deepEqual(listing.passports.map((p) => [p.id, p.title]), [
      [OTHER, "also good"],
      [ID, "good"],
    ]);
    const problems = new Map(listing.problems.map((p) => [p.entry, p.reason]));
    assert.deepEqual([...problems.keys()].sort(), [
      "TP-BBBB-BBBB.json",
      "TP-DDDD-DDDD.json",
      "TP-MMMM-MMMM.json",
      "notes.txt",
      "passport.json",
    ]);
    assert.match(problems.get("notes.txt")!, /not a passport file/);
    assert.match(problems.get("passport.json")!, /not a passport id/);
    assert.match(problems.get(broken)!, /line 1/);
    assert.match(problems.get(mismatched)!, /its id is "TP-9CB7-J5MK", not TP-MMMM-MMMM/);
    assert.match(problems.get("TP-DDDD-DDDD.json")!, /folder/);
    // Old leftovers of killed writers are cleaned up; a young temporary file may be in use.
    assert.equal(await exists(youngTemp), true);
    assert.equal(await exists(oldTemp), false);
    assert.equal(await exists(oldBroken), false);
    assert.equal(await exists(join(dir, "notes.txt")), true);
  });
});

Deno.test("folder store: a lock held by a live process makes a writer wait, then give up clearly", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir, { lockTimeoutMs: 300 });
    const created = await store.create({ id: ID, version: 0 });
    const time = new Date().toISOString();
    const lockPath = await writeLock(dir, ID, {
      pid: process.pid,
      host: hostname(),
      time,
      token: "x",
    });
    const started = performance.now();
    const error = await store.save({ ...created, goal: "g" }, 1).then(() => null, (e) => e);
    const waited = performance.now() - started;
    assert.ok(error instanceof StoreLockTimeoutError, String(error));
    assert.ok(waited >= 290 && waited < 3_000, `waited ${waited} ms`);
    assert.match(error.message, new RegExp(`locked by pid ${process.pid} on `));
    assert.ok(error.message.includes(lockPath), error.message);
    assert.deepEqual(await store.open(ID), created);
    assert.equal(await exists(lockPath), true, "someone else's lock is not removed");

    // Released in time: the writer goes on.
    const waiting = store.save({ ...created, goal: "after" }, 1);
    setTimeout(() => Deno.removeSync(lockPath), 100);
    assert.equal((await waiting).version, 2);
  });
});

Deno.test("folder store: a lock whose holder died on this host is broken at once", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir, { lockTimeoutMs: 5_000, staleLockMs: 60_000 });
    const created = await store.create({ id: ID, version: 0 });
    const pid = await deadPid();
    const time = new Date().toISOString();
    await writeLock(dir, ID, { pid, host: hostname(), time, token: "dead" });
    const started = performance.now();
    assert.equal((await store.save(created, 1)).version, 2);
    assert.ok(performance.now() - started < 2_000);
    assert.deepEqual(await names(dir), [`${ID}.json`]);
  });
});

Deno.test("folder store: a lock older than staleLockMs is broken, whoever holds it", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir, { lockTimeoutMs: 5_000, staleLockMs: 1_000 });
    let state = await store.create({ id: ID, version: 0 });
    const old = new Date(Date.now() - 60_000).toISOString();
    // A live pid here, a pid on another host: only age can tell.
    for (const [pid, host] of [[process.pid, hostname()], [1, "another-host.invalid"]] as const) {
      await writeLock(dir, ID, { pid, host, time: old, token: "old" });
      const started = performance.now();
      state = await store.save(state, state.version);
      assert.ok(performance.now() - started < 2_000);
    }
    // A lock file left empty (its writer died between creating and filling it) ages by mtime.
    const lockPath = await writeLock(dir, ID, "");
    const minuteAgo = new Date(Date.now() - 60_000);
    await Deno.utime(lockPath, minuteAgo, minuteAgo);
    state = await store.save(state, state.version);
    assert.equal(state.version, 4);
    assert.deepEqual(await names(dir), [`${ID}.json`]);

    // An empty lock may be a writer filling it in: it is respected for a moment (1 s), not for
    // the whole staleLockMs.
    await writeLock(dir, ID, "");
    const patient = new FolderStore(dir, { lockTimeoutMs: 200, staleLockMs: 60_000 });
    await assert.rejects(patient.save(state, 4), StoreLockTimeoutError);
    const started = performance.now();
    state = await new FolderStore(dir, { staleLockMs: 60_000 }).save(state, 4);
    const waited = performance.now() - started;
    assert.ok(waited < 3_000, `waited ${waited} ms`);
    assert.equal(state.version, 5);
  });
});

Deno.test("folder store: concurrent writers in one process never lose an update", async () => {
  await withFolder(async (dir) => {
    const stores = [new FolderStore(dir), new FolderStore(dir), new FolderStore(dir)];
    await stores[0]!.create({ id: ID, version: 0, markers: [] });
    const writer = async (store: FolderStore, tag: string) => {
      for (let i = 0; i < 10;) {
        const state = (await store.open(ID))!;
        try {
          await store.save(
            { ...state, markers: [...(state.markers as string[]), tag] },
            state.version,
          );
          i++;
        } catch (error) {
          if (!(error instanceof StoreConflictError)) throw error;
        }
      }
    };
    await Promise.all(stores.map((store, n) => writer(store, `w${n}`)));
    const final = (await stores[0]!.open(ID))!;
    assert.equal(final.version, 31);
    assert.equal((final.markers as string[]).length, 30);
  });
});

Deno.test("folder store: 8 processes checkpointing one passport 50 times each lose nothing", async () => {
  await withFolder(async (dir) => {
    const store = new FolderStore(dir);
    await store.create({ id: ID, version: 0, title: "contended", markers: [] });
    const workers = Array.from({ length: 8 }, () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", WORKER, dir, ID, "50"],
        stdout: "piped",
        stderr: "piped",
      }).output());
    const results = await Promise.all(workers);
    const reports: { pid: number; versions: number[]; conflicts: number }[] = [];
    for (const result of results) {
      assert.equal(result.code, 0, decoder.decode(result.stderr));
      reports.push(JSON.parse(decoder.decode(result.stdout)));
    }
    const final = (await store.open(ID))!;
    assert.equal(final.version, 1 + 8 * 50);
    // Every version from 2 to 401 was written exactly once.
    const seen = reports.flatMap((r) => r.versions).sort((a, b) => a - b);
    assert.deepEqual(seen, Array.from({ length: 400 }, (_, i) => i + 2));
    // Every worker's 50 markers are there, in its order: no update was lost.
    const markers = final.markers as string[];
    assert.equal(markers.length, 400);
    for (const { pid, versions } of reports) {
      assert.equal(versions.length, 50);
      const own = markers.filter((m) => m.startsWith(`${pid}:`));
      assert.deepEqual(own, Array.from({ length: 50 }, (_, i) => `${pid}:${i}`));
    }
    assert.deepEqual(await names(dir), [`${ID}.json`]);
  });
});

Deno.test("folder store: a writer killed mid-checkpoint never leaves an unreadable passport", async () => {
  await withFolder(async (dir) => {
    const SIZE = 1_000_000;
    const RUNS = 30;
    // The test's own writer must recover a dead writer's lock by its pid, not by waiting.
    const store = new FolderStore(dir, { lockTimeoutMs: 10_000, staleLockMs: 60_000 });
    const blob = "a".repeat(SIZE);
    let state = await store.create({ id: ID, version: 0, round: 0, letter: "a", blob });
    let locksLeft = 0;
    let slowest = 0;
    for (let run = 0; run < RUNS; run++) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", WORKER, dir, ID, "churn", String(SIZE)],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.getReader();
      let heard = "";
      while (!heard.includes("ready\n")) {
        const { done, value } = await reader.read();
        if (done) break;
        heard += decoder.decode(value);
      }
      assert.ok(heard.includes("ready\n"), `run ${run}: the worker did not start`);
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 145));
      child.kill("SIGKILL");
      await child.status; // reaped: its pid is now dead
      reader.releaseLock();
      await child.stdout.cancel();

      if (await exists(join(dir, `.${ID}.lock`))) locksLeft++;
      const opened = await store.open(ID); // throws if the file is torn
      assert.ok(opened, `run ${run}: the passport is gone`);
      assert.ok(opened.version >= state.version, `run ${run}: version went back`);
      assert.equal(opened.round, opened.version - 1, `run ${run}: version and content disagree`);
      const blob = opened.blob as string;
      assert.equal(blob.length, SIZE, `run ${run}: torn blob`);
      assert.equal(blob, (opened.letter as string).repeat(SIZE), `run ${run}: mixed blob`);
      const started = performance.now();
      state = await store.save({ ...opened, round: opened.version }, opened.version);
      slowest = Math.max(slowest, performance.now() - started);
    }
    assert.ok(slowest < 5_000, `a save after a kill took ${slowest} ms`);
    // About half the kills land while the worker holds the lock; at least one must have.
    assert.ok(locksLeft > 0, "no kill landed inside a checkpoint");
    assert.ok(state.version > RUNS, `only ${state.version} versions`);
    const listing = await store.list();
    assert.deepEqual(listing.problems, []);
    assert.deepEqual(listing.passports.map((p) => p.id), [ID]);
    // Whatever the kills left are dot-files; once old, listing removes them.
    const sweeper = new FolderStore(dir, { staleLockMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await sweeper.list();
    assert.deepEqual(await names(dir), [`${ID}.json`]);
  });
});

Deno.test("store folder: --store, else TASKPACK_STORE, else the per-user default", () => {
  assert.equal(
    defaultStoreDir({}, "/home/ann", "linux"),
    "/home/ann/.local/share/taskpack/passports",
  );
  assert.equal(
    defaultStoreDir({ XDG_DATA_HOME: "/data/ann" }, "/home/ann", "linux"),
    "/data/ann/taskpack/passports",
  );
  assert.equal(
    defaultStoreDir({ XDG_DATA_HOME: "relative/ignored" }, "/home/ann", "freebsd"),
    "/home/ann/.local/share/taskpack/passports",
  );
  assert.equal(
    defaultStoreDir({ XDG_DATA_HOME: "/ignored" }, "/Users/ann", "darwin"),
    "/Users/ann/Library/Application Support/taskpack/passports",
  );
  const appData = "C:\\Users\\ann\\AppData\\Roaming";
  assert.equal(
    defaultStoreDir({ APPDATA: appData }, "C:\\Users\\ann", "win32"),
    "C:\\Users\\ann\\AppData\\Roaming\\taskpack\\passports",
  );
  assert.equal(
    defaultStoreDir({}, "C:\\Users\\ann", "windows"),
    "C:\\Users\\ann\\AppData\\Roaming\\taskpack\\passports",
  );
  const env = { TASKPACK_STORE: "/srv/passports" };
  assert.equal(resolveStoreDir("./mine", env, "/home/ann", "linux"), "./mine");
  assert.equal(resolveStoreDir(undefined, env, "/home/ann", "linux"), "/srv/passports");
  assert.equal(
    resolveStoreDir(undefined, { TASKPACK_STORE: "" }, "/home/ann", "linux"),
    "/home/ann/.local/share/taskpack/passports",
  );
});
