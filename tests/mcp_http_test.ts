// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- tool results are checked field by field
// MCP over Streamable HTTP against real `serve-home` subprocesses, driven by the SDK's own
// client: A -> B -> A with tools, resources and prompts only, each machine a home of its own,
// packs carried in the calls. The team's door: GET/POST /p and /mcp need the team token (401
// without, nothing changed). DNS-rebinding protection. All traffic stays on loopback.
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/client@2.4.0";
import { tempDir } from "./_helpers.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

/** A test token, built at run time (no secret is written into the repository). */
function makeToken(who: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return ["team", who, ...Array.from(bytes, (b) => b.toString(16).padStart(2, "0"))].join("-");
}

interface Home {
  name: string;
  base: string;
  team: string;
  store: string;
  child: Deno.ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

async function startHome(
  dir: string,
  name: string,
  via: "file" | "env" = "file",
): Promise<Home> {
  const team = makeToken(name);
  const tokenFile = `${dir}/${name}.team-token`;
  await Deno.writeTextFile(tokenFile, team + "\n", { mode: 0o600 });
  const store = `${dir}/${name}-store`;
  const env = Deno.env.toObject();
  delete env.TASKPACK_TEAM_TOKEN;
  if (via === "env") env.TASKPACK_TEAM_TOKEN = team;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      CLI,
      "serve-home",
      "--store",
      store,
      "--port",
      "0",
      "--json",
      ...(via === "file" ? ["--team-token-file", tokenFile] : []),
      "--machine",
      name,
      "--actor",
      name,
    ],
    env: { ...env, NO_COLOR: "1" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const errors = child.stderr.pipeThrough(new TextDecoderStream());
  (async () => {
    for await (const chunk of errors) stderr += chunk;
  })();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve-home ended early: ${stderr}`);
    line += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  const { url } = JSON.parse(line.split("\n")[0]!);
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/, "bound to loopback by default");
  return {
    name,
    base: url,
    team,
    store,
    child,
    stderr: () => stderr,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

interface Agent {
  client: Client;
  call(tool: string, args?: Record<string, unknown>): Promise<any>;
  raw(tool: string, args?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

async function connect(
  home: Home,
  token: string = home.team,
  era: "2025" | "2026-07-28" = "2025",
): Promise<Agent> {
  const transport = new StreamableHTTPClientTransport(new URL(`${home.base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client(
    { name: `test-${home.name}`, version: "1.0.0" },
    era === "2025" ? {} : { versionNegotiation: { mode: { pin: era } } },
  );
  await client.connect(transport);
  const raw = (tool: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name: tool, arguments: args });
  return {
    client,
    raw,
    async call(tool, args = {}) {
      const result: any = await raw(tool, args);
      assert.ok(!result.isError, `${tool}: ${result.content?.[0]?.text}`);
      return result.structuredContent;
    },
    close: () => client.close(),
  };
}

Deno.test("A -> B -> A over Streamable HTTP against serve-home: tools, resources and prompts only", async () => {
  const dir = await tempDir();
  const homeA = await startHome(dir, "alice");
  const homeB = await startHome(dir, "bob");
  const A = await connect(homeA);
  const B = await connect(homeB);
  try {
    const { tools } = await A.client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      "taskpack_answer",
      "taskpack_capsule_check",
      "taskpack_checkpoint",
      "taskpack_conformance",
      "taskpack_convert",
      "taskpack_inspect",
      "taskpack_land",
      "taskpack_list",
      "taskpack_new",
      "taskpack_open",
      "taskpack_pack",
    ]);
    for (const tool of tools) {
      const props = Object.keys((tool.inputSchema as any).properties ?? {});
      for (const pathLike of ["path", "out", "files", "files_out"]) {
        assert.ok(!props.includes(pathLike), `${tool.name} takes no server path (${pathLike})`);
      }
    }

    const created = await A.call("taskpack_new", {
      title: "release plugin",
      goal: "ship the plugin",
      current_state: "build is green",
    });
    const a = created.passport_id;
    // The passport is a resource: listed, and read as its compiled context and its state.
    const listed = await A.client.listResources();
    assert.deepEqual(listed.resources.map((r) => r.uri), [`taskpack://passport/${a}`]);
    const read = await A.client.readResource({ uri: `taskpack://passport/${a}` });
    const [context, state] = read.contents as any[];
    assert.match(context.text, /ship the plugin/);
    assert.equal(JSON.parse(state.text).version, 1);

    const saved = await A.call("taskpack_checkpoint", {
      state: { ...JSON.parse(state.text), current_state: "release notes drafted" },
      expected_version: 1,
    });
    assert.equal(saved.state_version, 2);

    const sent = await A.call("taskpack_pack", {
      id: a,
      encoding: "bag",
      asks: [{ what: "cover image prompt", accept: "one prompt, 750x400" }],
      checks: [{ check: "this machine can render images" }],
    });
    assert.equal(sent.pack, `${a}.taskpack`);
    assert.deepEqual(sent.asks_recorded, ["a1"]);
    const handoff = sent.pack_base64 as string;

    // B: the prompt a person picks, then what it asks for.
    const prompt = await B.client.getPrompt({
      name: "land-and-resume",
      arguments: { pack: sent.pack },
    });
    const text = (prompt.messages[0]!.content as any).text as string;
    assert.match(text, /taskpack_inspect \(pack_base64/);
    const seen = await B.call("taskpack_inspect", { pack_base64: handoff });
    assert.equal(seen.conformant, true);
    const judged = await B.call("taskpack_conformance", { pack_base64: handoff });
    assert.equal(judged.ok, true);
    const landed = await B.call("taskpack_land", { pack_base64: handoff });
    const b = landed.passport_id;
    assert.notEqual(b, a);
    const resume = await B.client.getPrompt({ name: "resume", arguments: { id: b } });
    assert.match(
      (resume.messages[0]!.content as any).text,
      new RegExp(`Take over task passport ${b}`),
    );
    const bRead = await B.client.readResource({ uri: `taskpack://passport/${b}` });
    assert.equal(JSON.parse((bRead.contents[1] as any).text).id, b);

    await B.call("taskpack_answer", { id: b, ask_id: "a1", text: "a fox on a hill, teal" });
    const receipt = await B.call("taskpack_pack", { id: b, kind: "receipt" });
    assert.equal(receipt.encoding, "flat");
    assert.equal(receipt.answers, a);
    const receiptText = new TextDecoder().decode(
      Uint8Array.from(atob(receipt.pack_base64), (c) => c.charCodeAt(0)),
    );

    const merged = await A.call("taskpack_land", { pack_text: receiptText, into: a });
    assert.deepEqual(merged.answered, ["a1"]);
    const after = await A.client.readResource({ uri: `taskpack://passport/${a}` });
    const afterState = JSON.parse((after.contents[1] as any).text);
    assert.equal(afterState.asks[0].status, "answered");
    assert.equal(afterState.asks[0].answer, "a fox on a hill, teal");
    assert.equal(afterState.current_state, "release notes drafted", "the task is not rewritten");
  } finally {
    await A.close();
    await B.close();
    await homeA.stop();
    await homeB.stop();
  }
});

Deno.test("over HTTP, a client listening for list changes hears of a new passport, and only after a write", async () => {
  const dir = await tempDir();
  const home = await startHome(dir, "erin");
  // Listening is the 2026-07-28 protocol's; the writer may speak either.
  const A = await connect(home, home.team, "2026-07-28");
  const B = await connect(home);
  try {
    let heard = 0;
    let told: () => void = () => {};
    const toldOnce = new Promise<void>((resolve) => told = resolve);
    A.client.setNotificationHandler("notifications/resources/list_changed", () => {
      heard++;
      told();
    });
    const subscription = await A.client.listen({ resourcesListChanged: true });
    // Reading changes nothing, so nobody is told.
    await B.call("taskpack_list");
    await B.client.listResources();
    assert.equal(heard, 0, "a read sends no list_changed");
    // A write through another client's request reaches the listening one.
    await B.call("taskpack_new", { title: "heard of", goal: "be listed" });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      toldOnce,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("no list_changed")), 10_000);
      }),
    ]).finally(() => clearTimeout(timer));
    assert.ok(heard >= 1);
    await subscription.close();
  } finally {
    await A.close();
    await B.close();
    await home.stop();
  }
});

Deno.test("the team's door: GET/POST /p and /mcp answer 401 without the team token and change nothing", async () => {
  const dir = await tempDir();
  const home = await startHome(dir, "carol");
  const team = { authorization: `Bearer ${home.team}` };
  const wrong = { authorization: `Bearer ${makeToken("mallory")}` };
  try {
    for (const headers of [{}, wrong]) {
      const list = await fetch(`${home.base}/p`, { headers });
      assert.equal(list.status, 401);
      assert.match(list.headers.get("www-authenticate") ?? "", /^Bearer/);
      await list.body?.cancel();
      const create = await fetch(`${home.base}/p`, {
        method: "POST",
        headers,
        body: JSON.stringify({ state: { id: "TP-AAAA-BBBB", title: "sneaked in" } }),
      });
      assert.equal(create.status, 401);
      await create.body?.cancel();
      const mcp = await fetch(`${home.base}/mcp`, {
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      assert.equal(mcp.status, 401);
      await mcp.body?.cancel();
    }
    const entries = await Array.fromAsync(Deno.readDir(home.store)).catch(() => []);
    assert.deepEqual(entries.filter((e) => !e.name.startsWith(".")), [], "nothing was created");
    await assert.rejects(() => connect(home, makeToken("mallory")));

    // With the team token: listing and creating work; the passport's own token opens it.
    const created = await fetch(`${home.base}/p`, {
      method: "POST",
      headers: team,
      body: JSON.stringify({ state: { id: "TP-AAAA-BBBB", title: "let in" } }),
    });
    assert.equal(created.status, 201);
    const { token } = await created.json();
    const list = await fetch(`${home.base}/p`, { headers: team });
    assert.equal(list.status, 200);
    assert.deepEqual((await list.json()).passports.map((p: any) => p.passport_id ?? p.id), [
      "TP-AAAA-BBBB",
    ]);
    const one = await fetch(`${home.base}/p/TP-AAAA-BBBB`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(one.status, 200, "a per-passport token still opens its passport");
    assert.equal((await one.json()).state.title, "let in");

    // DNS rebinding: a page on another site reaches nothing.
    const rebound = await fetch(`${home.base}/p`, {
      headers: { ...team, origin: "http://evil.example.com" },
    });
    assert.equal(rebound.status, 403);
    await rebound.body?.cancel();
  } finally {
    await home.stop();
  }
});

Deno.test("the team token may come from TASKPACK_TEAM_TOKEN instead of a file", async () => {
  const dir = await tempDir();
  const home = await startHome(dir, "dave", "env");
  try {
    const without = await fetch(`${home.base}/p`);
    assert.equal(without.status, 401);
    await without.body?.cancel();
    const withIt = await fetch(`${home.base}/p`, {
      headers: { authorization: `Bearer ${home.team}` },
    });
    assert.equal(withIt.status, 200);
    await withIt.body?.cancel();
  } finally {
    await home.stop();
  }
});

Deno.test("serve-home without a team token refuses to bind beyond loopback unless --open", async () => {
  const dir = await tempDir();
  const env = Deno.env.toObject();
  delete env.TASKPACK_TEAM_TOKEN;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      CLI,
      "serve-home",
      "--store",
      `${dir}/s`,
      "--host",
      "0.0.0.0",
      "--port",
      "0",
    ],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 1);
  const err = new TextDecoder().decode(output.stderr);
  assert.match(err, /binds loopback only/);
  assert.match(err, /--team-token-file/);
  assert.equal(new TextDecoder().decode(output.stdout), "", "it never listened");
});

/** A client for an in-process handler: the SDK's HTTP transport, with no network at all. */
async function inProcess(handler: (request: Request) => Promise<Response>): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), {
    fetch: (url, init) => {
      const request = new Request(url, init);
      request.headers.set("host", new URL(url).host); // what a server sees on the wire
      return handler(request);
    },
  });
  const client = new Client({ name: "test-judge", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

Deno.test("the judge's /mcp: stateless tools on packs carried in the call, the checks as a resource, Host and Origin checked", async () => {
  const { createJudgeHandler } = await import("../serve.ts");
  const handler = createJudgeHandler({
    viewerHtml: "<!doctype html>",
    allowedHosts: ["localhost", "127.0.0.1", "[::1]"],
  });
  const client = await inProcess(handler);
  try {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      "taskpack_capsule_check",
      "taskpack_conformance",
      "taskpack_convert",
      "taskpack_inspect",
    ]);
    const bytes = await Deno.readFile(
      new URL("../testdata/interop/reference-0.3.0/handoff.taskpack", import.meta.url),
    );
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    const judged: any = await client.callTool({
      name: "taskpack_conformance",
      arguments: { pack_base64: btoa(binary) },
    });
    assert.equal(judged.structuredContent.ok, true, judged.content[0].text);
    const flat = await Deno.readTextFile(
      new URL("../testdata/interop/reference-0.3.0/handoff.taskpack.json", import.meta.url),
    );
    const seen: any = await client.callTool({
      name: "taskpack_inspect",
      arguments: { pack_text: flat },
    });
    assert.equal(seen.structuredContent.conformant, true);
    const converted: any = await client.callTool({
      name: "taskpack_convert",
      arguments: { pack_base64: btoa(binary), to: "flat" },
    });
    assert.ok(!converted.isError, converted.content[0].text);
    const back: any = await client.callTool({
      name: "taskpack_conformance",
      arguments: { pack_text: converted.structuredContent.pack_text },
    });
    assert.equal(back.structuredContent.ok, true, "the converted pack is conformant");
    assert.equal(back.structuredContent.digest, converted.structuredContent.digest);
    const bagged: any = await client.callTool({
      name: "taskpack_convert",
      arguments: { pack_text: flat, to: "bag" },
    });
    assert.match(bagged.structuredContent.pack_base64, /^UEsD/, "a zip");
    const broken: any = await client.callTool({
      name: "taskpack_conformance",
      arguments: { pack_text: "not a pack" },
    });
    assert.equal(broken.isError, undefined, "a broken file is a verdict, not an error");
    assert.equal(broken.structuredContent.ok, false);
    const neither: any = await client.callTool({ name: "taskpack_inspect", arguments: {} });
    assert.equal(neither.isError, true);
    assert.match(neither.content[0].text, /exactly one of pack_base64 or pack_text/);
    const capsule: any = await client.callTool({
      name: "taskpack_capsule_check",
      arguments: { capsule_text: "{}" },
    });
    assert.equal(capsule.structuredContent.ok, false);
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ["taskpack://spec/checks"]);
    const checks = await client.readResource({ uri: "taskpack://spec/checks" });
    assert.match((checks.contents[0] as any).text, /"C10"/);
    assert.deepEqual((await client.listPrompts()).prompts.map((p) => p.name), ["judge-pack"]);
  } finally {
    await client.close();
  }
  for (const headers of [{ host: "evil.example.com" }, { origin: "http://evil.example.com" }]) {
    const refused = await handler(
      new Request("http://127.0.0.1/conformance", { method: "POST", headers, body: "x" }),
    );
    assert.equal(refused.status, 403, JSON.stringify(headers));
  }
});

Deno.test("taskpack mcp --http: one store at /mcp on loopback, the local tools, Host checked", async () => {
  const dir = await tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "mcp", "--http", "--port", "0", "--store", `${dir}/s`, "--json"],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("mcp --http ended early");
      line += value;
    }
    reader.releaseLock();
    child.stdout.cancel().catch(() => {});
    const { url } = JSON.parse(line.split("\n")[0]!);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: "test-local", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(tools.includes("taskpack_pack") && tools.includes("taskpack_land"));
      const made: any = await client.callTool({
        name: "taskpack_new",
        arguments: { title: "local", goal: "g" },
      });
      const id = made.structuredContent.passport_id;
      const read = await client.readResource({ uri: `taskpack://passport/${id}` });
      assert.equal(JSON.parse((read.contents[1] as any).text).title, "local");
    } finally {
      await client.close();
    }
    const rebound = await fetch(url, {
      method: "POST",
      headers: { origin: "http://evil.example.com", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(rebound.status, 403);
    await rebound.body?.cancel();
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
});
