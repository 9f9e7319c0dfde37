// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- tool results are checked field by field
// `taskpack mcp` end to end: the SDK's own Client over stdio, spawning `deno run -A cli.ts mcp`.
// Every step of the A -> B -> A flow goes through tool calls; bad arguments come back as
// isError results with one sentence; stdout carries JSON-RPC and nothing else.
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { REFERENCE_DIR, REFERENCE_FILES, tempDir } from "./_helpers.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const REFERENCE = new URL("handoff.taskpack", REFERENCE_DIR).pathname;

const TOOLS = {
  taskpack_list: { readOnlyHint: true, idempotentHint: true },
  taskpack_open: { readOnlyHint: true, idempotentHint: true },
  taskpack_conformance: { readOnlyHint: true, idempotentHint: true },
  taskpack_inspect: { readOnlyHint: true, idempotentHint: true },
  taskpack_new: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  taskpack_checkpoint: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  taskpack_pack: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  taskpack_land: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  taskpack_answer: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
} as const;

/** One machine: a server of its own, on its own store, under its own name. */
interface Machine {
  name: string;
  store: string;
  client: Client;
  errors: Error[];
  stderr: () => string;
  /** Calls a tool and insists it succeeded; returns its structuredContent. */
  call(tool: string, args?: Record<string, unknown>): Promise<any>;
  /** Calls a tool and returns the raw result. */
  raw(tool: string, args?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

async function machine(
  cwd: string,
  name: string,
  clientOptions: ConstructorParameters<typeof Client>[1] = {},
  env: Record<string, string> = {},
): Promise<Machine> {
  const store = `${cwd}/${name}-store`;
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", CLI, "mcp", "--store", store, "--machine", name, "--actor", name],
    cwd,
    env: { ...Deno.env.toObject(), NO_COLOR: "1", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: `test-${name}`, version: "1.0.0" }, clientOptions);
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  const raw = (tool: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name: tool, arguments: args });
  return {
    name,
    store,
    client,
    errors,
    stderr: () => stderr,
    raw,
    async call(tool, args = {}) {
      const result: any = await raw(tool, args);
      assert.ok(!result.isError, `${tool}: ${result.content?.[0]?.text}`);
      assert.equal(result.content[0].type, "text");
      assert.deepEqual(
        JSON.parse(result.content.at(-1).text),
        result.structuredContent,
        "the JSON is also given as text",
      );
      return result.structuredContent;
    },
    close: () => client.close(),
  };
}

/** An isError result whose message is one sentence (one line, no stack, no usage dump). */
function assertOneSentenceError(result: any, pattern: RegExp): void {
  assert.equal(result.isError, true, JSON.stringify(result));
  const text: string = result.content[0].text;
  // No structured content: a validating client checks it against the tool's output schema,
  // which describes a result, not a refusal.
  assert.equal(result.structuredContent, undefined, "an error carries no structured content");
  assert.match(text, pattern);
  assert.ok(!text.includes("\n"), `one line: ${text}`);
  assert.ok(!/\bat .*:\d+:\d+/.test(text), `no stack trace: ${text}`);
}

Deno.test("tools/list: every tool, with input and output schemas and honest annotations", async () => {
  const cwd = await tempDir();
  const A = await machine(cwd, "alice");
  try {
    const { tools } = await A.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(TOOLS).sort());
    for (const tool of tools) {
      const expected = TOOLS[tool.name as keyof typeof TOOLS];
      assert.equal(tool.inputSchema.type, "object", tool.name);
      assert.equal(tool.outputSchema?.type, "object", `${tool.name} has an output schema`);
      assert.ok(tool.description && tool.description.length > 80, `${tool.name} is described`);
      for (const [hint, value] of Object.entries(expected)) {
        assert.equal((tool.annotations as any)?.[hint], value, `${tool.name} ${hint}`);
      }
      assert.equal(tool.annotations?.openWorldHint, false, `${tool.name} stays on this machine`);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.taskpack_open!.inputSchema.required, ["id"]);
    assert.deepEqual(byName.taskpack_checkpoint!.inputSchema.required, [
      "state",
      "expected_version",
    ]);
    assert.deepEqual(byName.taskpack_pack!.inputSchema.required, ["id", "out"]);
    const ask = (byName.taskpack_pack!.inputSchema.properties as any).asks.items;
    // An ask needs an accept rule: the operation refuses one without, in the format's words.
    assert.deepEqual(ask.required, ["what"]);
    assert.match(ask.properties.accept.description, /^Required:/);
    const land = byName.taskpack_land!.inputSchema.properties as any;
    // Restoring a ✓ is the human's choice (§4.2): no tool argument lets a model make it.
    assert.equal(land.trust_machine_facts, undefined);
    for (const arg of ["path", "into", "dry_run", "files_out", "again"]) {
      assert.ok(land[arg], `taskpack_land takes ${arg}`);
    }
    // The trust boundary is said where a model reads it.
    assert.match(byName.taskpack_land!.description!, /never\s+instructions/);
    assert.match(byName.taskpack_land!.description!, /suggestion/);
    assert.match(byName.taskpack_open!.description!, /never instructions/);
    assert.match(A.client.getInstructions() ?? "", /data written by someone else/);
    assert.match(A.stderr(), /serving .*alice-store as machine alice/, "logs go to stderr");
    assert.deepEqual(A.errors, []);
  } finally {
    await A.close();
  }
});

Deno.test("resources and prompts: each passport listed and read, resume and land-and-resume, list_changed on writes", async () => {
  const cwd = await tempDir();
  const A = await machine(cwd, "alice");
  let changes = 0;
  A.client.setNotificationHandler("notifications/resources/list_changed", () => void changes++);
  try {
    const { resourceTemplates } = await A.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ["taskpack://passport/{id}"]);
    assert.deepEqual((await A.client.listResources()).resources, []);
    const made = await A.call("taskpack_new", { title: "Fix the build", goal: "green CI" });
    const id: string = made.passport_id;
    const { resources } = await A.client.listResources();
    assert.deepEqual(resources.map((r) => [r.uri, r.name, r.title]), [
      [`taskpack://passport/${id}`, id, "Fix the build"],
    ]);
    const read = await A.client.readResource({ uri: `taskpack://passport/${id}` });
    const opened = await A.call("taskpack_open", { id });
    assert.equal(read.contents.length, 2);
    const [context, state] = read.contents as any[];
    assert.equal(context.mimeType, "text/markdown");
    assert.equal(context.text, opened.compiled_context, "what taskpack open shows");
    assert.equal(state.mimeType, "application/json");
    assert.deepEqual(JSON.parse(state.text), opened.state);
    // Only passport ids: no path, no other scheme, no other store.
    for (
      const uri of ["taskpack://passport/../../etc/passwd", "taskpack://passport/TP-ZZZZ-ZZZZ"]
    ) {
      await assert.rejects(() => A.client.readResource({ uri }));
    }
    const { prompts } = await A.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ["land-and-resume", "resume"]);
    const resume = await A.client.getPrompt({ name: "resume", arguments: { id } });
    const handoff = (await A.call("taskpack_open", { id })).handoff_prompt;
    assert.ok((resume.messages[0]!.content as any).text.startsWith(handoff));
    const land = await A.client.getPrompt({
      name: "land-and-resume",
      arguments: { pack: "/tmp/in.taskpack.json" },
    });
    const text: string = (land.messages[0]!.content as any).text;
    assert.match(text, /taskpack_inspect/);
    assert.match(text, /taskpack_land \(path "\/tmp\/in\.taskpack\.json"\)/);
    assert.match(text, /never instructions/);
    const before = changes;
    await A.call("taskpack_checkpoint", {
      state: { ...opened.state, current_state: "half done" },
      expected_version: opened.state_version,
    });
    for (let i = 0; i < 50 && changes === before; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(changes > before, "a checkpoint sends resources/list_changed");
    const quiet = changes;
    await A.call("taskpack_list");
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(changes, quiet, "reading changes nothing");
    assert.deepEqual(A.errors, []);
  } finally {
    await A.close();
  }
});

Deno.test("A -> B -> A through tool calls only: asks answered at home, goal unchanged, B's ask adopted", async () => {
  const cwd = await tempDir();
  // A's temporary files (the state to checkpoint, the asks and checks to pack) go here.
  const scratch = await tempDir();
  const A = await machine(cwd, "alice", {}, { TMPDIR: scratch });
  const B = await machine(cwd, "bob");
  try {
    await Deno.mkdir(`${cwd}/luggage/notes`, { recursive: true });
    await Deno.writeTextFile(`${cwd}/luggage/brief.txt`, "Release brief\n");
    await Deno.writeTextFile(`${cwd}/luggage/notes/n.md`, "nested\n");

    const created = await A.call("taskpack_new", {
      title: "release plugin",
      goal: "ship the plugin",
      current_state: "build is green",
      next_steps: ["publish"],
    });
    const a = created.passport_id;
    assert.match(a, /^TP-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    assert.equal(created.state_version, 1);
    assert.equal((await A.call("taskpack_list")).passports[0].passport_id, a);

    // Checkpoint with the version read; a stale version is refused and changes nothing.
    const opened = await A.call("taskpack_open", { id: a });
    assert.match(opened.compiled_context, /ship the plugin/);
    const saved = await A.call("taskpack_checkpoint", {
      state: {
        ...opened.state,
        facts: [{ claim: "node 20 is at /usr/bin/node", scope: "machine", verified: true }],
      },
      expected_version: opened.state_version,
    });
    assert.equal(saved.state_version, 2);
    const stale = await A.raw("taskpack_checkpoint", {
      state: { ...opened.state, current_state: "overwritten?" },
      expected_version: opened.state_version,
    });
    assertOneSentenceError(stale, /version/i);
    assert.equal((await A.call("taskpack_open", { id: a })).state.current_state, "build is green");

    const sent = await A.call("taskpack_pack", {
      id: a,
      out: `${cwd}/handoff.taskpack`,
      files: [`${cwd}/luggage`],
      asks: [{
        what: "cover image prompt",
        accept: "one prompt covering 750x400 and the palette",
        why: "we render it here",
      }],
      checks: [{ check: "this machine can render images", how: "run the image tool once" }],
    });
    assert.equal(sent.encoding, "bag");
    assert.deepEqual(sent.asks_recorded, ["a1"]);
    assert.equal(sent.sealed_facts, 1, "the machine-scoped fact travels sealed");
    const home = (await A.call("taskpack_open", { id: a })).state;
    assert.equal(home.asks[0].status, "open", "the sent ask is recorded at home (§4.3)");
    const before = {
      goal: home.goal,
      current_state: home.current_state,
      next_steps: home.next_steps,
    };

    const seen = await B.call("taskpack_inspect", { path: `${cwd}/handoff.taskpack` });
    assert.equal(seen.conformant, true);
    assert.equal(seen.landing_checks[0].how_is_senders_suggestion, true);
    assert.equal(seen.facts[0].state, "sealed");

    const landed = await B.call("taskpack_land", { path: `${cwd}/handoff.taskpack` });
    const b = landed.passport_id;
    // Agents retry: the same pack twice more gives the same passport, and no second one.
    for (let i = 0; i < 2; i++) {
      const again = await B.call("taskpack_land", { path: `${cwd}/handoff.taskpack` });
      assert.equal(again.already_landed, true);
      assert.equal(again.passport_id, b);
    }
    assert.equal((await B.call("taskpack_list")).count, 1, "one passport for three landings");
    assert.notEqual(b, a, "the receiver mints a new id (§3.1)");
    assert.equal(landed.landing_checks_required, 1);
    assert.equal(landed.needs_reverify, 1);
    assert.deepEqual(landed.instructions_found, []);
    assert.equal(
      await Deno.readTextFile(`${landed.luggage_dir}/luggage/notes/n.md`),
      "nested\n",
      "luggage lands, folders keep their shape",
    );
    const bState = (await B.call("taskpack_open", { id: b })).state;
    assert.deepEqual(bState.lineage, landed.lineage, "lineage kept on the landed passport");
    assert.match(bState.next_steps[0], /^Landing check c1 \(required\)/, "checks first (§4.4)");

    await B.call("taskpack_answer", { id: b, ask_id: "a1", text: "a fox on a hill, teal" });
    const answeredB = await B.call("taskpack_open", { id: b });
    assert.ok(
      !answeredB.state.next_steps.some((s: string) => s.startsWith("Answer ask a1")),
      "an answered ask leaves the next steps",
    );
    const receipt = await B.call("taskpack_pack", {
      id: b,
      kind: "receipt",
      out: `${cwd}/receipt.taskpack.json`,
      asks: [{ what: "which registry do we publish to?", accept: "the registry URL" }],
    });
    assert.equal(receipt.encoding, "flat");
    assert.equal(receipt.answers, a, "the receipt answers the passport B was landed from");

    // A receipt is not landed as a new passport: the sentence says where it belongs.
    assertOneSentenceError(
      await A.raw("taskpack_land", { path: `${cwd}/receipt.taskpack.json` }),
      new RegExp(`--into ${a}`),
    );
    const preview = await A.call("taskpack_land", {
      path: `${cwd}/receipt.taskpack.json`,
      into: a,
      dry_run: true,
    });
    assert.equal(preview.dry_run, true);
    assert.equal((await A.call("taskpack_open", { id: a })).state.asks[0].status, "open");

    const merged = await A.call("taskpack_land", {
      path: `${cwd}/receipt.taskpack.json`,
      into: a,
    });
    assert.deepEqual(merged.answered, ["a1"]);
    assert.deepEqual(merged.adopted_asks, ["a2"]);
    const remerged = await A.call("taskpack_land", {
      path: `${cwd}/receipt.taskpack.json`,
      into: a,
    });
    assert.equal(remerged.already_landed, true, "a receipt merged twice says so");
    const reopened = await A.call("taskpack_open", { id: a });
    // The answer that came home is in what the resuming model reads.
    assert.match(
      reopened.compiled_context,
      /Answered asks[^\n]*\n- a1: cover image prompt — answer: a fox on a hill, teal \(by bob@bob, /,
    );
    const after = reopened.state;
    const a1 = after.asks.find((ask: { id: string }) => ask.id === "a1");
    assert.equal(a1.status, "answered");
    assert.equal(a1.answer, "a fox on a hill, teal");
    assert.equal(a1.answered_by, "bob@bob");
    assert.deepEqual(
      { goal: after.goal, current_state: after.current_state, next_steps: after.next_steps },
      before,
      "an answer is not a licence to rewrite the task (§4.4.1)",
    );
    const a2 = after.asks.find((ask: { id: string }) => ask.id === "a2");
    assert.equal(a2.status, "open", "B's new ask is open in A");
    assert.equal(a2.what, "which registry do we publish to?");
    assert.deepEqual([...Deno.readDirSync(scratch)], [], "temporary files are removed");
    assert.deepEqual([...A.errors, ...B.errors], []);
  } finally {
    await A.close();
    await B.close();
  }
});

Deno.test("conformance: a reference pack is ok, a broken file is a report with ok: false, not an error", async () => {
  const cwd = await tempDir();
  const A = await machine(cwd, "alice");
  try {
    const good = await A.raw("taskpack_conformance", { path: REFERENCE });
    assert.ok(!good.isError);
    assert.equal(good.structuredContent.ok, true);
    assert.equal(good.structuredContent.checks.length, 11);
    assert.match(good.content[0].text, /^Conformant/);

    const bytes = await Deno.readFile(REFERENCE);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    await Deno.writeFile(`${cwd}/broken.taskpack`, bytes);
    await Deno.writeTextFile(`${cwd}/not-a-pack.taskpack.json`, "hello\n");
    for (const name of ["broken.taskpack", "not-a-pack.taskpack.json"]) {
      const bad = await A.raw("taskpack_conformance", { path: `${cwd}/${name}` });
      assert.ok(!bad.isError, `${name}: not conformant is a verdict, not an error`);
      assert.equal(bad.structuredContent.ok, false, name);
      assert.ok(bad.structuredContent.checks.some((c: { ok: boolean }) => !c.ok), name);
      assert.match(bad.content[0].text, /^NOT conformant: fails C\d/);
    }
    // A file that is not there is an error: there is nothing to judge.
    assertOneSentenceError(
      await A.raw("taskpack_conformance", { path: `${cwd}/missing.taskpack` }),
      /No such file/,
    );
    assert.deepEqual(A.errors, []);
  } finally {
    await A.close();
  }
});

Deno.test("every hostile and reference file: a verdict from conformance, a clean result or one sentence from inspect and land", async () => {
  const cwd = await tempDir();
  const A = await machine(cwd, "alice");
  const corpus = new URL("../testdata/hostile/", import.meta.url).pathname;
  const expected: Record<string, { file: string; judge: string[]; land: string }> = JSON.parse(
    await Deno.readTextFile(`${corpus}expected.json`),
  );
  const files: { path: string; conformant: boolean; lands: boolean; reason?: string }[] = [
    ...REFERENCE_FILES.map((name) => ({
      path: new URL(name, REFERENCE_DIR).pathname,
      conformant: true,
      // A receipt is merged into the passport it answers, never landed as a new one.
      lands: !name.startsWith("receipt"),
    })),
    ...Object.values(expected).map((c) => ({
      path: `${corpus}${c.file}`,
      conformant: c.judge.length === 0,
      lands: c.land === "accept",
      reason: c.land,
    })),
  ];
  try {
    for (const { path, conformant, lands, reason } of files) {
      const judged = await A.raw("taskpack_conformance", { path });
      assert.ok(!judged.isError, `${path}: ${judged.content[0].text}`);
      assert.equal(judged.structuredContent.ok, conformant, path);
      const inspected = await A.raw("taskpack_inspect", { path });
      if (inspected.isError) assertOneSentenceError(inspected, /^(?!Output validation)/);
      const landed = await A.raw("taskpack_land", { path, dry_run: true });
      if (landed.isError) assertOneSentenceError(landed, /^(?!Output validation)/);
      assert.equal(!landed.isError, lands, `${path}: ${landed.content[0].text}`);
      if (landed.isError && reason) {
        const text: string = landed.content[0].text;
        assert.ok(text.endsWith(`[${reason}]`) || text.endsWith(`(rule: ${reason})`), path);
      }
    }
    assert.equal((await A.call("taskpack_list")).count, 0, "dry runs write nothing");
    assert.deepEqual(A.errors, []);
  } finally {
    await A.close();
  }
});

Deno.test("a refused landing is isError with the sentence and its reason code, and no structured content", async () => {
  const cwd = await tempDir();
  const A = await machine(cwd, "alice");
  const tampered = new URL(
    "../testdata/hostile/bagit/manifest-wrong-digest.taskpack",
    import.meta.url,
  ).pathname;
  try {
    const landed = await A.raw("taskpack_land", { path: tampered });
    assert.equal(landed.isError, true);
    assert.equal(landed.content.length, 1);
    assert.equal(landed.content[0].type, "text");
    const error: string = landed.content[0].text;
    assert.ok(error.length > 0 && !error.includes("\n"), error);
    // The sentence, then the stable code a model can branch on.
    assert.match(error, /does not match its manifest digest .* \[bag-digest\]$/);
    assert.equal(landed.structuredContent, undefined);
    assert.equal((await A.call("taskpack_list")).count, 0, "nothing landed");
    assert.deepEqual(A.errors, []);
  } finally {
    await A.close();
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("bad arguments give isError results with one sentence, and change nothing", async () => {
  const cwd = await tempDir();
  const A = await machine(cwd, "alice");
  try {
    const id = (await A.call("taskpack_new", { title: "t", goal: "g" })).passport_id;
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["taskpack_open", {}, /id/],
      ["taskpack_new", { title: "t" }, /goal/],
      ["taskpack_new", { title: 3, goal: "g" }, /title.*expected string/],
      ["taskpack_checkpoint", { state: { id }, expected_version: "1" }, /expected_version/],
      ["taskpack_open", { id: "not-an-id" }, /id/],
      ["taskpack_open", { id, extra: true }, /extra/],
      ["taskpack_pack", { id, out: `${cwd}/x.zip` }, /out/],
      ["taskpack_pack", { id, out: `${cwd}/x.taskpack`, asks: [{ what: "q" }] }, /accept/],
      ["taskpack_open", { id: "TP-AAAA-BBBB" }, /No passport TP-AAAA-BBBB/],
      ["taskpack_answer", { id, ask_id: "a9", text: "x" }, /no ask "a9"/],
      ["taskpack_land", { path: `${cwd}/missing.taskpack` }, /No such file/],
      ["taskpack_checkpoint", { state: { id }, expected_version: 7 }, /version/i],
    ];
    for (const [tool, args, pattern] of cases) {
      assertOneSentenceError(await A.raw(tool, args), pattern);
    }
    const state = (await A.call("taskpack_open", { id })).state;
    assert.equal(state.version, 1, "nothing was saved");
    assert.equal(state.goal, "g");
    assert.equal((await A.call("taskpack_list")).count, 1, "nothing was created");
    assert.deepEqual(A.errors, []);
  } finally {
    await A.close();
  }
});

Deno.test("the 2026-07-28 protocol era is served too", async () => {
  const cwd = await tempDir();
  const A = await machine(cwd, "alice", { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  try {
    const { tools } = await A.client.listTools();
    assert.equal(tools.length, Object.keys(TOOLS).length);
    const report = await A.call("taskpack_conformance", { path: REFERENCE });
    assert.equal(report.ok, true);
    assert.deepEqual(A.errors, []);
  } finally {
    await A.close();
  }
});

/** What every raw client writes first: initialize, then initialized. */
const OPENING = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
];

Deno.test("stdout carries JSON-RPC and nothing else; the server exits when stdin closes", async () => {
  const cwd = await tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "mcp", "--store", `${cwd}/store`, "--machine", "m"],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const call = (id: number, name: string, args: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const messages = [
    ...OPENING,
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
    call(3, "taskpack_new", { title: "t", goal: "g" }),
    call(4, "taskpack_list", {}),
    call(5, "taskpack_open", { id: "TP-AAAA-BBBB" }),
    call(6, "taskpack_conformance", { path: REFERENCE }),
    call(7, "taskpack_inspect", { path: REFERENCE }),
    call(8, "taskpack_land", { path: REFERENCE, dry_run: true }),
    call(9, "taskpack_new", { title: 1 }),
  ];
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  const send = (batch: unknown[]) =>
    writer.write(new TextEncoder().encode(batch.map((m) => JSON.stringify(m) + "\n").join("")));
  // Every line stdout carries, read as it comes.
  const lines: string[] = [];
  let pending = "";
  const reading = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      const parts = (pending + chunk).split("\n");
      pending = parts.pop()!;
      lines.push(...parts.filter(Boolean));
    }
    if (pending) lines.push(pending);
  })();
  const answered = async (id: number) => {
    const deadline = Date.now() + 30_000;
    while (!lines.some((line) => line.includes(`"id":${id}`))) {
      assert.ok(Date.now() < deadline, `no answer to request ${id}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await send(messages.slice(0, 4));
  await answered(3);
  await send(messages.slice(4));
  for (let id = 4; id <= 9; id++) await answered(id);
  await writer.close();
  const status = await child.status;
  await reading;
  const err = await stderr;
  assert.equal(status.code, 0, err);
  const replies = lines.map((line) => {
    let message: any;
    assert.doesNotThrow(() => message = JSON.parse(line), `not JSON-RPC on stdout: ${line}`);
    assert.equal(message.jsonrpc, "2.0", line);
    return message;
  });
  const ids = replies.map((m) => m.id).filter((id) => id !== undefined).sort((x, y) => x - y);
  assert.deepEqual(ids, [1, 2, 3, 4, 5, 6, 7, 8, 9], "every request was answered");
  assert.ok(replies.find((m) => m.id === 5).result.isError);
  assert.ok(replies.find((m) => m.id === 9).result.isError);
  assert.equal(replies.find((m) => m.id === 6).result.structuredContent.ok, true);
  assert.match(err, /serving .*store as machine m over stdio/);
});

/** Starts `taskpack mcp`, writes `messages`, then closes stdin or (after `signalAfter`) SIGTERMs. */
async function oneShot(
  store: string,
  messages: unknown[],
  signalAfter?: RegExp,
): Promise<{ code: number; ids: unknown[]; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "mcp", "--store", store, "--machine", "m"],
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  await writer.write(
    new TextEncoder().encode(messages.map((m) => JSON.stringify(m) + "\n").join("")),
  );
  let out = "";
  if (signalAfter) {
    // Keep stdin open; SIGTERM once the server has read the requests and started on them.
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    while (!signalAfter.test(out)) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    child.kill("SIGTERM");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    await writer.close().catch(() => {});
  } else {
    await writer.close();
    out = await new Response(child.stdout).text();
  }
  const { code } = await child.status;
  const ids = out.split("\n").filter(Boolean).map((line) => JSON.parse(line).id);
  return { code, ids, stderr: await stderr };
}

Deno.test("a client that writes its requests and closes stdin gets every answer (50 runs)", async () => {
  const cwd = await tempDir();
  const messages = [...OPENING, {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "taskpack_inspect", arguments: { path: REFERENCE } },
  }];
  const runs = Array.from({ length: 50 }, (_, i) => i);
  const failures: string[] = [];
  // A few at a time: the machine's cores are shared.
  for (let i = 0; i < runs.length; i += 5) {
    const batch = await Promise.all(
      runs.slice(i, i + 5).map(() => oneShot(`${cwd}/store`, messages)),
    );
    for (const { code, ids, stderr } of batch) {
      if (code !== 0 || JSON.stringify(ids) !== "[1,2]") {
        failures.push(`exit ${code}, answered ${JSON.stringify(ids)}: ${stderr.slice(-200)}`);
      }
    }
  }
  assert.deepEqual(failures, []);
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("on SIGTERM the server answers the calls it has read, then exits 0", async () => {
  const cwd = await tempDir();
  const messages = [
    ...OPENING,
    ...[2, 3, 4].map((id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "taskpack_conformance", arguments: { path: REFERENCE } },
    })),
  ];
  // The initialize answer proves the server is reading; the calls are in flight behind it.
  const { code, ids, stderr } = await oneShot(`${cwd}/store`, messages, /"id":1\b/);
  assert.deepEqual([...ids].sort(), [1, 2, 3, 4], stderr);
  assert.equal(code, 0, stderr);
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("requests read but never answered (stdout gone) make the server exit non-zero", async () => {
  const cwd = await tempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "mcp", "--store", `${cwd}/store`, "--machine", "m"],
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  // The client stops reading before it asks: no answer can be written.
  await child.stdout.cancel();
  const writer = child.stdin.getWriter();
  const call = {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "taskpack_conformance", arguments: { path: REFERENCE } },
  };
  await writer.write(
    new TextEncoder().encode([...OPENING, call].map((m) => JSON.stringify(m) + "\n").join("")),
  );
  await writer.close();
  const { code } = await child.status;
  const err = await stderr;
  assert.notEqual(code, 0, err);
  // Both the initialize and the call were read; neither was answered.
  assert.match(err, /\b2 request\(s\) read but not answered before exit/);
  await Deno.remove(cwd, { recursive: true });
});
