// Copyright 2026 the taskpack authors. MIT license.
// A separate process that checkpoints one passport through an HTTP home, for
// tests/store_backends_test.ts (the HTTP twin of _store_worker.ts, which opens a folder):
//
//   TASKPACK_TOKEN=<token> deno run -A tests/_http_worker.ts <url> <id> <count>
//     Checkpoints <count> times: open, append "<pid>:<i>" to `markers`, save with the version
//     it read, and on a StoreConflictError start that checkpoint over. Prints one JSON line:
//     { "pid": <pid>, "versions": [<the version each successful save wrote>], "conflicts": n }.
import process from "node:process";
import { StoreConflictError } from "../lib/home/store.ts";
import { HttpStore } from "../shell/stores/http_store.ts";

const [url, id, countArg] = Deno.args;
const token = Deno.env.get("TASKPACK_TOKEN");
if (!url || !id || !countArg || !token) {
  console.error("usage: TASKPACK_TOKEN=<token> _http_worker.ts <url> <id> <count>");
  Deno.exit(1);
}
const store = new HttpStore(url, { token });
const count = Number(countArg);
const versions: number[] = [];
let conflicts = 0;
for (let i = 0; i < count;) {
  const state = await store.open(id);
  if (!state) throw new Error(`no passport ${id}`);
  const markers = Array.isArray(state.markers) ? state.markers : [];
  try {
    const saved = await store.save(
      { ...state, markers: [...markers, `${process.pid}:${i}`] },
      state.version,
    );
    versions.push(saved.version);
    i++;
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error;
    conflicts++;
  }
}
console.log(JSON.stringify({ pid: process.pid, versions, conflicts }));
