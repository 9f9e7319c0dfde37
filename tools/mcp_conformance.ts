// Copyright 2026 the taskpack authors. MIT license.
/**
 * `deno task mcp:conformance`: the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`) against taskpack's three HTTP servers, each started here
 * on 127.0.0.1 on a free port and stopped here:
 *
 * - the judge, as `deno task serve` runs it (`shell/http/judge_server.ts`, `serve.ts`), at `/mcp`;
 * - the judge as `deno serve serve.ts` runs its default export (loopback names only), at `/mcp`;
 * - `taskpack serve-home` on a fresh store, at `/mcp`;
 * - `taskpack mcp --http` on another fresh store, at `/mcp`.
 *
 * Two releases of the suite run against each server, both pinned:
 *
 * - 0.1.16, its whole active server suite (the 2025 protocol revisions: an initialize
 *   handshake), with the baseline `tools/mcp_conformance.baseline.yml`;
 * - 0.2.0-alpha.12 with `--requirements 2026-07-28`: exactly the scenarios the 2026-07-28
 *   revision (stateless: per-request `_meta`, `server/discover`) requires, with the baseline
 *   `tools/mcp_conformance_2026.baseline.yml`, which names single checks.
 *
 * Each baseline lists the scenarios or checks that call fixtures of the suite's own test server
 * (a tool, resource or prompt by that name), each with the fixture it calls; the suite reads it
 * (`--expected-failures`): any other failure fails the run, and so does a listed entry that
 * starts passing. Some scenarios must pass whatever a baseline says; this script checks those
 * by name too. The suite needs Node 22: it runs under `npx -p node@22`.
 *
 * Exit 0 when both suites pass on every server, 1 otherwise. `--only <n>` runs them against the
 * n-th server of the list above (1 to 4) alone.
 *
 * @module
 */
import { join } from "node:path";
import { ROOT } from "./_tools.ts";

/** A release of the suite, how it is run, and what must pass. */
export interface ConformanceSuite {
  /** The package, pinned. */
  package: string;
  /** Arguments after `conformance server --url <url>`. */
  args: readonly string[];
  /** The baseline of expected failures (`--expected-failures`), in `tools/`. */
  baseline: string;
  /** The scenarios that must pass on every server, whatever the baseline says. */
  required: readonly string[];
}

/** The suites, each pinned. */
export const CONFORMANCE_SUITES: readonly ConformanceSuite[] = [
  {
    package: "@modelcontextprotocol/conformance@0.1.16",
    args: [],
    baseline: "mcp_conformance.baseline.yml",
    required: [
      "server-initialize",
      "ping",
      "tools-list",
      "resources-list",
      "prompts-list",
      "logging-set-level",
      "dns-rebinding-protection",
    ],
  },
  {
    package: "@modelcontextprotocol/conformance@0.2.0-alpha.12",
    args: ["--requirements", "2026-07-28"],
    baseline: "mcp_conformance_2026.baseline.yml",
    required: [
      "tools-list",
      "resources-list",
      "sep-2164-resource-not-found",
      "prompts-list",
      "server-sse-multiple-streams",
      "dns-rebinding-protection",
      "caching",
      "input-required-result-unsupported-methods",
      "input-required-result-validate-input",
    ],
  },
];

/** A server started for the run. */
interface Started {
  name: string;
  url: string;
  child: Deno.ChildProcess;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

async function waitFor(url: string, child: Deno.ChildProcess): Promise<void> {
  let exited = false;
  child.status.then(() => exited = true);
  for (let i = 0; i < 300; i++) {
    if (exited) throw new Error(`the server for ${url} exited before it answered`);
    try {
      const response = await fetch(url, { method: "GET" });
      await response.body?.cancel();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`no answer from ${url} within 30 s`);
}

/** Starts a judge module under `deno serve` (its default export) and waits until it answers. */
async function startJudge(
  script: string = join(ROOT, "shell", "http", "judge_server.ts"),
  name = "judge (deno task serve)",
): Promise<Started> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "serve",
      "-A",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      script,
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}/mcp`;
  await waitFor(`http://127.0.0.1:${port}/.well-known/agent-card.json`, child);
  return { name, url, child };
}

/** Starts `taskpack <args>` on 127.0.0.1 and a free port, and waits until `probe` answers. */
async function startCli(
  name: string,
  args: string[],
  probe: string,
  env?: Record<string, string>,
): Promise<Started> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(ROOT, "cli.ts"),
      ...args,
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--machine",
      "conformance",
    ],
    ...(env ? { env, clearEnv: true } : {}),
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}${probe}`, child);
  return { name, url: `${base}/mcp`, child };
}

function startHome(dir: string): Promise<Started> {
  const env = { ...Deno.env.toObject() };
  delete env.TASKPACK_TEAM_TOKEN; // the suite sends no credentials: a loopback home without one
  return startCli("serve-home", ["serve-home", "--store", join(dir, "store")], "/p", env);
}

function startMcpHttp(dir: string): Promise<Started> {
  return startCli(
    "taskpack mcp --http",
    ["mcp", "--http", "--store", join(dir, "mcp-store")],
    "/mcp",
  );
}

async function stop(server: Started): Promise<void> {
  try {
    server.child.kill("SIGTERM");
  } catch {
    // already gone
  }
  await server.child.status;
}

/** Runs one suite against one server; prints its output; returns whether it passed. */
async function runSuite(server: Started, suite: ConformanceSuite): Promise<boolean> {
  const label = `${suite.package}${suite.args.length ? ` ${suite.args.join(" ")}` : ""}`;
  console.log(`\n### ${label} against ${server.name} at ${server.url}\n`);
  const output = await new Deno.Command("npx", {
    args: [
      "-y",
      "-p",
      "node@22",
      "-p",
      suite.package,
      "conformance",
      "server",
      "--url",
      server.url,
      ...suite.args,
      "--expected-failures",
      join(ROOT, "tools", suite.baseline),
    ],
    env: { NO_COLOR: "1", npm_config_update_notifier: "false", npm_config_loglevel: "error" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  const errors = new TextDecoder().decode(output.stderr)
    .split("\n").filter((line) => line && !/^npm warn/i.test(line)).join("\n");
  console.log(text);
  if (errors) console.error(errors);
  const missing = suite.required.filter((scenario) =>
    !new RegExp(`^✓ ${scenario}: [1-9]\\d* passed, 0 failed$`, "m").test(text)
  );
  if (missing.length) console.log(`required scenarios not passed: ${missing.join(", ")}`);
  const ok = output.code === 0 && missing.length === 0;
  console.log(`${server.name}, ${label}: ${ok ? "PASS" : "FAIL"} (suite exit ${output.code})`);
  return ok;
}

if (import.meta.main) {
  const dir = await Deno.makeTempDir({ prefix: "taskpack-mcp-conformance-" });
  const results: boolean[] = [];
  const servers = [
    () => startJudge(),
    () => startJudge(join(ROOT, "serve.ts"), "judge (deno serve serve.ts)"),
    () => startHome(dir),
    () => startMcpHttp(dir),
  ];
  const only = Deno.args.indexOf("--only");
  const chosen = only >= 0 ? [servers[Number(Deno.args[only + 1]) - 1]!] : servers;
  try {
    for (const start of chosen) {
      const server = await start();
      try {
        for (const suite of CONFORMANCE_SUITES) results.push(await runSuite(server, suite));
      } finally {
        await stop(server);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  const runs = chosen.length * CONFORMANCE_SUITES.length;
  const ok = results.length === runs && results.every(Boolean);
  console.log(
    `\nMCP conformance: ${ok ? "passed" : "FAILED"}: ${
      results.filter(Boolean).length
    } of ${runs} runs (${chosen.length} servers, ${CONFORMANCE_SUITES.length} suites)`,
  );
  Deno.exit(ok ? 0 : 1);
}
