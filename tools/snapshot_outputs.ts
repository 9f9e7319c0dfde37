/**
 * Records what the CLI says and writes for every pack in `testdata/`, so that a change meant to
 * alter nothing (moving files, splitting modules) can be shown to alter nothing: run it before,
 * run it after, and compare the two files.
 *
 * For each pack: the exit code and stdout of `conformance --json`, `inspect --json` and
 * `land --dry-run --json`, and the bytes `convert` writes in both encodings. Then the demo, and
 * the judge's and inspector's JSON on its packs. Each entry is a SHA-256, so the record stays
 * small and any difference shows. Times and minted ids change from run to run, so they are
 * masked in what the CLI prints; the demo's packs are compared by what the judge says of them.
 *
 * ```sh
 * deno run -A tools/snapshot_outputs.ts /tmp/before.json
 * # ...change...
 * deno run -A tools/snapshot_outputs.ts /tmp/after.json && diff /tmp/before.json /tmp/after.json
 * ```
 *
 * @module
 */

import { join, relative } from "node:path";
import { ROOT as root } from "./_tools.ts";

const out = Deno.args[0];
if (out === undefined) {
  console.error("usage: deno run -A tools/snapshot_outputs.ts <record.json>");
  Deno.exit(2);
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
const ID = /TP-[0-9A-Z]{4}-[0-9A-Z]{4}/g;
const TEMP = /\/tmp\/taskpack-snapshot-[^/"\s]+/g;

async function cli(args: string[]): Promise<string> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(root, "cli.ts"), ...args],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const said = new TextDecoder().decode(result.stdout)
    .replace(TIME, "<time>").replace(ID, "<id>").replace(TEMP, "<tmp>");
  return `${result.code} ${await sha256(new TextEncoder().encode(said))}`;
}

async function* packs(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* packs(path);
    else if (/\.taskpack(\.json)?$/.test(entry.name)) yield path;
  }
}

const record: Record<string, string> = {};
const scratch = await Deno.makeTempDir({ prefix: "taskpack-snapshot-" });
try {
  const files: string[] = [];
  for await (const path of packs(join(root, "testdata"))) files.push(path);
  files.sort();
  for (const path of files) {
    const name = relative(root, path);
    record[`${name} conformance`] = await cli(["conformance", path, "--json"]);
    record[`${name} inspect`] = await cli(["inspect", path, "--json"]);
    record[`${name} land`] = await cli(["land", path, "--dry-run", "--json"]);
    for (const ending of [".taskpack", ".taskpack.json"]) {
      const target = join(scratch, `converted${ending}`);
      await Deno.remove(target).catch(() => {});
      const said = await cli(["convert", path, "--out", target]);
      const bytes = await Deno.readFile(target).catch(() => new Uint8Array());
      record[`${name} convert${ending}`] = `${said} ${await sha256(bytes)}`;
    }
  }
  const demo = join(scratch, "demo");
  record["demo"] = await cli(["demo", "--dir", demo]);
  for (const name of ["release.taskpack", "release.taskpack.json"]) {
    record[`demo ${name} conformance`] = await cli(["conformance", join(demo, name), "--json"]);
    record[`demo ${name} inspect`] = await cli(["inspect", join(demo, name), "--json"]);
  }
} finally {
  await Deno.remove(scratch, { recursive: true });
}
await Deno.writeTextFile(out, JSON.stringify(record, null, 1) + "\n");
console.log(`${Object.keys(record).length} outputs recorded in ${out}`);
