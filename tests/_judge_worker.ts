// Copyright 2026 the taskpack authors. MIT license.
// The HTTP judge in a process of its own, so that a test can measure what one request costs
// it (tests/serve_test.ts):
//
//   deno run -A tests/_judge_worker.ts
//     Serves createJudgeHandler() with its defaults on a free port of 127.0.0.1 and prints
//     {"port": n}. Then, for each line read on stdin, prints {"rss": bytes} after a
//     collection when --expose-gc allows one; it stops when stdin closes.
import { createJudgeHandler } from "../serve.ts";

const server = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen() {} },
  createJudgeHandler({ viewerHtml: "" }),
);
const encoder = new TextEncoder();
const say = (value: unknown) => Deno.stdout.write(encoder.encode(JSON.stringify(value) + "\n"));
await say({ port: server.addr.port });
const gc = (globalThis as { gc?: () => void }).gc;
const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
for await (const chunk of lines) {
  for (const _ of chunk.split("\n").slice(0, -1)) {
    gc?.();
    await say({ rss: Deno.memoryUsage().rss });
  }
}
await server.shutdown();
