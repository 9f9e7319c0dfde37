// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- the results are JSON read back from other runtimes
/**
 * `deno task test:runtimes`: one behaviour on four runtimes.
 *
 * 1. Installs what is missing: Bun and playwright-core from the npm registry (pinned), Chromium
 *    from Debian (apt), into a cache folder outside the repository (see `tools/_tools.ts`).
 * 2. Builds the npm package (`dist/npm/`), the browser bundles (`dist/browser/`) and the shared
 *    check script (`tests/runtimes/checks.ts`, bundled into `dist/runtimes/`).
 * 3. Runs the check script twice on each of: Deno (source: the reference), Deno, Node and Bun
 *    (the npm bundle), Chromium (the classic-script bundle from `file://`, the ES module bundle
 *    from 127.0.0.1). Each run builds packs from fixed inputs, converts both ways, judges the
 *    interop fixtures and a sample of the hostile corpus (`testdata/hostile/`, when present).
 *    Every runtime's shared result must equal Deno's; each runtime's own `.taskpack` bytes must
 *    be the same on its second run; Chromium must make no network request.
 * 4. Runs the CLI from the npm build under Node and Bun (`convert`, `conformance`) and compares
 *    it with the CLI under Deno.
 * 5. Packs the npm tarball, installs it into an empty folder with `npm install <tgz>`, and runs
 *    `npx taskpack conformance` there under Node with no Deno on PATH (exit 0, then 2).
 *
 * Prints a table, writes every result to `dist/runtimes/results/`, and exits 1 on any
 * difference.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { buildBrowser } from "./build_browser.ts";
import { buildNpm, NPM_DIR, NPM_NAME } from "./build_npm.ts";
import {
  bundle,
  CHROMIUM_ARGS,
  ensureBun,
  ensureChromium,
  formatSize,
  npmTool,
  packageVersion,
  pathWithout,
  ROOT,
  run,
  runOk,
  type RunResult,
} from "./_tools.ts";
import {
  type CheckInput,
  type CheckResult,
  type CheckSignature,
  zipEntries,
} from "../tests/runtimes/checks.ts";
import { MANY_SMALL_FILES } from "../app/mod.ts";

const RUNTIMES_DIR = join(ROOT, "dist", "runtimes");
const INTEROP_DIR = join(ROOT, "testdata", "interop", "reference-0.3.0");
const HOSTILE_DIR = join(ROOT, "testdata", "hostile");
/** At most this many hostile files, taken evenly from the sorted list. */
const HOSTILE_SAMPLE = 40;
/** Hostile files bigger than this are left to the Deno suite. */
const HOSTILE_MAX_BYTES = 4 << 20;
const RUN_TIMEOUT = 180_000;

const problems: string[] = [];
const began = Date.now();
const log = (line: string) =>
  console.error(`· [${String(Math.round((Date.now() - began) / 1000)).padStart(3)} s] ${line}`);

interface Runtime {
  label: string;
  version: string;
  /** The command that runs the check script and prints its JSON. */
  command: string[];
}

interface RunOutput {
  result?: CheckResult;
  error?: string;
  /** Chromium only: requests that left the page. */
  requests?: string[];
  browser?: string;
}

async function main(): Promise<number> {
  const started = Date.now();
  const version = await packageVersion();

  // 1. Tools.
  const node = (await run("node", ["--version"]).catch(() => null))?.stdout.trim();
  if (!node) throw new Error("Cannot run the matrix: node is not on PATH (Node 20 is needed)");
  if (!node.startsWith("v20.")) log(`node is ${node}; the matrix is meant for Node 20`);
  const bun = await ensureBun(log);
  const bunVersion = (await run(bun, ["--version"])).stdout.trim();
  const playwright = await npmTool("playwright-core", log);
  const chromium = await ensureChromium(log);

  // 2. Builds.
  log("building dist/browser, dist/npm and the check script");
  const sizes = await buildBrowser();
  await buildNpm(log);
  const checksEsm = join(RUNTIMES_DIR, "checks.mjs");
  await bundle("tests/runtimes/checks.ts", checksEsm, { platform: "browser", format: "esm" });
  await bundle("tests/runtimes/checks_global.ts", join(RUNTIMES_DIR, "checks.iife.js"), {
    platform: "browser",
    format: "iife",
  });
  const inputs = {
    fixtures: await readInputs(INTEROP_DIR, await readdir(INTEROP_DIR)),
    hostile: await hostileSample(),
    signatures: await sshSignatures(),
  };
  const inputsPath = join(RUNTIMES_DIR, "inputs.json");
  await writeFile(inputsPath, JSON.stringify(inputs));

  // 3. The check script on every runtime, twice.
  const runner = join(ROOT, "tests", "runtimes", "runner.mjs");
  const core = join(NPM_DIR, "mod.js");
  const chromiumRunner = join(ROOT, "tests", "runtimes", "chromium_runner.mjs");
  const chromiumArgs = JSON.stringify(CHROMIUM_ARGS);
  const deno = Deno.execPath();
  const runtimes: Runtime[] = [
    {
      label: "deno (source)",
      version: Deno.version.deno,
      command: [
        deno,
        "run",
        "-A",
        runner,
        join(ROOT, "mod.ts"),
        join(ROOT, "tests", "runtimes", "checks.ts"),
        inputsPath,
      ],
    },
    {
      label: "deno (npm bundle)",
      version: Deno.version.deno,
      command: [deno, "run", "-A", runner, core, checksEsm, inputsPath],
    },
    {
      label: "node (npm bundle)",
      version: node.replace(/^v/, ""),
      command: ["node", runner, core, checksEsm, inputsPath],
    },
    {
      label: "bun (npm bundle)",
      version: bunVersion,
      command: [bun, runner, core, checksEsm, inputsPath],
    },
    {
      label: "chromium (iife, file://)",
      version: "",
      command: ["node", chromiumRunner, playwright, chromium, "iife", inputsPath, chromiumArgs],
    },
    {
      label: "chromium (esm, 127.0.0.1)",
      version: "",
      command: ["node", chromiumRunner, playwright, chromium, "esm", inputsPath, chromiumArgs],
    },
  ];
  const outputs = new Map<string, RunOutput[]>();
  await rm(join(RUNTIMES_DIR, "results"), { recursive: true, force: true });
  await mkdir(join(RUNTIMES_DIR, "results"), { recursive: true });
  for (const runtime of runtimes) {
    log(`checks on ${runtime.label}`);
    const pair: RunOutput[] = [];
    for (const round of [1, 2]) {
      const output = await runChecks(runtime);
      if (output.browser) runtime.version = output.browser.replace(/^chromium /, "");
      pair.push(output);
      const file = `${
        runtime.label.replace(/[^a-z0-9]+/g, "-").replace(/-$/, "")
      }.run${round}.json`;
      await writeFile(join(RUNTIMES_DIR, "results", file), JSON.stringify(output, null, 1));
    }
    outputs.set(runtime.label, pair);
  }

  // 4. The CLI from the npm build, against the CLI under Deno.
  const fixtureDir = await mkdtemp(join(tmpdir(), "taskpack-matrix-"));
  try {
    const bin = join(NPM_DIR, "bin", "taskpack.js");
    const cli = new Map<string, Record<string, unknown>>();
    log("CLI on deno (source), and on deno, node and bun from the npm build");
    cli.set(
      "deno (source)",
      await cliChecks(fixtureDir, "deno", [deno, "run", "-A", join(ROOT, "cli.ts")]),
    );
    cli.set("deno (npm bundle)", await cliChecks(fixtureDir, "deno-npm", [deno, "run", "-A", bin]));
    cli.set("node (npm bundle)", await cliChecks(fixtureDir, "node", ["node", bin]));
    cli.set("bun (npm bundle)", await cliChecks(fixtureDir, "bun", [bun, bin]));
    await writeFile(
      join(RUNTIMES_DIR, "results", "cli.json"),
      JSON.stringify(Object.fromEntries(cli), null, 1),
    );

    // 5. The npm tarball in an empty folder, with no Deno on PATH.
    log("npm tarball: pack, install into an empty folder, npx taskpack with no deno on PATH");
    const npmSteps = await npmTarballChecks(fixtureDir, bun, version);

    report({ version, runtimes, outputs, cli, npmSteps, sizes, inputs, started });
  } finally {
    await rm(fixtureDir, { recursive: true, force: true });
  }
  if (problems.length) {
    console.log(`\nFAIL: ${problems.length} problem(s)`);
    for (const problem of problems) console.log(`  - ${problem}`);
    return 1;
  }
  console.log("\nPASS: every runtime matches Deno, and reproduces its own bytes");
  return 0;
}

// --- inputs -----------------------------------------------------------------------------

async function readInputs(dir: string, names: string[]): Promise<CheckInput[]> {
  const out: CheckInput[] = [];
  for (const name of [...names].sort()) {
    out.push({ name, base64: Buffer.from(await readFile(join(dir, name))).toString("base64") });
  }
  return out;
}

/**
 * The hostile corpus's files, thinned evenly to at most {@linkcode HOSTILE_SAMPLE}: the files
 * its `expected.json` lists when it has one, else every file in its subfolders.
 */
async function hostileSample(): Promise<CheckInput[]> {
  if (!existsSync(HOSTILE_DIR)) {
    log("testdata/hostile/ is absent: skipping the hostile sample");
    return [];
  }
  let names: string[] = [];
  try {
    const expected = JSON.parse(await readFile(join(HOSTILE_DIR, "expected.json"), "utf8"));
    names = Object.values(expected as Record<string, { file?: unknown }>)
      .map((entry) => entry?.file)
      .filter((file): file is string => typeof file === "string");
  } catch {
    names = (await readdir(HOSTILE_DIR, { recursive: true })).filter((name) => name.includes("/"));
  }
  const files: string[] = [];
  for (const name of [...new Set(names)].sort()) {
    const info = await stat(join(HOSTILE_DIR, name)).catch(() => null);
    if (info?.isFile() && info.size <= HOSTILE_MAX_BYTES) files.push(name);
  }
  const step = Math.max(1, Math.ceil(files.length / HOSTILE_SAMPLE));
  const sample = files.filter((_, i) => i % step === 0);
  log(`hostile corpus: ${sample.length} of ${files.length} files`);
  return await readInputs(HOSTILE_DIR, sample);
}

/**
 * A pack signature from Debian's `ssh-keygen -Y sign` for each key type, with keys made now in a
 * temporary folder (none is kept); none when `ssh-keygen` is missing.
 */
async function sshSignatures(): Promise<CheckSignature[]> {
  const dir = await mkdtemp(join(tmpdir(), "taskpack-runtimes-keys-"));
  const digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  const out: CheckSignature[] = [];
  try {
    const kinds: [string, string[]][] = [
      ["ed25519", ["-t", "ed25519"]],
      ["ecdsa", ["-t", "ecdsa", "-b", "256"]],
      ["rsa", ["-t", "rsa", "-b", "3072"]],
    ];
    for (const [name, type] of kinds) {
      const key = join(dir, name);
      const made = await run("ssh-keygen", [...type, "-N", "", "-q", "-f", key]).catch(() => null);
      if (!made || made.code !== 0) {
        log("ssh-keygen is missing or failed: skipping the OpenSSH signatures");
        return [];
      }
      const signed = await runOk("sh", [
        "-c",
        `printf '%s\\n' "$0" | ssh-keygen -Y sign -n taskpack -f "$1"`,
        digest,
        key,
      ]);
      const pub = (await readFile(`${key}.pub`, "utf8")).trim();
      out.push({
        name,
        digest,
        signature: signed.stdout,
        allowedSigners: `alice@example.com ${pub}\n`,
      });
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// --- runs -------------------------------------------------------------------------------

async function runChecks(runtime: Runtime): Promise<RunOutput> {
  const [command, ...args] = runtime.command;
  let result: RunResult;
  try {
    result = await run(command!, args, { cwd: ROOT, timeoutMs: RUN_TIMEOUT });
  } catch (error) {
    return { error: `${runtime.label}: ${(error as Error).message}` };
  }
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  if (result.code !== 0 || !line.startsWith("{")) {
    return {
      error: `exit ${result.code}: ${(result.stderr || result.stdout).trim().slice(0, 500)}`,
    };
  }
  const parsed = JSON.parse(line);
  // The Chromium runner wraps the result with what it saw.
  if ("mode" in parsed) {
    return {
      ...(parsed.result ? { result: parsed.result } : {}),
      ...(parsed.error ? { error: `${parsed.error} ${parsed.console.join(" ")}` } : {}),
      requests: parsed.requests,
      browser: parsed.browser,
    };
  }
  return { result: parsed };
}

/** What the reference result itself must show, whatever the other runtimes say. */
function expectations(result: CheckResult): string[] {
  const out: string[] = [];
  const built = result.shared.built as Record<string, Record<string, any>>;
  for (const [name, pack] of Object.entries(built)) {
    if ("thrown" in pack) {
      out.push(`building ${name} threw ${JSON.stringify(pack.thrown)}`);
      continue;
    }
    if (!pack.bagStableWithinRun) out.push(`${name}: two encodings in one run differ`);
    if (!pack.judgeBag.ok) out.push(`${name}: the bag is not conformant`);
    if (!pack.judgeFlat.ok) out.push(`${name}: the flat form is not conformant`);
    if (!pack.bagToFlat.equalsFlat) out.push(`${name}: bag -> flat is not the flat form`);
    if (!pack.flatToBag.equalsBagBytes) out.push(`${name}: flat -> bag is not the bag`);
    if (pack.judgeBag.digest !== pack.digest) out.push(`${name}: judge's digest differs`);
  }
  const fixtures = result.shared.fixtures as Record<string, Record<string, any>>;
  for (const [name, fixture] of Object.entries(fixtures)) {
    if ("thrown" in fixture) {
      out.push(`fixture ${name} threw ${JSON.stringify(fixture.thrown)}`);
      continue;
    }
    if (!fixture.report.ok) out.push(`fixture ${name} is not conformant`);
    if (fixture.siblingReproduced === false) out.push(`fixture ${name}: conversion differs`);
    if (!fixture.toBag.report.ok) out.push(`fixture ${name}: its conversion to a bag fails`);
  }
  const signatures = result.shared.signatures as Record<string, Record<string, any>>;
  for (const [name, check] of Object.entries(signatures)) {
    if (name === "inMemory") {
      if (check.status !== "unknown-key" || check.refused !== "sig-mismatch") {
        out.push(`the in-memory signature: ${JSON.stringify(check)}`);
      }
      continue;
    }
    if (check.verified?.status !== "signed") {
      out.push(`ssh-keygen's ${name} signature did not verify: ${JSON.stringify(check.verified)}`);
    }
    if (check.otherDigest?.thrown?.code !== "sig-mismatch") {
      out.push(`ssh-keygen's ${name} signature was not refused over another digest`);
    }
  }
  return out;
}

// --- the CLI ----------------------------------------------------------------------------

async function cliChecks(
  scratch: string,
  label: string,
  command: string[],
): Promise<Record<string, unknown>> {
  const dir = join(scratch, `cli-${label}`);
  await mkdir(dir, { recursive: true });
  await prepareFixtures(dir);
  const [program, ...base] = command;
  const call = async (...args: string[]) => {
    const r = await run(program!, [...base, ...args], { cwd: dir, timeoutMs: RUN_TIMEOUT });
    let stdout: unknown = r.stdout;
    try {
      stdout = JSON.parse(r.stdout);
    } catch { /* text output */ }
    return { code: r.code, stdout, ...(r.code === 0 || r.code === 2 ? {} : { stderr: r.stderr }) };
  };
  // A pack big enough for the worker paths: a 9 MiB file and thousands of small ones.
  const made = await call(
    "new",
    ...["--title", "matrix", "--goal", "pack on workers", "--store", "store", "--json"],
  );
  const id = (made.stdout as { passport_id?: string })?.passport_id ?? "";
  const big = await call(
    "pack",
    id,
    "--store",
    "store",
    "--out",
    "big.taskpack",
    "--file",
    "big.log",
    "--file",
    "many",
    "--json",
  );
  const bigLanded = await call(
    "land",
    ...["big.taskpack", "--store", "landed", "--files-out", "big-out", "--json"],
  );
  const same = async (a: string, b: string) =>
    Buffer.compare(await readFile(join(dir, a)), await readFile(join(dir, b))) === 0;
  const bigSame = bigLanded.code === 0 &&
    await same("big.log", "big-out/big.log").catch(() => false) &&
    await same("many/m7/f7.txt", "big-out/many/m7/f7.txt").catch(() => false);
  const toFlat = await call("convert", "handoff.taskpack", "--out", "out.taskpack.json", "--json");
  const toBag = await call("convert", "handoff.taskpack.json", "--out", "out.taskpack", "--json");
  return {
    version: await call("--version"),
    bigPack: { code: big.code, stderr: (big as { stderr?: string }).stderr ?? "" },
    bigJudged: { code: (await call("conformance", "big.taskpack", "--json")).code },
    bigLanded: { code: bigLanded.code, sameFiles: bigSame },
    conformantBag: await call("conformance", "handoff.taskpack", "--json"),
    conformantFlat: await call("conformance", "handoff.taskpack.json", "--json"),
    broken: await call("conformance", "broken.taskpack", "--json"),
    toFlat: {
      ...toFlat,
      sameAsFixture: existsSync(join(dir, "out.taskpack.json")) &&
        Buffer.compare(
            await readFile(join(dir, "out.taskpack.json")),
            await readFile(join(dir, "handoff.taskpack.json")),
          ) === 0,
    },
    toBag: {
      ...toBag,
      entries: existsSync(join(dir, "out.taskpack"))
        ? await zipEntries(new Uint8Array(await readFile(join(dir, "out.taskpack"))))
        : null,
      judged: await call("conformance", "out.taskpack", "--json"),
    },
  };
}

/** A conformant bag and flat file, and a broken bag (truncated), in a folder. */
async function prepareFixtures(dir: string): Promise<void> {
  for (const name of ["handoff.taskpack", "handoff.taskpack.json"]) {
    await copyFile(join(INTEROP_DIR, name), join(dir, name));
  }
  const bag = await readFile(join(INTEROP_DIR, "handoff.taskpack"));
  await writeFile(join(dir, "broken.taskpack"), bag.subarray(0, bag.length - 200));
  const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i} of a long log\n`).join("");
  await writeFile(join(dir, "big.log"), lines.repeat(2));
  for (let i = 0; i < MANY_SMALL_FILES + 100; i++) {
    const folder = join(dir, "many", `m${i % 10}`);
    if (i < 10) await mkdir(folder, { recursive: true });
    await writeFile(join(folder, `f${i}.txt`), `small file ${i}\n`.repeat(1 + (i % 30)));
  }
}

function cliProblems(result: Record<string, any>): string[] {
  const out: string[] = [];
  const expect = (what: string, code: number, want: number) => {
    if (code !== want) out.push(`${what} exited ${code}, not ${want}`);
  };
  expect("pack of a 9 MiB file and thousands of small ones", result.bigPack.code, 0);
  expect("conformance of that pack", result.bigJudged.code, 0);
  expect("land of that pack", result.bigLanded.code, 0);
  if (!result.bigLanded.sameFiles) out.push("the landed files differ from the packed ones");
  expect("conformance (bag)", result.conformantBag.code, 0);
  expect("conformance (flat)", result.conformantFlat.code, 0);
  expect("conformance (broken)", result.broken.code, 2);
  expect("convert bag -> flat", result.toFlat.code, 0);
  expect("convert flat -> bag", result.toBag.code, 0);
  expect("conformance of the converted bag", result.toBag.judged.code, 0);
  if (!result.toFlat.sameAsFixture) {
    out.push("convert bag -> flat is not the incumbent's flat file");
  }
  return out;
}

// --- the npm tarball --------------------------------------------------------------------

interface Step {
  what: string;
  ok: boolean;
  detail: string;
}

async function npmTarballChecks(scratch: string, bun: string, version: string): Promise<Step[]> {
  const steps: Step[] = [];
  const step = (what: string, ok: boolean, detail = "") => {
    steps.push({ what, ok, detail });
    if (!ok) problems.push(`npm tarball: ${what}${detail ? ` (${detail})` : ""}`);
    return ok;
  };
  const packed = await run("npm", ["pack", NPM_DIR, "--pack-destination", scratch, "--json"], {
    cwd: scratch,
  });
  const tarball = packed.code === 0 ? JSON.parse(packed.stdout)[0]?.filename : undefined;
  if (!step("npm pack ./dist/npm", typeof tarball === "string", packed.stderr.trim())) {
    return steps;
  }
  const app = join(scratch, "app");
  await mkdir(app);
  await prepareFixtures(app);
  const installed = await run("npm", [
    "install",
    "--offline",
    "--no-audit",
    "--no-fund",
    join(scratch, tarball),
  ], { cwd: app });
  if (
    !step(
      `npm install --offline ${tarball} (empty folder)`,
      installed.code === 0,
      installed.stderr.trim(),
    )
  ) {
    return steps;
  }
  const bin = join(scratch, "bin-without-deno");
  await mkdir(bin);
  const PATH = await pathWithout("deno", bin, Deno.env.get("PATH") ?? "");
  const env = { PATH, HOME: scratch, npm_config_cache: join(scratch, ".npm") };
  const inApp = (command: string, args: string[]) =>
    run(command, args, { cwd: app, env, clearEnv: true, timeoutMs: RUN_TIMEOUT });
  const which = await inApp("sh", ["-c", "command -v deno || true"]);
  step("no deno on PATH for the steps below", which.stdout.trim() === "", which.stdout.trim());
  // After "--", npx passes --version on instead of answering it itself.
  const ver = await inApp("npx", ["--no", "--", "taskpack", "--version"]);
  step("npx taskpack --version", ver.stdout.trim() === `taskpack ${version}`, ver.stdout.trim());
  const ok = await inApp("npx", ["--no", "taskpack", "conformance", "handoff.taskpack"]);
  step("npx taskpack conformance handoff.taskpack -> exit 0", ok.code === 0, `exit ${ok.code}`);
  const bad = await inApp("npx", ["--no", "taskpack", "conformance", "broken.taskpack"]);
  step("npx taskpack conformance broken.taskpack -> exit 2", bad.code === 2, `exit ${bad.code}`);
  const flat = await inApp("npx", [
    "--no",
    "taskpack",
    "convert",
    "handoff.taskpack",
    "--out",
    "out.taskpack.json",
  ]);
  step(
    "npx taskpack convert handoff.taskpack --out out.taskpack.json",
    flat.code === 0,
    flat.stderr.trim(),
  );
  const imported = await inApp("node", [
    "--input-type=module",
    "-e",
    `import { judge } from "${NPM_NAME}";
     import { readFile } from "node:fs/promises";
     const report = await judge(new Uint8Array(await readFile("handoff.taskpack")));
     console.log(report.ok, report.digest);`,
  ]);
  step(
    `node: import { judge } from "${NPM_NAME}"`,
    imported.code === 0 && imported.stdout.startsWith("true "),
    (imported.stderr || imported.stdout).trim().slice(0, 300),
  );
  const bunRun = await inApp(bun, [
    join(app, "node_modules", NPM_NAME, "bin", "taskpack.js"),
    "conformance",
    "handoff.taskpack",
  ]);
  step(
    "bun node_modules/taskpack/bin/taskpack.js conformance -> exit 0",
    bunRun.code === 0,
    `exit ${bunRun.code}`,
  );
  // The declarations resolve for a TypeScript consumer (module nodenext, strict).
  const tsc = join(await npmTool("typescript", log), "node_modules", "typescript", "bin", "tsc");
  await writeFile(
    join(app, "consumer.mts"),
    `import { judge, type Report } from "${NPM_NAME}";\n` +
      `const report: Report = await judge(new Uint8Array(0));\n` +
      `const ok: boolean = report.ok;\nexport { ok };\n`,
  );
  await writeFile(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        lib: ["es2022", "dom"],
        types: [],
        strict: true,
        noEmit: true,
      },
      files: ["consumer.mts"],
    }),
  );
  const typed = await inApp("node", [tsc, "-p", "."]);
  step(
    `tsc: the package's types resolve (${NPM_NAME}/types)`,
    typed.code === 0,
    typed.stdout.trim().slice(0, 300),
  );
  return steps;
}

// --- the report -------------------------------------------------------------------------

function report(options: {
  version: string;
  runtimes: Runtime[];
  outputs: Map<string, RunOutput[]>;
  cli: Map<string, Record<string, unknown>>;
  npmSteps: Step[];
  sizes: { file: string; bytes: number; gzip: number }[];
  inputs: { fixtures: CheckInput[]; hostile: CheckInput[] };
  started: number;
}): void {
  const { runtimes, outputs, cli } = options;
  const reference = outputs.get(runtimes[0]!.label)![0]!;
  if (!reference.result) {
    problems.push(`the reference run failed: ${reference.error}`);
  } else {
    for (const p of expectations(reference.result)) problems.push(`deno (source): ${p}`);
  }
  const denoCli = cli.get("deno (source)") as Record<string, any>;
  for (const p of cliProblems(denoCli)) problems.push(`CLI on deno (source): ${p}`);

  const rows: string[][] = [[
    "runtime",
    "version",
    "same as Deno",
    "own bytes on 2nd run",
    "network",
    "CLI (npm build)",
  ]];
  for (const runtime of runtimes) {
    const [first, second] = outputs.get(runtime.label)!;
    const isReference = runtime === runtimes[0];
    let same = "—";
    let again = "—";
    if (first!.error || second!.error || !first!.result || !second!.result) {
      same = "ERROR";
      problems.push(`${runtime.label}: ${first!.error ?? second!.error}`);
    } else {
      const diffs = differences(reference.result?.shared, first!.result.shared);
      same = isReference ? "(reference)" : diffs.length ? `NO (${diffs.length})` : "yes";
      if (diffs.length) {
        problems.push(`${runtime.label} differs from Deno at ${diffs.slice(0, 5).join("; ")}`);
      }
      const rerun = differences(first!.result, second!.result);
      again = rerun.length ? "NO" : "yes";
      if (rerun.length) {
        problems.push(
          `${runtime.label}: the second run differs at ${rerun.slice(0, 5).join("; ")}`,
        );
      }
    }
    let network = "—";
    if (first!.requests) {
      const requests = [...first!.requests, ...(second!.requests ?? [])];
      network = requests.length ? `${requests.length} REQUESTS` : "none";
      if (requests.length) problems.push(`${runtime.label} made requests: ${requests.join(", ")}`);
    }
    let cliCell = "—";
    const cliResult = cli.get(runtime.label) as Record<string, any> | undefined;
    if (cliResult && isReference) cliCell = "(reference)";
    else if (cliResult) {
      const diffs = differences(denoCli, cliResult);
      const own = cliProblems(cliResult);
      cliCell = diffs.length || own.length ? "NO" : "same as Deno";
      if (diffs.length) {
        problems.push(`CLI on ${runtime.label} differs at ${diffs.slice(0, 5).join("; ")}`);
      }
      for (const p of own) problems.push(`CLI on ${runtime.label}: ${p}`);
    }
    rows.push([runtime.label, runtime.version, same, again, network, cliCell]);
  }

  const counts = reference.result
    ? `${Object.keys(reference.result.shared.built as object).length} packs built, ` +
      `${options.inputs.fixtures.length} interop fixtures, ` +
      `${options.inputs.hostile.length} hostile files`
    : "";
  console.log(`\ntaskpack ${options.version}: runtime matrix (${counts})\n`);
  console.log(table(rows));

  // Pack digests (must be equal everywhere) and each runtime's own .taskpack bytes.
  if (reference.result) {
    const digestRows: string[][] = [["pack", "digest (all runtimes)", ...runtimes.map(shortLabel)]];
    const built = reference.result.shared.built as Record<string, any>;
    for (const name of Object.keys(built)) {
      const digests = runtimes.map((r) =>
        (outputs.get(r.label)![0]!.result?.shared.built as Record<string, any> | undefined)?.[name]
          ?.digest
      );
      const allSame = digests.every((d) => d === built[name].digest);
      digestRows.push([
        `built: ${name}`,
        `${String(built[name].digest).slice(0, 16)}… ${allSame ? "= everywhere" : "DIFFERS"}`,
        ...runtimes.map((r) => {
          const own = outputs.get(r.label)![0]!.result?.own.bags as Record<string, any> | undefined;
          return own?.[name] ? `${own[name].sha256.slice(0, 8)} ${own[name].size}B` : "—";
        }),
      ]);
    }
    const fixtures = reference.result.shared.fixtures as Record<string, any>;
    for (const name of Object.keys(fixtures)) {
      const digest = fixtures[name].report?.digest ?? "—";
      const all = runtimes.every((r) =>
        (outputs.get(r.label)![0]!.result?.shared.fixtures as Record<string, any> | undefined)
          ?.[name]?.report?.digest === digest
      );
      digestRows.push([
        `fixture: ${name}`,
        `${String(digest).slice(0, 16)}… ${all ? "= everywhere" : "DIFFERS"}`,
        ...runtimes.map((r) => {
          const own = outputs.get(r.label)![0]!.result?.own.fixtures as
            | Record<string, any>
            | undefined;
          return own?.[name] ? `${own[name].toBagSha256.slice(0, 8)} ${own[name].size}B` : "—";
        }),
      ]);
    }
    console.log(
      "\nPack digests, and each runtime's own .taskpack bytes (sha256 prefix, size; a fixture's " +
        "column is its conversion to a bag):\n",
    );
    console.log(table(digestRows));
    const hostile = reference.result.shared.hostile as Record<string, any>;
    const names = Object.keys(hostile);
    if (names.length) {
      const conformant = names.filter((n) => hostile[n].report?.ok).length;
      const landed = names.filter((n) => !("thrown" in hostile[n].land)).length;
      console.log(
        `\nHostile sample: ${names.length} files; judged conformant ${conformant}, landed ` +
          `${landed}, refused ${
            names.length - landed
          } — the same on every runtime unless listed below.`,
      );
    }
  }

  console.log("\nnpm tarball, installed into an empty folder (Node, no Deno on PATH):");
  for (const s of options.npmSteps) {
    console.log(`  ${s.ok ? "✓" : "✗"} ${s.what}${s.ok || !s.detail ? "" : ` — ${s.detail}`}`);
  }
  console.log("\nBrowser bundles (size budget):");
  for (const s of options.sizes) {
    console.log(`  ${s.file}: ${formatSize(s.bytes)} minified, ${formatSize(s.gzip)} min+gzip`);
  }
  console.log(
    `\nResults: ${relative(ROOT, join(RUNTIMES_DIR, "results"))}/  ·  ` +
      `${((Date.now() - options.started) / 1000).toFixed(0)} s`,
  );
}

function shortLabel(runtime: Runtime): string {
  return runtime.label.replace(" (npm bundle)", "").replace(" (source)", " src")
    .replace(/^deno$/, "deno npm").replace(/ \((iife|esm), .*\)$/, " $1");
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? "")].length)));
  const line = (r: string[]) =>
    r.map((cell, i) => cell + " ".repeat(widths[i]! - [...cell].length)).join("  ").trimEnd();
  return [
    line(rows[0]!),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...rows.slice(1).map(line),
  ].join("\n");
}

/** The paths where two JSON values differ (at most 20). */
function differences(a: unknown, b: unknown, path = "", out: string[] = []): string[] {
  if (out.length >= 20) return out;
  if (a === b) return out;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    out.push(
      `${path || "."}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`,
    );
    return out;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${path}: array vs object`);
    return out;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    differences(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`,
      out,
    );
  }
  return out;
}

if (import.meta.main) {
  try {
    Deno.exitCode = await main();
  } catch (error) {
    console.error(`test:runtimes: ${(error as Error).message}`);
    Deno.exitCode = 1;
  }
}
