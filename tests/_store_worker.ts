// Copyright 2026 the taskpack authors. MIT license.
// A separate process that checkpoints one passport in a FolderStore, for tests/store_test.ts.
//
//   deno run -A tests/_store_worker.ts <dir> <id> <count>
//     Checkpoints <count> times: open, append "<pid>:<i>" to `markers`, save with the version
//     it read, and on a StoreConflictError start that checkpoint over. Prints one JSON line:
//     { "pid": <pid>, "versions": [<the version each successful save wrote>], "conflicts": n }.
//
//   deno run -A tests/_store_worker.ts <dir> <id> churn <bytes>
//     Checkpoints forever (printing "ready" after the first): each save replaces `blob` with
//     <bytes> copies of one letter and records the letter and the round in `round`, so a torn
//     or mixed file shows. Meant to be killed.
import process from "node:process";
import { FolderStore } from "../shell/stores/folder_store.ts";
import { StoreConflictError } from "../lib/home/store.ts";

const [dir, id, mode, sizeArg] = Deno.args;
if (!dir || !id || !mode) {
  console.error("usage: _store_worker.ts <dir> <id> <count> | <dir> <id> churn <bytes>");
  Deno.exit(1);
}
// A lock left by a killed writer must be recovered through its dead pid, not by waiting.
const store = new FolderStore(dir, { lockTimeoutMs: 20_000, staleLockMs: 60_000 });

if (mode === "churn") {
  const size = Number(sizeArg ?? 1_000_000);
  const opened = await store.open(id);
  if (!opened) throw new Error(`no passport ${id}`);
  let state = opened;
  for (let checkpoints = 0;; checkpoints++) {
    // Announced after the first checkpoint, so the loop is warm and a kill lands in a save.
    if (checkpoints === 1) await Deno.stdout.write(new TextEncoder().encode("ready\n"));
    const round = (typeof state.round === "number" ? state.round : 0) + 1;
    const letter = String.fromCharCode(0x61 + (round % 26));
    state = await store.save({ ...state, round, letter, blob: letter.repeat(size) }, state.version);
  }
} else {
  const count = Number(mode);
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
}
