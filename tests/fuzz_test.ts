// Copyright 2026 the taskpack authors. MIT license.
// Fuzzing the reader: valid packs in both encodings, mutated (bytes flipped, truncated, spliced,
// ZIP entries reordered, duplicated, dropped, renamed, their bodies swapped), must give a pack
// or a typed error — never another exception, never a hang — and whatever lands must land
// inside its folder.
//
//   deno test -A tests/fuzz_test.ts                          # 1000 runs, the normal suite
//   deno task fuzz                                           # 100,000 runs
//   TASKPACK_FUZZ_RUNS=5000 TASKPACK_FUZZ_SEED=42 deno test -A tests/fuzz_test.ts
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { extractLuggage } from "../app/luggage_out.ts";
import { judge } from "../lib/format/conformance.ts";
import { RefusalError, TaskPackReadError } from "../lib/bytes/errors.ts";
import { land } from "../lib/format/land.ts";
import { buildPackObject, encodeBag, encodeFlat, preparePack } from "../lib/format/pack.ts";
import { auditLuggage, decodePack, type ReadLimits } from "../lib/format/read.ts";
import { luggageFromBytes } from "../lib/bytes/source.ts";
import {
  bagParts,
  baseObject,
  deflated,
  flat,
  seeded,
  stored,
} from "../tools/make_hostile_corpus.ts";
import { type ForgeEntry, forgeZip } from "./_zip_forge.ts";
import { tempDir } from "./_helpers.ts";

const RUNS = Number(Deno.env.get("TASKPACK_FUZZ_RUNS") ?? 1000);
const SEED = Deno.env.get("TASKPACK_FUZZ_SEED");
/** Longest one run may take before it counts as a hang. */
const RUN_TIMEOUT_MS = 10_000;

/** Limits small enough that the fuzzer can reach them, to check they hold. */
const LIMITS: Partial<ReadLimits> = {
  maxPackBytes: 1 << 20,
  maxEntries: 64,
  maxEntrySize: 4 << 20,
  maxTotalSize: 8 << 20,
  maxPassportBytes: 1 << 18,
  maxTagFileBytes: 1 << 16,
  maxJsonDepth: 64,
  maxJsonKeyLength: 256,
};

const encoder = new TextEncoder();

// ---------------------------------------------------------------------------------------------
// Valid packs to start from

interface Base {
  name: string;
  bytes: Uint8Array;
  /** For bags forged from entries: the entries, to mutate structurally. */
  entries?: ForgeEntry[];
}

async function bases(): Promise<Base[]> {
  const object = await baseObject();
  const random = seeded(1);
  const binary = new Uint8Array(700).map(() => Math.floor(random() * 256));
  const luggage = [
    ["brief.txt", encoder.encode("Release brief: ship the plugin.\n".repeat(20))],
    ["notes/n.md", encoder.encode("# Notes\n\nkebab-case ids.\n")],
    ["img/logo.bin", binary],
  ] as const;
  const prepared = await preparePack(
    buildPackObject(object.passport, {
      packedAt: object.packed_at,
      machine: "vm",
      actor: "alice",
      asks: [{ what: "cover image prompt", accept: "one prompt" }],
    }),
    luggage.map(([name, bytes]) => luggageFromBytes(name, bytes)),
  );
  const written = new Uint8Array(await new Response(encodeBag(prepared)).arrayBuffer());
  const parts = bagParts({ luggage }, object);
  const storedEntries = parts.map((p) => stored(p));
  const deflatedEntries = await Promise.all(parts.map((p) => deflated(p)));
  return [
    { name: "bag (writer)", bytes: written },
    { name: "bag (stored)", bytes: forgeZip(storedEntries), entries: storedEntries },
    { name: "bag (deflated)", bytes: forgeZip(deflatedEntries), entries: deflatedEntries },
    { name: "flat (writer)", bytes: encoder.encode(await encodeFlat(prepared)) },
    { name: "flat (base luggage)", bytes: encoder.encode(flat(object)) },
  ];
}

// ---------------------------------------------------------------------------------------------
// Mutations

type ByteMutation =
  | { kind: "flip"; at: number; mask: number }
  | { kind: "truncate"; at: number }
  | { kind: "insert"; at: number; bytes: Uint8Array }
  | { kind: "delete"; at: number; length: number }
  | { kind: "duplicate"; from: number; length: number; to: number };

/** Positions are fractions of the length, so one arbitrary fits files of any size. */
const fraction = fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true });
const JSON_TOKENS = [
  '"',
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  "\\u0000",
  "\\ud800",
  '"__proto__":1,',
  '"kind":"receipt",',
  "\ufeff",
  "null",
  "1e999",
  "-0",
  "\u2028",
].map((token) => encoder.encode(token));

const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("flip" as const),
      at: fraction,
      mask: fc.integer({ min: 1, max: 255 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("truncate" as const), at: fraction }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("insert" as const),
      at: fraction,
      bytes: fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 32 }),
        fc.constantFrom(...JSON_TOKENS),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("delete" as const),
      at: fraction,
      length: fc.integer({ min: 1, max: 64 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("duplicate" as const),
      from: fraction,
      length: fc.integer({ min: 1, max: 256 }),
      to: fraction,
    }),
  },
).map((m) => m as ByteMutation);

function applyBytes(input: Uint8Array, m: ByteMutation): Uint8Array {
  const n = input.length;
  const pos = (f: number) => Math.floor(f * (n + 1));
  const join = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  switch (m.kind) {
    case "flip": {
      if (n === 0) return input;
      const out = input.slice();
      const at = Math.min(n - 1, pos(m.at));
      out[at] = out[at]! ^ m.mask;
      return out;
    }
    case "truncate":
      return input.slice(0, pos(m.at));
    case "insert":
      return join(input.subarray(0, pos(m.at)), m.bytes, input.subarray(pos(m.at)));
    case "delete":
      return join(input.subarray(0, pos(m.at)), input.subarray(pos(m.at) + m.length));
    case "duplicate": {
      const from = pos(m.from);
      const piece = input.slice(from, from + m.length);
      return join(input.subarray(0, pos(m.to)), piece, input.subarray(pos(m.to)));
    }
  }
}

/** Mutations of a bag's entries, forged again into a well-formed (or deliberately not) ZIP. */
type EntryMutation =
  | { kind: "reorder-local"; order: number[] }
  | { kind: "reorder-central"; order: number[] }
  | { kind: "duplicate"; index: number }
  | { kind: "drop"; index: number }
  | { kind: "swap-bodies"; a: number; b: number }
  | { kind: "rename"; index: number; name: string }
  | {
    kind: "field";
    index: number;
    field: "method" | "flags" | "size" | "crc32" | "madeBy";
    value: number;
  }
  | { kind: "count"; delta: number };

const HOSTILE_NAMES = [
  "data/passport.json",
  "data/files/brief.txt",
  "data/files/../../x",
  "data/files/BRIEF.TXT",
  "data/files/brief.txt/",
  "data/files/notes",
  "bagit.txt",
  "data/files/aux.txt",
  "data/files/a\\b",
  "/abs",
  "data/",
  "fetch.txt",
];

function entryMutation(count: number): fc.Arbitrary<EntryMutation> {
  const index = fc.nat({ max: count - 1 });
  const order = fc.shuffledSubarray([...Array(count).keys()], {
    minLength: count,
    maxLength: count,
  });
  return fc.oneof(
    fc.record({ kind: fc.constant("reorder-local" as const), order }),
    fc.record({ kind: fc.constant("reorder-central" as const), order }),
    fc.record({ kind: fc.constant("duplicate" as const), index }),
    fc.record({ kind: fc.constant("drop" as const), index }),
    fc.record({ kind: fc.constant("swap-bodies" as const), a: index, b: index }),
    fc.record({
      kind: fc.constant("rename" as const),
      index,
      name: fc.constantFrom(...HOSTILE_NAMES),
    }),
    fc.record({
      kind: fc.constant("field" as const),
      index,
      field: fc.constantFrom(
        "method" as const,
        "flags" as const,
        "size" as const,
        "crc32" as const,
        "madeBy" as const,
      ),
      value: fc.oneof(
        fc.nat({ max: 0xffff }),
        fc.constantFrom(0, 8, 0x0808, 0xffffffff, 3 << 8 | 30),
      ),
    }),
    fc.record({ kind: fc.constant("count" as const), delta: fc.integer({ min: -2, max: 2 }) }),
  ).map((m) => m as EntryMutation);
}

function applyEntries(entries: ForgeEntry[], mutations: readonly EntryMutation[]): Uint8Array {
  let list = entries.map((e) => ({ ...e }));
  let centralOrder: number[] | undefined;
  let countDelta = 0;
  for (const m of mutations) {
    const at = (i: number) => i % list.length;
    switch (m.kind) {
      case "reorder-local":
        list = m.order.filter((i) => i < list.length).map((i) => list[i]!);
        centralOrder = undefined;
        break;
      case "reorder-central":
        centralOrder = m.order.filter((i) => i < list.length);
        break;
      case "duplicate":
        list.push({ ...list[at(m.index)]! });
        break;
      case "drop":
        if (list.length > 1) list.splice(at(m.index), 1);
        centralOrder = undefined;
        break;
      case "swap-bodies": {
        const a = list[at(m.a)]!;
        const b = list[at(m.b)]!;
        list[at(m.a)] = { ...a, data: b.data!, ...(b.content ? { content: b.content } : {}) };
        list[at(m.b)] = { ...b, data: a.data!, ...(a.content ? { content: a.content } : {}) };
        break;
      }
      case "rename":
        list[at(m.index)] = { ...list[at(m.index)]!, name: m.name };
        break;
      case "field":
        list[at(m.index)] = { ...list[at(m.index)]!, [m.field]: m.value };
        break;
      case "count":
        countDelta += m.delta;
        break;
    }
  }
  const count = Math.max(0, (centralOrder?.length ?? list.length) + countDelta);
  return forgeZip(list, {
    ...(centralOrder ? { centralOrder } : {}),
    ...(countDelta !== 0 ? { count } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// The property

function assertTyped(error: unknown, what: string): void {
  if (error instanceof TaskPackReadError || error instanceof RefusalError) return;
  throw new Error(`${what} threw something other than a typed error: ${error}`, { cause: error });
}

async function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} took over ${RUN_TIMEOUT_MS} ms`)),
      RUN_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function walk(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${rel}${entry.name}`;
    if (entry.isSymlink) out.push(`${path} (symlink)`);
    else if (entry.isDirectory) {
      out.push(`${path}/`, ...await walk(`${dir}/${entry.name}`, `${path}/`));
    } else out.push(path);
  }
  return out.sort();
}

let extractions = 0;
let landedRuns = 0;

async function check(bytes: Uint8Array, root: string, run: number): Promise<void> {
  for (const limits of [undefined, LIMITS]) {
    const options = limits ? { limits } : {};
    try {
      const decoded = await decodePack(bytes, options);
      const audits = await auditLuggage(decoded);
      assert.equal(audits.length, decoded.luggage.length);
      if (limits) {
        // Whatever was read stayed within the limits it was given.
        assert.ok(bytes.length <= limits.maxPackBytes!);
        assert.ok((decoded.passportBytes?.length ?? 0) <= limits.maxPassportBytes!);
        const total = decoded.luggage.reduce((sum, file) => sum + file.size, 0);
        assert.ok(total <= limits.maxTotalSize!, `${total} bytes of luggage`);
      }
    } catch (error) {
      assertTyped(error, "decodePack/auditLuggage");
    }
    const report = await judge(bytes, options);
    assert.equal(report.checks.length, 11);
  }
  let landed;
  try {
    landed = await land(bytes);
  } catch (error) {
    assertTyped(error, "land");
    return;
  }
  landedRuns++;
  if (landed.luggage.length === 0) return;
  // Land into a folder two levels down, beside a file that must stay as it is.
  const home = `${root}/run-${run}`;
  await Deno.mkdir(`${home}/a/b`, { recursive: true });
  await Deno.writeTextFile(`${home}/a/keep.txt`, "keep\n");
  try {
    await extractLuggage(landed.luggage, `${home}/a/b/out`);
  } catch (error) {
    assertTyped(error, "extractLuggage");
  }
  extractions++;
  const names = landed.luggage.map((file) => file.name);
  const expected = new Set(["a/", "a/keep.txt", "a/b/", "a/b/out/"]);
  for (const name of names) {
    const segments = name.split("/");
    for (let i = 1; i < segments.length; i++) {
      expected.add(`a/b/out/${segments.slice(0, i).join("/")}/`);
    }
    expected.add(`a/b/out/${name}`);
  }
  const found = await walk(home);
  for (const path of found) {
    assert.ok(expected.has(path), `${path} was written outside the luggage`);
  }
  assert.equal(await Deno.readTextFile(`${home}/a/keep.txt`), "keep\n");
  await Deno.remove(home, { recursive: true });
}

Deno.test({
  name:
    `the reader survives ${RUNS} mutated packs: a pack or a typed error, no hang, nothing outside`,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const root = await tempDir({ prefix: "taskpack-fuzz-" });
    const packs = await bases();
    for (const base of packs) await check(base.bytes, root, -1);
    const forged = packs.filter((b) => b.entries);
    const input = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.record({
          base: fc.constantFrom(...packs),
          bytes: fc.array(byteMutation, { minLength: 0, maxLength: 4 }),
        }).map(({ base, bytes }) => ({
          label: base.name,
          make: () => bytes.reduce(applyBytes, base.bytes),
        })),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom(...forged).chain((base) =>
          fc.record({
            entries: fc.array(entryMutation(base.entries!.length), { minLength: 1, maxLength: 3 }),
            bytes: fc.array(byteMutation, { maxLength: 1 }),
          }).map(({ entries, bytes }) => ({
            label: `${base.name}, entries`,
            make: () => bytes.reduce(applyBytes, applyEntries(base.entries!, entries)),
          }))
        ),
      },
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(input, async ({ make }) => {
        const bytes = make();
        await withTimeout(check(bytes, root, run++), "one run");
      }),
      { numRuns: RUNS, ...(SEED ? { seed: Number(SEED) } : {}) },
    );
    await Deno.remove(root, { recursive: true });
    console.log(`${run} runs, ${landedRuns} landed, ${extractions} extracted`);
    assert.ok(landedRuns > 0, "some mutated packs still land");
    assert.ok(extractions > 0, "some luggage was extracted");
  },
});
