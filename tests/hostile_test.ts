// Copyright 2026 the taskpack authors. MIT license.
// The hostile corpus (testdata/hostile/, written by tools/make_hostile_corpus.ts, plus the
// secret-shaped cases tests/_hostile_generated.ts builds at run time): every case through the
// judge, the library's land, and the CLI as a subprocess, which must write nothing.
import assert from "node:assert/strict";
import { judge } from "../lib/format/conformance.ts";
import { RefusalError, TaskPackReadError } from "../lib/bytes/errors.ts";
import { land } from "../lib/format/land.ts";
import { main } from "../cli.ts";
import { cli, snapshot } from "./_cli.ts";
import { generatedCases } from "./_hostile_generated.ts";
import {
  bagParts,
  baseObject,
  buildCorpus,
  deflated,
  type Expectation,
  flat,
} from "../tools/make_hostile_corpus.ts";
import { forgeZip } from "./_zip_forge.ts";
import type { ReadLimits } from "../lib/format/read.ts";
import { parseLimitFlags } from "../cli/limits.ts";
import { runConformance } from "../cli/conformance.ts";
import { runConvert } from "../cli/convert.ts";
import { runLand } from "../cli/land.ts";
import { tempDir } from "./_helpers.ts";

const CORPUS = new URL("../testdata/hostile/", import.meta.url).pathname;
const ROOT = new URL("../", import.meta.url).pathname;
const CLASSES = ["paths", "zip", "bagit", "json", "flat", "content", "targets"];

interface Case extends Expectation {
  id: string;
  ext: string;
  bytes: Uint8Array;
  committed: boolean;
}

async function loadCases(): Promise<Case[]> {
  const expected: Record<string, Expectation & { file: string }> = JSON.parse(
    await Deno.readTextFile(`${CORPUS}expected.json`),
  );
  const cases: Case[] = [];
  for (const [id, { file, ...expect }] of Object.entries(expected)) {
    const bytes = await Deno.readFile(`${CORPUS}${file}`);
    const ext = file.endsWith(".taskpack.json") ? ".taskpack.json" : ".taskpack";
    cases.push({ id, ext, bytes, committed: true, ...expect });
  }
  for (const { id, ext, bytes, kind: _, ...expect } of await generatedCases()) {
    assert.ok(!(id in expected), `${id} is both committed and generated`);
    cases.push({ id, ext, bytes, committed: false, ...expect });
  }
  return cases;
}

const cases = await loadCases();

function codeOf(error: unknown): string {
  if (error instanceof TaskPackReadError) return error.code;
  if (error instanceof RefusalError) return error.rule;
  throw error;
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>) {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return out;
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyDir(`${from}/${entry.name}`, `${to}/${entry.name}`);
    else await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
  }
}

Deno.test("the corpus has at least 60 cases, every class of the issue, each small", () => {
  assert.ok(cases.length >= 60, `${cases.length} cases`);
  const byClass = new Map<string, number>();
  for (const c of cases) {
    byClass.set(c.id.split("/")[0]!, (byClass.get(c.id.split("/")[0]!) ?? 0) + 1);
  }
  assert.deepEqual([...byClass.keys()].sort(), [...CLASSES].sort());
  for (const c of cases.filter((c) => c.committed)) {
    assert.ok(c.bytes.length <= 8 * 1024, `${c.id} is ${c.bytes.length} bytes`);
  }
  const accepted = cases.filter((c) => c.land === "accept").map((c) => c.id);
  for (
    const control of [
      "zip/directory-entries",
      "zip/zip64-exact",
      "content/control-yaml-user-luggage",
    ]
  ) {
    assert.ok(accepted.includes(control), `${control} is a negative control`);
  }
});

Deno.test("the judge reports every case (never throws) and the library's land refuses it with its code", async (t) => {
  for (const c of cases) {
    await t.step(`${c.id}: ${c.why}`, async () => {
      const report = await judge(c.bytes);
      const failed = report.checks.filter((check) => !check.ok);
      for (const id of c.judge) {
        const check = failed.find((f) => f.id === id);
        assert.ok(check, `${id} must fail; failed: ${failed.map((f) => f.id).join(",") || "none"}`);
        assert.doesNotMatch(check.detail, /^not evaluated/, `${id} must fail for a reason`);
      }
      if (c.judge.length === 0) {
        assert.ok(report.ok, `expected conformant: ${JSON.stringify(failed)}`);
      }
      // Portability is a warning, never a failure: exactly the names expected, nothing else.
      assert.deepEqual(report.warnings.map((w) => w.name), c.warnings ?? []);
      let outcome = "accept";
      try {
        await land(c.bytes);
      } catch (error) {
        outcome = codeOf(error);
      }
      assert.equal(outcome, c.land);
    });
  }
});

/**
 * Which cases run as a real subprocess: every target case, a few controls, and the first case
 * of every refusal code (all of them with TASKPACK_HOSTILE_SUBPROCESS=all). The rest run
 * through the same `main()` in this process, which is the CLI less its start-up time.
 */
function bySubprocess(): Set<string> {
  if (Deno.env.get("TASKPACK_HOSTILE_SUBPROCESS") === "all") return new Set(cases.map((c) => c.id));
  const chosen = new Set<string>();
  const codes = new Set<string>();
  for (const c of [...cases].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (c.target) chosen.add(c.id);
    else if (c.land !== "accept" && !codes.has(c.land)) {
      codes.add(c.land);
      chosen.add(c.id);
    }
  }
  for (const id of ["zip/directory-entries", "json/bom", "content/control-yaml-user-luggage"]) {
    chosen.add(id);
  }
  return chosen;
}

Deno.test("the CLI refuses every hostile case and writes nothing; controls land into a fresh folder", async (t) => {
  const tmp = await tempDir({ prefix: "taskpack-hostile-" });
  const template = `${tmp}/template-store`;
  const made = await cli(
    ["new", "--title", "existing", "--goal", "stay intact", "--store", template, "--json"],
    { cwd: tmp },
  );
  assert.equal(made.code, 0, made.stderr);
  const subprocess = bySubprocess();

  interface Run {
    how: string;
    code: number;
    stderr: string;
    storeBefore: Map<string, string>;
    storeAfter: Map<string, string>;
    targetBefore: Map<string, string>;
    targetAfter: Map<string, string>;
    elsewhereAfter: Map<string, string>;
    rootAfter: string[];
  }
  const run = async (c: Case): Promise<Run> => {
    const dir = `${tmp}/${c.id.replace("/", "--")}`;
    await copyDir(template, `${dir}/store`);
    await Deno.mkdir(`${dir}/target`, { recursive: true });
    await Deno.mkdir(`${dir}/elsewhere`);
    await Deno.writeTextFile(`${dir}/elsewhere/keep.txt`, "outside\n");
    await Deno.writeTextFile(`${dir}/target/keep.txt`, "keep me\n");
    const out = `${dir}/target/out`;
    if (c.target === "symlink") await Deno.symlink(`${dir}/elsewhere`, out);
    if (c.target === "dangling-symlink") await Deno.symlink(`${dir}/missing`, out);
    if (c.target === "file") await Deno.writeTextFile(out, "a file of the same name\n");
    if (c.target === "folder") {
      await Deno.mkdir(out);
      await Deno.writeTextFile(`${out}/brief.txt`, "already here\n");
    }
    const pack = `${dir}/case${c.ext}`;
    await Deno.writeFile(pack, c.bytes);
    const storeBefore = await snapshot(`${dir}/store`);
    const targetBefore = await snapshot(`${dir}/target`);
    const args = [
      "land",
      pack,
      "--store",
      `${dir}/store`,
      "--files-out",
      out,
      "--machine",
      "m",
      "--json",
    ];
    let code: number;
    let stderr = "";
    const how = subprocess.has(c.id) ? "subprocess" : "main()";
    if (how === "subprocess") {
      const result = await cli(args, { cwd: dir });
      code = result.code;
      stderr = result.stderr;
    } else {
      code = await main(args, { out: () => {}, err: (text) => void (stderr += text) });
    }
    return {
      how,
      code,
      stderr,
      storeBefore,
      storeAfter: await snapshot(`${dir}/store`),
      targetBefore,
      targetAfter: await snapshot(`${dir}/target`),
      elsewhereAfter: await snapshot(`${dir}/elsewhere`),
      rootAfter: (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort(),
    };
  };
  const runs = new Map<string, Run>();
  const inProcess = cases.filter((c) => !subprocess.has(c.id));
  await Promise.all([
    pool(cases.filter((c) => subprocess.has(c.id)), 4, async (c) => runs.set(c.id, await run(c))),
    (async () => {
      for (const c of inProcess) runs.set(c.id, await run(c));
    })(),
  ]);

  for (const c of cases) {
    const result = runs.get(c.id)!;
    await t.step(`${c.id}: exit ${c.cli} (${result.how})`, async () => {
      assert.equal(result.code, c.cli, result.stderr);
      assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
      assert.deepEqual(result.rootAfter, ["case" + c.ext, "elsewhere", "store", "target"]);
      assert.deepEqual(result.elsewhereAfter, new Map([["keep.txt", "outside\n"]]));
      if (c.cli !== 0) {
        assert.match(result.stderr, /^taskpack: /);
        assert.deepEqual(result.storeAfter, result.storeBefore, "the store is byte-identical");
        assert.deepEqual(result.targetAfter, result.targetBefore, "the target is byte-identical");
        return;
      }
      // A control lands: one new passport, and the luggage in a fresh folder, nothing else.
      const added = [...result.storeAfter.keys()].filter((k) => !result.storeBefore.has(k));
      assert.ok(added.length >= 1, "a passport was created");
      for (const [k, v] of result.storeBefore) assert.equal(result.storeAfter.get(k), v, k);
      const landed = await land(c.bytes);
      const expected = new Map<string, string>([["keep.txt", "keep me\n"]]);
      for (const file of landed.luggage) {
        const bytes = new Uint8Array(await new Response(file.open()).arrayBuffer());
        expected.set(`out/${file.name}`, new TextDecoder().decode(bytes));
      }
      assert.deepEqual(result.targetAfter, expected);
    });
  }
  await Deno.remove(tmp, { recursive: true });
});

Deno.test("deflate bombs are read in bounded memory, in a fresh process", async () => {
  const bombs = cases.filter((c) => c.committed && c.id.startsWith("zip/deflate-bomb"));
  assert.ok(bombs.length >= 3);
  const files = bombs.map((c) => `${CORPUS}${c.id}${c.ext}`);
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      `${ROOT}tests/_hostile_generated.ts`,
      "128",
      ...files,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const probe = JSON.parse(new TextDecoder().decode(output.stdout));
  const MiB = 1024 * 1024;
  const runs = [probe.lying, probe.honest, probe.lyingShell, probe.honestShell];
  for (const result of runs.flatMap((run) => run.results)) {
    assert.equal(result.judged, false, result.name);
    assert.notEqual(result.land, "accept", result.name);
  }
  // Bombs that lie are stopped within a MiB of their declared size: RSS barely moves.
  assert.ok(probe.lying.growth < 64 * MiB, `RSS grew by ${probe.lying.growth / MiB} MiB`);
  // 128 MiB inflated honestly: the reader holds about one MiB at a time.
  assert.ok(probe.honest.growth < 64 * MiB, `RSS grew by ${probe.honest.growth / MiB} MiB`);
  // The same through the CLI's node:zlib inflater, which is fed larger pieces.
  assert.ok(probe.lyingShell.growth < 64 * MiB, `RSS grew by ${probe.lyingShell.growth / MiB} MiB`);
  assert.ok(
    probe.honestShell.growth < 64 * MiB,
    `RSS grew by ${probe.honestShell.growth / MiB} MiB`,
  );
});

Deno.test("the corpus on disk is exactly what tools/make_hostile_corpus.ts writes", async () => {
  const tmp = await tempDir({ prefix: "taskpack-corpus-" });
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}tools/make_hostile_corpus.ts`, `${tmp}/hostile`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const list = async (dir: string) => {
    const out = new Map<string, Uint8Array>();
    const walk = async (path: string, rel: string) => {
      for await (const entry of Deno.readDir(path)) {
        if (entry.isDirectory) await walk(`${path}/${entry.name}`, `${rel}${entry.name}/`);
        else out.set(`${rel}${entry.name}`, await Deno.readFile(`${path}/${entry.name}`));
      }
    };
    await walk(dir, "");
    return out;
  };
  const fresh = await list(`${tmp}/hostile`);
  const disk = await list(CORPUS);
  assert.deepEqual([...disk.keys()].sort(), [...fresh.keys()].sort(), "the same files");
  for (const [name, bytes] of fresh) {
    assert.ok(
      disk.get(name)!.length === bytes.length && disk.get(name)!.every((b, i) => b === bytes[i]),
      `${name} drifted: run deno run -A tools/make_hostile_corpus.ts`,
    );
  }
  // In-process too: the generator is deterministic.
  const again = await buildCorpus();
  assert.equal(again.length, fresh.size - 1);
  await Deno.remove(tmp, { recursive: true });
});

Deno.test("no committed case holds a secret-shaped token", async () => {
  const { findCredential } = await import("../lib/scan/patterns.ts");
  for (const c of cases.filter((c) => c.committed)) {
    const text = new TextDecoder("latin1").decode(c.bytes);
    assert.equal(findCredential(text), null, c.id);
  }
});

Deno.test("a receipt whose passport id is a path cannot put its luggage outside the store", async () => {
  const tmp = await tempDir({ prefix: "taskpack-receipt-" });
  const made = await cli(
    ["new", "--title", "t", "--goal", "g", "--store", `${tmp}/store`, "--json"],
    { cwd: tmp },
  );
  assert.equal(made.code, 0, made.stderr);
  const id: string = made.json().passport_id;
  const corpus = await buildCorpus();
  const base = JSON.parse(
    new TextDecoder().decode(corpus.find((c) => c.id === "flat/valid")!.bytes),
  ).passport;
  const receipt = {
    ...base,
    kind: "receipt",
    // The last chain entry is the sender (§3); the one before it is the passport answered.
    lineage: { root_id: id, from_version: 1, chain: [`${id}@1`, "x/../../../escaped@1"] },
    // Climbs out of <store>/<id>.files/ into the temporary folder (never further, so the
    // test stays contained even if the bug comes back).
    passport: { ...base.passport, id: "x/../../../escaped", version: 1 },
  };
  await Deno.writeTextFile(`${tmp}/r.taskpack.json`, flat(receipt));
  const result = await cli(
    ["land", "r.taskpack.json", "--into", id, "--store", `${tmp}/store`, "--json"],
    { cwd: tmp },
  );
  assert.equal(result.code, 0, result.stderr);
  const dir: string = result.json().luggage_dir;
  assert.ok(dir.startsWith(`${tmp}/store/`), dir);
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(tmp))).map((e) => e.name).sort(),
    ["r.taskpack.json", "store"],
  );
  await Deno.remove(tmp, { recursive: true });
});

Deno.test("every limit has a default, refuses with a message naming it, and can be raised", async (t) => {
  const { DEFAULT_READ_LIMITS } = await import("../lib/format/read.ts");
  const corpus = new Map((await buildCorpus()).map((c) => [c.id, c.bytes]));
  const bag = corpus.get("zip/valid-stored")!;
  const flatFile = corpus.get("flat/valid")!;
  const zeros = new Uint8Array(2 << 20);
  const base = await baseObject();
  const compressible = forgeZip(
    await Promise.all(
      bagParts({ luggage: [["zeros.bin", zeros]] }, base).map((p) => deflated(p)),
    ),
  );
  const table: [keyof ReadLimits, number, Uint8Array, string][] = [
    ["maxPackBytes", 1000, bag, "limit"],
    ["maxEntries", 3, bag, "limit"],
    ["maxEntries", 1, flatFile, "limit"],
    ["maxEntrySize", 50, bag, "limit"],
    ["maxTotalSize", 500, bag, "limit"],
    ["maxRatio", 100, compressible, "limit"],
    ["maxNameBytes", 16, bag, "zip-name"],
    ["maxDepth", 3, bag, "zip-name"],
    ["maxPassportBytes", 500, bag, "limit"],
    ["maxPassportBytes", 500, flatFile, "limit"],
    ["maxTagFileBytes", 40, bag, "limit"],
    ["maxJsonDepth", 2, flatFile, "json-too-deep"],
    ["maxJsonKeyLength", 4, flatFile, "limit"],
  ];
  assert.deepEqual(
    new Set(table.map(([name]) => name)),
    new Set(Object.keys(DEFAULT_READ_LIMITS)),
    "every limit is tested",
  );
  for (const [name, value, bytes, code] of table) {
    await t.step(`${name}: default ${DEFAULT_READ_LIMITS[name]}, lowered to ${value}`, async () => {
      await land(bytes); // within the default
      await assert.rejects(land(bytes, { limits: { [name]: value } }), (error: unknown) => {
        assert.ok(error instanceof TaskPackReadError, String(error));
        assert.equal(error.code, code);
        const named = name === "maxJsonDepth"
          ? /deeper than 2 levels/
          : new RegExp(`raise ${name}`);
        assert.match(error.message, named);
        return true;
      });
      const report = await judge(bytes, { limits: { [name]: value } });
      assert.equal(report.ok, false);
    });
  }
  await t.step("the corpus's limit cases land once the limit is raised", async () => {
    await land(corpus.get("json/long-key")!, { limits: { maxJsonKeyLength: 8000 } });
    // Past the ZIP limit, the luggage name rule still caps a name at 64 levels.
    await assert.rejects(
      land(corpus.get("zip/deep-path")!, { limits: { maxDepth: 100 } }),
      /deeper than 64 folders/,
    );
    await assert.rejects(
      land(corpus.get("json/deep-nesting")!, { limits: { maxJsonDepth: 100_000 } }),
      /cannot be raised past 1000/,
    );
  });
  await t.step("--limit <name>=<value> parses names and sizes, and refuses the rest", () => {
    assert.deepEqual(parseLimitFlags(["maxTotalSize=200GiB", "max-entries=10", "maxRatio=50"]), {
      maxTotalSize: 200 * 1024 ** 3,
      maxEntries: 10,
      maxRatio: 50,
    });
    assert.deepEqual(parseLimitFlags(undefined), {});
    for (
      const bad of ["maxTotalSize", "nope=1", "maxTotalSize=-1", "maxTotalSize=1TB", "maxRatio=1.5"]
    ) {
      assert.throws(() => parseLimitFlags([bad]), /--limit/);
    }
  });
  await t.step("conformance, convert and land take the limits", async () => {
    const tmp = await tempDir();
    await Deno.writeFile(`${tmp}/p.taskpack`, bag);
    let err = "";
    const io = { out: () => {}, err: (text: string) => void (err += text) };
    const limits = parseLimitFlags(["maxPackBytes=1KiB"]);
    assert.equal(await runConformance(`${tmp}/p.taskpack`, false, io, limits), 2);
    await assert.rejects(
      runConvert(`${tmp}/p.taskpack`, `${tmp}/p.taskpack.json`, { json: false, limits }, io),
      /raise maxPackBytes/,
    );
    await assert.rejects(
      runLand(`${tmp}/p.taskpack`, { json: true, store: `${tmp}/store`, limits }, io),
      /raise maxPackBytes/,
    );
    assert.deepEqual(await snapshot(`${tmp}/store`), new Map());
    await Deno.remove(tmp, { recursive: true });
  });
  await t.step("the command line's --limit reaches every reading verb", async () => {
    const tmp = await tempDir();
    await Deno.writeFile(`${tmp}/p.taskpack`, bag);
    const lowered = ["--limit", "maxPackBytes=1KiB"];
    const judged = await cli(["conformance", "p.taskpack", "--json", ...lowered], { cwd: tmp });
    assert.equal(judged.code, 2, judged.stderr);
    assert.match(judged.stdout, /raise maxPackBytes/);
    assert.equal((await cli(["conformance", "p.taskpack"], { cwd: tmp })).code, 0);
    for (
      const verb of [["inspect", "p.taskpack"], ["convert", "p.taskpack", "-o", "q.taskpack.json"]]
    ) {
      const refused = await cli([...verb, ...lowered], { cwd: tmp });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /raise maxPackBytes/);
    }
    const landed = await cli(["land", "p.taskpack", "--store", "store", ...lowered], { cwd: tmp });
    assert.equal(landed.code, 2, landed.stderr);
    assert.match(landed.stderr, /raise maxPackBytes/);
    const unknown = await cli(["conformance", "p.taskpack", "--limit", "nope=1"], { cwd: tmp });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /--limit needs <name>=<value>/);
    assert.deepEqual([...(await snapshot(tmp)).keys()], ["p.taskpack"]);
    await Deno.remove(tmp, { recursive: true });
  });
});

Deno.test("the writer refuses a luggage name the judge fails (C7), without quoting it", async () => {
  const { preparePack } = await import("../lib/format/pack.ts");
  const { luggageFromBytes } = await import("../lib/bytes/source.ts");
  const { tokens } = await import("./_hostile_generated.ts");
  const token = tokens().find((t) => t.kind === "github-token")!.token;
  const base = await baseObject();
  await assert.rejects(
    preparePack(base, [luggageFromBytes(`keys/${token}`, "x\n")]),
    (error: unknown) => {
      assert.ok(error instanceof RefusalError);
      assert.equal(error.rule, "credential");
      assert.equal(error.where, "luggage[0] (name)");
      assert.ok(!error.message.includes(token));
      return true;
    },
  );
});

Deno.test("a credential in a ZIP comment or extra field is named by where it is, never quoted", async () => {
  const { generatedCases, tokens } = await import("./_hostile_generated.ts");
  const secrets = tokens().map((t) => t.token);
  const where: Record<string, string> = {
    "content/credential-zip-archive-comment": "the archive comment",
    "content/credential-zip-entry-comment": "the comment of data/files/brief.txt",
    "content/credential-zip-extra-field": "extra field 0xCAFE of data/files/brief.txt",
    "content/credential-zip-local-extra-field": "local extra field 0xCAFE of data/files/brief.txt",
    "content/credential-zip-comment-zero-width": "the comment of data/files/brief.txt",
  };
  const generated = (await generatedCases()).filter((c) => c.id in where);
  assert.equal(generated.length, Object.keys(where).length);
  for (const c of generated) {
    const c7 = (await judge(c.bytes)).checks.find((check) => check.id === "C7")!;
    assert.equal(c7.detail, `${where[c.id]}: looks like a credential`, c.id);
    const error = await land(c.bytes).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof RefusalError, c.id);
    assert.equal(error.where, where[c.id]);
    for (const text of [c7.detail, error.message]) {
      assert.ok(!secrets.some((s) => text.includes(s.slice(0, 12))), `${c.id} quotes the secret`);
    }
  }
});

Deno.test("every generated token is found by the detector it stands for", async () => {
  const { findCredential } = await import("../lib/scan/patterns.ts");
  const { tokens } = await import("./_hostile_generated.ts");
  const kinds = new Set<string>();
  for (const { kind, token } of tokens()) {
    assert.equal(findCredential(token)?.kind, kind, kind);
    kinds.add(kind);
  }
  assert.ok(kinds.size >= 25, `${kinds.size} detectors covered`);
});

Deno.test("a credential on a line of a tag file, or in base64, is named by file and line, and land refuses it before writing", async () => {
  const { generatedCases, tokens } = await import("./_hostile_generated.ts");
  const secrets = tokens().map((t) => t.token);
  const where: Record<string, string> = {
    "content/credential-tag-bag-info": "line 9 of bag-info.txt",
    "content/credential-tag-bagit": "line 3 of bagit.txt",
    "content/credential-tag-bag-info-base64": "line 9 of bag-info.txt (in base64)",
    "content/credential-tag-manifest": "line 4 of manifest-sha256.txt",
    "content/credential-tag-tagmanifest": "line 4 of tagmanifest-sha256.txt",
    "content/credential-base64-k8s-secret": "data/files/k8s/secret.yaml:8",
    "content/credential-base64-k8s-secret-by-key": "data/files/k8s/aws.yaml:8",
    "content/credential-base64-run": "data/files/config.json:1",
    "content/credential-base64-past-64k": "data/files/bundle.txt:2",
    "content/credential-base64-urlsafe-string": "passport.current_state",
  };
  const generated = (await generatedCases()).filter((c) => c.id in where);
  assert.equal(generated.length, Object.keys(where).length);
  for (const c of generated) {
    const c7 = (await judge(c.bytes)).checks.find((check) => check.id === "C7")!;
    assert.ok(!c7.ok, c.id);
    assert.ok(c7.detail.startsWith(`${where[c.id]}: `), `${c.id}: ${c7.detail}`);
    if (c.id.includes("base64")) assert.match(c7.detail, /base64/, c.id);
    const error = await land(c.bytes).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof RefusalError || error instanceof TaskPackReadError, c.id);
    if (error instanceof RefusalError) {
      assert.equal(error.rule, "credential", c.id);
      assert.equal(
        error.where.replace(/ \(in base64\)$/, ""),
        where[c.id]!.replace(/ \(in base64\)$/, ""),
      );
    }
    for (const text of [c7.detail, (error as Error).message]) {
      assert.ok(!secrets.some((s) => text.includes(s.slice(0, 12))), `${c.id} quotes the secret`);
    }
  }
});

Deno.test("maxEntries binds both encodings alike: 100,001 flat attachments are refused as a bag of 100,001 entries is", async () => {
  const { generatedCases } = await import("./_hostile_generated.ts");
  const flatCase = (await generatedCases()).find((c) =>
    c.id === "flat/attachments-over-max-entries"
  )!;
  const base = await baseObject();
  // A bag of 100,001 entries: the central directory's count is refused before anything is read.
  const entries = bagParts({}, base).map((p) => ({ name: p.name, data: p.bytes }));
  for (let i = entries.length; i <= 100_000; i++) {
    entries.push({ name: `data/files/f/${i}`, data: new Uint8Array(0) });
  }
  const bagBytes = forgeZip(entries, { zip64: true });
  for (const bytes of [flatCase.bytes, bagBytes]) {
    const report = await judge(bytes);
    const c1 = report.checks.find((check) => check.id === "C1")!;
    assert.equal(report.ok, false);
    assert.match(c1.detail, /count 100001 is over the limit of 100000 \(raise maxEntries\)/);
    await assert.rejects(land(bytes), (error: unknown) => {
      assert.ok(error instanceof TaskPackReadError);
      assert.equal(error.code, "limit");
      assert.match(error.message, /raise maxEntries/);
      return true;
    });
  }
  // Raised, the flat file is read (and its luggage judged) like any other.
  const raised = await judge(flatCase.bytes, { limits: { maxEntries: 100_001 } });
  assert.ok(raised.ok, JSON.stringify(raised.checks.filter((c) => !c.ok)));
});
