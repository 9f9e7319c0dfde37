// Copyright 2026 the taskpack authors. MIT license.
// The core stays pure: no file system, clock, host name, environment or randomness in lib/.
import assert from "node:assert/strict";
import { tempFile } from "./_helpers.ts";

const FORBIDDEN: [RegExp, string][] = [
  [/(?:\bfrom|\bimport)\s*\(?\s*["']node:/, "a node: import"],
  [/\bDeno\./, "Deno."],
  [/\bprocess\./, "process."],
  [/\bBuffer\b/, "Buffer"],
  [/\bDate\.now\b|new Date\(\)/, "the clock"],
  [/\bMath\.random\b|getRandomValues|randomUUID/, "randomness"],
  [/\bfetch\(/, "the network"],
];

const LIB = new URL("../lib/", import.meta.url);

/** Every `.ts` file under lib/, as paths relative to lib/, in name order. */
async function libFiles(): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir, LIB))) {
      if (entry.isDirectory) await walk(`${dir}${entry.name}/`);
      else if (entry.name.endsWith(".ts")) found.push(`${dir}${entry.name}`);
    }
  }
  await walk("");
  return found.sort();
}

Deno.test("lib/ has no I/O, clock, environment or randomness", async () => {
  const files = await libFiles();
  for (const name of files) {
    const text = await Deno.readTextFile(new URL(name, LIB));
    // The code may not; the examples in doc comments are held to no node: below.
    const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const [pattern, what] of FORBIDDEN) {
      assert.ok(!pattern.test(code), `lib/${name} uses ${what}`);
    }
  }
  assert.ok(files.length >= 40, `expected the core's files, found ${files.length}`);
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
  for (const name of await libFiles()) {
    const text = await Deno.readTextFile(new URL(name, LIB));
    const line = text.split("\n").findIndex((l) => /\bnode:/.test(l));
    assert.equal(line, -1, `lib/${name}:${line + 1} names a node: module`);
  }
});

// The text check at the top skips doc comments, whose examples run by `deno test --doc` as
// modules of their own. This one reads what the code
// really imports: the module graph of every file in lib/, as Deno resolves it.
Deno.test("every lib/ module's graph holds lib/ modules only: no node:, npm, jsr or shell", async () => {
  const dir = LIB;
  const names = await libFiles();
  const entry = await tempFile({ suffix: ".ts" });
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

// The architecture, held by a test: lib/ is a few packages, each a folder entered only through
// its mod.ts, whose arrows point one way; and no file in the repository is part of an import
// cycle. (Tests may reach into any file: they are white-box.)

/** What each package of lib/ may import, besides itself. */
const MAY_USE: Record<string, readonly string[]> = {
  bytes: [],
  zip: ["bytes"],
  scan: ["bytes"],
  format: ["bytes", "zip", "scan"],
  home: ["bytes", "scan", "format"],
  capsule: ["bytes", "format"],
  a2a: ["bytes", "format"],
  sign: ["bytes"],
};

const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

/** The repository's own relative imports, file by file (paths from the root), examples left out. */
function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [path, text] of files) {
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    const base = new URL(path, "file:///r/");
    const targets = [...code.matchAll(IMPORT)].map((m) =>
      new URL(m[1]!, base).pathname.slice("/r/".length)
    );
    graph.set(path, [...new Set(targets)]);
  }
  return graph;
}

/** Each import cycle, as the files on it (Tarjan's strongly connected components). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The package a path is in (`lib/<package>/...`), or null outside lib/'s packages. */
function packageOf(path: string): string | null {
  const parts = path.split("/");
  return parts.length === 3 && parts[0] === "lib" ? parts[1]! : null;
}

/** Every import that breaks the architecture, one sentence each. */
function architectureProblems(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    if (from.startsWith("tests/")) continue;
    const home = packageOf(from);
    if (from.startsWith("lib/") && home === null) problems.push(`${from} is outside a package`);
    for (const to of targets) {
      const there = packageOf(to);
      if (there === null || there === home) continue;
      if (!to.endsWith("/mod.ts")) problems.push(`${from} enters ${there} through ${to}`);
      if (home !== null && !MAY_USE[home]?.includes(there)) {
        problems.push(`${from}: ${home} may not use ${there}`);
      }
    }
  }
  // The doors (cli/, mcp/, the servers of shell/http/): the operations (app/) know no door; no
  // door reaches into another; the shells below the operations know neither; outside app/, its
  // mod.ts is the only way in.
  const door = (path: string) =>
    path === "cli.ts" || path.startsWith("cli/") ? "cli" : path.startsWith("mcp/") ? "mcp" : null;
  for (const [from, targets] of graph) {
    if (from.startsWith("tests/")) continue;
    for (const to of targets) {
      if (to.startsWith("app/") && !from.startsWith("app/") && to !== "app/mod.ts") {
        problems.push(`${from} enters app through ${to}`);
      }
      const there = door(to);
      if (from.startsWith("app/") && (there || to.startsWith("shell/http/"))) {
        problems.push(`${from}: the operations may not use ${to}`);
      }
      // shell/http/ holds the servers (doors); the rest of shell/ is the I/O under app/.
      const below = from.startsWith("shell/") && !from.startsWith("shell/http/");
      if (below && (there || to.startsWith("app/"))) {
        problems.push(`${from}: a shell may not use ${to}`);
      }
      if (door(from) === "mcp" && there === "cli") problems.push(`${from}: mcp may not use ${to}`);
      if (
        door(from) === "cli" && there === "mcp" && from !== "cli.ts" &&
        !from.startsWith("cli/serve_home")
      ) {
        problems.push(`${from}: cli may not use ${to}`);
      }
    }
  }
  for (const from of graph.keys()) {
    const home = packageOf(from);
    if (home !== null && !(home in MAY_USE)) {
      problems.push(`${from}: ${home} is not a known package`);
    }
  }
  return problems;
}

/** The repository's TypeScript files (not the build output or test data), by path. */
async function sources(): Promise<Map<string, string>> {
  const root = new URL("../", import.meta.url);
  const files = new Map<string, string>();
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir, root))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) {
        if (!["dist", "testdata", "node_modules", ".git"].includes(entry.name)) {
          await walk(`${path}/`);
        }
      } else if (entry.name.endsWith(".ts")) {
        files.set(path, await Deno.readTextFile(new URL(path, root)));
      }
    }
  }
  await walk("");
  return files;
}

Deno.test("no import cycle anywhere, and lib/'s packages are entered through their mod.ts only", async () => {
  const files = await sources();
  assert.ok(files.size > 150, `expected the repository's files, found ${files.size}`);
  const graph = importGraph(files);
  assert.deepEqual(cycles(graph), []);
  assert.deepEqual(architectureProblems(graph), []);
  const packages = new Set([...files.keys()].map(packageOf).filter((p) => p !== null));
  assert.deepEqual([...packages].sort(), Object.keys(MAY_USE).sort());
  for (const name of packages) assert.ok(files.has(`lib/${name}/mod.ts`), `lib/${name}/mod.ts`);
});

Deno.test("the architecture check fails on each kind of import it forbids", async () => {
  const files = await sources();
  const withLine = (path: string, line: string) => {
    const changed = new Map(files);
    assert.ok(changed.has(path), path);
    changed.set(path, `${line}\n${changed.get(path)}`);
    return importGraph(changed);
  };
  // Past the door: the format reaching into the ZIP reader's own file.
  assert.match(
    architectureProblems(withLine("lib/format/pack.ts", 'import "../zip/reader.ts";')).join("\n"),
    /lib\/format\/pack\.ts enters zip through lib\/zip\/reader\.ts/,
  );
  // Against the arrows: bytes using the format (also a cycle, since the format uses bytes).
  const upward = withLine("lib/bytes/json.ts", 'import { judge } from "../format/mod.ts";');
  assert.match(architectureProblems(upward).join("\n"), /bytes may not use format/);
  assert.ok(cycles(upward).some((c) => c.includes("lib/bytes/json.ts")));
  // A cycle between the shells: the MCP server loading the CLI that starts it.
  const loop = withLine("mcp/server.ts", 'const cli = await import("../cli.ts");');
  assert.ok(cycles(loop).some((c) => c.includes("cli.ts") && c.includes("mcp/server.ts")));
  // A door reaching into another: the MCP tools using the CLI's error sentences.
  assert.match(
    architectureProblems(withLine("mcp/tools.ts", 'import "../cli/io.ts";')).join("\n"),
    /mcp\/tools\.ts: mcp may not use cli\/io\.ts/,
  );
  // The operations using a door, and a door reaching past app/mod.ts.
  assert.match(
    architectureProblems(withLine("app/land.ts", 'import "../mcp/settings.ts";')).join("\n"),
    /app\/land\.ts: the operations may not use mcp\/settings\.ts/,
  );
  assert.match(
    architectureProblems(withLine("cli/land.ts", 'import "../app/land.ts";')).join("\n"),
    /cli\/land\.ts enters app through app\/land\.ts/,
  );
  // A shell below the operations using them.
  assert.match(
    architectureProblems(withLine("shell/stores/folder_store.ts", 'import "../../app/mod.ts";'))
      .join("\n"),
    /shell\/stores\/folder_store\.ts: a shell may not use app\/mod\.ts/,
  );
  // A file dropped straight into lib/ belongs to no package.
  const loose = new Map(files).set("lib/loose.ts", 'import "./bytes/mod.ts";');
  assert.match(architectureProblems(importGraph(loose)).join("\n"), /lib\/loose\.ts is outside/);
});
