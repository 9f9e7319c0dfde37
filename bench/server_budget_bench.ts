// Copyright 2026 the taskpack authors. MIT license.
/**
 * The whole server's budget, measured (issue 38): `taskpack serve` with its defaults is sent
 * `--requests` requests (default 300), `--concurrency` at a time (default 50), each a real pack of
 * `--mib` MiB (default 60); the judge's peak RSS (`VmHWM`) and every status are reported. Then
 * small-pack requests per second, against the judge and against a bare `Deno.serve` returning the
 * same JSON, on the same machine. Loopback only.
 *
 * ```sh
 * deno run -A bench/server_budget_bench.ts [--requests 300] [--concurrency 50] [--mib 60] [--seconds 5]
 * ```
 *
 * Not a test: the figures go into docs/performance.md.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { buildPackObject, encodeBag, judge, type Luggage, preparePack } from "../mod.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "300" },
    concurrency: { type: "string", default: "50" },
    mib: { type: "string", default: "60" },
    seconds: { type: "string", default: "5" },
  },
});
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const MIB = Number(values.mib);
const SECONDS = Number(values.seconds);
const CLI = new URL("../cli.ts", import.meta.url).pathname;

/** A conformant bag carrying `size` bytes of incompressible luggage. */
async function packOf(size: number): Promise<Uint8Array<ArrayBuffer>> {
  const chunk = crypto.getRandomValues(new Uint8Array(65536));
  const luggage: Luggage = {
    name: "random.bin",
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
  const state = { id: "TP-9CB7-J5MK", version: 1, title: "bench", goal: "measure the budget" };
  const prepared = await preparePack(
    buildPackObject(state, { packedAt: "2026-12-06T00:00:00Z", machine: "bench" }),
    [luggage],
    { digests: nativeDigests },
  );
  return new Uint8Array(
    await new Response(encodeBag(prepared, { digests: nativeDigests })).arrayBuffer(),
  );
}

/** Starts a server from `args`, reading its URL from the first line it prints. */
async function startServer(args: string[]): Promise<{ url: string; child: Deno.ChildProcess }> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${args.join(" ")} ended early`);
    line += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return { url: JSON.parse(line.split("\n")[0]!).url, child };
}

/** The peak RSS of a process so far, in bytes (Linux). */
async function peakRss(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

async function stop(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  await child.status;
}

/**
 * POSTs `body` on a connection of its own, written 1 MiB at a time from the one buffer (a
 * client that copied each body would measure itself), and stops writing once the answer
 * comes: its status, or -1 when the connection closed with none.
 */
async function postRaw(url: string, path: string, body: Uint8Array): Promise<number> {
  const { hostname, port, host } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  let answered = false;
  const writing = (async () => {
    try {
      await conn.write(
        new TextEncoder().encode(
          `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-length: ${body.length}\r\n` +
            `connection: close\r\n\r\n`,
        ),
      );
      for (let at = 0; at < body.length && !answered; at += 1 << 20) {
        let piece = body.subarray(at, Math.min(body.length, at + (1 << 20)));
        while (piece.length && !answered) piece = piece.subarray(await conn.write(piece));
      }
    } catch {
      // The server answered and closed: the rest of the body is not wanted.
    }
  })();
  const buffer = new Uint8Array(4096);
  let head = "";
  try {
    while (!head.includes("\r\n")) {
      const read = await conn.read(buffer);
      if (read === null) break;
      head += new TextDecoder().decode(buffer.subarray(0, read));
    }
  } catch {
    // reset: no answer
  }
  answered = true;
  try {
    conn.close();
  } catch {
    // already closed
  }
  await writing;
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? -1);
}

// --- 1. The budget under load -----------------------------------------------------------------

const big = await packOf(MIB * 1024 * 1024);
const judgeServer = await startServer(["run", "-A", CLI, "serve", "--port", "0", "--json"]);
const idle = await peakRss(judgeServer.child.pid);
const statuses = new Map<number, number>();
let next = 0;
const started = performance.now();
await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
  while (next < REQUESTS) {
    next++;
    const status = await postRaw(judgeServer.url, "/conformance", big);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
}));
const took = (performance.now() - started) / 1000;
const peak = await peakRss(judgeServer.child.pid);
await stop(judgeServer.child);

// --- 2. Small packs per second: the judge against a bare Deno.serve ---------------------------

const small = await packOf(1024);
const answer = JSON.stringify(await judge(small, { digests: nativeDigests }), null, 2) + "\n";
const bareScript = `
const body = ${JSON.stringify(answer)};
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
  await request.arrayBuffer();
  return new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } });
});
console.log(JSON.stringify({ url: "http://127.0.0.1:" + server.addr.port }));
`;

async function perSecond(url: string): Promise<number> {
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (performance.now() < until) {
      const response = await fetch(`${url}/conformance`, { method: "POST", body: small });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      done++;
    }
  }));
  return done / SECONDS;
}

const judged = await startServer(["run", "-A", CLI, "serve", "--port", "0", "--json"]);
await perSecond(judged.url); // warm up
const judgeRate = await perSecond(judged.url);
await stop(judged.child);
const bare = await startServer(["eval", bareScript]);
await perSecond(bare.url);
const bareRate = await perSecond(bare.url);
await stop(bare.child);

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
console.log(JSON.stringify(
  {
    load: {
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      body: mib(big.length),
      seconds: Number(took.toFixed(1)),
      statuses: Object.fromEntries([...statuses].sort()),
      judge_peak_rss: mib(peak),
      judge_idle_peak_rss: mib(idle),
    },
    small_pack: {
      bytes: small.length,
      judge_per_second: Math.round(judgeRate),
      bare_deno_serve_per_second: Math.round(bareRate),
      cpus: navigator.hardwareConcurrency,
      load_average: Deno.loadavg().map((n) => n.toFixed(2)).join(" "),
    },
  },
  null,
  2,
));
