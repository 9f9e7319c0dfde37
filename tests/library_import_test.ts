// Copyright 2026 the taskpack authors. MIT license.
// Importing the library (`mod.ts`, the package's "." export) has no side effects: its module
// graph is the pure core only (no node: built-in, no npm package, no CLI or shell module), and
// importing it prints nothing, reads no environment variable, opens no file, and makes no
// request. The CLI's I/O lives behind the "./cli" export.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const MOD = new URL("../mod.ts", import.meta.url);

interface InfoModule {
  kind: string;
  specifier: string;
  dependencies?: { specifier: string }[];
}

async function moduleGraph(path: string): Promise<{ modules: InfoModule[] }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const info = JSON.parse(new TextDecoder().decode(output.stdout));
  return { modules: info.modules };
}

Deno.test("mod.ts's module graph is the pure core: no node: module, no npm, no CLI", async () => {
  const { modules } = await moduleGraph(fileURLToPath(MOD));
  const specifiers = modules.map((m) => m.specifier);
  const imported = modules.flatMap((m) => (m.dependencies ?? []).map((d) => d.specifier));
  assert.deepEqual(imported.filter((s) => s.startsWith("node:")), []);
  assert.deepEqual(modules.filter((m) => m.kind !== "esm").map((m) => m.specifier), []);
  // (deno info's npmPackages lists the whole config's packages, not this graph's: not used.)
  assert.deepEqual(imported.filter((s) => /^(npm|jsr|https?):/.test(s)), []);
  const root = new URL("../", import.meta.url).href;
  for (const specifier of specifiers) {
    assert.match(
      specifier.slice(root.length),
      /^(mod\.ts|lib\/[a-z0-9]+\/[a-z0-9_]+\.ts)$/,
      specifier,
    );
  }
  assert.ok(specifiers.some((s) => s.endsWith("/lib/format/conformance.ts")));
});

Deno.test("the check above would catch the CLI's I/O", async () => {
  const { modules } = await moduleGraph(fileURLToPath(new URL("../cli.ts", import.meta.url)));
  assert.ok(modules.some((m) => m.kind === "node"), "cli.ts imports node: modules");
  assert.ok(modules.some((m) => m.specifier.includes("/shell/")), "cli.ts imports shell/");
});

// Runs in a child with no permissions at all (any file, env, net or sys access would throw),
// and with every way to print, read the environment, open a file or fetch replaced by a
// recorder, so that even an access that is caught and swallowed is seen.
function probe(url: string): string {
  return `
const seen = [];
const write = Deno.stdout.writeSync.bind(Deno.stdout);
const record = (label, original) => function (...args) {
  seen.push(label);
  return original?.apply(this, args);
};
for (const name of ["log", "info", "warn", "error", "debug", "trace", "dir", "table"]) {
  console[name] = record("console." + name);
}
for (const name of ["get", "has", "toObject", "set", "delete"]) {
  Deno.env[name] = record("Deno.env." + name, Deno.env[name]);
}
for (const name of [
  "open", "openSync", "readFile", "readFileSync", "readTextFile", "readTextFileSync",
  "writeFile", "writeFileSync", "writeTextFile", "writeTextFileSync", "create", "createSync",
  "stat", "statSync", "lstat", "lstatSync", "readDir", "readDirSync", "mkdir", "mkdirSync",
  "hostname", "cwd", "connect", "listen", "osRelease",
]) {
  Deno[name] = record("Deno." + name, Deno[name]);
}
Deno.stdout.write = record("Deno.stdout.write");
Deno.stdout.writeSync = record("Deno.stdout.writeSync");
Deno.stderr.write = record("Deno.stderr.write");
Deno.stderr.writeSync = record("Deno.stderr.writeSync");
globalThis.fetch = record("fetch");
const mod = await import(${JSON.stringify(url)});
write(new TextEncoder().encode(JSON.stringify({ seen, exports: Object.keys(mod).length })));
`;
}

/** Imports a module in a child with no permissions; returns what it did and its exports. */
async function importInChild(url: string): Promise<{ seen: string[]; exports: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--no-config", "--no-lock", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stdin = child.stdin.getWriter();
  await stdin.write(new TextEncoder().encode(probe(url)));
  await stdin.close();
  const output = await child.output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.equal(stderr, "");
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test("importing mod.ts prints nothing, reads no env, opens no file, fetches nothing", async () => {
  const result = await importInChild(MOD.href);
  assert.deepEqual(result.seen, []);
  assert.ok(result.exports > 50, `expected the library's exports, got ${result.exports}`);
});

Deno.test("the import probe sees a module that prints and reads the environment", async () => {
  const noisy = "data:text/javascript," +
    encodeURIComponent('try { Deno.env.get("HOME"); } catch {} console.log("hi"); export {};');
  const result = await importInChild(noisy);
  assert.deepEqual(result.seen, ["Deno.env.get", "console.log"]);
});

Deno.test("run as a program, mod.ts is the CLI (deno run -A jsr:@taskpack/cli <verb>)", async () => {
  const run = async (...args: string[]) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", fileURLToPath(MOD), ...args],
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      out: decoder.decode(output.stdout),
      err: decoder.decode(output.stderr),
    };
  };
  const reference = fileURLToPath(
    new URL("../testdata/interop/reference-0.3.0/minimal.taskpack", import.meta.url),
  );
  const judged = await run("conformance", reference, "--json");
  assert.equal(judged.code, 0, judged.err);
  assert.equal(JSON.parse(judged.out).ok, true);
  const missing = await run("conformance", "no-such.taskpack");
  assert.equal(missing.code, 1);
  assert.equal(missing.err, "taskpack: No such file or folder: no-such.taskpack\n");
});
