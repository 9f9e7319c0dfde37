// Copyright 2026 the taskpack authors. MIT license.
// Many homes, one database: `taskpack` against a PostgreSQL started for this file
// (tests/_postgres.ts). The CLI on a postgres:// store (list, doctor, TASKPACK_STORE, the
// password never printed); migrate folder -> postgres -> kv -> postgres -> folder, record for
// record; three `serve-home` processes on one database: eight writer processes x fifty
// checkpoints across them, a home killed (SIGKILL) mid-run, 25 racing claims, and the database
// restarted under the homes.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { PassportState } from "../lib/format/mod.ts";
import { FolderStore } from "../shell/stores/folder_store.ts";
import { KvStore } from "../shell/stores/kv_store.ts";
import { PostgresStore } from "../shell/stores/postgres_store.ts";
import { ClaimHeldError, HomeRequestError, HttpStore } from "../shell/stores/http_store.ts";
import { StoreConflictError } from "../lib/home/store.ts";
import { cli } from "./_cli.ts";
import { decoder, inTempDir } from "./_helpers.ts";
import { startPostgres } from "./_postgres.ts";

const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const WORKER = fileURLToPath(new URL("./_home_worker.ts", import.meta.url));
const ID = "TP-9CB7-J5MK";
const OTHER = "TP-2345-6789";

const server = await startPostgres();
globalThis.addEventListener("unload", () => server.killNow());
const PASSWORD = server.password;

/** The environment every subprocess gets: the password from PGPASSWORD, user folders apart. */
function envFor(cwd: string): Record<string, string> {
  return {
    PGPASSWORD: PASSWORD,
    XDG_CONFIG_HOME: `${cwd}/config`,
    XDG_DATA_HOME: `${cwd}/data`,
    HOME: cwd,
    TASKPACK_TOKEN: "",
  };
}

/** A running `serve-home`. */
interface Home {
  url: string;
  child: Deno.ChildProcess;
  stderr: Promise<string>;
  /** Stops it (SIGTERM) and returns what it said; it must end with status 0 unless killed. */
  stop(): Promise<string>;
}

/** Starts `taskpack serve-home --store <store> --port 0` and waits for its URL. */
async function startHome(store: string, env: Record<string, string>): Promise<Home> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "serve-home", "--store", store, "--port", "0", "--json"],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.getReader();
  let heard = "";
  while (!heard.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    heard += decoder.decode(value);
  }
  reader.releaseLock();
  if (!heard.includes("\n")) {
    await child.status;
    await child.stdout.cancel();
    throw new Error(`serve-home did not start: ${heard} ${await stderr}`);
  }
  const { url, store: served } = JSON.parse(heard.split("\n")[0]!);
  assert.equal(served, store.replace(/:[^:@/]+@/, ":***@"));
  let stopped: Promise<string> | null = null;
  return {
    url,
    child,
    stderr,
    stop() {
      stopped ??= (async () => {
        try {
          child.kill("SIGTERM");
        } catch {
          // killed already
        }
        const status = await child.status;
        await child.stdout.cancel().catch(() => {});
        const said = await stderr;
        if (status.signal !== "SIGKILL") {
          assert.equal(status.code, 0, `serve-home ended badly: ${said}`);
        }
        return said;
      })();
      return stopped;
    },
  };
}

/** Runs `body` with `count` homes on `store`, stopping them after. */
async function withHomes(
  store: string,
  env: Record<string, string>,
  count: number,
  body: (homes: Home[]) => Promise<void>,
): Promise<void> {
  const homes: Home[] = [];
  try {
    for (let i = 0; i < count; i++) homes.push(await startHome(store, env));
    await body(homes);
  } finally {
    for (const home of homes) {
      const said = await home.stop();
      assert.ok(!said.includes(PASSWORD), "the password is never printed");
    }
  }
}

Deno.test("cli: list, doctor and TASKPACK_STORE on a postgres:// store; the password never shown", async () => {
  await inTempDir(async (cwd) => {
    const db = await server.createDatabase("cli_basics");
    const withPassword = db; // postgres://taskpack:<password>@127.0.0.1:<port>/cli_basics
    const shown = withPassword.replace(PASSWORD, "***");
    const env = { ...envFor(cwd), PGPASSWORD: "" };
    const empty = await cli(["list", "--store", withPassword], { cwd, env });
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, `no passports in ${shown}\n`);
    const created = await cli(["new", "--title", "t", "--goal", "g", "--json"], {
      cwd,
      env: { ...env, TASKPACK_STORE: withPassword },
    });
    assert.equal(created.code, 0, created.stderr);
    const listed = await cli(["list", "--json"], {
      cwd,
      env: { ...env, TASKPACK_STORE: withPassword },
    });
    assert.deepEqual(listed.json().passports.map((p: { passport_id: string }) => p.passport_id), [
      created.json().passport_id,
    ]);
    const doctor = await cli(["doctor", "--store", withPassword, "--json"], { cwd, env });
    assert.equal(doctor.code, 0, doctor.stderr);
    const report = doctor.json();
    assert.equal(report.store, shown);
    assert.equal(report.ready, true);
    assert.equal(report.passport_count, 1);
    assert.ok(report.luggage_dir.startsWith(`${cwd}/data/taskpack/luggage/`), report.luggage_dir);
    for (const output of [empty, created, listed, doctor]) {
      assert.ok(!(output.stdout + output.stderr).includes(PASSWORD));
    }
    // Not reachable, and a wrong password: doctor says which, in one sentence, without it.
    const down = await cli([
      "doctor",
      "--store",
      `postgres://taskpack:${PASSWORD}@127.0.0.1:9/x`,
    ], { cwd, env });
    assert.equal(down.code, 1);
    assert.match(
      down.stdout,
      /^store postgres:\/\/taskpack:\*\*\*@127\.0\.0\.1:9\/x: NOT usable: Cannot reach PostgreSQL at 127\.0\.0\.1:9: the connection was refused/,
    );
    const wrong = await cli(["list", "--store", server.url("cli_basics")], {
      cwd,
      env: { ...env, PGPASSWORD: "not-it" },
    });
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr,
      /^taskpack: Cannot sign in to PostgreSQL at 127\.0\.0\.1:\d+ as taskpack: /,
    );
    assert.equal(wrong.stderr.trim().split("\n").length, 1, wrong.stderr);
  });
});

Deno.test("cli: migrate folder -> postgres -> kv -> postgres -> folder, record for record", async () => {
  await inTempDir(async (cwd) => {
    const env = envFor(cwd);
    const first = server.url("migrate_one");
    const second = server.url("migrate_two");
    await server.sql("CREATE DATABASE migrate_one");
    await server.sql("CREATE DATABASE migrate_two");
    const folder = new FolderStore(`${cwd}/folder`);
    const a = await folder.create({
      id: ID,
      version: 0,
      title: "one ✓",
      zeta: { b: 1, a: [true, null] },
      goal: "g",
    });
    let b = await folder.create({ id: OTHER, version: 0, title: "two" });
    for (let i = 0; i < 3; i++) b = await folder.save({ ...b, step: i }, b.version);
    const originals: PassportState[] = [a, b];

    const chain = [`${cwd}/folder`, first, `kv:${cwd}/x.kv`, second, `${cwd}/back`];
    for (let i = 1; i < chain.length; i++) {
      const result = await cli(["migrate", "--from", chain[i - 1]!, "--to", chain[i]!, "--json"], {
        cwd,
        env,
      });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(result.json().moved, [
        { passport_id: OTHER, state_version: 4 },
        { passport_id: ID, state_version: 1 },
      ]);
    }
    // Every store on the way holds the very same records, key order and all.
    const pg = new PostgresStore(second, { env: { PGPASSWORD: PASSWORD } });
    const kv = new KvStore(`${cwd}/x.kv`);
    const back = new FolderStore(`${cwd}/back`);
    try {
      for (const store of [pg, kv, back]) {
        for (const original of originals) {
          const found = await store.open(original.id);
          assert.equal(JSON.stringify(found), JSON.stringify(original));
        }
      }
      assert.equal(
        await Deno.readTextFile(`${cwd}/back/${OTHER}.json`),
        await Deno.readTextFile(`${cwd}/folder/${OTHER}.json`),
      );
    } finally {
      await pg.close();
      await kv.close();
    }
    // Again: everything is there; nothing is overwritten; the text names no password.
    const again = await cli(["migrate", "--from", `${cwd}/folder`, "--to", first], { cwd, env });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /0 moved, 2 skipped, 0 failed/);
    const withPassword = await cli([
      "migrate",
      "--from",
      `${cwd}/folder`,
      "--to",
      server.url("migrate_one", { withPassword: true }),
    ], { cwd, env: { ...env, PGPASSWORD: "" } });
    assert.match(
      withPassword.stdout,
      /to postgres:\/\/taskpack:\*\*\*@127\.0\.0\.1:\d+\/migrate_one/,
    );
    assert.ok(!withPassword.stdout.includes(PASSWORD));
  });
});

Deno.test("many homes, one database: 8 writers x 50 checkpoints through 3 homes, one killed mid-run", async () => {
  await inTempDir(async (cwd) => {
    const env = envFor(cwd);
    await server.sql("CREATE DATABASE many_homes");
    const store = server.url("many_homes");
    await withHomes(store, env, 3, async (homes) => {
      const setup = new HttpStore(homes[0]!.url);
      await setup.create({ id: ID, version: 0, title: "contended", markers: [] });
      const token = (await setup.tokenOf(ID))!;
      // The token minted through one home opens the passport through every other.
      for (const home of homes) {
        assert.equal((await new HttpStore(home.url, { token }).open(ID))?.version, 1);
      }
      const COUNT = 50;
      const urls = homes.map((h) => h.url).join(",");
      const workers = Array.from({ length: 8 }, () =>
        new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", WORKER, urls, ID, String(COUNT)],
          env: { TASKPACK_TOKEN: token },
          stdout: "piped",
          stderr: "piped",
        }).output());
      // Kill the third home once the passport has moved on a little.
      const direct = new PostgresStore(store, { env: { PGPASSWORD: PASSWORD } });
      try {
        let ended = false;
        const all = Promise.all(workers).finally(() => ended = true);
        while (!ended && ((await direct.open(ID))?.version ?? 0) < 60) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.ok(!ended, "the writers were still at work when the home was killed");
        homes[2]!.child.kill("SIGKILL");
        const results = await all;
        const reports: {
          pid: number;
          acked: [number, number][];
          conflicts: number;
          unreachable: number;
        }[] = [];
        for (const result of results) {
          assert.equal(result.code, 0, decoder.decode(result.stderr));
          reports.push(JSON.parse(decoder.decode(result.stdout)));
        }
        const final = (await direct.open(ID))!;
        const markers = final.markers as string[];
        // Every checkpoint of every writer is there once, in its own order: nothing lost, nothing
        // doubled; the versions run 2..401 with no gap.
        assert.equal(markers.length, 8 * COUNT);
        assert.equal(final.version, 1 + 8 * COUNT);
        for (const { pid, acked } of reports) {
          assert.deepEqual(
            markers.filter((m) => m.startsWith(`${pid}:`)),
            Array.from({ length: COUNT }, (_, i) => `${pid}:${i}`),
          );
          // An acknowledged checkpoint wrote that version, and that version holds its marker.
          for (const [i, version] of acked) {
            assert.equal(markers[version - 2], `${pid}:${i}`);
          }
        }
        const ackedVersions = reports.flatMap((r) => r.acked.map(([, v]) => v));
        assert.equal(new Set(ackedVersions).size, ackedVersions.length, "no version twice");
        assert.ok(reports.some((r) => r.conflicts > 0), "stale writes were refused");
        assert.ok(reports.some((r) => r.unreachable > 0), "the killed home was in use");
      } finally {
        await direct.close();
      }
    });
  });
});

Deno.test("many homes, one database: 25 racing claims through 3 homes leave one holder", async () => {
  await inTempDir(async (cwd) => {
    const env = envFor(cwd);
    await server.sql("CREATE DATABASE claims");
    await withHomes(server.url("claims"), env, 3, async (homes) => {
      const setup = new HttpStore(homes[0]!.url);
      await setup.create({ id: ID, version: 0, title: "claimed" });
      const token = (await setup.tokenOf(ID))!;
      const stores = homes.map((home) => new HttpStore(home.url, { token }));
      const outcomes = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          stores[i % 3]!.claim(ID, `agent-${i}`, 300).then(
            (claim) => ({ won: claim.holder }),
            (error) => ({ error }),
          )),
      );
      const winners = outcomes.filter((o) => "won" in o) as { won: string }[];
      assert.equal(winners.length, 1, JSON.stringify(outcomes));
      const holder = winners[0]!.won;
      for (const outcome of outcomes) {
        if ("won" in outcome) continue;
        assert.ok(outcome.error instanceof ClaimHeldError, String(outcome.error));
        assert.equal(outcome.error.claim.holder, holder);
      }
      // Every home sees the same holder; the holder renews through another home.
      for (const store of stores) {
        const held = await store.claim(ID, "late", 60).then(() => null, (e) => e);
        assert.ok(held instanceof ClaimHeldError);
        assert.equal(held.claim.holder, holder);
      }
      assert.equal((await stores[2]!.claim(ID, holder, 300)).holder, holder);
    });
  });
});

Deno.test("many homes, one database: PostgreSQL restarted under the homes", async () => {
  await inTempDir(async (cwd) => {
    const env = envFor(cwd);
    await server.sql("CREATE DATABASE restart");
    await withHomes(server.url("restart"), env, 2, async (homes) => {
      const setup = new HttpStore(homes[0]!.url);
      const created = await setup.create({ id: ID, version: 0, n: 0 });
      const token = (await setup.tokenOf(ID))!;
      const [a, b] = homes.map((home) => new HttpStore(home.url, { token }));
      await a!.save({ ...created, n: 1 }, 1);
      await server.stop();
      try {
        for (const store of [a!, b!]) {
          const error = await store.open(ID).then(() => null, (e) => e);
          assert.ok(error instanceof HomeRequestError, String(error));
          assert.equal(error.status, 500);
          assert.match(
            error.message,
            new RegExp(
              `(Cannot reach|Lost the connection to) PostgreSQL at 127\\.0\\.0\\.1:${server.port}`,
            ),
          );
          assert.ok(!/[\r\n]/.test(error.message), error.message);
        }
      } finally {
        await server.start();
      }
      const after = (await b!.open(ID))!;
      assert.equal(after.version, 2);
      assert.equal((await b!.save({ ...after, n: 2 }, 2)).version, 3);
      assert.equal((await a!.open(ID))?.version, 3);

      // A restart while two writers checkpoint through the two homes: what was in flight fails
      // in one sentence (or is refused as stale, after a write whose answer was lost), and the
      // writers finish once the database is back.
      const failures: string[] = [];
      let restarting = true;
      const writer = async (store: HttpStore, name: string) => {
        let done = 0;
        while (done < 40) {
          try {
            const state = (await store.open(ID))!;
            const marks = (state.marks ?? []) as string[];
            if (marks.includes(`${name}${done}`)) {
              done++; // landed, though its answer was lost
              continue;
            }
            await store.save({ ...state, marks: [...marks, `${name}${done}`] }, state.version);
            done++;
          } catch (error) {
            if (error instanceof StoreConflictError) continue;
            assert.ok(error instanceof HomeRequestError, String(error));
            failures.push(error.message);
            if (!restarting) throw error;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          if (done === 10 && name === "a") {
            await server.stop();
            await new Promise((resolve) => setTimeout(resolve, 300));
            await server.start();
            restarting = false;
          }
        }
      };
      await Promise.all([writer(a!, "a"), writer(b!, "b")]);
      assert.ok(failures.length > 0, "some requests met the restart");
      for (const failure of failures) {
        assert.equal(failure.split("\n").length, 1, failure);
        assert.match(
          failure,
          new RegExp(
            `(Cannot reach|Lost the connection to) PostgreSQL at 127\\.0\\.0\\.1:${server.port}`,
          ),
        );
      }
      const marks = (await a!.open(ID))!.marks as string[];
      for (const name of ["a", "b"]) {
        assert.deepEqual(
          marks.filter((m) => m.startsWith(name)),
          Array.from({ length: 40 }, (_, i) => `${name}${i}`),
        );
      }
    });
  });
});

Deno.test("serve-home --mint-token on a postgres:// store: the token works through every home", async () => {
  await inTempDir(async (cwd) => {
    const env = envFor(cwd);
    await server.sql("CREATE DATABASE minted");
    const store = server.url("minted");
    const direct = new PostgresStore(store, { env: { PGPASSWORD: PASSWORD } });
    try {
      await direct.create({ id: ID, version: 0, title: "came in by migrate" });
    } finally {
      await direct.close();
    }
    const minted = await cli(["serve-home", "--store", store, "--mint-token", ID, "--json"], {
      cwd,
      env,
    });
    assert.equal(minted.code, 0, minted.stderr);
    const { token } = minted.json();
    assert.match(token, /^tpk_/);
    const missing = await cli(["serve-home", "--store", store, "--mint-token", OTHER], {
      cwd,
      env,
    });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /There is no passport TP-2345-6789 in postgres:\/\/taskpack@127/);
    await withHomes(store, env, 2, async (homes) => {
      for (const home of homes) {
        assert.equal(
          (await new HttpStore(home.url, { token }).open(ID))?.title,
          "came in by migrate",
        );
        const refused = await new HttpStore(home.url).open(ID).then(() => null, (e) => e);
        assert.ok(refused instanceof HomeRequestError && refused.status === 401, String(refused));
      }
    });
  });
});

// Registered last: the server of this file stops after every other test.
Deno.test("postgres home: the test server stops", async () => {
  await server.destroy();
});
