// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- JSON answers are checked field by field
// Every door bounded alike (issue 38): every route of every server we ship — `taskpack serve`
// (what `deno task serve` runs), `serve-home` with and without a team token, `mcp --http` — is
// sent the same deflate bomb, the same slow body and the same oversize body. Each is refused
// within a second with the same `{error, limit, max}` (an MCP tool call: an error result naming
// the bound), and nothing is written. The servers run as the CLI starts them, in processes of
// their own, with small bounds from the TASKPACK_JUDGE_* variables. Loopback only.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import { buildPackObject, encodeBag, type Luggage, preparePack } from "../mod.ts";
import { encodeBase64 } from "../lib/bytes/mod.ts";
import { BOUND_ENV } from "../shell/http/request_bounds.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";
import { SAMPLE_OPTIONS, sampleState, streamBytes, tempDir } from "./_helpers.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const KiB = 1024;
const MiB = 1024 * KiB;

/** The bounds every server is started with: small, so that every refusal is quick. */
const BOUNDS = {
  maxBodyBytes: 256 * KiB,
  bodyTimeoutMs: 300,
  maxInflateFactor: 16,
  maxRatio: 64,
};
const ENV = {
  [BOUND_ENV.maxBodyBytes]: `${BOUNDS.maxBodyBytes}`,
  [BOUND_ENV.bodyTimeoutMs]: `${BOUNDS.bodyTimeoutMs}`,
  [BOUND_ENV.maxInflateFactor]: `${BOUNDS.maxInflateFactor}`,
  [BOUND_ENV.maxRatio]: `${BOUNDS.maxRatio}`,
};
/** Refused within a second of the request (the slow body: of its deadline). */
const WITHIN_MS = 1000;

/** A test token, built at run time (no secret is written into the repository). */
function makeToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return ["team", ...Array.from(bytes, (b) => b.toString(16).padStart(2, "0"))].join("-");
}

/** The bomb: a conformant bag of about 16 KiB holding 16 MiB of zeros, honestly declared. */
const bomb: () => Promise<Uint8Array> = (() => {
  let built: Promise<Uint8Array> | undefined;
  return () =>
    built ??= (async () => {
      const size = 16 * MiB;
      const zeros: Luggage = {
        name: "zeros.bin",
        size,
        open: () => new Blob([new Uint8Array(size)]).stream(),
      };
      const prepared = await preparePack(
        buildPackObject(sampleState(), SAMPLE_OPTIONS),
        [zeros],
        { digests: nativeDigests },
      );
      return await streamBytes(encodeBag(prepared, { digests: nativeDigests }));
    })();
})();

interface Server {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Headers every request carries (the team token). */
  headers: Record<string, string>;
  /** Where it may write (a store), to check nothing was written. */
  store: string | null;
  stop(): Promise<void>;
}

/** Starts one of the CLI's servers on a free port and reads its URL. */
async function start(
  args: string[],
  store: string | null,
  headers: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<Server> {
  const base = Deno.env.toObject();
  delete base.TASKPACK_TEAM_TOKEN;
  for (const name of Object.values(BOUND_ENV)) delete base[name];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args, "--port", "0", "--json"],
    env: { ...base, ...ENV, ...env, NO_COLOR: "1" },
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${args[0]} ended early`);
    line += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  const url = new URL(JSON.parse(line.split("\n")[0]!).url);
  return {
    base: url.origin,
    headers,
    store,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** Every file under a folder, with its size: what "nothing written" compares. */
async function snapshot(dir: string | null): Promise<string[]> {
  if (dir === null) return [];
  const found: string[] = [];
  const walk = async (at: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(at));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const path = `${at}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else found.push(`${path} ${(await Deno.stat(path)).size}`);
    }
  };
  await walk(dir);
  return found.sort();
}

/** Sends raw HTTP/1.1 on a fresh connection and reads the answer until its JSON ends. */
async function rawRequest(
  server: Server,
  head: string,
  trickle: boolean,
): Promise<{ status: number; json: any; ms: number }> {
  const { hostname, port } = new URL(server.base);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const started = performance.now();
  await conn.write(new TextEncoder().encode(head));
  let sending = trickle;
  const dribble = (async () => {
    while (sending) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (sending) await conn.write(new Uint8Array([0x20])).catch(() => (sending = false));
    }
  })();
  let answer = "";
  const buffer = new Uint8Array(8192);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const giveUp = new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), 5000));
  while (!/\r\n\r\n[\s\S]*\}\s*$/.test(answer)) {
    const read = await Promise.race([conn.read(buffer).catch(() => null), giveUp]);
    if (read === null) break;
    answer += new TextDecoder().decode(buffer.subarray(0, read));
  }
  const ms = performance.now() - started;
  clearTimeout(timer);
  sending = false;
  conn.close();
  await dribble;
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0);
  const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  let json: any = null;
  try {
    json = JSON.parse(body);
  } catch {
    json = { unreadable: body.slice(0, 200) };
  }
  return { status, json, ms };
}

/** A route that reads a body: where, and what else its request needs. */
interface BodyRoute {
  path: string;
  contentType: string;
}

const MCP_ROUTE: BodyRoute = { path: "/mcp", contentType: "application/json" };

function head(server: Server, route: BodyRoute, length: number): string {
  const extra = Object.entries(server.headers).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  return `POST ${route.path} HTTP/1.1\r\nhost: ${new URL(server.base).host}\r\n` +
    `content-type: ${route.contentType}\r\naccept: application/json, text/event-stream\r\n` +
    `${extra}content-length: ${length}\r\n\r\n`;
}

/** The slow body and the oversize body, on one route: 408 and 413, `{error, limit, max}`. */
async function slowAndOversize(server: Server, route: BodyRoute): Promise<void> {
  const slow = await rawRequest(server, head(server, route, 100_000), true);
  assert.equal(slow.status, 408, `${route.path}: ${JSON.stringify(slow.json)}`);
  assert.deepEqual(Object.keys(slow.json).sort(), ["error", "limit", "max"]);
  assert.equal(slow.json.limit, "bodyTimeoutMs");
  assert.equal(slow.json.max, BOUNDS.bodyTimeoutMs);
  assert.ok(slow.ms < BOUNDS.bodyTimeoutMs + WITHIN_MS, `${route.path}: ${slow.ms} ms`);

  const large = await rawRequest(server, head(server, route, 64 * MiB), false);
  assert.equal(large.status, 413, `${route.path}: ${JSON.stringify(large.json)}`);
  assert.deepEqual(Object.keys(large.json).sort(), ["error", "limit", "max"]);
  assert.equal(large.json.limit, "maxBodyBytes");
  assert.equal(large.json.max, BOUNDS.maxBodyBytes);
  assert.ok(large.ms < WITHIN_MS, `${route.path}: ${large.ms} ms`);
}

/** What every refusal of the bomb must be: one sentence, the same bound, the same value. */
let bombRefusal: { error: string; limit: string; max: number } | undefined;

function sameRefusal(where: string, refusal: { error: string; limit: string; max: number }) {
  assert.deepEqual(Object.keys(refusal).sort(), ["error", "limit", "max"], where);
  assert.match(refusal.limit, /^(maxInflateFactor|maxRatio)$/, where);
  bombRefusal ??= refusal;
  assert.deepEqual(refusal, bombRefusal, where);
}

/** Posts the bomb as a body. */
async function postBomb(server: Server, path: string): Promise<{ status: number; json: any }> {
  const body = await bomb() as Uint8Array<ArrayBuffer>;
  const started = performance.now();
  const response = await fetch(`${server.base}${path}`, {
    method: "POST",
    headers: server.headers,
    body,
  });
  const json = await response.json();
  assert.ok(performance.now() - started < WITHIN_MS, `${path}: too slow`);
  return { status: response.status, json };
}

/** Calls a tool with the bomb carried in the call: an error result naming the bound. */
async function toolBomb(
  client: Client,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const pack = encodeBase64(await bomb());
  const started = performance.now();
  const result: any = await client.callTool({ name, arguments: { pack_base64: pack, ...extra } });
  assert.ok(performance.now() - started < WITHIN_MS, `${name}: too slow`);
  assert.equal(result.isError, true, `${name}: ${JSON.stringify(result).slice(0, 300)}`);
  const text: string = result.content[0].text;
  assert.ok(bombRefusal, "a body route was refused first");
  assert.ok(text.includes(bombRefusal.error), `${name}: ${text}`);
  assert.ok(text.includes(`(${bombRefusal.limit})`), `${name}: ${text}`);
}

async function mcpClient(server: Server): Promise<Client> {
  const client = new Client({ name: "doors-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), {
      requestInit: { headers: server.headers },
    }),
  );
  return client;
}

/** An A2A SendMessage carrying the bomb as a file part. */
function a2aMessage(bytes: Uint8Array): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendMessage",
    params: {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ raw: encodeBase64(bytes), filename: "bomb.taskpack" }],
      },
    },
  });
}

Deno.test("taskpack serve: every route refuses the bomb, the slow body and the oversize body alike", async () => {
  const judge = await start(["serve"], null);
  try {
    for (const path of ["/conformance", "/inspect", "/convert?to=flat"]) {
      const { status, json } = await postBomb(judge, path);
      assert.equal(status, 413, `${path}: ${JSON.stringify(json)}`);
      sameRefusal(path, json);
    }
    // A2A: the file part meets the same policy; the task is rejected with the same refusal.
    const message = a2aMessage(await bomb());
    const started = performance.now();
    const a2a = await fetch(`${judge.base}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: message,
    });
    const answer = await a2a.json();
    assert.ok(performance.now() - started < WITHIN_MS, "/a2a: too slow");
    const status = answer.result?.task?.status ?? answer.result?.status;
    assert.equal(status?.state, "TASK_STATE_REJECTED", JSON.stringify(answer).slice(0, 400));
    const data = status.message.parts.find((part: any) => part.data !== undefined)?.data;
    sameRefusal("/a2a", data);
    // The MCP tools take the pack in the call.
    const client = await mcpClient(judge);
    try {
      await toolBomb(client, "taskpack_conformance");
      await toolBomb(client, "taskpack_inspect");
      await toolBomb(client, "taskpack_convert", { to: "flat" });
    } finally {
      await client.close();
    }
    for (const path of ["/conformance", "/inspect", "/convert?to=flat", "/a2a", "/mcp"]) {
      await slowAndOversize(judge, {
        path,
        contentType: path === "/a2a" || path === "/mcp"
          ? "application/json"
          : "application/octet-stream",
      });
    }
  } finally {
    await judge.stop();
  }
});

for (const team of [true, false]) {
  Deno.test(`serve-home ${team ? "with" : "without"} a team token: every route refuses alike and nothing is written`, async () => {
    const dir = await tempDir();
    const store = `${dir}/store`;
    const token = makeToken();
    const headers: Record<string, string> = team ? { authorization: `Bearer ${token}` } : {};
    const home = await start(
      ["serve-home", "--store", store],
      store,
      headers,
      team ? { TASKPACK_TEAM_TOKEN: token } : {},
    );
    try {
      // Seed the agreed refusal from a body route of the same policy, when this test runs alone.
      if (!bombRefusal) {
        const judge = await start(["serve"], null);
        try {
          sameRefusal("/conformance", (await postBomb(judge, "/conformance")).json);
        } finally {
          await judge.stop();
        }
      }
      const before = await snapshot(store);
      const client = await mcpClient(home);
      try {
        await toolBomb(client, "taskpack_land");
        await toolBomb(client, "taskpack_land", { dry_run: true });
        await toolBomb(client, "taskpack_conformance");
        await toolBomb(client, "taskpack_inspect");
        await toolBomb(client, "taskpack_convert", { to: "bag" });
      } finally {
        await client.close();
      }
      // POST /p takes a passport's JSON, not a pack: the bomb is refused as what it is.
      const { status } = await postBomb(home, "/p");
      assert.equal(status, 400);
      for (const path of ["/p", "/mcp"]) await slowAndOversize(home, { ...MCP_ROUTE, path });
      assert.deepEqual(await snapshot(store), before, "nothing written");
    } finally {
      await home.stop();
    }
  });
}

Deno.test("taskpack mcp --http: the slow body and the oversize body are refused alike; nothing is written", async () => {
  const dir = await tempDir();
  const store = `${dir}/store`;
  const server = await start(["mcp", "--http", "--store", store], store);
  try {
    const before = await snapshot(store);
    await slowAndOversize(server, MCP_ROUTE);
    // The bomb as a message is no message: refused as what it is, quickly, nothing written.
    const { status } = await postBomb(server, "/mcp");
    assert.ok(status >= 400 && status < 500, `status ${status}`);
    assert.deepEqual(await snapshot(store), before, "nothing written");
  } finally {
    await server.stop();
  }
});
