// Copyright 2026 the taskpack authors. MIT license.
// The command line helps a person who is new to it: help for each verb from the one table the
// parser reads, our sentence with the option or verb probably meant, and a store that is named
// whenever it is the problem.
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";
import { tempDir } from "./_helpers.ts";
import { closest, OPTIONS, VERBS } from "../cli/verbs.ts";
import { main } from "../cli.ts";

/** Runs the CLI in this process (help and parsing touch nothing), capturing what it prints. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
  });
  return { code, stdout, stderr };
}

Deno.test("each verb has its own help, from the table the parser reads; help <verb> is the same", async () => {
  const general = (await run(["--help"])).stdout;
  const seen = new Set<string>();
  for (const [verb, help] of Object.entries(VERBS)) {
    const own = await run([verb, "--help"]);
    assert.equal(own.code, 0, `${verb} --help: ${own.stderr}`);
    assert.notEqual(own.stdout, general, `${verb} --help is not the general help`);
    assert.ok(own.stdout.includes(`taskpack ${help.usage}`), `${verb}: its usage`);
    for (const flag of help.flags) {
      assert.ok(Object.hasOwn(OPTIONS, flag.name), `${verb}: --${flag.name} is an option`);
      assert.match(own.stdout, new RegExp(`--${flag.name}\\b.*${escape(flag.about)}`), flag.name);
      if (flag.default) assert.ok(own.stdout.includes(`(default: ${flag.default})`), flag.name);
    }
    assert.ok(own.stdout.includes(help.example), `${verb}: its example`);
    assert.equal((await run(["help", verb])).stdout, own.stdout, `help ${verb}`);
    seen.add(own.stdout);
  }
  assert.equal(seen.size, Object.keys(VERBS).length, "every verb's help is its own");
});

Deno.test("each verb's example reads without an option mistake", async () => {
  for (const [verb, help] of Object.entries(VERBS)) {
    // The example's words, quotes removed, with --help: parsed like the example, then the help.
    const words = [...help.example.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
    assert.equal(words.shift(), "taskpack");
    const result = await run([...words, "--help"]);
    assert.equal(result.code, 0, `${verb}: ${help.example}: ${result.stderr}`);
  }
});

Deno.test("a mistyped option or verb gets our sentence and the one meant", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["pack", "TP-AAAA-BBBB", "--output", "x.taskpack"],
      /^pack has no option --output; did you mean --out\?/,
    ],
    [["lnad", "x.taskpack"], /^Unknown verb "lnad"; did you mean "land"\?/],
    [["land", "x.taskpack", "--dryrun"], /^land has no option --dryrun; did you mean --dry-run\?/],
    [["conformance", "x", "--jsn"], /did you mean --json\?/],
    [["pack", "TP-AAAA-BBBB", "--into", "TP-AAAA-CCCC"], /^pack does not take --into/],
    [["land", "x.taskpack", "--into"], /^--into needs a value/],
    [["list", "--zzzzzz"], /^list has no option --zzzzzz \(see --help\)$/],
  ];
  for (const [args, sentence] of cases) {
    const result = await run(args);
    assert.equal(result.code, 1, args.join(" "));
    const line = result.stderr.trim().replace(/^taskpack: /, "");
    assert.match(line, sentence);
    assert.doesNotMatch(line, /positional argument|parseArgs/);
  }
});

Deno.test("closest: a typo within two edits, or a word the option starts with", () => {
  assert.equal(closest("otu", ["out", "dir"]), "out");
  assert.equal(closest("output", ["out", "dir"]), "out");
  assert.equal(closest("x", ["out", "dir"]), undefined);
  assert.equal(closest("banana", ["out", "dir"]), undefined);
});

Deno.test("the store is named when it is the problem, and nothing is made by looking", async () => {
  const cwd = await tempDir();
  const listed = await cli(["list", "--store", "alcie"], { cwd });
  assert.equal(listed.code, 1);
  assert.match(listed.stderr, /There is no store alcie: no such folder \(taskpack new makes one/);
  const opened = await cli(["open", "TP-AAAA-BBBB", "--store", "alcie"], { cwd });
  assert.equal(opened.code, 1);
  assert.match(opened.stderr, /There is no store alcie/);
  const doctor = await cli(["doctor", "--store", `${cwd}/typo`], { cwd });
  assert.equal(doctor.code, 1);
  assert.match(doctor.stdout, /NOT usable: the folder .*typo does not exist/);
  const url = await cli(["list", "--store", "s3://bucket/passports"], { cwd });
  assert.equal(url.code, 1);
  assert.match(url.stderr, /no store for s3:\/\/ URLs/);
  // A passport that is not there names the store it was looked for in.
  await cli(["new", "--title", "t", "--goal", "g", "--store", "real"], { cwd });
  const missing = await cli(["open", "TP-AAAA-BBBB", "--store", "real"], { cwd });
  assert.match(missing.stderr, /No passport TP-AAAA-BBBB in the store real/);
  assert.deepEqual(
    [...Deno.readDirSync(cwd)].map((e) => e.name).sort(),
    ["real"],
    "no folder alcie, typo or s3: was made",
  );
});

function escape(text: string): string {
  return text.slice(0, 40).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("pack says in one sentence what it cannot do: a receipt nobody asked for, a file twice", async () => {
  const cwd = await tempDir();
  const made = await cli(["new", "--title", "t", "--goal", "g", "--store", "s", "--json"], { cwd });
  const id = made.json().passport_id;
  // Never landed: there is no one a receipt would answer.
  const receipt = await cli([
    "pack",
    id,
    "--kind",
    "receipt",
    "--out",
    "r.taskpack.json",
    "--store",
    "s",
  ], {
    cwd,
  });
  assert.equal(receipt.code, 2);
  assert.match(
    receipt.stderr,
    /^taskpack: TP-\S+ was never landed from a pack, so a receipt from it would answer no one/,
  );
  await Deno.writeTextFile(`${cwd}/notes.md`, "n\n");
  const twice = await cli([
    "pack",
    id,
    "--out",
    "h.taskpack",
    "--file",
    "notes.md",
    "--file",
    "notes.md",
    "--store",
    "s",
  ], {
    cwd,
  });
  assert.equal(twice.code, 1);
  assert.equal(
    twice.stderr,
    "taskpack: The luggage notes.md is given twice: name each file or folder once\n",
    "one sentence, and no warning before it",
  );
  assert.deepEqual(
    [...Deno.readDirSync(cwd)].map((e) => e.name).sort(),
    ["notes.md", "s"],
    "nothing written",
  );
});
