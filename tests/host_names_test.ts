// Copyright 2026 the taskpack authors. MIT license.
// One verdict on every machine: any name the spec allows packs, judges conformant, converts and
// lands as written on a case-sensitive POSIX folder; what a given host cannot hold is that
// landing's decision (refused before anything is written, or renamed), never the judge's.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import {
  buildPackObject,
  encodeBag,
  type HostNameRules,
  judge,
  land,
  luggageFromBytes,
  luggageNameProblem,
  luggageSetProblem,
  planHostNames,
  portabilityWarnings,
  POSIX_HOST,
  preparePack,
  RefusalError,
  TaskPackReadError,
  windowsProblem,
} from "../mod.ts";
import { extractLuggage } from "../app/luggage_out.ts";
import { type ProbeFs, probeHostNames } from "../shell/host/host_names.ts";
import { main } from "../cli.ts";
import { bagParts, BASE_LUGGAGE, baseObject, forgeBag } from "../tools/make_hostile_corpus.ts";
import { cli, snapshot } from "./_cli.ts";
import {
  convert,
  readReference,
  SAMPLE_OPTIONS,
  sampleState,
  streamBytes,
  tempDir,
} from "./_helpers.ts";

const encoder = new TextEncoder();

// Pieces that make the awkward names of real folders: device names, case twins, NFC and NFD
// forms, characters Windows forbids, trailing dots and spaces, percent signs.
const piece = fc.constantFrom(
  "a",
  "A",
  "b",
  "con",
  "AUX",
  "nul",
  "com1",
  "é",
  "e\u0301",
  ":",
  "*",
  "?",
  "|",
  "%",
  "%25",
  " ",
  ".",
  ".txt",
  "-",
  "_",
  "~2",
  "中",
);
const segment = fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join(""));
const name = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join("/"));
const names = fc.array(name, { minLength: 1, maxLength: 5 }).filter((list) =>
  luggageSetProblem(list) === null
);

const HOSTS: HostNameRules[] = [
  POSIX_HOST,
  { windows: true, foldsCase: true, normalises: false },
  { windows: false, foldsCase: true, normalises: true },
  { windows: false, foldsCase: false, normalises: true },
  { windows: true, foldsCase: false, normalises: false },
];

async function withTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await tempDir();
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function packOf(list: readonly string[]): Promise<Uint8Array> {
  const luggage = list.map((n, i) => luggageFromBytes(n, encoder.encode(`file ${i}: ${n}\n`)));
  const prepared = await preparePack(buildPackObject(sampleState(), SAMPLE_OPTIONS), luggage);
  return await streamBytes(encodeBag(prepared));
}

Deno.test("any name the judge accepts packs, judges conformant, converts and lands as written", async () => {
  await fc.assert(
    fc.asyncProperty(names, async (list) => {
      const bag = await packOf(list);
      const flat = await convert(bag, "flat");
      assert.deepEqual(await convert(flat, "bag"), bag);
      for (const bytes of [bag, flat]) {
        const report = await judge(bytes);
        assert.ok(report.ok, JSON.stringify(report.checks.filter((c) => !c.ok)));
        assert.deepEqual(report.warnings, portabilityWarnings(list));
      }
      await withTemp(async (dir) => {
        const landed = await land(flat);
        assert.deepEqual(landed.renamed, []);
        await extractLuggage(landed.luggage, `${dir}/out`);
        for (const [i, n] of list.entries()) {
          const bytes = await Deno.readFile(`${dir}/out/${n}`);
          assert.equal(new TextDecoder().decode(bytes), `file ${i}: ${n}\n`);
        }
      });
    }),
    { numRuns: 40 },
  );
});

Deno.test("a name the judge refuses is refused by pack, and landing it writes nothing", async () => {
  const bad = ["../up", "a//b", "a\\b", "/abs", "C:x", "a\u0007", "x/./y", "é".repeat(128)];
  const base = await baseObject();
  for (const n of bad) {
    assert.notEqual(luggageNameProblem(n), null, n);
    await assert.rejects(packOf([n]), RefusalError, n);
    const forged = forgeBag(
      bagParts({ luggage: [...BASE_LUGGAGE, [n, encoder.encode("x")]] }, base),
    );
    assert.equal((await judge(forged)).ok, false, n);
    await withTemp(async (dir) => {
      await Deno.writeFile(`${dir}/p.taskpack`, forged);
      const quiet = { out: () => {}, err: () => {} };
      const code = await main(
        ["land", `${dir}/p.taskpack`, "--store", `${dir}/store`, "--files-out", `${dir}/out`],
        quiet,
      );
      assert.equal(code, 2, n);
      assert.deepEqual([...(await snapshot(dir)).keys()], ["p.taskpack"], n);
    });
  }
});

Deno.test("a host's plan: what it cannot hold is refused, or renamed to names it can", () => {
  fc.assert(
    fc.property(names, fc.constantFrom(...HOSTS), (list, host) => {
      const key = (p: string) => {
        const k = host.normalises ? p.normalize("NFC") : p;
        return host.foldsCase ? k.toLowerCase() : k;
      };
      const refused = planHostNames(list, host, false);
      const renamed = planHostNames(list, host, true);
      assert.equal(renamed.problem, null);
      // Refused exactly when something had to be renamed.
      assert.equal(refused.problem === null, renamed.renamed.length === 0, JSON.stringify(list));
      const byOriginal = new Map(renamed.renamed.map((r) => [r.original, r.landed]));
      const landed = list.map((n) => byOriginal.get(n) ?? n);
      // Every landed name is a safe name the host holds, and no two are one file there.
      const files = new Set<string>();
      for (const n of landed) {
        assert.equal(luggageNameProblem(n), null, n);
        if (host.windows) assert.equal(windowsProblem(n), null, n);
        assert.ok(!files.has(key(n)), `${n} twice in ${JSON.stringify(landed)}`);
        files.add(key(n));
      }
      for (const n of landed) {
        for (let at = n.indexOf("/"); at !== -1; at = n.indexOf("/", at + 1)) {
          assert.ok(!files.has(key(n.slice(0, at))), `${n} lies inside a file`);
        }
      }
      // Names the host holds as written, with no earlier twin, keep them.
      const clash = (a: string, b: string) =>
        key(a) === key(b) || key(a).startsWith(key(b) + "/") || key(b).startsWith(key(a) + "/");
      list.forEach((n, i) => {
        const holds = !host.windows || windowsProblem(n) === null;
        if (holds && !list.slice(0, i).some((e) => clash(e, n))) {
          assert.equal(landed[i], n, JSON.stringify(list));
        }
      });
      for (const r of renamed.renamed) assert.notEqual(r.original, r.landed);
    }),
    { numRuns: 5_000 },
  );
});

Deno.test("Windows rules and a folding disk: the incumbent's names pack refused, or renamed", async () => {
  const windows = { windows: true, foldsCase: true, normalises: false };
  const bytes = await readReference("names.taskpack");
  const refused = await land(bytes, { host: windows }).then(() => null, (e) => e);
  assert.ok(refused instanceof TaskPackReadError);
  assert.equal(refused.code, "host-name");
  assert.match(refused.message, /data\/files\/con\.txt/);
  const landed = await land(bytes, { host: windows, renameUnportable: true });
  assert.deepEqual(landed.renamed.map((r) => [r.original, r.landed]), [
    ["con.txt", "con_.txt"],
    ["aux.js", "aux_.js"],
    ["nul.bin", "nul_.bin"],
    ["README.txt", "README~2.txt"],
    ["sub/prn.md", "sub/prn_.md"],
  ]);
  // A folding disk alone: only the case twin is renamed.
  const folding = { windows: false, foldsCase: true, normalises: false };
  const twin = await land(bytes, { host: folding, renameUnportable: true });
  assert.deepEqual(twin.renamed.map((r) => r.landed), ["README~2.txt"]);
  // The files land under their new names, with their own bytes.
  await withTemp(async (dir) => {
    await extractLuggage(landed.luggage, `${dir}/out`, false, landed.renamed);
    const listing = [...(await snapshot(`${dir}/out`)).keys()].sort();
    assert.deepEqual(listing, [
      "README~2.txt",
      "Readme.txt",
      "aux_.js",
      "build_2026-12-03T10_00_00.log",
      "con_.txt",
      "nul_.bin",
      "sub/prn_.md",
    ]);
    const original = landed.luggage.find((f) => f.name === "README.txt")!;
    assert.deepEqual(
      await Deno.readFile(`${dir}/out/README~2.txt`),
      await streamBytes(original.open()),
    );
  });
});

Deno.test("the probe asks the file system, and a faked folding one answers so", async () => {
  await withTemp(async (dir) => {
    // This machine's temporary folder is case-sensitive ext4 or tmpfs.
    assert.deepEqual(await probeHostNames(`${dir}/a/b`, { os: "linux" }), POSIX_HOST);
    assert.deepEqual([...Deno.readDirSync(dir)], [], "the probe cleans up");
    const folding: ProbeFs = {
      makeTempFolder: () => Promise.resolve(`${dir}/probe`),
      createFile: async () => {},
      lstat: (path) =>
        path.startsWith(`${dir}/probe/`) && !/a\u00e9$/i.test(path.normalize("NFC"))
          ? Promise.reject(Object.assign(new Error("missing"), { code: "ENOENT" }))
          : Promise.resolve(),
      rm: async () => {},
    };
    assert.deepEqual(await probeHostNames(dir, { os: "darwin", fs: folding }), {
      windows: false,
      foldsCase: true,
      normalises: true,
    });
    const unwritable: ProbeFs = {
      ...folding,
      makeTempFolder: () => Promise.reject(new Error("read-only")),
    };
    assert.equal((await probeHostNames(dir, { os: "win32", fs: unwritable })).windows, true);
  });
});

Deno.test("CLI: odd names pack with a warning each, land on Linux as written, into an empty folder", async () => {
  await withTemp(async (dir) => {
    const files = ["build 2026-12-03T10:00:00.log", "con.txt", "Readme.txt", "README.txt"];
    await Deno.mkdir(`${dir}/in`);
    for (const f of files) await Deno.writeTextFile(`${dir}/in/${f}`, `${f}\n`);
    const made = await cli([
      "new",
      "--title",
      "odd names",
      "--goal",
      "carry them",
      "--store",
      "s",
      "--json",
    ], { cwd: dir });
    const id = made.json().passport_id;
    const packed = await cli(
      ["pack", id, "--out", "p.taskpack", "--file", "in", "--store", "s", "--json"],
      { cwd: dir },
    );
    assert.equal(packed.code, 0, packed.stderr);
    assert.deepEqual(packed.json().warnings.map((w: { name: string }) => w.name).sort(), [
      "in/Readme.txt",
      "in/build 2026-12-03T10:00:00.log",
      "in/con.txt",
    ]);
    assert.equal(packed.stderr.match(/^warning: data\/files\/in\//gm)?.length, 3);

    const judged = await cli(["conformance", "p.taskpack", "--json"], { cwd: dir });
    assert.equal(judged.code, 0);
    assert.equal(judged.json().passed, 11);
    assert.equal(judged.json().warnings.length, 3);

    // A folder that holds something is refused and left as it was.
    await Deno.mkdir(`${dir}/full`);
    await Deno.writeTextFile(`${dir}/full/keep.txt`, "mine");
    const refused = await cli(
      ["land", "p.taskpack", "--store", "s", "--files-out", "full"],
      { cwd: dir },
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /not empty/);
    assert.deepEqual(await snapshot(`${dir}/full`), new Map([["keep.txt", "mine"]]));

    await Deno.mkdir(`${dir}/empty`, { mode: 0o750 });
    const landed = await cli(
      ["land", "p.taskpack", "--store", "s", "--files-out", "empty", "--json"],
      { cwd: dir },
    );
    assert.equal(landed.code, 0, landed.stderr);
    assert.deepEqual(landed.json().renamed, []);
    assert.deepEqual(
      [...(await snapshot(`${dir}/empty/in`)).entries()].sort(),
      files.map((f) => [f, `${f}\n`]).sort(),
    );
    assert.equal((await Deno.stat(`${dir}/empty`)).mode! & 0o777, 0o750, "the folder is kept");
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "empty",
      "full",
      "in",
      "p.taskpack",
      "s",
    ]);
  });
});
