// Copyright 2026 the taskpack authors. MIT license.
// A separate process that checkpoints one passport through several homes in turn, for
// tests/postgres_home_test.ts:
//
//   TASKPACK_TOKEN=<token> deno run -A tests/_home_worker.ts <url,url,...> <id> <count>
//
// Checkpoint i goes to home (pid + i) mod n: open, append "<pid>:<i>" to `markers`, save with
// the version it read; a StoreConflictError starts that checkpoint over. A home that cannot be
// reached (killed) is dropped; a checkpoint whose reply was lost is looked for in the passport
// (present: it landed, unacknowledged; absent: it is tried again). Prints one JSON line:
// { "pid", "acked": [[i, version], ...], "conflicts", "unreachable" }.
import process from "node:process";
import { StoreConflictError } from "../lib/home/store.ts";
import { HomeRequestError, HttpStore } from "../shell/stores/http_store.ts";

const [urlList, id, countArg] = Deno.args;
const token = Deno.env.get("TASKPACK_TOKEN");
if (!urlList || !id || !countArg || !token) {
  console.error("usage: TASKPACK_TOKEN=<token> _home_worker.ts <url,url,...> <id> <count>");
  Deno.exit(1);
}
const homes = urlList.split(",").map((url) => ({ url, store: new HttpStore(url, { token }) }));
const count = Number(countArg);
const acked: [number, number][] = [];
let conflicts = 0;
let unreachable = 0;
// A home killed mid-request: no answer at all, or an answer cut off while it was read.
const lost = (error: unknown) =>
  (error instanceof HomeRequestError && /Cannot reach the home/.test(error.message)) ||
  error instanceof TypeError;

for (let i = 0; i < count;) {
  if (!homes.length) throw new Error("every home is gone");
  const home = homes[(process.pid + i) % homes.length]!;
  const marker = `${process.pid}:${i}`;
  try {
    const state = await home.store.open(id);
    if (!state) throw new Error(`no passport ${id}`);
    const markers = Array.isArray(state.markers) ? state.markers as string[] : [];
    if (markers.includes(marker)) {
      i++; // an earlier attempt landed though its reply was lost
      continue;
    }
    try {
      const saved = await home.store.save(
        { ...state, markers: [...markers, marker] },
        state.version,
      );
      acked.push([i, saved.version]);
      i++;
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      conflicts++;
    }
  } catch (error) {
    if (!lost(error)) throw error;
    unreachable++;
    homes.splice(homes.indexOf(home), 1);
  }
}
console.log(JSON.stringify({ pid: process.pid, acked, conflicts, unreachable }));
