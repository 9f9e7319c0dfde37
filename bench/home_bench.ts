// Copyright 2026 the taskpack authors. MIT license.
/**
 * Checkpoints per second, the folder store beside PostgreSQL, on the same machine: each store on
 * its own, and through one home (`createHomeHandler` served on 127.0.0.1, the HTTP store as the
 * client). One iteration is one checkpoint (a save over the version last written) of a
 * passport of about 2 KiB; `iter/s` is checkpoints per second. Both stores flush every write to
 * the disk (PostgreSQL runs with `fsync=on`, as a production server does).
 *
 * PostgreSQL is a server of the bench's own (`tests/_postgres.ts`: Debian's `postgresql`
 * package, a cluster in a temporary folder); without its binaries only the folder store is
 * measured, and a line says why. Run with `deno bench -A bench/home_bench.ts`.
 *
 * @module
 */
import type { PassportState } from "../lib/format/mod.ts";
import type { PassportStore } from "../lib/home/mod.ts";
import { createHomeHandler } from "../shell/http/home_server.ts";
import { FolderStore } from "../shell/stores/folder_store.ts";
import { HttpStore } from "../shell/stores/http_store.ts";
import { pgLedgerTable, PostgresStore } from "../shell/stores/postgres_store.ts";
import { startPostgres, type TestPostgres } from "../tests/_postgres.ts";

const ID = "TP-BENC-H000";

function passport(): PassportState {
  return {
    id: ID,
    version: 0,
    title: "a task in progress",
    goal: "measure checkpoints",
    current_state: "x".repeat(1024),
    facts: Array.from({ length: 10 }, (_, i) => ({ claim: `fact ${i}`, verified: i % 2 === 0 })),
    next_steps: ["one", "two", "three"],
  };
}

/** A checkpointer: each call saves over the version the last one wrote. */
async function checkpointer(store: PassportStore): Promise<() => Promise<void>> {
  let state = await store.create(passport());
  let n = 0;
  return async () => {
    state = await store.save({ ...state, current_state: `step ${++n}` }, state.version);
  };
}

/** Serves a store as a home on 127.0.0.1; the client is an HTTP store. */
function serveHome(store: PassportStore, ledger: PassportStore): {
  client: HttpStore;
  server: Deno.HttpServer;
} {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    createHomeHandler(store, { ledger }),
  );
  return { client: new HttpStore(`http://127.0.0.1:${server.addr.port}`), server };
}

const folderDir = await Deno.makeTempDir({ prefix: "taskpack-bench-home-" });
const folder = new FolderStore(`${folderDir}/store`);
const folderHome = serveHome(
  new FolderStore(`${folderDir}/served`),
  new FolderStore(`${folderDir}/served/.home`),
);

let postgres: TestPostgres | null = null;
let pgStore: PostgresStore | null = null;
let pgHome: ReturnType<typeof serveHome> | null = null;
try {
  postgres = await startPostgres({ durable: true });
  await postgres.sql("CREATE DATABASE bench");
  const url = postgres.url("bench");
  const env = { PGPASSWORD: postgres.password };
  pgStore = new PostgresStore(url, { env });
  const served = new PostgresStore(url, { table: "served", env });
  pgHome = serveHome(served, served.withTable(pgLedgerTable(served.table)));
} catch (error) {
  console.error(
    `home_bench: PostgreSQL is left out: ${(error as Error).message.split("\n")[0]}`,
  );
}

globalThis.addEventListener("unload", () => {
  postgres?.killNow(); // stops the server and removes its cluster
  Deno.removeSync(folderDir, { recursive: true });
});

const folderDirect = await checkpointer(folder);
Deno.bench({ name: "checkpoint: folder store", group: "store", baseline: true }, folderDirect);
const folderHttp = await checkpointer(folderHome.client);
Deno.bench(
  { name: "checkpoint through a home: folder store", group: "home", baseline: true },
  folderHttp,
);
if (pgStore && pgHome) {
  const pgDirect = await checkpointer(pgStore);
  Deno.bench({ name: "checkpoint: PostgreSQL store", group: "store" }, pgDirect);
  const pgHttp = await checkpointer(pgHome.client);
  Deno.bench({ name: "checkpoint through a home: PostgreSQL store", group: "home" }, pgHttp);
}
