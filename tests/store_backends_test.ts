// Copyright 2026 the taskpack authors. MIT license.
// The shared home: the store conformance suite against Deno KV (a local file) and the HTTP store
// (against the home handler on 127.0.0.1); KV's own promises (large passports in pieces, paging,
// garbage); the HTTP home's tokens, claims and refusals; 8 writer processes through HTTP;
// migrate between back ends; and the CLI end to end against a KV store and against serve-home.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { MemoryStore, StoreConflictError } from "../lib/home/store.ts";
import { FolderStore } from "../shell/stores/folder_store.ts";
import {
  createHomeHandler,
  hashToken,
  type HomeHandler,
  issueToken,
} from "../shell/http/home_server.ts";
import { ClaimHeldError, HomeRequestError, HttpStore } from "../shell/stores/http_store.ts";
import {
  KV_CHUNK_BYTES,
  KV_LEDGER_PREFIX,
  type KvKey,
  KvStore,
  PassportRecordError,
} from "../shell/stores/kv_store.ts";
import { cli } from "./_cli.ts";
import { decoder, inTempDir, tempDir } from "./_helpers.ts";
import { storeConformance } from "./store_conformance.ts";

const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("./_http_worker.ts", import.meta.url));
const ID = "TP-9CB7-J5MK";
const OTHER = "TP-2345-6789";
const MISSING = "TP-ZZZZ-ZZZZ";
const START = Date.parse("2026-12-02T16:00:00Z");

// --- helpers ---------------------------------------------------------------------------------

/** A temporary folder, removed afterwards. */
const withDir = (body: (dir: string) => Promise<void>) => inTempDir(body, "taskpack-home-");

/** A KV store in a file of a temporary folder. */
async function withKv(body: (store: KvStore, path: string) => Promise<void>): Promise<void> {
  await withDir(async (dir) => {
    const path = `${dir}/kv/passports.kv`;
    const store = new KvStore(path);
    try {
      await body(store, path);
    } finally {
      await store.close();
    }
  });
}

/** Serves a handler on 127.0.0.1 (a free port) while `body` runs. */
async function withServer(
  handler: HomeHandler,
  body: (url: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  try {
    await body(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

/** Deterministic "random" bytes: each call of the returned function gives different ones. */
function seededRandom(seed: number): (n: number) => Uint8Array {
  let state = seed >>> 0;
  return (n) =>
    Uint8Array.from({ length: n }, () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state >>> 24;
    });
}

/** A clock the test moves. */
function testClock() {
  let time = START;
  return {
    now: () => new Date(time),
    advance: (seconds: number) => {
      time += seconds * 1000;
    },
  };
}

interface Reply {
  status: number;
  // deno-lint-ignore no-explicit-any -- replies are checked field by field
  body: any;
  headers: Headers;
}

/** One request to a handler, without a network. */
async function call(
  handler: HomeHandler,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string | Uint8Array } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.raw ??
    (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await handler(
    new Request(`http://home.test${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: body as BodyInit }),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), headers: response.headers };
}

/** A refusal: the status, and one line of reason. */
function assertRefused(reply: Reply, status: number, reason: RegExp, what: string): void {
  assert.equal(reply.status, status, `${what}: ${JSON.stringify(reply.body)}`);
  assert.equal(typeof reply.body.error, "string", what);
  assert.ok(!/[\r\n]/.test(reply.body.error), `${what}: one line`);
  assert.ok(reply.body.error.length > 10, what);
  assert.match(reply.body.error, reason, what);
}

/** All keys of a KV file. */
async function kvKeys(path: string): Promise<KvKey[]> {
  const kv = await Deno.openKv(path);
  try {
    const keys: KvKey[] = [];
    for await (const entry of kv.list({ prefix: [] })) keys.push(entry.key);
    return keys;
  } finally {
    kv.close();
  }
}

/** Runs `taskpack serve-home` as a user would, while `body` runs; returns what it said. */
async function withServeHome(
  store: string,
  env: Record<string, string>,
  body: (url: string) => Promise<void>,
): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "serve-home", "--store", store, "--port", "0", "--json"],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.getReader();
  let heard = "";
  try {
    while (!heard.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      heard += decoder.decode(value);
    }
    assert.ok(heard.includes("\n"), `serve-home did not start: ${heard}`);
    const { url, store: served } = JSON.parse(heard.split("\n")[0]!);
    assert.equal(served, store);
    await body(url);
  } finally {
    child.kill("SIGTERM");
    const status = await child.status;
    reader.releaseLock();
    await child.stdout.cancel();
    const said = await stderr;
    assert.equal(status.code, 0, `serve-home ended badly: ${said}`);
  }
  return await stderr;
}

// --- the conformance suite -------------------------------------------------------------------

storeConformance("kv", async () => {
  const dir = await tempDir({ prefix: "taskpack-kv-" });
  const store = new KvStore(`${dir}/passports.kv`);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
});

storeConformance("http", async () => {
  const dir = await tempDir({ prefix: "taskpack-http-" });
  const backing = new KvStore(`${dir}/home.kv`);
  const handler = createHomeHandler(backing, { ledger: backing.withPrefix(KV_LEDGER_PREFIX) });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  return {
    store: new HttpStore(`http://127.0.0.1:${server.addr.port}`),
    cleanup: async () => {
      await server.shutdown();
      await backing.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
});

Deno.test("importState writes the version it is given, only where the id is new, in every store", async () => {
  await withDir(async (dir) => {
    const kv = new KvStore(`${dir}/import.kv`);
    const served = new KvStore(`${dir}/served.kv`);
    try {
      await withServer(
        createHomeHandler(served, { ledger: served.withPrefix(KV_LEDGER_PREFIX) }),
        async (url) => {
          const stores = {
            memory: new MemoryStore(),
            folder: new FolderStore(`${dir}/folder`),
            kv,
            http: new HttpStore(url),
          };
          for (const [name, store] of Object.entries(stores)) {
            const state = { id: ID, title: "moved", version: 7, extra: [1, { two: 2 }] };
            const imported = await store.importState!(state);
            assert.deepEqual(imported, state, name);
            assert.deepEqual(await store.open(ID), state, name);
            const error = await store.importState!({ ...state, version: 9 }).then(
              () => null,
              (e) => e,
            );
            assert.ok(error instanceof StoreConflictError, `${name}: ${error}`);
            assert.equal(error.actual, 7, name);
            await assert.rejects(store.importState!({ id: OTHER, version: 0 }), name);
            assert.equal(await store.open(OTHER), null, name);
            assert.equal((await store.save({ ...state, title: "next" }, 7)).version, 8, name);
          }
        },
      );
    } finally {
      await kv.close();
      await served.close();
    }
  });
});

// --- KV --------------------------------------------------------------------------------------

Deno.test("kv store: a 1 MiB passport is cut into pieces, reassembled, and its old pieces go", async () => {
  await withKv(async (store, path) => {
    const blob = "ü".repeat(512 * 1024) + "x".repeat(7); // 1 MiB + 7 bytes of UTF-8
    const created = await store.create({ id: ID, version: 0, title: "big", blob });
    const opened = (await store.open(ID))!;
    assert.equal(opened.blob, blob);
    assert.deepEqual(opened, created);
    const pieces = (keys: KvKey[]) => keys.filter((k) => k[2] === "chunk");
    const bytes = new TextEncoder().encode(JSON.stringify(opened, null, 2) + "\n").length;
    assert.equal(pieces(await kvKeys(path)).length, Math.ceil(bytes / KV_CHUNK_BYTES));
    assert.ok(pieces(await kvKeys(path)).length > 12, "more than one atomic operation holds");

    // 3 MiB over it, then something small: each time only the current pieces remain.
    const bigger = await store.save({ ...opened, blob: "y".repeat(3 * 1024 * 1024) }, 1);
    assert.equal(((await store.open(ID))!.blob as string).length, 3 * 1024 * 1024);
    assert.ok(pieces(await kvKeys(path)).every((k) => k[4] === 2));
    await store.save({ ...bigger, blob: "small" }, 2);
    const keys = await kvKeys(path);
    assert.equal(pieces(keys).length, 1);
    assert.deepEqual(keys.filter((k) => k[2] === "head"), [["taskpack", "passports", "head", ID]]);
    assert.equal((await store.open(ID))!.blob, "small");
    assert.deepEqual((await store.list()).passports, [
      { id: ID, version: 3, title: "big", updated_at: "" },
    ]);
  });
});

Deno.test("kv store: a passport over maxBytes is refused and nothing changes", async () => {
  await withDir(async (dir) => {
    const store = new KvStore(`${dir}/p.kv`, { maxBytes: 100_000 });
    try {
      const created = await store.create({ id: ID, version: 0, blob: "a" });
      await assert.rejects(
        store.save({ ...created, blob: "b".repeat(100_000) }, 1),
        (error: Error) => error instanceof RangeError && /more than the 100000/.test(error.message),
      );
      await assert.rejects(store.create({ id: OTHER, version: 0, blob: "c".repeat(100_000) }));
      assert.deepEqual(await store.open(ID), created);
      assert.equal(await store.open(OTHER), null);
    } finally {
      await store.close();
    }
  });
});

Deno.test("kv store: concurrent writers of large passports: no torn read, nothing lost, no garbage", async () => {
  await withKv(async (first, path) => {
    const SIZE = 900 * 1024; // staged: more than one atomic operation
    await first.create({ id: ID, version: 0, letter: "a", blob: "a".repeat(SIZE), markers: [] });
    const stores = [first, new KvStore(path), new KvStore(path), new KvStore(path)];
    let reads = 0;
    let writing = true;
    const reader = async () => {
      while (writing) {
        const state = (await first.open(ID))!;
        assert.equal(state.blob, (state.letter as string).repeat(SIZE), "a torn read");
        reads++;
      }
    };
    const writer = async (store: KvStore, n: number) => {
      for (let i = 0; i < 4;) {
        const state = (await store.open(ID))!;
        const letter = String.fromCharCode(0x62 + n);
        try {
          await store.save({
            ...state,
            letter,
            blob: letter.repeat(SIZE),
            markers: [...(state.markers as string[]), `w${n}:${i}`],
          }, state.version);
          i++;
        } catch (error) {
          if (!(error instanceof StoreConflictError)) throw error;
        }
      }
    };
    const writers = Promise.all(stores.map(writer)).finally(() => writing = false);
    for (const outcome of await Promise.allSettled([writers, reader()])) {
      if (outcome.status === "rejected") throw outcome.reason;
    }
    for (const store of stores.slice(1)) await store.close();
    const final = (await first.open(ID))!;
    assert.equal(final.version, 17);
    assert.equal((final.markers as string[]).length, 16);
    assert.ok(reads > 0);
    // Losers deleted their own pieces; only the current version's remain.
    const pieces = (await kvKeys(path)).filter((k) => k[2] === "chunk");
    assert.ok(pieces.length > 0 && pieces.every((k) => k[4] === 17 && k[5] === pieces[0]![5]));
  });
});

Deno.test("kv store: pieces a killed writer left are collected by the next checkpoint", async () => {
  await withKv(async (store, path) => {
    const created = await store.create({ id: ID, version: 0 });
    const kv = await Deno.openKv(path);
    try {
      // What a writer killed while staging version 2 (or 1) leaves behind.
      await kv.set(["taskpack", "passports", "chunk", ID, 1, "deadbeef", 0], new Uint8Array(9));
      await kv.set(["taskpack", "passports", "chunk", ID, 2, "deadbeef", 0], new Uint8Array(9));
      await kv.set(["taskpack", "passports", "chunk", ID, 9, "future00", 0], new Uint8Array(9));
      assert.deepEqual(await store.open(ID), created, "garbage is never read");
      await store.save(created, 1);
      await store.save(created, 2);
      await store.save(created, 3);
      const pieces = (await kvKeys(path)).filter((k) => k[2] === "chunk");
      // Everything under an older version is gone; a piece ahead of the record may be a live
      // writer's and is kept until the record passes it.
      assert.deepEqual(pieces.map((k) => k[4]).sort(), [4, 9]);
    } finally {
      kv.close();
    }
  });
});

Deno.test("kv store: listing pages through the records and reports broken ones", async () => {
  await withKv(async (store, path) => {
    const ids: string[] = [];
    const alphabet = "23456789ABCDEFGH";
    for (let i = 0; i < 300; i++) {
      const id = `TP-${alphabet[i % 16]}${alphabet[(i >> 4) % 16]}${alphabet[i >> 8]}2-3333`;
      ids.push(id);
      await store.create({ id, version: 0, title: `t${i}` });
    }
    const kv = await Deno.openKv(path);
    try {
      await kv.set(["taskpack", "passports", "head", "not-an-id"], { layout: 1 });
      await kv.set(["taskpack", "passports", "head", "TP-XXXX-XXXX"], { layout: 9 });
      await kv.set(["taskpack", "passports", "head", "TP-YYYY-YYYY"], {
        layout: 1,
        version: 3,
        nonce: "n",
        chunks: 2,
        bytes: 10,
        summary: null,
      });
    } finally {
      kv.close();
    }
    const listing = await store.list();
    assert.deepEqual(listing.passports.map((p) => p.id), [...ids].sort());
    assert.equal(listing.passports.find((p) => p.id === ids[42])?.title, "t42");
    assert.deepEqual(listing.problems.map((p) => p.entry), [
      "TP-XXXX-XXXX",
      "TP-YYYY-YYYY",
      "not-an-id",
    ]);
    assert.match(listing.problems[1]!.reason, /pieces of version 3 are missing/);
    await assert.rejects(store.open("TP-YYYY-YYYY"), PassportRecordError);
    await assert.rejects(store.save({ id: "TP-XXXX-XXXX", version: 1 }, 1), PassportRecordError);
  });
});

// --- the HTTP home ---------------------------------------------------------------------------

Deno.test("home: tokens are minted with injected randomness, shown once, kept only as a hash", async () => {
  const store = new MemoryStore();
  const ledger = new MemoryStore();
  const handler = createHomeHandler(store, { ledger, random: seededRandom(7) });
  const created = await call(handler, "POST", "/p", {
    body: { state: { title: "minted by the home", goal: "g" } },
  });
  assert.equal(created.status, 201);
  const { state, token } = created.body;
  assert.match(state.id, /^TP-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
  assert.deepEqual(Object.keys(state), ["id", "title", "goal", "version"]);
  assert.equal(state.version, 1);
  assert.match(token, /^tpk_[0-9a-f]{64}$/);
  // The same seed mints the same id and token: randomness is injected.
  const again = await call(
    createHomeHandler(new MemoryStore(), { random: seededRandom(7) }),
    "POST",
    "/p",
    {
      body: { state: { title: "x" } },
    },
  );
  assert.deepEqual([again.body.state.id, again.body.token], [state.id, token]);

  const record = (await ledger.open(state.id))!;
  assert.equal(record.token_sha256, hashToken(token));
  const everything = JSON.stringify([await store.open(state.id), record, await store.list()]);
  assert.ok(!everything.includes(token), "the token itself is stored nowhere");
  const opened = await call(handler, "GET", `/p/${state.id}`, { token });
  assert.equal(opened.status, 200);
  assert.deepEqual(opened.body, { state, claim: null });
  assert.ok(!JSON.stringify(opened.body).includes(token), "and never shown again");
  const listing = await call(handler, "GET", "/p");
  assert.deepEqual(listing.body, {
    passports: [{ id: state.id, version: 1, title: "minted by the home", updated_at: "" }],
    problems: [],
  });
});

Deno.test("home: a stale write, a wrong token, a missing passport, a malformed body: the right status, one line, nothing changed", async () => {
  const store = new MemoryStore();
  const ledger = new MemoryStore();
  const handler = createHomeHandler(store, { ledger, maxBodyBytes: 10_000 });
  const { token } = (await call(handler, "POST", "/p", {
    body: { state: { id: ID, title: "t", goal: "g" } },
  })).body;
  const other = (await call(handler, "POST", "/p", { body: { state: { id: OTHER } } })).body.token;
  const saved = await call(handler, "POST", `/p/${ID}`, {
    token,
    body: { state: { id: ID, title: "t", goal: "second" }, expected_version: 1 },
  });
  assert.equal(saved.status, 200);
  assert.equal(saved.body.state.version, 2);
  const good = { state: { id: ID, title: "t", goal: "lost" }, expected_version: 2 };
  const before = JSON.stringify([
    await store.list(),
    await store.open(ID),
    await ledger.open(ID),
    await ledger.open(OTHER),
  ]);

  const cases: [string, string, string, Parameters<typeof call>[3], number, RegExp][] = [
    [
      "stale write",
      "POST",
      `/p/${ID}`,
      { token, body: { ...good, expected_version: 1 } },
      409,
      /expected version 1, but the store holds version 2/,
    ],
    ["no token", "POST", `/p/${ID}`, { body: good }, 401, /needs its token/],
    ["wrong token", "POST", `/p/${ID}`, { token: "tpk_0000", body: good }, 403, /does not open/],
    [
      "another passport's token",
      "POST",
      `/p/${ID}`,
      { token: other, body: good },
      403,
      /does not open/,
    ],
    ["read without token", "GET", `/p/${ID}`, {}, 401, /needs its token/],
    ["read with wrong token", "GET", `/p/${ID}`, { token: other }, 403, /does not open/],
    [
      "claim with wrong token",
      "POST",
      `/p/${ID}/claim`,
      { token: other, body: { holder: "x", ttl_seconds: 9 } },
      403,
      /does not open/,
    ],
    ["release with no token", "DELETE", `/p/${ID}/claim`, {}, 401, /needs its token/],
    [
      "missing passport",
      "POST",
      `/p/${MISSING}`,
      { token, body: { ...good, state: { id: MISSING } } },
      404,
      /no passport TP-ZZZZ-ZZZZ/,
    ],
    ["missing passport read", "GET", `/p/${MISSING}`, { token }, 404, /no passport/],
    [
      "missing passport claim",
      "POST",
      `/p/${MISSING}/claim`,
      { token, body: { holder: "x", ttl_seconds: 9 } },
      404,
      /no passport/,
    ],
    ["not an id", "GET", "/p/..%2F..%2Fetc", { token }, 404, /ids look like TP-XXXX-XXXX/],
    ["no such route", "GET", "/elsewhere", {}, 404, /the API is/],
    ["not JSON", "POST", `/p/${ID}`, { token, raw: "{state:" }, 400, /not valid JSON/],
    [
      "duplicate keys",
      "POST",
      `/p/${ID}`,
      { token, raw: '{"state":{"id":"TP-9CB7-J5MK"},"state":{}}' },
      400,
      /not valid JSON/,
    ],
    [
      "prototype key",
      "POST",
      `/p/${ID}`,
      { token, raw: '{"state":{"id":"TP-9CB7-J5MK","__proto__":{}},"expected_version":2}' },
      400,
      /not valid JSON/,
    ],
    [
      "not UTF-8",
      "POST",
      `/p/${ID}`,
      { token, raw: new Uint8Array([0x7b, 0xff, 0x7d]) },
      400,
      /not UTF-8/,
    ],
    ["empty", "POST", `/p/${ID}`, { token, raw: "" }, 400, /empty/],
    ["an array", "POST", `/p/${ID}`, { token, raw: "[1]" }, 400, /must be a JSON object/],
    [
      "no state",
      "POST",
      `/p/${ID}`,
      { token, body: { expected_version: 2 } },
      400,
      /must be a JSON object/,
    ],
    [
      "version as text",
      "POST",
      `/p/${ID}`,
      { token, body: { ...good, expected_version: "2" } },
      400,
      /expected_version/,
    ],
    [
      "another id",
      "POST",
      `/p/${ID}`,
      { token, body: { ...good, state: { id: OTHER } } },
      400,
      /state.id must be TP-9CB7-J5MK/,
    ],
    [
      "too large",
      "POST",
      `/p/${ID}`,
      { token, body: { ...good, state: { id: ID, blob: "z".repeat(20_000) } } },
      413,
      /over this server's limit of 10000 bytes \(maxBodyBytes\)/,
    ],
    ["create: not JSON", "POST", "/p", { raw: "{" }, 400, /not valid JSON/],
    [
      "create: bad id",
      "POST",
      "/p",
      { body: { state: { id: "../x" } } },
      400,
      /state.id must be a passport id/,
    ],
    [
      "create: existing id",
      "POST",
      "/p",
      { body: { state: { id: ID } } },
      409,
      /a passport with that id exists \(version 2\)/,
    ],
    [
      "create: keep_version without version",
      "POST",
      "/p",
      { body: { state: { id: MISSING }, keep_version: true } },
      400,
      /keep_version needs state.version/,
    ],
    [
      "claim: no holder",
      "POST",
      `/p/${ID}/claim`,
      { token, body: { ttl_seconds: 60 } },
      400,
      /holder must be/,
    ],
    [
      "claim: zero ttl",
      "POST",
      `/p/${ID}/claim`,
      { token, body: { holder: "ann", ttl_seconds: 0 } },
      400,
      /ttl_seconds/,
    ],
    [
      "claim: a year",
      "POST",
      `/p/${ID}/claim`,
      { token, body: { holder: "ann", ttl_seconds: 31_536_000 } },
      400,
      /ttl_seconds/,
    ],
    ["release: malformed", "DELETE", `/p/${ID}/claim`, { token, raw: "[" }, 400, /not valid JSON/],
    ["method", "PUT", `/p/${ID}`, { token, body: good }, 405, /not allowed/],
  ];
  for (const [what, method, path, options, status, reason] of cases) {
    assertRefused(await call(handler, method, path, options), status, reason, what);
  }
  const unauthorised = await call(handler, "POST", `/p/${ID}`, { body: good });
  assert.match(unauthorised.headers.get("www-authenticate") ?? "", /^Bearer/);
  const after = JSON.stringify([
    await store.list(),
    await store.open(ID),
    await ledger.open(ID),
    await ledger.open(OTHER),
  ]);
  assert.equal(after, before, "no refusal changed anything");
  assert.equal(await store.open(MISSING), null);
});

Deno.test("home: a passport with no token at the home is refused until one is minted", async () => {
  const store = new MemoryStore();
  await store.create({ id: ID, version: 0 }); // came in by migrate, not through the home
  const ledger = new MemoryStore();
  const handler = createHomeHandler(store, { ledger });
  assertRefused(
    await call(handler, "GET", `/p/${ID}`, { token: "tpk_guess" }),
    403,
    /has no token at this home; .*--mint-token TP-9CB7-J5MK/,
    "no token minted",
  );
  const token = await issueToken(ledger, ID);
  assert.equal((await call(handler, "GET", `/p/${ID}`, { token })).status, 200);
  const rotated = await issueToken(ledger, ID);
  assert.equal((await call(handler, "GET", `/p/${ID}`, { token })).status, 403, "rotated out");
  assert.equal((await call(handler, "GET", `/p/${ID}`, { token: rotated })).status, 200);
});

Deno.test("home: claims are soft locks that name their holder and lapse by themselves", async () => {
  const clock = testClock();
  const store = new MemoryStore();
  const handler = createHomeHandler(store, { now: clock.now });
  const { token } = (await call(handler, "POST", "/p", { body: { state: { id: ID } } })).body;
  const claim = (holder: string, ttl: number) =>
    call(handler, "POST", `/p/${ID}/claim`, { token, body: { holder, ttl_seconds: ttl } });

  const alice = await claim("alice@laptop", 600);
  assert.equal(alice.status, 200);
  assert.deepEqual(alice.body.claim, {
    holder: "alice@laptop",
    since: "2026-12-02T16:00:00Z",
    until: "2026-12-02T16:10:00Z",
  });
  clock.advance(60);
  const bob = await claim("bob@desktop", 600);
  assertRefused(
    bob,
    409,
    /^TP-9CB7-J5MK is claimed by alice@laptop until 2026-12-02T16:10:00Z$/,
    "held",
  );
  assert.equal(bob.body.claim.holder, "alice@laptop");

  // The holder renews; the claim is reported on reads and saves, and never blocks a save.
  const renewed = await claim("alice@laptop", 600);
  assert.deepEqual(renewed.body.claim, {
    holder: "alice@laptop",
    since: "2026-12-02T16:00:00Z",
    until: "2026-12-02T16:11:00Z",
  });
  const saved = await call(handler, "POST", `/p/${ID}`, {
    token,
    body: { state: { id: ID, goal: "bob saves anyway" }, expected_version: 1 },
  });
  assert.equal(saved.status, 200);
  assert.equal(saved.body.state.version, 2);
  assert.equal(saved.body.claim.holder, "alice@laptop");
  assert.equal(
    (await call(handler, "GET", `/p/${ID}`, { token })).body.claim.until,
    "2026-12-02T16:11:00Z",
  );

  // Releasing someone else's claim by name is refused; it lapses by itself.
  assertRefused(
    await call(handler, "DELETE", `/p/${ID}/claim`, { token, body: { holder: "bob@desktop" } }),
    409,
    /claimed by alice@laptop until 2026-12-02T16:11:00Z, not by bob@desktop/,
    "release by another",
  );
  clock.advance(600); // 16:11:00 exactly: lapsed
  assert.equal((await call(handler, "GET", `/p/${ID}`, { token })).body.claim, null);
  const taken = await claim("bob@desktop", 60);
  assert.equal(taken.status, 200);
  assert.deepEqual(taken.body.claim, {
    holder: "bob@desktop",
    since: "2026-12-02T16:11:00Z",
    until: "2026-12-02T16:12:00Z",
  });
  const released = await call(handler, "DELETE", `/p/${ID}/claim`, {
    token,
    body: { holder: "bob@desktop" },
  });
  assert.deepEqual(released.body, { released: true, claim: null });
  assert.deepEqual((await call(handler, "DELETE", `/p/${ID}/claim`, { token })).body, {
    released: false,
    claim: null,
  });
  assert.equal((await claim("carol", 5)).status, 200);
});

Deno.test("http store: claims, tokens and refusals as errors a caller can act on", async () => {
  await withDir(async (dir) => {
    const clock = testClock();
    const backing = new MemoryStore();
    const handler = createHomeHandler(backing, { now: clock.now });
    await withServer(handler, async (url) => {
      const seen: string[] = [];
      const alice = new HttpStore(`${url}/`, {
        tokenDir: `${dir}/tokens`,
        onToken: (id, token, file) => seen.push(`token ${id} ${token.slice(0, 4)} ${file}`),
        onClaim: (id, claim) => seen.push(`claim ${id} ${claim.holder}`),
      });
      const created = await alice.create({ id: ID, version: 0, title: "t" });
      const file = alice.tokenFile(ID)!;
      assert.ok(file.startsWith(`${dir}/tokens/127.0.0.1_`), file);
      const token = (await Deno.readTextFile(file)).trim();
      assert.equal(await alice.tokenOf(ID), token);
      if (Deno.build.os !== "windows") assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
      assert.deepEqual(seen, [`token ${ID} tpk_ ${file}`]);

      // A colleague with the token (TASKPACK_TOKEN) and no file.
      const bob = new HttpStore(url, {
        token,
        onClaim: (id, claim) => seen.push(`claim ${id} ${claim.holder}`),
      });
      const stranger = new HttpStore(url, { token: "tpk_wrong" });
      const nobody = new HttpStore(url);
      assert.equal((await bob.open(ID))?.version, 1);
      await assert.rejects(
        stranger.open(ID),
        (e: Error) =>
          e instanceof HomeRequestError && e.status === 403 && /TASKPACK_TOKEN/.test(e.message),
      );
      await assert.rejects(
        nobody.save(created, 1),
        (e: Error) => e instanceof HomeRequestError && e.status === 401,
      );
      assert.equal(await nobody.open(MISSING), null);
      assert.deepEqual((await nobody.list()).passports.map((p) => p.id), [ID]);

      assert.equal((await alice.claim(ID, "alice", 300)).until, "2026-12-02T16:05:00Z");
      const held = await bob.claim(ID, "bob", 300).then(() => null, (e) => e);
      assert.ok(held instanceof ClaimHeldError);
      assert.equal(held.message, `${ID} is claimed by alice until 2026-12-02T16:05:00Z`);
      await bob.save({ ...created, goal: "g" }, 1);
      assert.deepEqual(seen.slice(1), [`claim ${ID} alice`]);
      await assert.rejects(bob.release(ID, "bob"), ClaimHeldError);
      assert.equal(await alice.release(ID, "alice"), true);
      assert.equal((await bob.claim(ID, "bob", 300)).holder, "bob");

      // A fresh store finds alice's token in its file.
      const later = new HttpStore(url, { tokenDir: `${dir}/tokens` });
      assert.equal((await later.open(ID))?.goal, "g");
      await assert.rejects(
        new HttpStore("http://127.0.0.1:9").open(ID),
        (e: Error) => e instanceof HomeRequestError && /Cannot reach the home/.test(e.message),
      );
    });
  });
});

Deno.test("http store: a home under a path (behind a proxy) is reached at that path", async () => {
  const handler = createHomeHandler(new MemoryStore(), { basePath: "/team/" });
  await withServer(handler, async (url) => {
    const store = new HttpStore(`${url}/team`);
    const created = await store.create({ id: ID, version: 0, title: "t" });
    assert.equal((await store.save(created, 1)).version, 2);
    assert.equal((await store.list()).passports[0]?.version, 2);
    await assert.rejects(
      new HttpStore(url).list(),
      (e: Error) =>
        e instanceof HomeRequestError && e.status === 404 && /the API is/.test(e.message),
    );
  });
});

Deno.test("http store: 8 writer processes on one passport: versions contiguous, nothing lost", async () => {
  await withKv(async (backing) => {
    const handler = createHomeHandler(backing, { ledger: backing.withPrefix(KV_LEDGER_PREFIX) });
    await withServer(handler, async (url) => {
      const setup = new HttpStore(url);
      await setup.create({ id: ID, version: 0, title: "contended", markers: [] });
      const token = (await setup.tokenOf(ID))!;
      const COUNT = 25;
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          new Deno.Command(Deno.execPath(), {
            args: ["run", "-A", WORKER, url, ID, String(COUNT)],
            env: { TASKPACK_TOKEN: token },
            stdout: "piped",
            stderr: "piped",
          }).output()),
      );
      const reports: { pid: number; versions: number[]; conflicts: number }[] = [];
      for (const result of results) {
        assert.equal(result.code, 0, decoder.decode(result.stderr));
        reports.push(JSON.parse(decoder.decode(result.stdout)));
      }
      const final = (await backing.open(ID))!;
      assert.equal(final.version, 1 + 8 * COUNT);
      const seen = reports.flatMap((r) => r.versions).sort((a, b) => a - b);
      assert.deepEqual(seen, Array.from({ length: 8 * COUNT }, (_, i) => i + 2));
      const markers = final.markers as string[];
      assert.equal(markers.length, 8 * COUNT);
      for (const { pid, versions } of reports) {
        assert.equal(versions.length, COUNT);
        const own = markers.filter((m) => m.startsWith(`${pid}:`));
        assert.deepEqual(own, Array.from({ length: COUNT }, (_, i) => `${pid}:${i}`));
      }
      assert.ok(reports.some((r) => r.conflicts > 0), "the writers did contend");
    });
  });
});

// --- the CLI ---------------------------------------------------------------------------------

/** One machine of the CLI flow: its own store, name, and user folders. */
function machine(cwd: string, name: string, store: string) {
  const env = {
    XDG_CONFIG_HOME: `${cwd}/${name}-config`,
    XDG_DATA_HOME: `${cwd}/${name}-data`,
    TASKPACK_TOKEN: "",
  };
  const run = async (...args: string[]) => {
    const result = await cli(
      [...args, "--store", store, "--machine", name, "--actor", name, "--json"],
      { cwd, env },
    );
    assert.equal(result.code, 0, `${name}: ${args.join(" ")}: ${result.stderr}`);
    return { ...result.json(), stderr: result.stderr };
  };
  return { name, store, env, run };
}

/** A -> B -> A: B lands A's handoff, answers its ask, and A merges B's receipt. */
async function handoffAndBack(
  cwd: string,
  A: ReturnType<typeof machine>,
  B: ReturnType<typeof machine>,
): Promise<void> {
  await Deno.writeTextFile(`${cwd}/brief.txt`, "Release brief\n");
  const a = (await A.run("new", "--title", "release plugin", "--goal", "ship it")).passport_id;
  await A.run(
    "pack",
    a,
    "--out",
    "handoff.taskpack",
    "--file",
    "brief.txt",
    "--ask",
    "cover image prompt|one prompt covering 750x400|we render it here",
  );
  const landed = await B.run("land", "handoff.taskpack");
  const b = landed.passport_id;
  assert.notEqual(b, a);
  assert.equal(await Deno.readTextFile(`${landed.luggage_dir}/brief.txt`), "Release brief\n");
  assert.ok(landed.luggage_dir.startsWith(`${cwd}/`), landed.luggage_dir);
  await B.run("answer", b, "a1", "--text", "a fox on a hill");
  const receipt = await B.run("pack", b, "--kind", "receipt", "--out", "receipt.taskpack.json");
  assert.equal(receipt.answers, a);
  const merged = await A.run("land", "receipt.taskpack.json", "--into", a);
  assert.deepEqual(merged.answered, ["a1"]);
  const after = (await A.run("open", a)).state;
  assert.equal(after.asks[0].answer, "a fox on a hill");
  assert.equal(after.asks[0].answered_by, `${B.name}@${B.name}`);
  const listing = await B.run("list");
  assert.deepEqual(listing.passports.map((p: { passport_id: string }) => p.passport_id), [b]);
}

Deno.test("cli: A -> B -> A with both stores in Deno KV", async () => {
  await withDir(async (cwd) => {
    const A = machine(cwd, "alice", `kv:${cwd}/alice.kv`);
    const B = machine(cwd, "bob", `kv:${cwd}/stores/bob.kv`);
    await handoffAndBack(cwd, A, B);
    // A stale checkpoint is refused and overwrites nothing.
    const a = (await A.run("list")).passports[0].passport_id;
    const opened = (await A.run("open", a)).state;
    await Deno.writeTextFile(`${cwd}/s.json`, JSON.stringify({ ...opened, goal: "stale edit" }));
    const stale = await cli([
      "checkpoint",
      "--file",
      "s.json",
      "--expected-version",
      String(opened.version - 1),
      "--store",
      A.store,
    ], { cwd, env: A.env });
    assert.equal(stale.code, 2);
    assert.match(stale.stderr, /but the store holds version/);
    assert.deepEqual((await A.run("open", a)).state, opened);
  });
});

Deno.test("cli: A -> B -> A with B's store an HTTP home (serve-home on Deno KV)", async () => {
  await withDir(async (cwd) => {
    await withServeHome(`kv:${cwd}/home.kv`, {}, async (url) => {
      const A = machine(cwd, "alice", `${cwd}/alice-store`);
      const B = machine(cwd, "bob", url);
      await handoffAndBack(cwd, A, B);
      // B's token was shown once, on stderr, and kept in B's config folder.
      const tokenFiles = await Array.fromAsync(Deno.readDir(`${cwd}/bob-config/taskpack/tokens`));
      assert.equal(tokenFiles.length, 1);
      const b = (await B.run("list")).passports[0].passport_id;
      const token = (await Deno.readTextFile(
        `${cwd}/bob-config/taskpack/tokens/${tokenFiles[0]!.name}/${b}.token`,
      )).trim();
      // Carol has no token file: refused until she is given the token.
      const carol = machine(cwd, "carol", url);
      const refused = await cli(["open", b, "--store", url], { cwd, env: carol.env });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^taskpack: Cannot open TP-.* needs its token.*TASKPACK_TOKEN/);
      assert.equal(refused.stderr.trim().split("\n").length, 1);
      const given = await cli(["open", b, "--store", url, "--json"], {
        cwd,
        env: { ...carol.env, TASKPACK_TOKEN: token },
      });
      assert.equal(given.code, 0, given.stderr);
      assert.equal(given.json().passport_id, b);
    });
  });
});

Deno.test("cli: migrate folder -> kv -> http -> kv -> folder keeps every version; again skips", async () => {
  await withDir(async (cwd) => {
    const env = { XDG_CONFIG_HOME: `${cwd}/config`, XDG_DATA_HOME: `${cwd}/data` };
    const folder = new FolderStore(`${cwd}/folder`);
    const first = await folder.create({ id: ID, version: 0, title: "one", goal: "g" });
    let second = await folder.create({ id: OTHER, version: 0, title: "two" });
    for (let i = 0; i < 3; i++) second = await folder.save({ ...second, step: i }, second.version);
    const originals = [first, second];

    const migrate = async (from: string, to: string) => {
      const result = await cli(["migrate", "--from", from, "--to", to, "--json"], { cwd, env });
      assert.equal(result.code, 0, result.stderr);
      return result;
    };
    await withServeHome(`kv:${cwd}/home.kv`, env, async (url) => {
      const chain = [`${cwd}/folder`, `kv:${cwd}/a.kv`, url, `kv:${cwd}/b.kv`, `${cwd}/back`];
      for (let i = 1; i < chain.length; i++) {
        const result = await migrate(chain[i - 1]!, chain[i]!);
        assert.deepEqual(result.json().moved, [
          { passport_id: OTHER, state_version: 4 },
          { passport_id: ID, state_version: 1 },
        ]);
        assert.deepEqual(result.json().skipped, []);
        if (chain[i] === url) assert.equal(result.stderr.match(/shown once/g)?.length, 2);
      }
      const back = new FolderStore(`${cwd}/back`);
      assert.deepEqual([await back.open(ID), await back.open(OTHER)], originals);
      // Again: everything is there already; nothing is overwritten.
      await folder.save({ ...second, step: "newer" }, 4);
      const again = await migrate(`${cwd}/folder`, url);
      assert.deepEqual(again.json().moved, []);
      assert.deepEqual(again.json().skipped.map((s: { passport_id: string }) => s.passport_id), [
        OTHER,
        ID,
      ]);
      assert.match(again.json().skipped[0].reason, /already holds it \(version 4\)/);
      const text = await cli(["migrate", "--from", `${cwd}/folder`, "--to", `${cwd}/back`], {
        cwd,
        env,
      });
      assert.match(text.stdout, /0 moved, 2 skipped, 0 failed/);
      assert.deepEqual(await back.open(OTHER), second);

      // A passport put into the served KV file directly has no token until one is minted.
      await migrate(`${cwd}/folder`, `kv:${cwd}/home2.kv`);
    });
    const minted = await cli([
      "serve-home",
      "--store",
      `kv:${cwd}/home2.kv`,
      "--mint-token",
      ID,
      "--json",
    ], { cwd, env });
    assert.equal(minted.code, 0, minted.stderr);
    const { token } = minted.json();
    assert.match(token, /^tpk_/);
    await withServeHome(`kv:${cwd}/home2.kv`, env, async (url) => {
      const without = await cli(["open", ID, "--store", url], { cwd, env });
      assert.match(without.stderr, /needs its token/);
      const opened = await cli(["open", ID, "--store", url, "--json"], {
        cwd,
        env: { ...env, TASKPACK_TOKEN: token },
      });
      assert.equal(opened.code, 0, opened.stderr);
      assert.equal(opened.json().state.title, "one");
      const otherStill = await cli(["open", OTHER, "--store", url], {
        cwd,
        env: { ...env, TASKPACK_TOKEN: token },
      });
      assert.match(otherStill.stderr, /has no token at this home; .*--mint-token TP-2345-6789/);
    });
  });
});

Deno.test("cli: clear one-line refusals for stores that cannot be used", async () => {
  await withDir(async (cwd) => {
    const noKv = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-config", CLI, "list", "--store", `kv:${cwd}/x.kv`],
      cwd,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(noKv.code, 1);
    assert.equal(
      decoder.decode(noKv.stderr),
      'taskpack: kv: stores need Deno KV: run deno with --unstable-kv, or add "unstable": ["kv"] to deno.json\n',
    );
    const cases: [string[], RegExp][] = [
      [["list", "--store", "kv:"], /kv: needs a path or a URL/],
      [
        ["serve-home", "--store", "http://127.0.0.1:9"],
        /serve-home serves a folder or a kv: store/,
      ],
      [["serve-home", "--store", `${cwd}/s`, "--port", "http"], /--port needs a port number/],
      [["migrate", "--from", `${cwd}/s`], /migrate needs --from <store> --to <store>/],
      [["migrate", "--from", `${cwd}/s`, "--to", `${cwd}/s`], /two different stores/],
      [["list", "--store", "http://127.0.0.1:9"], /Cannot reach the home at http:\/\/127.0.0.1:9/],
      [["list", "--store", "https://user:pw@example.invalid"], /no credentials/],
    ];
    for (const [args, reason] of cases) {
      const result = await cli(args, { cwd });
      assert.equal(result.code, 1, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, reason);
      assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    }
  });
});

Deno.test("cli: list and doctor name a kv: store as given, and its luggage folder apart", async () => {
  await withDir(async (cwd) => {
    const env = { XDG_DATA_HOME: `${cwd}/data`, HOME: cwd };
    const store = `kv:${cwd}/team.kv`;
    const empty = await cli(["list", "--store", store], { cwd, env });
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, `no passports in ${store}\n`);
    const doctor = await cli(["doctor", "--store", store, "--json"], { cwd, env });
    assert.equal(doctor.code, 0, doctor.stderr);
    const report = doctor.json();
    assert.equal(report.store, store);
    assert.ok(report.luggage_dir.startsWith(`${cwd}/data/taskpack/luggage/`), report.luggage_dir);
    assert.equal(report.ready, true);
    const folder = await cli(["doctor", "--store", `${cwd}/s`, "--json"], { cwd, env });
    assert.equal(folder.json().store, `${cwd}/s`);
    assert.equal("luggage_dir" in folder.json(), false);
  });
});

Deno.test("cli: serve-home on a port already taken says so in one sentence", async () => {
  await withDir(async (cwd) => {
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const port = (taken.addr as Deno.NetAddr).port;
      const result = await cli(["serve-home", "--store", `${cwd}/s`, "--port", String(port)], {
        cwd,
      });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(
        result.stderr,
        `taskpack: port ${port} on 127.0.0.1 is in use; pick another with --port\n`,
      );
    } finally {
      taken.close();
    }
  });
});
