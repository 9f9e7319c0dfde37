// Copyright 2026 the taskpack authors. MIT license.
// The HTTP conformance judge over real HTTP on 127.0.0.1: start, request, stop.
import assert from "node:assert/strict";
import { AgentCard } from "@a2a-js/sdk";
import { createJudgeHandler, DEFAULT_MAX_BODY_BYTES, type JudgeHandlerOptions } from "../serve.ts";
import { type Report, TASKPACK_A2A_EXTENSION_URI } from "../mod.ts";
import { readReference, REFERENCE_FILES } from "./_helpers.ts";

/** A reference pack's bytes, as a fetch body. */
async function reference(name: string): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await readReference(name));
}

/** Runs `fn` against a judge listening on a free port of 127.0.0.1, then stops it. */
async function withJudge(
  options: JudgeHandlerOptions,
  fn: (origin: string) => Promise<void>,
): Promise<void> {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    createJudgeHandler(options),
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

async function post(origin: string, path: string, body: BodyInit, headers: HeadersInit = {}) {
  const response = await fetch(`${origin}${path}`, { method: "POST", body, headers });
  return { response, json: await response.json() };
}

Deno.test("POST /conformance: every reference pack is conformant (200)", async () => {
  await withJudge({}, async (origin) => {
    for (const name of REFERENCE_FILES) {
      const { response, json } = await post(origin, "/conformance", await reference(name));
      assert.equal(response.status, 200, name);
      assert.match(response.headers.get("content-type")!, /^application\/json/);
      const report = json as Report;
      assert.equal(report.ok, true, `${name}: ${JSON.stringify(report.checks)}`);
      assert.equal(report.passed, 11);
      assert.equal(report.encoding, name.endsWith(".json") ? "flat" : "bag");
      assert.match(report.digest!, /^[0-9a-f]{64}$/);
    }
  });
});

Deno.test("POST /conformance: a broken pack is judged ok:false, still 200", async () => {
  const flat = JSON.parse(new TextDecoder().decode(await reference("handoff.taskpack.json")));
  flat.passport.passport.facts[2].verified = true; // a machine fact crossing with a ✓
  delete flat.passport.packed_at;
  await withJudge({}, async (origin) => {
    const { response, json } = await post(
      origin,
      "/conformance",
      JSON.stringify(flat, null, 2) + "\n",
      { "content-type": "application/vnd.taskpack+json" },
    );
    assert.equal(response.status, 200);
    const report = json as Report;
    assert.equal(report.ok, false);
    const failed = report.checks.filter((c) => !c.ok).map((c) => c.id);
    assert.ok(failed.includes("C6") && failed.includes("C10"), failed.join());
  });
});

Deno.test("POST /conformance: a body that is no pack gets 400 with a report", async () => {
  await withJudge({}, async (origin) => {
    for (const body of ["hello, judge", "", '{"not":"a pack"}', "PK\u0003\u0004 truncated"]) {
      const { response, json } = await post(origin, "/conformance", body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match(json.error, /^The body is not a TaskPack that can be read: /);
      assert.equal(json.report.ok, false);
      assert.equal(json.report.checks.length, 11);
    }
  });
});

Deno.test("POST over the size limit gets 413, by Content-Length or by counting", async () => {
  const limit = 4096;
  const big = new Uint8Array(limit + 1).fill(0x20);
  await withJudge({ maxBodyBytes: limit }, async (origin) => {
    for (const path of ["/conformance", "/inspect"]) {
      // Content-Length declared up front.
      const declared = await post(origin, path, big);
      assert.equal(declared.response.status, 413);
      assert.equal(declared.json.limit, limit);
      assert.match(declared.json.error, /over the 4096-byte limit/);
      // No length declared: a stream, counted while reading.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(1024));
          controller.close();
        },
      });
      const counted = await post(origin, path, stream);
      assert.equal(counted.response.status, 413);
    }
    // At the limit exactly, the body is read (and judged).
    const { response } = await post(origin, "/conformance", big.subarray(0, limit));
    assert.equal(response.status, 400);
  });
  assert.equal(DEFAULT_MAX_BODY_BYTES, 64 * 1024 * 1024);
});

Deno.test("POST /inspect returns the contents summary, as `inspect --json`", async () => {
  await withJudge({}, async (origin) => {
    const { response, json } = await post(
      origin,
      "/inspect",
      await reference("handoff.taskpack"),
      { "content-type": "application/vnd.taskpack+zip" },
    );
    assert.equal(response.status, 200);
    assert.equal(json.conformant, true);
    assert.equal(json.encoding, "bag");
    assert.equal(json.passport.goal, "ship the plugin tonight");
    assert.equal(json.facts.length, 5);
    assert.equal(json.facts.filter((f: { state: string }) => f.state === "sealed").length, 3);
    assert.equal(json.asks[0].accept, "one prompt that covers 750x400 and the palette");
    assert.equal(json.landing_checks[0].how_is_senders_suggestion, true);
    assert.deepEqual(json.luggage.map((f: { name: string }) => f.name), [
      "brief.txt",
      "notes/deep/n.md",
      "blob.bin",
    ]);
    const junk = await post(origin, "/inspect", "not a pack");
    assert.equal(junk.response.status, 400);
    assert.equal(junk.json.report.ok, false);
  });
});

Deno.test("GET /.well-known/agent-card.json declares the extension; the header is echoed only when asked", async () => {
  await withJudge({}, async (origin) => {
    const url = `${origin}/.well-known/agent-card.json`;
    const plain = await fetch(url);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get("a2a-extensions"), null);
    assert.match(plain.headers.get("vary")!, /A2A-Extensions/i);
    const card = await plain.json();
    const extension = card.capabilities.extensions.find((e: { uri: string }) =>
      e.uri === TASKPACK_A2A_EXTENSION_URI
    );
    assert.equal(extension.required, false);
    assert.deepEqual(extension.params.media_types, [
      "application/vnd.taskpack+zip",
      "application/vnd.taskpack+json",
    ]);
    assert.deepEqual(extension.params.file_endings, [".taskpack", ".taskpack.json"]);
    assert.equal(extension.params.max_inline_attachment_bytes, 1_048_576);
    // The official A2A 1.0 codec reads it (and writes back all but proto3 defaults).
    const back = AgentCard.toJSON(AgentCard.fromJSON(card)) as typeof card;
    assert.equal(back.name, card.name);
    assert.equal(back.capabilities.extensions[0].uri, TASKPACK_A2A_EXTENSION_URI);
    assert.deepEqual(back.skills, card.skills);

    const asked = await fetch(url, {
      headers: { "A2A-Extensions": `https://example.com/other/v1, ${TASKPACK_A2A_EXTENSION_URI}` },
    });
    assert.equal(asked.headers.get("a2a-extensions"), TASKPACK_A2A_EXTENSION_URI);
    await asked.body?.cancel();
    const other = await fetch(url, {
      headers: { "A2A-Extensions": "https://example.com/other/v1" },
    });
    assert.equal(other.headers.get("a2a-extensions"), null);
    await other.body?.cancel();

    // Negotiation holds on the judge's other answers too.
    const judged = await fetch(`${origin}/conformance`, {
      method: "POST",
      body: await reference("minimal.taskpack"),
      headers: { "A2A-Extensions": TASKPACK_A2A_EXTENSION_URI },
    });
    assert.equal(judged.headers.get("a2a-extensions"), TASKPACK_A2A_EXTENSION_URI);
    assert.equal((await judged.json()).ok, true);
  });
});

Deno.test("a card given to the judge keeps its fields and gains the extension once", async () => {
  const agentCard = {
    name: "release bot",
    capabilities: { extensions: [{ uri: TASKPACK_A2A_EXTENSION_URI, description: "ours" }] },
  };
  await withJudge({ agentCard }, async (origin) => {
    const card = await (await fetch(`${origin}/.well-known/agent-card.json`)).json();
    assert.equal(card.name, "release bot");
    assert.deepEqual(card.capabilities.extensions, agentCard.capabilities.extensions);
  });
});

Deno.test("GET / serves the viewer page; unknown paths 404, wrong methods 405", async () => {
  const page = await Deno.readTextFile(new URL("../web/viewer.html", import.meta.url));
  await withJudge({}, async (origin) => {
    const response = await fetch(`${origin}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type")!, /^text\/html/);
    assert.match(response.headers.get("content-security-policy")!, /default-src 'none'/);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(await response.text(), page);

    const head = await fetch(`${origin}/`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");

    for (
      const [method, path, status] of [
        ["GET", "/nope", 404],
        ["POST", "/nope", 404],
        ["GET", "/conformance/extra", 404],
        ["GET", "/conformance", 405],
        ["PUT", "/inspect", 405],
        ["POST", "/", 405],
        ["DELETE", "/.well-known/agent-card.json", 405],
      ] as const
    ) {
      const answer = await fetch(`${origin}${path}`, { method });
      assert.equal(answer.status, status, `${method} ${path}`);
      const json = await answer.json();
      assert.equal(typeof json.error, "string");
      if (status === 405) assert.ok(answer.headers.get("allow"), `${method} ${path}: Allow`);
    }
  });
  // Without a viewer, GET / says so instead of failing.
  await withJudge({ viewerHtml: () => Promise.reject(new Error("gone")) }, async (origin) => {
    const response = await fetch(`${origin}/`);
    assert.equal(response.status, 503);
    assert.match((await response.json()).error, /viewer page is not available/);
  });
});

Deno.test("the judge has no way to write to disk or run anything", async () => {
  // The handler is a pure function of the request: no Deno or Node APIs, no dynamic code.
  const source = await Deno.readTextFile(new URL("../serve.ts", import.meta.url));
  const code = source.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  for (
    const [pattern, what] of [
      [/\bDeno\./, "Deno APIs"],
      [/from\s+["']node:/, "node: modules"],
      [/\beval\(|new Function|import\(/, "dynamic code"],
    ] as const
  ) {
    assert.ok(!pattern.test(code), `serve.ts uses ${what}`);
  }
});

Deno.test("`deno serve serve.ts` runs the default export", async () => {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), "serve.ts"],
    cwd: new URL("../", import.meta.url),
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    let response: Response | null = null;
    for (let i = 0; i < 100 && !response; i++) {
      try {
        response = await fetch(`http://127.0.0.1:${port}/conformance`, {
          method: "POST",
          body: await reference("handoff.taskpack.json"),
        });
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.ok(response, "the server answered");
    assert.equal(response.status, 200);
    assert.equal((await response.json()).ok, true);
  } finally {
    child.kill("SIGTERM");
    await child.stderr.cancel();
    await child.status;
  }
});

Deno.test("a form upload gets 400 saying to send the file itself as the body", async () => {
  await withJudge({}, async (origin) => {
    for (const path of ["/conformance", "/inspect"]) {
      const form = new FormData();
      form.append("file", new Blob([await reference("handoff.taskpack")]), "handoff.taskpack");
      const { response, json } = await post(origin, path, form);
      assert.equal(response.status, 400, path);
      assert.match(json.error, /send the file itself as the body/);
      assert.match(json.error, /--data-binary/);
    }
  });
});

Deno.test("`deno task serve` listens on 127.0.0.1 only, unless told otherwise", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.match(config.tasks.serve, /^deno serve .*--host 127\.0\.0\.1 .*serve\.ts$/);
});

Deno.test("the card names the A2A JSON-RPC endpoint at the origin it is served from", async () => {
  await withJudge({}, async (origin) => {
    const card = await (await fetch(`${origin}/.well-known/agent-card.json`)).json();
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${origin}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    ]);
    assert.equal(AgentCard.fromJSON(card).supportedInterfaces[0]!.url, `${origin}/a2a`);
  });
});
