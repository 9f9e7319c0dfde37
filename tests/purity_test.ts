// Copyright 2026 the taskpack authors. MIT license.
// The core stays pure: no file system, clock, host name, environment or randomness in lib/.
import assert from "node:assert/strict";

const FORBIDDEN: [RegExp, string][] = [
  [/from\s+["']node:/, "a node: import"],
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
    // Examples in doc comments may use anything; the code may not.
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
    "const t = Date.now();",
    "Deno.readFile(x)",
    "const r = Math.random();",
    "process.env.HOME",
  ];
  for (const line of offenders) {
    assert.ok(FORBIDDEN.some(([pattern]) => pattern.test(line)), line);
  }
});
