// Copyright 2026 the taskpack authors. MIT license.
/**
 * Generates the benchmark workloads of issue 8 into a folder (never into the repository, and
 * never committed): deterministic (seeded), fast, and skipped when already there.
 *
 * | id | what |
 * | -- | ---- |
 * | a  | `a-random.bin`: one 100 MiB file of pseudo-random bytes |
 * | b  | `b-logs.txt`: one 100 MiB file of log lines, about 5:1 under `gzip -6` |
 * | c  | `c-tree/`: 10,000 files of 1 KiB in a nested folder (10 x 10 x 100) |
 * | d  | `d-flat.taskpack.json`: a flat pack of about 1 MiB (four text attachments) |
 * | e  | `e-huge.bin`: one 1 GiB file of pseudo-random bytes |
 * | f  | `f-tiny/`: 70,000 tiny files (70 folders x 1,000) |
 * | g  | `g-huge.log`: one 1 GiB file of log lines, about 5:1 under `gzip -6` |
 *
 * `TASKPACK_BENCH_SCALE` (a number in (0, 1], default 1) shrinks the one-file workloads (a, b, e,
 * g) and the folder count of f by that factor, so the whole comparison can be smoke-tested in
 * seconds; the scale is recorded beside each workload, and a workload made at another scale is
 * regenerated.
 *
 * ```sh
 * deno run -A tools/bench_workloads.ts /tmp/taskpack-bench            # a, b, c, d
 * deno run -A tools/bench_workloads.ts /tmp/taskpack-bench --all      # and e, f, g (slow)
 * deno run -A tools/bench_workloads.ts /tmp/taskpack-bench --only a,e --force
 * ```
 *
 * @module
 */
import { mkdir, open, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { buildPackObject, encodeFlat, preparePack } from "../lib/format/mod.ts";
import { luggageFromBytes } from "../lib/bytes/mod.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";

/** A workload id. */
export type WorkloadId = "a" | "b" | "c" | "d" | "e" | "f" | "g";

/** Every workload, in order. */
export const WORKLOADS: readonly WorkloadId[] = ["a", "b", "c", "d", "e", "f", "g"];

/** The workloads generated unless asked for more: the slow ones (e, f, g) are opt-in. */
export const DEFAULT_WORKLOADS: readonly WorkloadId[] = ["a", "b", "c", "d"];

/** Bumped whenever a generator changes, so stale workloads are regenerated. */
const VERSION = "2";

const MiB = 1 << 20;

/** Where each workload lives under the folder, and what it is. */
export const WORKLOAD_INFO: Readonly<Record<WorkloadId, { path: string; what: string }>> = {
  a: { path: "a-random.bin", what: "one 100 MiB random file" },
  b: { path: "b-logs.txt", what: "one 100 MiB text file (log lines, ~5:1 under gzip -6)" },
  c: { path: "c-tree", what: "10,000 files of 1 KiB in a nested folder" },
  d: { path: "d-flat.taskpack.json", what: "a 1 MiB flat pack" },
  e: { path: "e-huge.bin", what: "one 1 GiB random file" },
  f: { path: "f-tiny", what: "70,000 tiny files" },
  g: { path: "g-huge.log", what: "one 1 GiB text file (log lines, ~5:1 under gzip -6)" },
};

/** The large workloads: one round unless asked for more (`--big-rounds`). */
export const BIG_WORKLOADS: readonly WorkloadId[] = ["e", "f", "g"];

/** xorshift128: a fast, seeded generator of 32-bit words. */
class Rng {
  #x: number;
  #y = 362436069;
  #z = 521288629;
  #w = 88675123;
  constructor(seed: number) {
    this.#x = seed >>> 0 || 123456789;
    for (let i = 0; i < 16; i++) this.next();
  }
  next(): number {
    const t = this.#x ^ (this.#x << 11);
    this.#x = this.#y;
    this.#y = this.#z;
    this.#z = this.#w;
    this.#w = (this.#w ^ (this.#w >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return this.#w;
  }
  /** An integer in [0, n). */
  below(n: number): number {
    return this.next() % n;
  }
  fill(words: Uint32Array): void {
    let x = this.#x, y = this.#y, z = this.#z, w = this.#w;
    for (let i = 0; i < words.length; i++) {
      const t = x ^ (x << 11);
      x = y;
      y = z;
      z = w;
      w = (w ^ (w >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
      words[i] = w;
    }
    this.#x = x;
    this.#y = y;
    this.#z = z;
    this.#w = w;
  }
}

async function writeStream(
  path: string,
  size: number,
  chunkOf: (chunk: Uint8Array) => void,
): Promise<void> {
  const handle = await open(path, "w");
  try {
    const chunk = new Uint8Array(8 * MiB);
    for (let done = 0; done < size;) {
      const length = Math.min(chunk.length, size - done);
      const piece = chunk.subarray(0, length);
      chunkOf(piece);
      let written = 0;
      while (written < length) {
        written += (await handle.write(piece, written, length - written)).bytesWritten;
      }
      done += length;
    }
  } finally {
    await handle.close();
  }
}

/** A filler of pseudo-random bytes from `seed`: each call fills the next piece. */
function randomFiller(seed: number): (piece: Uint8Array) => void {
  const rng = new Rng(seed);
  return (piece) => rng.fill(new Uint32Array(piece.buffer, piece.byteOffset, piece.length >>> 2));
}

/** Pseudo-random bytes, `size` of them, from `seed`. */
async function randomFile(path: string, size: number, seed: number): Promise<void> {
  await writeStream(path, size, randomFiller(seed));
}

/**
 * `size` pseudo-random bytes in memory (the content of workloads a and e, for benches).
 *
 * @param size How many (a multiple of 4).
 * @param seed The seed.
 * @returns The bytes.
 */
export function randomBytes(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  randomFiller(seed)(bytes);
  return bytes;
}

const LEVELS = ["INFO", "INFO", "INFO", "INFO", "DEBUG", "DEBUG", "WARN", "ERROR"];
const SERVICES = ["api", "auth", "billing", "search", "render", "queue", "mailer", "gateway"];
const PATHS = [
  "/v1/orders",
  "/v1/orders/{id}",
  "/v1/users/{id}/profile",
  "/v1/search",
  "/healthz",
  "/v2/render/page",
  "/v1/invoices",
  "/v1/session/refresh",
];
const MESSAGES = [
  "request completed",
  "cache miss, fetching from origin",
  "slow query detected",
  "retrying after upstream timeout",
  "connection pool exhausted, waiting",
  "rendered template",
  "enqueued job",
  "rate limit applied",
];

/** Log lines, deterministic from `rng`: about 5:1 under gzip -6. */
function logLines(rng: Rng, start: number, count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) {
    const n = start + i;
    const ms = n * 37 + rng.below(37);
    const seconds = Math.floor(ms / 1000);
    const time = `2026-11-${String(1 + (Math.floor(seconds / 86400) % 28)).padStart(2, "0")}T` +
      `${String(Math.floor(seconds / 3600) % 24).padStart(2, "0")}:` +
      `${String(Math.floor(seconds / 60) % 60).padStart(2, "0")}:` +
      `${String(seconds % 60).padStart(2, "0")}.${String(ms % 1000).padStart(3, "0")}Z`;
    const level = LEVELS[rng.below(LEVELS.length)]!;
    const service = SERVICES[rng.below(SERVICES.length)]!;
    const path = PATHS[rng.below(PATHS.length)]!.replace("{id}", String(rng.below(5000)));
    const message = MESSAGES[rng.below(MESSAGES.length)]!;
    const request = rng.next().toString(16).padStart(8, "0");
    out += `${time} ${level.padEnd(5)} ${service}[${rng.below(8)}] req=${request} ` +
      `method=${rng.below(4) === 0 ? "POST" : "GET"} path=${path} status=${
        rng.below(20) === 0 ? 503 : 200
      } took=${rng.below(900)}ms bytes=${rng.below(100_000)} user=${rng.below(1_000_000)} span=${
        rng.below(0x1000000).toString(16).padStart(6, "0")
      } msg="${message}"\n`;
  }
  return out;
}

/** A filler of log lines from `seed`: each call fills the next piece. */
function logFiller(seed: number): (piece: Uint8Array) => void {
  const rng = new Rng(seed);
  const encoder = new TextEncoder();
  let pending = new Uint8Array(0);
  let line = 0;
  return (piece) => {
    let at = 0;
    while (at < piece.length) {
      if (pending.length === 0) {
        pending = encoder.encode(logLines(rng, line, 2000));
        line += 2000;
      }
      const take = Math.min(pending.length, piece.length - at);
      piece.set(pending.subarray(0, take), at);
      pending = pending.subarray(take);
      at += take;
    }
  };
}

/** `size` bytes of log lines. */
async function logFile(path: string, size: number, seed: number): Promise<void> {
  await writeStream(path, size, logFiller(seed));
}

/**
 * `size` bytes of log lines in memory (the content of workload b, for benches).
 *
 * @param size How many.
 * @param seed The seed.
 * @returns The bytes.
 */
export function logBytes(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  logFiller(seed)(bytes);
  return bytes;
}

/** Writes many small files with bounded concurrency. */
async function writeFiles(files: Iterable<[string, Uint8Array]>, concurrency = 64): Promise<void> {
  const iterator = files[Symbol.iterator]();
  const worker = async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      await writeFile(next.value[0], next.value[1]);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * The files of workload c in memory: 10 x 10 folders of 100 files of exactly 1 KiB of log
 * text, as `[relative path, bytes]` in sorted order.
 *
 * @param seed The seed.
 * @returns The files.
 */
export function treeFiles(seed: number): [string, Uint8Array][] {
  const rng = new Rng(seed);
  const encoder = new TextEncoder();
  const files: [string, Uint8Array][] = [];
  let line = 0;
  for (let a = 0; a < 10; a++) {
    for (let b = 0; b < 10; b++) {
      for (let f = 0; f < 100; f++) {
        const text = encoder.encode(logLines(rng, line, 8));
        line += 8;
        const bytes = new Uint8Array(1024).fill(0x0a);
        bytes.set(text.subarray(0, 1023));
        files.push([`d${a}/e${b}/f${String(f).padStart(3, "0")}.log`, bytes]);
      }
    }
  }
  return files;
}

/** Workload c on disk. */
async function treeOfFiles(root: string, seed: number): Promise<void> {
  const files = treeFiles(seed);
  for (let a = 0; a < 10; a++) {
    for (let b = 0; b < 10; b++) await mkdir(join(root, `d${a}`, `e${b}`), { recursive: true });
  }
  await writeFiles(files.map(([name, bytes]) => [join(root, name), bytes]));
}

/** 70 folders (or `folders`) of 1,000 tiny files (one short line each). */
async function tinyFiles(root: string, seed: number, folders = 70): Promise<void> {
  const rng = new Rng(seed);
  const encoder = new TextEncoder();
  function* files(): Generator<[string, Uint8Array]> {
    for (let a = 0; a < folders; a++) {
      const dir = join(root, `d${String(a).padStart(2, "0")}`);
      for (let f = 0; f < 1000; f++) {
        yield [
          join(dir, `t${String(f).padStart(3, "0")}.txt`),
          encoder.encode(`tiny file ${a * 1000 + f}: value ${rng.below(1_000_000)}\n`),
        ];
      }
    }
  }
  for (let a = 0; a < folders; a++) {
    await mkdir(join(root, `d${String(a).padStart(2, "0")}`), { recursive: true });
  }
  await writeFiles(files());
}

/** A flat pack of about 1 MiB: four text attachments of 240 KiB, made by our own encoder. */
async function flatPack(path: string, seed: number): Promise<void> {
  const rng = new Rng(seed);
  const luggage = [];
  for (let i = 0; i < 4; i++) {
    let text = "";
    for (let line = 0; text.length < 240 * 1024; line += 500) text += logLines(rng, line, 500);
    luggage.push(luggageFromBytes(`notes/part-${i + 1}.log`, text.slice(0, 240 * 1024)));
  }
  const object = buildPackObject({
    id: "TP-BNCH-FLAT",
    version: 3,
    title: "benchmark flat pack",
    goal: "measure reading a 1 MiB flat pack",
    current_state: "Four log excerpts attached.",
    facts: [{ claim: "the logs are synthetic", scope: "universal", verified: true }],
    next_steps: ["read the logs"],
  }, { packedAt: "2026-11-30T12:00:00Z", machine: "bench", actor: "bench" });
  const ready = await preparePack(object, luggage, { digests: nativeDigests });
  await writeFile(path, await encodeFlat(ready));
}

/**
 * The scale of the workloads, from `TASKPACK_BENCH_SCALE` (default 1).
 *
 * @returns A number in (0, 1].
 */
export function benchScale(): number {
  const text = process.env.TASKPACK_BENCH_SCALE;
  if (text === undefined || text === "") return 1;
  const n = Number(text);
  if (!(n > 0 && n <= 1)) throw new Error("TASKPACK_BENCH_SCALE must be a number in (0, 1]");
  return n;
}

async function generate(id: WorkloadId, target: string, scale: number): Promise<void> {
  const size = (n: number) => Math.max(4096, Math.round((n * scale) / 4096) * 4096);
  switch (id) {
    case "a":
      return await randomFile(target, size(100 * MiB), 0xa);
    case "b":
      return await logFile(target, size(100 * MiB), 0xb);
    case "c":
      return await treeOfFiles(target, 0xc);
    case "d":
      return await flatPack(target, 0xd);
    case "e":
      return await randomFile(target, size(1024 * MiB), 0xe);
    case "f":
      return await tinyFiles(target, 0xf, Math.max(1, Math.round(70 * scale)));
    case "g":
      return await logFile(target, size(1024 * MiB), 0x9);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes sure the workloads are in `dir`, generating the missing ones (or all, with `force`).
 *
 * @param dir The folder (created if needed).
 * @param ids Which workloads.
 * @param options `force` regenerates; `log` is told what happens.
 * @returns The path of each workload.
 */
export async function ensureWorkloads(
  dir: string,
  ids: readonly WorkloadId[],
  options: { force?: boolean; log?: (line: string) => void } = {},
): Promise<Record<WorkloadId, string>> {
  const root = resolve(dir);
  await mkdir(root, { recursive: true });
  const paths = {} as Record<WorkloadId, string>;
  const scale = benchScale();
  const version = scale === 1 ? VERSION : `${VERSION} scale=${scale}`;
  for (const id of WORKLOADS) paths[id] = join(root, WORKLOAD_INFO[id].path);
  for (const id of ids) {
    const stamp = join(root, `.${id}.done`);
    if (!options.force && await exists(stamp)) {
      const text = await Deno.readTextFile(stamp).catch(() => "");
      if (text.trim() === version && await exists(paths[id])) continue;
    }
    const started = performance.now();
    await rm(stamp, { force: true });
    await rm(paths[id], { recursive: true, force: true });
    await generate(id, paths[id], scale);
    await writeFile(stamp, version + "\n");
    options.log?.(
      `generated (${id}) ${WORKLOAD_INFO[id].what} in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s: ${paths[id]}`,
    );
  }
  return paths;
}

/**
 * Parses a workload list such as `a,b,c`.
 *
 * @param text The list.
 * @returns The ids.
 */
export function parseWorkloads(text: string): WorkloadId[] {
  const ids = text.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const id of ids) {
    if (!(WORKLOADS as readonly string[]).includes(id)) {
      throw new Error(`unknown workload "${id}" (choose from ${WORKLOADS.join(",")})`);
    }
  }
  return ids as WorkloadId[];
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: {
      only: { type: "string" },
      skip: { type: "string" },
      all: { type: "boolean" },
      force: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.error(
      "usage: deno run -A tools/bench_workloads.ts <folder> [--only a,b,...] [--skip e,f] " +
        "[--all] [--force]\n  default: a,b,c,d; --all adds e (1 GiB), f (70,000 files), g (1 GiB log)",
    );
    process.exit(values.help ? 0 : 1);
  }
  let ids = values.only
    ? parseWorkloads(values.only)
    : [...(values.all ? WORKLOADS : DEFAULT_WORKLOADS)];
  if (values.skip) {
    const skip = parseWorkloads(values.skip);
    ids = ids.filter((id) => !skip.includes(id));
  }
  await ensureWorkloads(positionals[0]!, ids, {
    force: values.force === true,
    log: (line) => console.error(line),
  });
}
