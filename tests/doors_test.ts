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
import { startCliServer } from "./_cli.ts";
import { SAMPLE_OPTIONS, sampleState, streamBytes, tempDir } from "./_helpers.ts";

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
  const server = await startCliServer([...args, "--port", "0", "--json"], {
    ...base,
    ...ENV,
    ...env,
  });
  return { base: new URL(server.url).origin, headers, store, stop: server.stop };
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
): Promise<{ status: number; json: any; ms: number; headers: string }> {
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
  return { status, json, ms, headers: answer.slice(0, answer.indexOf("\r\n\r\n")) };
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
      // Sent as a pack, it lands through the same policy: the same refusal, nothing written.
      const asPack = await postBomb(
        { ...home, headers: { ...home.headers, "content-type": "application/vnd.taskpack+zip" } },
        "/p",
      );
      assert.equal(asPack.status, 413);
      sameRefusal("the home's POST /p (a pack)", asPack.json);
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

// --- Strict Host: a Host that is not host[:port] is refused before routing -------------------

/** A GET with the given Host, on a fresh connection: the status and the body. */
async function getWithHost(server: Server, path: string, host: string) {
  const { hostname, port } = new URL(server.base);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(
    new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`),
  );
  let answer = "";
  const buffer = new Uint8Array(8192);
  while (true) {
    const read = await conn.read(buffer).catch(() => null);
    if (read === null) break;
    answer += new TextDecoder().decode(buffer.subarray(0, read));
  }
  conn.close();
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0),
    body: answer.slice(answer.indexOf("\r\n\r\n") + 4),
  };
}

/** Host values that are no legal Host: each carries one of `/ ? # @ %` or a space. */
function crookedHosts(origin: string): string[] {
  const host = new URL(origin).host;
  return [
    `${host}/.well-known/agent-card.json?`,
    `${host}/.well-known/agent-card.json#`,
    `${host}?x=1`,
    `user@${host}`,
    `127.0.0.1%2f:${new URL(origin).port}`,
    `127.0.0.1 :${new URL(origin).port}`,
  ];
}

Deno.test("a Host that is not host[:port] is refused with 400 on every server, before routing", async () => {
  const dir = await tempDir();
  const servers = [
    await start(["serve"], null),
    await start(["serve-home", "--store", `${dir}/home`], null),
    await start(["mcp", "--http", "--store", `${dir}/mcp`], null),
  ];
  try {
    for (const server of servers) {
      for (const host of crookedHosts(server.base)) {
        const { status, body } = await getWithHost(server, "/nothing-here", host);
        assert.equal(status, 400, `${server.base} Host ${host}: ${status} ${body}`);
        assert.doesNotMatch(body, /supportedInterfaces|capabilities/, "not served the card");
      }
      // A plain Host still reaches the server (404 for a path it does not serve).
      const plain = await getWithHost(server, "/nothing-here", new URL(server.base).host);
      assert.equal(plain.status, 404, `${server.base}: ${plain.body}`);
    }
  } finally {
    for (const server of servers) await server.stop();
  }
});

// --- The whole server's budget ---------------------------------------------------------------

/** Opens a request that declares `length` bytes and sends none: it holds its share. */
async function holdOpen(base: string, path: string, length: number): Promise<Deno.Conn> {
  const { hostname, port, host } = new URL(base);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(
    new TextEncoder().encode(
      `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
        `content-length: ${length}\r\n\r\n{`,
    ),
  );
  return conn;
}

Deno.test("past the server's budget a request gets 503 with Retry-After, before its body is read", async () => {
  for (
    const [bound, options, length] of [
      ["maxConcurrentJudgements", { maxConcurrentJudgements: 2 }, 100],
      ["maxBytesInFlight", { maxBytesInFlight: 300 * KiB }, 200 * KiB],
    ] as const
  ) {
    const { createJudgeHandler } = await import("../serve.ts");
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      createJudgeHandler({ ...options, maxBodyBytes: 256 * KiB, bodyTimeoutMs: 5000 }),
    );
    const base = `http://127.0.0.1:${server.addr.port}`;
    const held: Deno.Conn[] = [];
    try {
      for (let i = 0; i < (bound === "maxConcurrentJudgements" ? 2 : 1); i++) {
        held.push(await holdOpen(base, "/conformance", length));
      }
      // Give the server a moment to admit the requests it holds.
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (const path of ["/conformance", "/inspect", "/convert?to=bag", "/a2a", "/mcp"]) {
        const started = performance.now();
        // Only the headers: the answer must come before any of the body is read.
        const { status, json, headers } = await rawRequest(
          { base, headers: {}, store: null, stop: () => Promise.resolve() },
          `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
            `accept: application/json, text/event-stream\r\ncontent-length: ${length}\r\n\r\n`,
          false,
        );
        assert.equal(status, 503, `${bound} ${path}: ${JSON.stringify(json)}`);
        assert.equal(json.limit, bound);
        assert.equal(json.max, (options as Record<string, number>)[bound]);
        assert.match(headers, /\r\nretry-after: 1\r\n/i);
        assert.ok(performance.now() - started < WITHIN_MS);
      }
      // Once the held requests are gone, the server admits again.
      for (const conn of held.splice(0)) conn.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = await fetch(`${base}/conformance`, { method: "POST", body: "not a pack" });
      assert.equal(again.status, 400);
      await again.body?.cancel();
    } finally {
      for (const conn of held) conn.close();
      await server.shutdown();
    }
  }
});

Deno.test("serve-home and mcp --http keep the same budget, from the same variables", async () => {
  const dir = await tempDir();
  const env = { [BOUND_ENV.maxConcurrentJudgements]: "1", [BOUND_ENV.bodyTimeoutMs]: "5000" };
  const servers = [
    [await start(["serve-home", "--store", `${dir}/home`], null, {}, env), "/p"],
    [await start(["serve-home", "--store", `${dir}/home`], null, {}, env), "/mcp"],
    [await start(["mcp", "--http", "--store", `${dir}/mcp`], null, {}, env), "/mcp"],
  ] as const;
  try {
    for (const [server, path] of servers) {
      const held = await holdOpen(server.base, path, 100);
      try {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const { status, json, headers } = await rawRequest(
          server,
          head(server, { path, contentType: "application/json" }, 100),
          false,
        );
        assert.equal(status, 503, `${server.base}${path}: ${JSON.stringify(json)}`);
        assert.deepEqual(json, {
          error: json.error,
          limit: "maxConcurrentJudgements",
          max: 1,
        });
        assert.match(headers, /\r\nretry-after: 1\r\n/i);
      } finally {
        held.close();
      }
    }
  } finally {
    for (const [server] of servers) await server.stop();
  }
});

Deno.test("the budget's bounds are options and TASKPACK_JUDGE_* variables, checked", async () => {
  const { boundsFromEnv, resolveBounds, ServerBudget } = await import(
    "../shell/http/request_bounds.ts"
  );
  assert.deepEqual(
    boundsFromEnv((name) =>
      ({
        TASKPACK_JUDGE_MAX_BYTES_IN_FLIGHT: "512MiB",
        TASKPACK_JUDGE_MAX_CONCURRENT_JUDGEMENTS: "8",
      })[name]
    ),
    { maxBytesInFlight: 512 * MiB, maxConcurrentJudgements: 8 },
  );
  assert.throws(() => resolveBounds({ maxBytesInFlight: -1 }), /maxBytesInFlight must be/);
  // Every admission is released once, whatever order; the counts come back to zero.
  const budget = new ServerBudget(resolveBounds({ maxBytesInFlight: 1000 }));
  const request = (size: number) =>
    new Request("http://localhost/", {
      method: "POST",
      body: "x",
      headers: { "content-length": String(size) },
    });
  const a = budget.admit(request(600));
  const b = budget.admit(request(600));
  assert.equal(typeof a, "function");
  assert.equal(typeof b !== "function" && b.status, 503);
  (a as () => void)();
  (a as () => void)();
  assert.deepEqual(budget.inFlight, { bytes: 0, requests: 0 });
});

// --- `deno serve serve.ts`: safe wherever it is started ---------------------------------------

Deno.test("`deno serve serve.ts` answers loopback names only, unless TASKPACK_ALLOWED_HOSTS names more", async () => {
  for (const allowed of [undefined, "judge.example"]) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = new Deno.Command(Deno.execPath(), {
      args: ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "serve.ts"],
      cwd: new URL("../", import.meta.url),
      env: allowed ? { TASKPACK_ALLOWED_HOSTS: allowed } : {},
      stdout: "null",
      stderr: "null",
    }).spawn();
    const server: Server = {
      base: `http://127.0.0.1:${port}`,
      headers: {},
      store: null,
      stop: () => Promise.resolve(),
    };
    try {
      let ready = false;
      for (let i = 0; i < 100 && !ready; i++) {
        ready = await fetch(`${server.base}/.well-known/agent-card.json`)
          .then((r) => (r.body?.cancel(), true), () => false);
        if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const card = "/.well-known/agent-card.json";
      assert.equal((await getWithHost(server, card, `localhost:${port}`)).status, 200);
      assert.equal((await getWithHost(server, card, `evil.example:${port}`)).status, 403);
      assert.equal(
        (await getWithHost(server, card, `judge.example:${port}`)).status,
        allowed ? 200 : 403,
      );
      assert.equal(
        (await getWithHost(server, "/nothing-here", `localhost:${port}/x?`)).status,
        400,
      );
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
  }
});

// --- Properties of the pieces ------------------------------------------------------------------

Deno.test("hostName: host[:port] gives the name; any / ? # @ % or space gives null", async () => {
  const fc = (await import("npm:fast-check@4.11.0")).default;
  const { hostName } = await import("../shell/http/host_header.ts");
  const label = fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9-]{0,10}[A-Za-z0-9])?$/);
  const name = fc.array(label, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("."));
  const port = fc.option(fc.integer({ min: 0, max: 65535 }), { nil: undefined });
  fc.assert(
    fc.property(name, port, (host, p) => {
      const value = p === undefined ? host : `${host}:${p}`;
      assert.equal(hostName(value), host.toLowerCase());
    }),
  );
  fc.assert(
    fc.property(
      name,
      fc.constantFrom("/", "?", "#", "@", "%", " ", "\t"),
      fc.string({ maxLength: 20 }),
      fc.nat(),
      (host, bad, tail, at) => {
        const cut = at % (host.length + 1);
        assert.equal(hostName(host.slice(0, cut) + bad + tail + host.slice(cut)), null);
      },
    ),
  );
  assert.equal(hostName("[::1]:8000"), "[::1]");
  assert.equal(hostName("127.0.0.1:65536"), null);
});

Deno.test("the home's land stops at the work budget, naming it, and writes nothing", async () => {
  const { openWorkplace } = await import("../app/mod.ts");
  const { REMOTE_TOOLS } = await import("../mcp/remote_tools.ts");
  const { resolveBounds } = await import("../shell/http/request_bounds.ts");
  const { readReference } = await import("./_helpers.ts");
  const dir = await tempDir();
  const store = `${dir}/store`;
  const workplace = await openWorkplace({ store });
  const land = REMOTE_TOOLS.find((tool) => tool.name === "taskpack_land")!;
  const pack = encodeBase64(await readReference("handoff.taskpack"));
  for (const [maxWorkMs, refused] of [[0, true], [60_000, false]] as const) {
    const before = await snapshot(store);
    const settings = { workplace, bounds: resolveBounds({ maxWorkMs }) };
    const landed = land.run({ pack_base64: pack, dry_run: true }, workplace, settings);
    if (refused) {
      await assert.rejects(landed, (error: Error & { reason?: string }) => {
        assert.equal(error.reason, "maxWorkMs");
        assert.match(error.message, /work budget of 0 ms \(maxWorkMs\)/);
        return true;
      });
    } else {
      assert.equal(((await landed) as { ok: boolean }).ok, true);
    }
    assert.deepEqual(await snapshot(store), before, "nothing written");
  }
});
