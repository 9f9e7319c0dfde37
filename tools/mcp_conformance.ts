// Copyright 2026 the taskpack authors. MIT license.
/**
 * `deno task mcp:conformance`: the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, pinned) against taskpack's three HTTP servers, each
 * started here on 127.0.0.1 on a free port and stopped here:
 *
 * - the judge, as `deno task serve` runs it (`shell/http/judge_server.ts`, `serve.ts`), at `/mcp`;
 * - the judge as `deno serve serve.ts` runs its default export (loopback names only), at `/mcp`;
 * - `taskpack serve-home` on a fresh store, at `/mcp`;
 * - `taskpack mcp --http` on another fresh store, at `/mcp`.
 *
 * The suite runs its whole active server suite against each and prints its own results. The
 * scenarios that call fixtures of the suite's own test server are listed, with the fixture each
 * calls, in `tools/mcp_conformance.baseline.yml`, which the suite reads (`--expected-failures`):
 * any other failure fails the run, and so does a listed scenario that starts passing. The
 * scenarios that must pass include server-initialize, ping, tools-list, resources-list,
 * prompts-list, logging-set-level and dns-rebinding-protection; this script checks those by name
 * too. The suite needs Node 22: it runs under `npx -p node@22`.
 *
 * Exit 0 when every server passes, 1 otherwise. `--only <n>` runs the suite against the n-th
 * server of the list above (1 to 4) alone.
 *
 * @module
 */
import { join } from "node:path";
import { ROOT } from "./_tools.ts";

/** The suite, pinned. */
export const CONFORMANCE_PACKAGE = "@modelcontextprotocol/conformance@0.1.16";

/** The scenarios that must pass on every server, whatever the baseline says. */
export const REQUIRED_SCENARIOS: readonly string[] = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "prompts-list",
  "logging-set-level",
  "dns-rebinding-protection",
];

const BASELINE = join(ROOT, "tools", "mcp_conformance.baseline.yml");

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

/** Runs the suite against one server; prints its output; returns whether it passed. */
async function runSuite(server: Started): Promise<boolean> {
  console.log(`\n### ${CONFORMANCE_PACKAGE} against ${server.name} at ${server.url}\n`);
  const output = await new Deno.Command("npx", {
    args: [
      "-y",
      "-p",
      "node@22",
      "-p",
      CONFORMANCE_PACKAGE,
      "conformance",
      "server",
      "--url",
      server.url,
      "--expected-failures",
      BASELINE,
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
  const missing = REQUIRED_SCENARIOS.filter((scenario) =>
    !new RegExp(`^✓ ${scenario}: [1-9]\\d* passed, 0 failed$`, "m").test(text)
  );
  if (missing.length) console.log(`required scenarios not passed: ${missing.join(", ")}`);
  const ok = output.code === 0 && missing.length === 0;
  console.log(`${server.name}: ${ok ? "PASS" : "FAIL"} (suite exit ${output.code})`);
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
        results.push(await runSuite(server));
      } finally {
        await stop(server);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  const ok = results.length === chosen.length && results.every(Boolean);
  console.log(`\nMCP conformance: ${ok ? "passed" : "FAILED"} on ${results.length} server(s)`);
  Deno.exit(ok ? 0 : 1);
}
