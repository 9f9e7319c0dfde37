// Copyright 2026 the taskpack authors. MIT license.
/**
 * The core's hot paths, in memory, with native digests (what the shells pass): packing
 * (`preparePack` + `encodeBag` into a counting sink), reading (`decodePack` + `auditLuggage`)
 * and judging (`judge`), at 1 MiB, 100 MiB (random and log text) and 10,000 files of 1 KiB, and
 * checking 10,000 luggage names as a set.
 * The data are the workloads of `tools/bench_workloads.ts`, generated in memory. Reading and
 * judging the 10,000 files also run as the CLI does them, with the shell's one-shot inflater
 * for small entries (`nativeInflater`) instead of a `DecompressionStream` per entry.
 *
 * Run with `deno bench -A bench/core_bench.ts` (part of `deno task bench`).
 *
 * @module
 */
import {
  auditLuggage,
  buildPackObject,
  decodePack,
  encodeBag,
  judge,
  luggageSetProblem,
  preparePack,
} from "../lib/format/mod.ts";
import { type Luggage, luggageFromBytes } from "../lib/bytes/mod.ts";
import { DEFAULT_ZIP_LIMITS, zipNameClash, zipNameProblem } from "../lib/zip/mod.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";
import { nativeInflater } from "../shell/host/native_inflater.ts";
import { logBytes, randomBytes, treeFiles } from "../tools/bench_workloads.ts";

const MiB = 1 << 20;
const digests = nativeDigests;

const workloads: Record<string, () => Luggage[]> = {
  "1 MiB text": () => [luggageFromBytes("notes.log", logBytes(MiB, 1))],
  "100 MiB random (a)": () => [luggageFromBytes("a-random.bin", randomBytes(100 * MiB, 0xa))],
  "100 MiB text (b)": () => [luggageFromBytes("b-logs.txt", logBytes(100 * MiB, 0xb))],
  "10,000 files (c)": () =>
    treeFiles(0xc).map(([name, bytes]) => luggageFromBytes(`c-tree/${name}`, bytes)),
};

const object = buildPackObject({
  id: "TP-BNCH-CORE",
  version: 1,
  title: "core bench",
  goal: "measure the hot paths",
}, { packedAt: "2026-11-30T12:00:00Z", machine: "bench", actor: "bench" });

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let total = 0;
  for await (const chunk of stream) total += chunk.length;
  return total;
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

for (const [name, make] of Object.entries(workloads)) {
  const luggage = make();
  const big = name.startsWith("100 MiB");
  const runs = big ? { n: 3, warmup: 1 } : { n: 10, warmup: 2 };
  const bag = await collect(
    encodeBag(await preparePack(object, luggage, { digests }), { digests }),
  );

  Deno.bench({
    name: `pack ${name}`,
    group: "pack",
    ...runs,
    async fn() {
      const ready = await preparePack(object, luggage, { digests });
      await drain(encodeBag(ready, { digests }));
    },
  });
  Deno.bench({
    name: `read ${name}`,
    group: "read",
    ...runs,
    async fn() {
      const decoded = await decodePack(bag, { digests });
      const audits = await auditLuggage(decoded, { digests });
      if (audits.some((audit) => audit.error || audit.finding)) throw new Error("bad audit");
    },
  });
  Deno.bench({
    name: `judge ${name}`,
    group: "judge",
    ...runs,
    async fn() {
      const report = await judge(bag, { digests });
      if (!report.ok) throw new Error(JSON.stringify(report.checks.filter((c) => !c.ok)));
    },
  });
  const inflater = nativeInflater();
  if (name.startsWith("10,000") && inflater) {
    Deno.bench({
      name: `read ${name}, native inflater`,
      group: "read",
      ...runs,
      async fn() {
        const decoded = await decodePack(bag, { digests, inflater });
        const audits = await auditLuggage(decoded, { digests });
        if (audits.some((audit) => audit.error || audit.finding)) throw new Error("bad audit");
      },
    });
    Deno.bench({
      name: `judge ${name}, native inflater`,
      group: "judge",
      ...runs,
      async fn() {
        const report = await judge(bag, { digests, inflater });
        if (!report.ok) throw new Error(JSON.stringify(report.checks.filter((c) => !c.ok)));
      },
    });
  }
}

// The names of 10,000 files checked as a set (when packing and when reading): plain ASCII names
// take the quick path, names with other characters the rules one by one.
for (const [label, accent] of [["plain", ""], ["accented", "\u00e9"]] as const) {
  const names = treeFiles(0xc).map(([name]) => `c-tree${accent}/${name}`);
  Deno.bench({
    name: `luggageSetProblem 10,000 ${label} names`,
    group: "names",
    n: 20,
    warmup: 2,
    fn() {
      if (luggageSetProblem(names) !== null) throw new Error("a name was refused");
    },
  });
  // What the ZIP writer and reader check of every entry name: plain ASCII takes the quick path.
  const entries = names.map((name) => `data/files/${name}`);
  Deno.bench({
    name: `zipNameProblem and zipNameClash, 10,000 ${label} names`,
    group: "zip names",
    n: 20,
    warmup: 2,
    fn() {
      for (const name of entries) {
        if (zipNameProblem(name, DEFAULT_ZIP_LIMITS) !== null) {
          throw new Error("a name was refused");
        }
      }
      if (zipNameClash(entries) !== null) throw new Error("two names clash");
    },
  });
}
