// Copyright 2026 the taskpack authors. MIT license.
// The HTTP conformance judge over real HTTP on 127.0.0.1: start, request, stop.
import assert from "node:assert/strict";
import { AgentCard } from "@a2a-js/sdk";
import {
  createJudgeHandler,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_REQUEST_BOUNDS,
  type JudgeHandlerOptions,
} from "../serve.ts";
import {
  buildPackObject,
  encodeBag,
  type Luggage,
  preparePack,
  type Report,
  TASKPACK_A2A_EXTENSION_URI,
} from "../mod.ts";
import { BOUND_ENV, boundsFromEnv } from "../shell/http/request_bounds.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";
import {
  inTempDir,
  readReference,
  REFERENCE_FILES,
  SAMPLE_OPTIONS,
  sampleState,
  streamBytes,
} from "./_helpers.ts";

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

Deno.test("POST /conformance: a body that is no pack gets 400: the report, plus error", async () => {
  await withJudge({}, async (origin) => {
    for (const body of ["hello, judge", "", '{"not":"a pack"}', "PK\u0003\u0004 truncated"]) {
      const { response, json } = await post(origin, "/conformance", body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.match(json.error, /^The body is not a TaskPack that can be read: /);
      // One shape: the same report a 200 carries, at the top level, with `error` added.
      assert.equal(json.ok, false);
      assert.equal(json.checks.length, 11);
      assert.equal(json.spec, "taskpack/0.1");
      assert.equal(json.report, undefined);
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
      assert.equal(declared.json.limit, "maxBodyBytes");
      assert.equal(declared.json.max, limit);
      assert.match(declared.json.error, /over this server's limit of 4096 bytes \(maxBodyBytes\)/);
      // No length declared: a stream, counted while reading.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(1024));
          controller.close();
        },
      });
      const counted = await post(origin, path, stream);
      assert.equal(counted.response.status, 413);
      assert.equal(counted.json.limit, "maxBodyBytes");
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
    assert.equal(junk.json.ok, false);
    assert.equal(junk.json.checks.length, 11);
    assert.match(junk.json.error, /^The body is not a TaskPack that can be read: /);
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

/**
 * Runs `deno serve -A --host 127.0.0.1` on `script` with a free port, posts `body` to
 * `/conformance` once it answers, and stops it.
 */
async function postToDenoServe(
  script: string,
  body: Uint8Array<ArrayBuffer>,
  env: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["serve", "-A", "--host", "127.0.0.1", "--port", String(port), script],
    cwd: new URL("../", import.meta.url),
    env,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    let response: Response | null = null;
    for (let i = 0; i < 100 && !response; i++) {
      try {
        response = await fetch(`http://127.0.0.1:${port}/conformance`, { method: "POST", body });
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.ok(response, "the server answered");
    return { status: response.status, json: await response.json() };
  } finally {
    child.kill("SIGTERM");
    await child.stderr.cancel();
    await child.status;
  }
}

Deno.test("`deno serve serve.ts` runs the default export", async () => {
  const { status, json } = await postToDenoServe(
    "serve.ts",
    await reference("handoff.taskpack.json"),
  );
  assert.equal(status, 200);
  assert.equal(json.ok, true);
});

// --- The bounds on one request (issue 19) ---

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Luggage of `size` bytes given by `chunk`, repeated (the last piece cut to fit). */
function repeated(name: string, size: number, chunk: Uint8Array): Luggage {
  return {
    name,
    size,
    open() {
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= size) return controller.close();
          const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
          sent += piece.length;
          controller.enqueue(piece);
        },
      });
    },
  };
}

/** A conformant bag, written by the project's own writer (native hashes, for speed). */
async function bagOf(luggage: Luggage[]): Promise<Uint8Array<ArrayBuffer>> {
  const prepared = await preparePack(buildPackObject(sampleState(), SAMPLE_OPTIONS), luggage, {
    digests: nativeDigests,
  });
  return new Uint8Array(await streamBytes(encodeBag(prepared, { digests: nativeDigests })));
}

/** The honest bomb: about 1 MiB holding one honestly declared 1 GiB file of zeros. */
const honestBomb: () => Promise<Uint8Array<ArrayBuffer>> = (() => {
  let built: Promise<Uint8Array<ArrayBuffer>> | undefined;
  return () => built ??= bagOf([repeated("zeros.bin", GiB, new Uint8Array(MiB))]);
})();

/** Runs the judge (defaults) in a child process; `rss()` asks it for its RSS after a GC. */
async function withJudgeProcess(
  fn: (origin: string, rss: () => Promise<number>) => Promise<void>,
): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", "tests/_judge_worker.ts"],
    cwd: new URL("../", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const stdin = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const line = async (): Promise<Record<string, number>> => {
    while (!buffered.includes("\n")) {
      const { done, value } = await lines.read();
      if (done) throw new Error("the judge process ended");
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const text = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return JSON.parse(text);
  };
  try {
    const { port } = await line();
    await fn(`http://127.0.0.1:${port}`, async () => {
      await stdin.write(new TextEncoder().encode("rss\n"));
      return (await line()).rss!;
    });
  } finally {
    await stdin.close();
    await lines.cancel();
    await child.status;
  }
}

Deno.test("the 1 MiB / 1 GiB honest bomb: refused by the judge from its central directory, conformant on the CLI", async () => {
  const bomb = await honestBomb();
  assert.ok(bomb.length < 2 * MiB, `the bomb is ${bomb.length} bytes`);
  await withJudgeProcess(async (origin, rss) => {
    // Warm up, so that the measurement is of the bomb, not of the first request.
    const warm = await post(origin, "/conformance", await reference("handoff.taskpack"));
    assert.equal(warm.response.status, 200);
    const before = await rss();
    for (const path of ["/conformance", "/inspect"]) {
      const started = performance.now();
      const { response, json } = await post(origin, path, bomb);
      const took = performance.now() - started;
      assert.equal(response.status, 413, JSON.stringify(json));
      assert.equal(json.limit, "maxInflateFactor");
      assert.equal(json.max, 16);
      assert.match(
        json.error,
        /before inflating it: (entry|total) size \d+ is over the limit of \d+/,
      );
      assert.match(json.error, /16 times the \d+-byte pack \(maxInflateFactor\)$/);
      assert.ok(took < 1000, `${path} answered in ${took.toFixed(0)} ms`);
    }
    const growth = await rss() - before;
    assert.ok(growth < 16 * MiB, `the judge's RSS grew by ${(growth / MiB).toFixed(1)} MiB`);
  });
  // The CLI keeps the reader's generous defaults: the same file is conformant there (after
  // inflating the whole GiB, a few seconds).
  await inTempDir(async (dir) => {
    const file = `${dir}/bomb.taskpack`;
    await Deno.writeFile(file, bomb);
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "cli.ts", "conformance", file, "--json"],
      cwd: new URL("../", import.meta.url),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const report = JSON.parse(new TextDecoder().decode(output.stdout)) as Report;
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.equal(report.ok, true, JSON.stringify(report.checks));
  });
});

Deno.test("the inflated bounds are options: the absolute ceiling, the entry ratio, the work budget", async () => {
  const bomb = await honestBomb();
  // With the relative bound raised, the 1 GiB ceiling is what refuses it (1 GiB of luggage
  // plus the passport and tag files is over 1 GiB).
  await withJudge({ maxInflateFactor: 10_000, maxRatio: 1100 }, async (origin) => {
    const { response, json } = await post(origin, "/conformance", bomb);
    assert.equal(response.status, 413);
    assert.equal(json.limit, "maxInflatedBytes");
    assert.equal(json.max, GiB);
    assert.match(json.error, /\(maxInflatedBytes\)$/);
  });
  // Raised past the bomb, the work budget stops the judgement well before its end (about
  // 6 s of inflating), within a chunk of the deadline.
  await withJudge(
    { maxInflateFactor: 10_000, maxInflatedBytes: 2 * GiB, maxRatio: 1100, maxWorkMs: 300 },
    async (origin) => {
      const started = performance.now();
      const { response, json } = await post(origin, "/conformance", bomb);
      const took = performance.now() - started;
      assert.equal(response.status, 413, JSON.stringify(json));
      assert.equal(json.limit, "maxWorkMs");
      assert.equal(json.max, 300);
      assert.match(json.error, /work budget of 300 ms \(maxWorkMs\)$/);
      assert.ok(took < 2500, `answered in ${took.toFixed(0)} ms`);
    },
  );
  // One very compressible entry beside incompressible luggage: within 16 times the body in
  // total, but the entry's own ratio is over 64.
  const noise = new Uint8Array(64 * 1024);
  crypto.getRandomValues(noise);
  const mixed = await bagOf([
    repeated("noise.bin", 4 * MiB, noise),
    repeated("zeros.bin", 4 * MiB, new Uint8Array(MiB)),
  ]);
  await withJudge({}, async (origin) => {
    const { response, json } = await post(origin, "/inspect", mixed);
    assert.equal(response.status, 413, JSON.stringify(json));
    assert.equal(json.limit, "maxRatio");
    assert.equal(json.max, 64);
    assert.match(json.error, /ratio .* is over the limit of 64 \(maxRatio\)$/);
  });
  await withJudge({ maxRatio: 1100 }, async (origin) => {
    const { response, json } = await post(origin, "/inspect", mixed);
    assert.equal(response.status, 200, JSON.stringify(json));
    assert.equal(json.conformant, true);
  });
  // A spent budget refuses even a small pack; the bounds refuse nonsense.
  await withJudge({ maxWorkMs: 0 }, async (origin) => {
    const { response, json } = await post(
      origin,
      "/conformance",
      await reference("minimal.taskpack"),
    );
    assert.equal(response.status, 413);
    assert.equal(json.limit, "maxWorkMs");
  });
  assert.throws(() => createJudgeHandler({ maxRatio: -1 }), /maxRatio must be a number/);
});

Deno.test("a body sent one byte at a time gets 408 at the deadline, with Connection: close", async () => {
  const bodyTimeoutMs = 400;
  await withJudge({ bodyTimeoutMs }, async (origin) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(origin).port) });
    const started = performance.now();
    await conn.write(
      new TextEncoder().encode(
        "POST /conformance HTTP/1.1\r\nhost: judge.test\r\ncontent-length: 100000\r\n\r\n",
      ),
    );
    let sending = true;
    const trickle = (async () => {
      while (sending) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (sending) await conn.write(new Uint8Array([0x20])).catch(() => (sending = false));
      }
    })();
    // Read until the whole answer is in (its JSON body ends in "}"), or 5 s have passed.
    let answer = "";
    const buffer = new Uint8Array(4096);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const giveUp = new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), 5000));
    while (!/\}\s*$/.test(answer)) {
      const read = await Promise.race([conn.read(buffer).catch(() => null), giveUp]);
      if (read === null) break;
      answer += new TextDecoder().decode(buffer.subarray(0, read));
    }
    const took = performance.now() - started;
    clearTimeout(timer);
    sending = false;
    conn.close();
    await trickle;
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.match(answer, /"limit": ?"bodyTimeoutMs"/);
    assert.match(answer, /did not arrive within this server's limit of 400 ms/);
    assert.ok(took >= bodyTimeoutMs - 10 && took < bodyTimeoutMs + 1500, `took ${took} ms`);
  });
});

Deno.test("300 judgements, 50 at a time, are all answered 200", async () => {
  const body = await reference("handoff.taskpack");
  await withJudge({}, async (origin) => {
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < 300) {
          next++;
          const response = await fetch(`${origin}/conformance`, { method: "POST", body });
          statuses.push(response.status);
          assert.equal((await response.json()).ok, true);
        }
      }),
    );
    assert.equal(statuses.length, 300);
    assert.deepEqual(statuses.filter((s) => s !== 200), []);
  });
});

Deno.test("a 200 MiB body is refused from its Content-Length, without reading it", async () => {
  await withJudge({}, async (origin) => {
    const { port } = new URL(origin);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
    const started = performance.now();
    // Only the headers are sent: the answer must come from Content-Length alone.
    await conn.write(
      new TextEncoder().encode(
        `POST /conformance HTTP/1.1\r\nhost: judge.test\r\ncontent-length: ${200 * MiB}\r\n\r\n`,
      ),
    );
    const buffer = new Uint8Array(4096);
    const read = await conn.read(buffer);
    const took = performance.now() - started;
    conn.close();
    const answer = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /"limit": "maxBodyBytes"/);
    assert.ok(took < 1000, `took ${took} ms`);
  });
});

Deno.test("`deno task serve` takes the bounds from TASKPACK_JUDGE_* variables", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  // The task is `taskpack serve`, which binds loopback unless told otherwise (a judge open to
  // every interface is a choice, not a default: tests/serve_task_test.ts checks the socket).
  assert.match(config.tasks.serve, /^deno run -A (?:--\S+ )*cli\.ts serve$/);
  const { status, json } = await postToDenoServe(
    "shell/http/judge_server.ts",
    await reference("handoff.taskpack"),
    { [BOUND_ENV.maxBodyBytes]: "1KiB", [BOUND_ENV.maxWorkMs]: "5000" },
  );
  assert.equal(status, 413);
  assert.equal(json.limit, "maxBodyBytes");
  assert.equal(json.max, 1024);
  assert.deepEqual(
    boundsFromEnv((name) => ({ TASKPACK_JUDGE_MAX_INFLATED_BYTES: "2GiB" })[name]),
    { maxInflatedBytes: 2 * GiB },
  );
  assert.throws(
    () => boundsFromEnv((name) => name === BOUND_ENV.maxRatio ? "many" : undefined),
    /TASKPACK_JUDGE_MAX_RATIO needs a whole number/,
  );
  assert.deepEqual(DEFAULT_REQUEST_BOUNDS, {
    maxBodyBytes: 64 * MiB,
    bodyTimeoutMs: 30_000,
    maxInflateFactor: 16,
    maxInflatedBytes: GiB,
    maxRatio: 64,
    maxWorkMs: 10_000,
    maxBytesInFlight: 192 * MiB,
    maxConcurrentJudgements: 64,
  });
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

Deno.test("a form upload is told apart by its Content-Type, before its body is read", async () => {
  // Larger than the body bound: read first, it would be a 413 that says nothing of forms.
  await withJudge({ maxBodyBytes: 1024 }, async (origin) => {
    const form = new FormData();
    form.append("file", new Blob([await reference("handoff.taskpack")]), "handoff.taskpack");
    const { response, json } = await post(origin, "/conformance", form);
    assert.equal(response.status, 400);
    assert.match(json.error, /send the file itself as the body .*--data-binary/);
  });
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

Deno.test("POST /convert: each reference pack to the other encoding, conformant, same digest; refusals are 400", async () => {
  await withJudge({ viewerHtml: "" }, async (origin) => {
    for (const name of REFERENCE_FILES) {
      const to = name.endsWith(".json") ? "bag" : "flat";
      const response = await fetch(`${origin}/convert?to=${to}`, {
        method: "POST",
        body: await reference(name),
      });
      assert.equal(response.status, 200, name);
      const digest = response.headers.get("x-taskpack-digest");
      const converted = new Uint8Array(await response.arrayBuffer());
      const { json } = await post(origin, "/conformance", converted);
      assert.equal(json.ok, true, `${name} converted to ${to}`);
      assert.equal(json.digest, digest, name);
    }
    const noTarget = await post(origin, "/convert", await reference("handoff.taskpack"));
    assert.equal(noTarget.response.status, 400);
    assert.match(noTarget.json.error, /\?to=bag or \?to=flat/);
    const junk = await post(origin, "/convert?to=flat", "not a pack");
    assert.equal(junk.response.status, 400);
    assert.match(junk.json.error, /cannot be converted/);
  });
});
