// Copyright 2026 the taskpack authors. MIT license.
// Small commands must not load Deno's Node compatibility layer (about 0.05 s of each): a CPU
// profile of `new`, `pack` and `land` of a passport with no luggage names no `node:` module.
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./_helpers.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

/** The `node:` modules (and Deno's Node layer behind them) a run of the CLI loaded. */
async function nodeModulesLoaded(args: string[], cwd: string): Promise<string[]> {
  const profiles = await tempDir({ dir: cwd, prefix: "profile-" });
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--cpu-prof", `--cpu-prof-dir=${profiles}`, CLI, ...args, "--json"],
    cwd,
    // Where HOME or a user name cannot be had from the environment (or /etc/passwd), node:os
    // is rightly loaded to ask the system: give both, as a login shell does.
    env: {
      NO_COLOR: "1",
      HOME: Deno.env.get("HOME") ?? cwd,
      USER: Deno.env.get("USER") ?? "tester",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const loaded = new Set<string>();
  for await (const entry of Deno.readDir(profiles)) {
    const profile = JSON.parse(await Deno.readTextFile(join(profiles, entry.name))) as {
      nodes: { callFrame: { url: string } }[];
    };
    for (const node of profile.nodes) {
      const { url } = node.callFrame;
      if (url.startsWith("node:") || url.startsWith("ext:deno_node/")) loaded.add(url);
    }
  }
  return [...loaded];
}

Deno.test("new, pack and land of a passport with no luggage load no node: module", async () => {
  const dir = await tempDir();
  try {
    const store = join(dir, "store");
    const made = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CLI, "new", "--title", "t", "--goal", "g", "--store", store, "--json"],
      stdout: "piped",
    }).output();
    const id = JSON.parse(new TextDecoder().decode(made.stdout)).passport_id as string;
    const pack = join(dir, "out.taskpack");
    const runs: [string, string[]][] = [
      ["new", ["new", "--title", "t", "--goal", "g", "--store", store]],
      ["pack", ["pack", id, "--store", store, "--out", pack]],
      ["land", ["land", pack, "--store", join(dir, "landed")]],
    ];
    for (const [verb, args] of runs) {
      assert.deepEqual(await nodeModulesLoaded(args, dir), [], `${verb} loaded node: modules`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
