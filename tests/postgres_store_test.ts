// Copyright 2026 the taskpack authors. MIT license.
// The PostgreSQL store against a real PostgreSQL started for this file (tests/_postgres.ts):
// the unchanged store conformance suite, the schema table and its refusal of a newer schema,
// conditional writes under contention, the connection facts (password from the URL,
// PGPASSWORD or a password file and never shown; an unreachable database named by host and
// port; the statement timeout), and a restart of the database mid-run.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import type { PassportState } from "../lib/format/mod.ts";
import { StoreConflictError } from "../lib/home/store.ts";
import { FolderStore } from "../shell/stores/folder_store.ts";
import { PassportRowError, PostgresStore } from "../shell/stores/postgres_store.ts";
import {
  parsePostgresUrl,
  passwordFromPassfile,
  redactPostgresUrl,
} from "../shell/stores/postgres_config.ts";
import { startPostgres } from "./_postgres.ts";
import { storeConformance } from "./store_conformance.ts";

const ID = "TP-9CB7-J5MK";

// One server for the whole file, started before the first test (so no test owns it).
const server = await startPostgres();
globalThis.addEventListener("unload", () => server.killNow());
const DB = await server.createDatabase("conformance");
const PASSWORD = server.password;

let tables = 0;
/** A store in a table of its own. */
function freshStore(url = DB): PostgresStore {
  return new PostgresStore(url, { table: `t${++tables}`, env: {} });
}

storeConformance("postgres", () => {
  const store = freshStore();
  return Promise.resolve({ store, cleanup: () => store.close() });
});

/** Expects a rejection whose message is one line matching `pattern` and without the password. */
async function refused(promise: Promise<unknown>, pattern: RegExp): Promise<Error> {
  const error = await promise.then(() => null, (e: Error) => e);
  assert.ok(error instanceof Error, "expected a refusal");
  assert.match(error.message, pattern);
  assert.ok(!error.message.includes("\n"), `one line: ${error.message}`);
  assert.ok(!error.message.includes(PASSWORD), `no password: ${error.message}`);
  return error;
}

Deno.test("postgres: the schema table records version 1; a newer schema is refused", async () => {
  const url = await server.createDatabase("schema_check");
  const store = new PostgresStore(url, { env: {} });
  try {
    assert.deepEqual((await store.list()).passports, []);
    assert.equal(
      (await server.sql("SELECT version FROM taskpack_schema", "schema_check")).trim(),
      "1",
    );
    assert.equal(
      (await server.sql(
        "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables " +
          "WHERE table_schema = 'public'",
        "schema_check",
      )).trim(),
      "taskpack_passports,taskpack_schema",
    );
    await server.sql("UPDATE taskpack_schema SET version = 2", "schema_check");
    const later = new PostgresStore(url, { env: {} });
    try {
      await refused(
        later.list(),
        /^Cannot use postgres:\/\/taskpack:\*\*\*@127\.0\.0\.1:\d+\/schema_check: its taskpack schema is version 2, newer than the 1 this taskpack knows; upgrade taskpack$/,
      );
    } finally {
      await later.close();
    }
  } finally {
    await store.close();
  }
});

Deno.test("postgres: ten stores starting at once on a new database make one schema", async () => {
  const url = await server.createDatabase("schema_race");
  const stores = Array.from({ length: 10 }, () => new PostgresStore(url, { env: {} }));
  try {
    await Promise.all(stores.map((s) => s.list()));
    assert.equal(
      (await server.sql(
        "SELECT count(*) || ':' || max(version) FROM taskpack_schema",
        "schema_race",
      ))
        .trim(),
      "1:1",
    );
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});

Deno.test("postgres: a ledger table beside the passports, sharing the pool", async () => {
  const store = freshStore();
  const ledger = store.withTable("ledger_x");
  try {
    await store.create({ id: ID, version: 0, title: "passport" });
    await ledger.create({ id: ID, version: 0, token_sha256: "00" });
    assert.equal((await store.open(ID))?.title, "passport");
    assert.equal((await ledger.open(ID))?.token_sha256, "00");
    assert.throws(() => store.withTable("Robert'); DROP TABLE x;--"), /lower-case letters/);
    assert.throws(() => store.withTable("taskpack_schema"), /not taskpack_schema/);
  } finally {
    await store.close();
  }
});

Deno.test("postgres: 8 writers x 25 checkpoints on one passport: contiguous, none lost", async () => {
  const stores = Array.from({ length: 8 }, () => new PostgresStore(DB, { table: "race", env: {} }));
  try {
    await stores[0]!.create({ id: ID, version: 0, markers: [] });
    let conflicts = 0;
    const written = await Promise.all(stores.map(async (store, writer) => {
      const versions: number[] = [];
      for (let i = 0; i < 25; i++) {
        while (true) {
          const state = (await store.open(ID))!;
          try {
            const saved = await store.save(
              { ...state, markers: [...(state.markers as string[]), `${writer}:${i}`] },
              state.version,
            );
            versions.push(saved.version);
            break;
          } catch (error) {
            if (!(error instanceof StoreConflictError)) throw error;
            assert.ok(error.actual! > state.version);
            conflicts++;
          }
        }
      }
      return versions;
    }));
    const final = (await stores[0]!.open(ID))!;
    assert.equal(final.version, 201);
    assert.deepEqual(
      written.flat().sort((a, b) => a - b),
      Array.from({ length: 200 }, (_, i) => i + 2),
    );
    const markers = final.markers as string[];
    for (let writer = 0; writer < 8; writer++) {
      assert.deepEqual(
        markers.filter((m) => m.startsWith(`${writer}:`)),
        Array.from({ length: 25 }, (_, i) => `${writer}:${i}`),
      );
    }
    assert.ok(conflicts > 0, "the writers did contend");
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});

Deno.test("postgres: a row that is not a readable passport is named, never returned", async () => {
  const store = freshStore();
  try {
    await store.list();
    const table = store.table;
    await server.sql(
      `INSERT INTO ${table} (id, version, title, updated_at, state) VALUES ` +
        `('TP-AAAA-2222', 1, '', '', '{"id":"TP-AAAA-2222","version":2}'), ` +
        `('TP-BBBB-3333', 1, '', '', 'not json'), ` +
        `('stray', 1, '', '', '{}')`,
      "conformance",
    );
    await assert.rejects(store.open("TP-AAAA-2222"), PassportRowError);
    await assert.rejects(store.open("TP-BBBB-3333"), /Cannot read passport TP-BBBB-3333 in/);
    const listing = await store.list();
    assert.deepEqual(listing.problems, [{
      entry: "stray",
      reason: "the id is not a passport id (TP-XXXX-XXXX)",
    }]);
    assert.deepEqual(listing.passports.map((p) => p.id), ["TP-AAAA-2222", "TP-BBBB-3333"]);
  } finally {
    await store.close();
  }
});

Deno.test("postgres: the password from the URL, PGPASSWORD or a password file; never shown", async () => {
  const bare = server.url("conformance");
  const tries: [string, Record<string, string>][] = [
    [DB, {}],
    [bare, { PGPASSWORD: PASSWORD }],
  ];
  const dir = await Deno.makeTempDir({ prefix: "taskpack-pgpass-" });
  try {
    const passfile = `${dir}/pgpass`;
    await Deno.writeTextFile(
      passfile,
      `# a comment\nother:*:*:*:nope\n127.0.0.1:${server.port}:*:taskpack:${
        PASSWORD.replaceAll(":", "\\:")
      }\n`,
      { mode: 0o600 },
    );
    await Deno.chmod(passfile, 0o600);
    tries.push([bare, { PGPASSFILE: passfile }]);
    tries.push([`${bare}?passfile=${encodeURIComponent(passfile)}`, {}]);
    for (const [url, env] of tries) {
      const store = new PostgresStore(url, { table: "signin", env });
      try {
        assert.ok(Array.isArray((await store.list()).passports), url);
      } finally {
        await store.close();
      }
    }
    // A wrong password: one sentence naming host, port and user; not the password.
    const wrong = `postgres://taskpack:${PASSWORD}x@127.0.0.1:${server.port}/conformance`;
    const store = new PostgresStore(wrong, { env: {} });
    try {
      const error = await refused(
        store.list(),
        new RegExp(`^Cannot sign in to PostgreSQL at 127\\.0\\.0\\.1:${server.port} as taskpack: `),
      );
      assert.ok(!error.message.includes(`${PASSWORD}x`));
    } finally {
      await store.close();
    }
    // A password file others can read is refused, as libpq does.
    await Deno.chmod(passfile, 0o644);
    const open = new PostgresStore(bare, { env: { PGPASSFILE: passfile } });
    await refused(open.list(), /others can read it \(chmod 600/);
    await open.close();
    const missing = new PostgresStore(`${bare}?passfile=${dir}/none`, { env: {} });
    await refused(missing.list(), /the password file .*none does not exist/);
    await missing.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("postgres: through the server's Unix socket (host= a folder)", async () => {
  const url = `postgres://taskpack@/conformance?host=${server.dir}/sockets&port=${server.port}`;
  // The port goes in the authority; a socket URL has none, so it is given as the URL's port.
  const store = new PostgresStore(
    `postgres://taskpack@localhost:${server.port}/conformance?host=${server.dir}/sockets`,
    { table: "socket", env: {} }, // no password: the socket signs in by trust
  );
  try {
    await store.create({ id: ID, version: 0 });
    assert.equal((await store.open(ID))?.version, 1);
  } finally {
    await store.close();
  }
  assert.throws(() => new PostgresStore(url, { env: {} }), /"port" is not an option/);
  const none = new PostgresStore(`postgres:///x?host=${server.dir}/nothing-here`, { env: {} });
  try {
    await refused(none.list(), /^Cannot reach PostgreSQL at .*nothing-here:5432: /);
  } finally {
    await none.close();
  }
});

Deno.test("postgres: an unreachable database is one sentence naming host and port", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const store = new PostgresStore(`postgres://u:${PASSWORD}@127.0.0.1:${port}/db`, { env: {} });
  try {
    await refused(
      store.list(),
      new RegExp(
        `^Cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}: the connection was refused \\(is the database running\\?\\)$`,
      ),
    );
  } finally {
    await store.close();
  }
});

Deno.test("postgres: a statement longer than statement_timeout is cut off in one sentence", async () => {
  const store = new PostgresStore(`${DB}&statement_timeout=200`.replace("&", "?"), {
    table: "slow",
    env: {},
  });
  const blocker = new PostgresStore(DB, { table: "slow", env: {} });
  try {
    await store.create({ id: ID, version: 0 });
    // Another session holds the row: the save waits on its lock until the timeout.
    const locked = server.sql(
      `BEGIN; SELECT * FROM slow WHERE id = '${ID}' FOR UPDATE; SELECT pg_sleep(2); COMMIT;`,
      "conformance",
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await refused(
      store.save({ id: ID, version: 1 }, 1),
      /^PostgreSQL at 127\.0\.0\.1:\d+ did not finish a statement within 200 ms \(statement_timeout\); try again$/,
    );
    await locked;
    assert.equal((await blocker.open(ID))?.version, 1);
  } finally {
    await store.close();
    await blocker.close();
  }
});

Deno.test("postgres: URLs: options checked, the password redacted", () => {
  const settings = parsePostgresUrl(
    "postgresql://team:s3cr%40t@db.example:6543/home?sslmode=verify-full&sslrootcert=/ca.pem&pool_max=4&statement_timeout=1500&taskpack_table=ledger",
  );
  assert.equal(settings.host, "db.example");
  assert.equal(settings.port, 6543);
  assert.equal(settings.database, "home");
  assert.equal(settings.user, "team");
  assert.equal(settings.urlPassword, "s3cr@t");
  assert.equal(settings.sslmode, "verify-full");
  assert.equal(settings.sslrootcert, "/ca.pem");
  assert.equal(settings.poolMax, 4);
  assert.equal(settings.statementTimeoutMs, 1500);
  assert.equal(settings.table, "ledger");
  assert.equal(
    settings.shown,
    "postgresql://team:***@db.example:6543/home?sslmode=verify-full&sslrootcert=/ca.pem&pool_max=4&statement_timeout=1500&taskpack_table=ledger",
  );
  assert.equal(parsePostgresUrl("postgres://h/db", { USER: "me" }).user, "me");
  assert.equal(parsePostgresUrl("postgres://h/db", {}).sslmode, "disable");
  assert.equal(redactPostgresUrl("postgres://h/db"), "postgres://h/db");
  const bad: [string, RegExp][] = [
    ["postgres://u:pw@h/", /names no database/],
    ["postgres://u:pw@h/db?sslmode=prefer", /sslmode=prefer is not supported/],
    ["postgres://u:pw@h/db?pool_max=0", /pool_max must be a whole number from 1/],
    ["postgres://u:pw@h/db?pool_max=x", /pool_max must be a whole number/],
    ["postgres://u:pw@h/db?taskpack_table=A-B", /taskpack_table must be lower-case/],
    ["postgres://u:pw@h/db?colour=red", /"colour" is not an option/],
    ["postgres://u@h/db?password=pw", /give the password in the URL's user part/],
  ];
  for (const [url, pattern] of bad) {
    assert.throws(() => parsePostgresUrl(url), (e: Error) => {
      assert.match(e.message, pattern);
      assert.ok(!e.message.includes(":pw@") && !e.message.includes("=pw"), e.message);
      return true;
    });
  }
  const where = { host: "h", port: 5432, database: "d", user: "u" };
  assert.equal(passwordFromPassfile("h:5432:d:u:one\n*:*:*:*:two\n", where), "one");
  assert.equal(passwordFromPassfile("x:5432:d:u:one\n*:*:*:*:two\n", where), "two");
  assert.equal(passwordFromPassfile("h:5433:d:u:one\n", where), undefined);
  assert.equal(passwordFromPassfile("h:5432:d:u:a\\:b\\\\c\n", where), "a:b\\c");
});

Deno.test("postgres: restarted mid-run: a call while it is down fails in one sentence, later ones succeed", async () => {
  const store = new PostgresStore(DB, { table: "restart", env: {} });
  try {
    let state = await store.create({ id: ID, version: 0, n: 0 });
    state = await store.save({ ...state, n: 1 }, state.version);
    await server.stop();
    await refused(
      store.save({ ...state, n: 2 }, state.version),
      new RegExp(
        `^(Cannot reach|Lost the connection to) PostgreSQL at 127\\.0\\.0\\.1:${server.port}`,
      ),
    );
    await server.start();
    const after = (await store.open(ID))!;
    assert.equal(after.version, 2);
    assert.equal((await store.save({ ...after, n: 2 }, 2)).version, 3);
  } finally {
    await store.close();
  }
});

Deno.test("postgres: any passport comes back as it went in, byte for byte, as the folder store keeps it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "taskpack-pgprop-" });
  const store = freshStore();
  const folder = new FolderStore(dir);
  let n = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.string({ unit: "binary" }).filter((k) => !["id", "version", "__proto__"].includes(k)),
          fc.jsonValue(),
          { maxKeys: 6 },
        ),
        fc.jsonValue(),
        // Keys such as "toString" and "constructor" are ordinary keys of a passport.
        async (fields, later) => {
          const id = `TP-${
            [...String(++n).padStart(4, "0")].map((d) => "23456789AB"[+d]).join("")
          }-PRPX`;
          const input = { id, version: 0, ...fields } as PassportState;
          const sameInFolder = await folder.create(input).then((s) => s, () => null);
          const created = await store.create(input).then((s) => s, (e: Error) => e);
          if (sameInFolder === null) {
            // What the folder store refuses (nesting too deep...), this store refuses too.
            assert.ok(created instanceof TypeError, "the folder store refused it; so must this");
            return;
          }
          if (created instanceof Error) throw created;
          assert.equal(JSON.stringify(await store.open(id)), JSON.stringify(sameInFolder));
          const saved = await store.save({ ...created, later }, 1);
          assert.equal(JSON.stringify(await store.open(id)), JSON.stringify(saved));
        },
      ),
      { numRuns: 60 },
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

// Registered last: the server of this file stops after every other test.
Deno.test("postgres: the test server stops", async () => {
  await server.destroy();
});
