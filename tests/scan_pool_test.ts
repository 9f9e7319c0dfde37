// Copyright 2026 the taskpack authors. MIT license.
// Scanning on another core finds exactly what scanning on the calling thread finds, keeps its
// memory bounded, and is what the CLI uses for large luggage. Tokens are built at run time.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { type ScanResult, TextScanner } from "../lib/scan/patterns.ts";
import { SCAN_AHEAD, scanPool } from "../shell/workers/scan_pool.ts";
import { tokens } from "./_hostile_generated.ts";
import { bagParts, BASE_LUGGAGE, baseObject, deflated } from "../tools/make_hostile_corpus.ts";
import { forgeZip } from "./_zip_forge.ts";
import { cli, snapshot } from "./_cli.ts";
import { tempDir } from "./_helpers.ts";

const MiB = 1 << 20;
const encoder = new TextEncoder();
const github = tokens().find((t) => t.kind === "github-token")!.token;
const LINE = "2026-12-02 12:00:01 INFO served /api/items in 12 ms\n";

function logText(bytes: number): string {
  return LINE.repeat(Math.ceil(bytes / LINE.length)).slice(0, bytes);
}

async function scanIn(
  scanner: {
    push(b: Uint8Array): void | Promise<void>;
    finish(): ScanResult | Promise<ScanResult>;
  },
  bytes: Uint8Array,
  cuts: readonly number[],
): Promise<ScanResult> {
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    const end = Math.min(bytes.length, Math.max(at, cut));
    if (end > at) await scanner.push(bytes.subarray(at, end));
    at = end;
  }
  return await scanner.finish();
}

Deno.test("a pooled scanner finds what TextScanner finds, wherever the chunks are cut", async () => {
  const pool = scanPool();
  try {
    const kinds = ["clean", "token", "transcript", "binary token", "utf-16 token"] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        fc.integer({ min: 0, max: 1_400_000 }),
        fc.array(fc.integer({ min: 1, max: 1_600_000 }), { maxLength: 12 }),
        async (kind, offset, rawCuts) => {
          const base = logText(1_500_000);
          const at = base.lastIndexOf("\n", offset) + 1;
          let bytes: Uint8Array;
          if (kind === "clean") bytes = encoder.encode(base);
          else if (kind === "token") {
            bytes = encoder.encode(base.slice(0, at) + `TOKEN=${github}\n` + base.slice(at));
          } else if (kind === "transcript") {
            bytes = encoder.encode(
              base.slice(0, at) + "User: fix the build\nAssistant: done, see the log\n" +
                base.slice(at),
            );
          } else if (kind === "binary token") {
            bytes = encoder.encode("\0" + base.slice(0, at) + `TOKEN=${github}\n` + base.slice(at));
          } else {
            const text = "\ufeff" + base.slice(0, 200_000) + `TOKEN=${github}\n`;
            bytes = new Uint8Array(text.length * 2);
            for (let i = 0; i < text.length; i++) {
              bytes[2 * i] = text.charCodeAt(i) & 0xff;
              bytes[2 * i + 1] = text.charCodeAt(i) >> 8;
            }
          }
          const cuts = rawCuts.sort((a, b) => a - b);
          const expected = await scanIn(new TextScanner(), bytes, cuts);
          const pooled = await scanIn(pool.scanner(bytes.length), bytes, cuts);
          assert.deepEqual(pooled, expected);
          if (kind === "clean") assert.equal(expected.finding, null);
          else assert.notEqual(expected.finding, null, kind);
        },
      ),
      { numRuns: 25 },
    );
  } finally {
    pool.close();
  }
});

Deno.test("a pooled scanner makes the caller wait once the worker is behind, and finishes", async () => {
  const pool = scanPool();
  try {
    const chunk = encoder.encode(logText(MiB));
    const scanner = pool.scanner(64 * MiB);
    let waited = 0;
    for (let i = 0; i < 64; i++) {
      const behind = scanner.push(chunk);
      if (behind) {
        if (i > 0) waited++; // the first push hands the file to the worker: that always waits
        await behind;
      }
    }
    assert.ok(waited > 0, `pushing ${64} MiB past ${SCAN_AHEAD} bytes ahead never waited`);
    assert.deepEqual(await scanner.finish(), { finding: null, text: true });
  } finally {
    pool.close();
  }
});

Deno.test("a closed pool refuses to scan, and small files never need the worker", () => {
  const pool = scanPool();
  const small = pool.scanner(100);
  assert.ok(small instanceof TextScanner, "a small file is scanned on the calling thread");
  pool.close();
  assert.throws(() => {
    const late = pool.scanner(4 * MiB);
    late.push(encoder.encode(logText(16_384)));
  }, /the pool is closed/);
});

Deno.test("the CLI finds a token deep in large text luggage: judge fails C7, land refuses and writes nothing", async () => {
  const tmp = await tempDir();
  try {
    const text = logText(3 * MiB) + `TOKEN=${github}\n`;
    const line = text.split("\n").length - 1;
    const parts = bagParts(
      { luggage: [...BASE_LUGGAGE, ["build.log", encoder.encode(text)]] },
      await baseObject(),
    );
    await Deno.writeFile(
      `${tmp}/p.taskpack`,
      forgeZip(await Promise.all(parts.map((p) => deflated(p)))),
    );
    const judged = await cli(["conformance", "p.taskpack", "--json"], { cwd: tmp });
    assert.equal(judged.code, 2, judged.stderr);
    const c7 = judged.json().checks.find((c: { id: string }) => c.id === "C7");
    assert.equal(c7.ok, false);
    assert.match(c7.detail, new RegExp(`data/files/build\\.log:${line}`));
    assert.ok(!judged.stdout.includes(github), "the token is never quoted");
    const landed = await cli(["land", "p.taskpack", "--store", "store"], { cwd: tmp });
    assert.equal(landed.code, 2, landed.stderr);
    assert.match(landed.stderr, new RegExp(`credential.*data/files/build\\.log:${line}`));
    assert.deepEqual([...(await snapshot(tmp)).keys()], ["p.taskpack"]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
