// Copyright 2026 the taskpack authors. MIT license.
// A light first run: Deno installs every npm package that `deno.json`'s imports and the lockfile
// name, whatever the command needs, so the build and test tools (playwright-core, assemblyscript
// and its 94 MB binaryen, fast-check, the MCP client) must stay out of both, and out of the
// module graph of every entry point a user runs or imports. They live in `dev.lock`, imported as
// versioned `npm:` specifiers where a test or tool uses them.
import assert from "node:assert/strict";
import { tempDir } from "./_helpers.ts";

const ROOT = new URL("../", import.meta.url);

/** The npm packages only the tests, the benchmarks and the build tools use. */
const DEV_ONLY = [
  "@modelcontextprotocol/client",
  "assemblyscript",
  "binaryen",
  "fast-check",
  "long",
  "playwright-core",
  "pure-rand",
];

/** The package's name from `name@version` (the scope's `@` kept). */
function packageName(id: string): string {
  return id.slice(0, id.lastIndexOf("@") > 0 ? id.lastIndexOf("@") : id.length);
}

/** Those of `ids` (`name@version`, or `npm:name@version`) that are build or test tools. */
function devOnly(ids: Iterable<string>): string[] {
  return [...ids].filter((id) => DEV_ONLY.includes(packageName(id.replace(/^npm:/, ""))));
}

Deno.test("the dev-only check knows a tool when it sees one, and passes the CLI's packages", () => {
  assert.deepEqual(
    devOnly([
      "zod@4.6.7",
      "binaryen@131.0.0-nightly.20260721",
      "npm:fast-check@4.11.0",
      "@modelcontextprotocol/server@2.4.0",
      "@modelcontextprotocol/client@2.4.0",
    ]),
    [
      "binaryen@131.0.0-nightly.20260721",
      "npm:fast-check@4.11.0",
      "@modelcontextprotocol/client@2.4.0",
    ],
  );
});

interface Info {
  modules: { specifier: string }[];
  npmPackages: Record<string, unknown>;
}

/** `deno info --json` of an entry point, resolved through deno.lock alone (frozen). */
async function info(entry: string): Promise<Info> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--lock=deno.lock", "--frozen", entry],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(
    code,
    0,
    `deno info ${entry} with deno.lock frozen failed (a runtime dependency missing from ` +
      `deno.lock? run deno cache --lock=deno.lock cli.ts mod.ts serve.ts home.ts): ` +
      new TextDecoder().decode(stderr).slice(0, 2000),
  );
  return JSON.parse(new TextDecoder().decode(stdout));
}

Deno.test("no build or test tool is in the graph of cli.ts, mod.ts, serve.ts or home.ts", async () => {
  const needed = new Set<string>();
  for (const entry of ["cli.ts", "mod.ts", "serve.ts", "home.ts"]) {
    const graph = await info(entry);
    const npmModules = graph.modules.map((m) => m.specifier).filter((s) => s.startsWith("npm:"))
      .map((s) => s.replace(/^npm:\/?/, "").replace(/^((?:@[^/]+\/)?[^/@]+@[^/]+).*$/, "$1"));
    assert.deepEqual(devOnly(npmModules), [], `${entry} imports a build or test tool`);
    assert.deepEqual(devOnly(Object.keys(graph.npmPackages)), [], `${entry}'s npm packages`);
    for (const id of Object.keys(graph.npmPackages)) needed.add(id);
  }
  // Deno installs every package in the lockfile on the first run, needed or not: deno.lock holds
  // exactly what these entry points need.
  const lock = JSON.parse(await Deno.readTextFile(new URL("deno.lock", ROOT)));
  assert.deepEqual(
    Object.keys(lock.npm ?? {}).sort(),
    [...needed].sort(),
    "deno.lock holds packages the CLI does not need (a test run without --lock=dev.lock " +
      "wrote to it?): restore it with git checkout deno.lock",
  );
});

Deno.test("deno.json's imports name no build or test tool, and the tests' lock is dev.lock", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  // `deno task` installs every npm package the imports name before it runs anything.
  assert.deepEqual(devOnly(Object.values(config.imports as Record<string, string>)), []);
  // No lockfile by default, so a test run never writes the tools into deno.lock; the tasks name
  // the lock they resolve through.
  assert.equal(config.lock, false);
  for (const [name, command] of Object.entries(config.tasks as Record<string, string>)) {
    if (!/\bdeno (run|test|bench|serve)\b/.test(command)) continue;
    const runsCli = /\bcli\.ts\b/.test(command);
    assert.match(
      command,
      runsCli ? /--lock=deno\.lock\b/ : /--lock=dev\.lock\b/,
      `the task ${name} names its lock`,
    );
  }
  const dev = JSON.parse(await Deno.readTextFile(new URL("dev.lock", ROOT)));
  assert.ok(
    devOnly(Object.keys(dev.npm)).length >= DEV_ONLY.length - 1,
    "dev.lock holds the tools",
  );
});

Deno.test({
  name: "the README's install from a checkout gives a taskpack whose mcp and serve-home start",
  sanitizeResources: false,
  async fn() {
    const readme = await Deno.readTextFile(new URL("README.md", ROOT));
    const line = /`(deno install -g -A -n taskpack [^`]*\.\/cli\.ts)`/.exec(readme)?.[1];
    assert.ok(line, "the README gives the install line for a checkout");
    const root = await tempDir({ prefix: "taskpack-install-" });
    const store = await tempDir({ prefix: "taskpack-install-store-" });
    const [, , ...flags] = line.split(" ");
    const installed = await new Deno.Command(Deno.execPath(), {
      args: ["install", "--root", root, ...flags],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
    }).output();
    assert.equal(installed.code, 0, new TextDecoder().decode(installed.stderr));
    const taskpack = `${root}/bin/taskpack`;
    // From another folder, as a user runs it: nothing may depend on the checkout's config.
    const mcp = new Deno.Command(taskpack, {
      args: ["mcp", "--store", store],
      cwd: root,
      env: { NO_COLOR: "1", PATH: `${Deno.execPath().replace(/\/[^/]*$/, "")}:/usr/bin:/bin` },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = mcp.stdin.getWriter();
    await writer.write(new TextEncoder().encode(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "install-test", version: "1" },
        },
      }) + "\n",
    ));
    await writer.close();
    const out = await mcp.output();
    const answer = new TextDecoder().decode(out.stdout).split("\n")[0] ?? "";
    assert.match(answer, /"serverInfo"/, new TextDecoder().decode(out.stderr));

    const home = new Deno.Command(taskpack, {
      args: ["serve-home", "--store", store, "--port", "0", "--json"],
      cwd: root,
      env: { NO_COLOR: "1", PATH: `${Deno.execPath().replace(/\/[^/]*$/, "")}:/usr/bin:/bin` },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    try {
      const reader = home.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const { value } = await reader.read();
      const { url } = JSON.parse(value ?? "{}");
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const listing = await fetch(`${url}/p`);
      assert.equal(listing.status, 200);
      await listing.body?.cancel();
      reader.releaseLock();
    } finally {
      home.kill("SIGTERM");
      await home.status;
      await home.stdout.cancel().catch(() => {});
      await home.stderr.cancel().catch(() => {});
    }
  },
});
