// Copyright 2026 the taskpack authors. MIT license.
// The core stays pure: no file system, clock, host name, environment or randomness in lib/.
import assert from "node:assert/strict";

const FORBIDDEN: [RegExp, string][] = [
  [/(?:\bfrom|\bimport)\s*\(?\s*["']node:/, "a node: import"],
  [/\bDeno\./, "Deno."],
  [/\bprocess\./, "process."],
  [/\bBuffer\b/, "Buffer"],
  [/\bDate\.now\b|new Date\(\)/, "the clock"],
  [/\bMath\.random\b|getRandomValues|randomUUID/, "randomness"],
  [/\bfetch\(/, "the network"],
];

Deno.test("lib/ has no I/O, clock, environment or randomness", async () => {
  const dir = new URL("../lib/", import.meta.url);
  let files = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".ts")) continue;
    files++;
    const text = await Deno.readTextFile(new URL(entry.name, dir));
    // The code may not; the examples in doc comments are held to no node: below.
    const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const [pattern, what] of FORBIDDEN) {
      assert.ok(!pattern.test(code), `lib/${entry.name} uses ${what}`);
    }
  }
  assert.ok(files >= 15, `expected the core's files, found ${files}`);
});

Deno.test("the purity check catches what it is meant to catch", () => {
  const offenders = [
    'import { readFile } from "node:fs";',
    'import "node:os";',
    'const fs = await import("node:fs");',
    "const t = Date.now();",
    "Deno.readFile(x)",
    "const r = Math.random();",
    "process.env.HOME",
  ];
  for (const line of offenders) {
    assert.ok(FORBIDDEN.some(([pattern]) => pattern.test(line)), line);
  }
});

// Not even an example names a node: module: they assert with @std/assert's names (mapped to
// tests/_std_assert.ts here), so each runs as written in a browser or an edge function too.
Deno.test("no lib/ file names a node: module, in its code, comments or examples", async () => {
  const dir = new URL("../lib/", import.meta.url);
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, dir));
    const line = text.split("\n").findIndex((l) => /\bnode:/.test(l));
    assert.equal(line, -1, `lib/${entry.name}:${line + 1} names a node: module`);
  }
});

// The text check at the top skips doc comments, whose examples run by `deno test --doc` as
// modules of their own. This one reads what the code
// really imports: the module graph of every file in lib/, as Deno resolves it.
Deno.test("every lib/ module's graph holds lib/ modules only: no node:, npm, jsr or shell", async () => {
  const dir = new URL("../lib/", import.meta.url);
  const names = (await Array.fromAsync(Deno.readDir(dir)))
    .map((entry) => entry.name)
    .filter((name) => name.endsWith(".ts"))
    .sort();
  const entry = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      entry,
      names.map((name) => `import "${new URL(name, dir).href}";\n`).join(""),
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const modules: { specifier: string }[] = JSON.parse(new TextDecoder().decode(output.stdout))
      .modules;
    const outside = modules
      .map((m) => m.specifier)
      .filter((s) => !s.endsWith(entry) && !s.startsWith(dir.href));
    assert.deepEqual(outside, [], "lib/ imports nothing but lib/");
    assert.equal(modules.length, names.length + 1, "every lib/ file is in the graph");
  } finally {
    await Deno.remove(entry);
  }
});
