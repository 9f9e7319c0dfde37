// Copyright 2026 the taskpack authors. MIT license.
// The judge's verbs driven as a user would: the CLI as a subprocess.
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";
import { REFERENCE_DIR, tempDir } from "./_helpers.ts";

const reference = (name: string) => new URL(name, REFERENCE_DIR).pathname;

Deno.test("--help answers with the verbs and exit codes; --version prints the version", async () => {
  const cwd = await tempDir();
  const help = await cli(["--help"], { cwd });
  assert.equal(help.code, 0);
  for (
    const word of [
      "conformance",
      "convert",
      "inspect",
      "pack",
      "land",
      "--into",
      "EXIT CODES",
      "checkpoint",
    ]
  ) {
    assert.ok(help.stdout.includes(word), word);
  }
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const version = await cli(["--version"], { cwd });
  assert.equal(version.stdout.trim(), `taskpack ${config.version}`);
});

Deno.test("usage errors exit 1 with one sentence and no stack trace", async () => {
  const cwd = await tempDir();
  for (
    const args of [["frobnicate"], ["conformance"], ["conformance", "missing.taskpack"], [
      "convert",
      "a.taskpack",
    ], ["--bogus-flag"]]
  ) {
    const result = await cli(args, { cwd });
    assert.equal(result.code, 1, args.join(" "));
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.ok(!/\bat .*:\d+:\d+/.test(result.stderr), "no stack trace");
    assert.equal(result.stdout, "", "without --json, errors leave stdout alone");
  }
});

Deno.test("with --json an error is also one object on stdout: ok false, the sentence, a reason", async () => {
  const cwd = await tempDir();
  await Deno.writeFile(`${cwd}/junk.taskpack`, new TextEncoder().encode("PK\x03\x04 not a zip"));
  await Deno.mkdir(`${cwd}/made`);
  const cases: [string[], number, string | undefined][] = [
    [["land", "missing.taskpack"], 1, "no-such-file"],
    [["land", "junk.taskpack", "--store", "s"], 2, "zip-structure"],
    [["open", "TP-2222-3333", "--store", "s"], 1, "no-store"],
    [["open", "TP-2222-3333", "--store", "made"], 1, "not-found"],
  ];
  for (const [args, code, reason] of cases) {
    const result = await cli([...args, "--json"], { cwd });
    assert.equal(result.code, code, result.stderr);
    const sentence = result.stderr.replace(/^taskpack: /, "").trim();
    assert.deepEqual(result.json(), { ok: false, error: sentence, ...(reason ? { reason } : {}) });
  }
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("conformance: exit 0 and a readable table for a conformant pack, JSON on request", async () => {
  const cwd = await tempDir();
  const text = await cli(["conformance", reference("handoff.taskpack")], { cwd });
  assert.equal(text.code, 0);
  assert.match(text.stdout, /conformant to taskpack\/0\.1, 11\/11 checks/);
  assert.match(text.stdout, /✓ C6/);
  const json = await cli(["conformance", reference("handoff.taskpack.json"), "--json"], { cwd });
  assert.equal(json.code, 0);
  const report = json.json();
  assert.equal(report.ok, true);
  assert.equal(report.spec, "taskpack/0.1");
  assert.deepEqual(report.checks.map((c: { id: string }) => c.id), [
    "C0",
    "C1",
    "C2",
    "C3",
    "C4",
    "C5",
    "C6",
    "C7",
    "C8",
    "C9",
    "C10",
  ]);
});

Deno.test("conformance: exit 2 for a non-conformant, unreadable or hostile file", async () => {
  const cwd = await tempDir();
  const flat = JSON.parse(await Deno.readTextFile(reference("handoff.taskpack.json")));
  flat.passport.passport.facts[2].verified = true;
  await Deno.writeTextFile(`${cwd}/liar.taskpack.json`, JSON.stringify(flat, null, 2) + "\n");
  await Deno.writeTextFile(`${cwd}/junk.taskpack`, "this is not a zip");
  const bytes = await Deno.readFile(reference("handoff.taskpack"));
  bytes[bytes.length - 30] = bytes[bytes.length - 30]! ^ 0xff;
  await Deno.writeFile(`${cwd}/damaged.taskpack`, bytes);
  for (
    const [name, check] of [["liar.taskpack.json", "C6"], ["junk.taskpack", "C1"], [
      "damaged.taskpack",
      "C1",
    ]]
  ) {
    const result = await cli(["conformance", name!, "--json"], { cwd });
    assert.equal(result.code, 2, name);
    const report = result.json();
    assert.equal(report.ok, false);
    assert.equal(
      report.checks.find((c: { id: string }) => c.id === check).ok,
      false,
      `${name} fails ${check}`,
    );
  }
});

Deno.test("convert: both ways, byte for byte against the incumbent's files", async () => {
  const cwd = await tempDir();
  const toFlat = await cli(["convert", reference("handoff.taskpack"), "--out", "h.taskpack.json"], {
    cwd,
  });
  assert.equal(toFlat.code, 0, toFlat.stderr);
  assert.equal(
    await Deno.readTextFile(`${cwd}/h.taskpack.json`),
    await Deno.readTextFile(reference("handoff.taskpack.json")),
  );
  const toBag = await cli(["convert", "h.taskpack.json", "--out", "h.taskpack", "--json"], { cwd });
  assert.equal(toBag.code, 0);
  assert.equal(toBag.json().to, "bag");
  const back = await cli(["convert", "h.taskpack", "--out", "again.taskpack.json"], { cwd });
  assert.equal(back.code, 0);
  assert.equal(
    await Deno.readTextFile(`${cwd}/again.taskpack.json`),
    await Deno.readTextFile(reference("handoff.taskpack.json")),
  );
  const bad = await cli(["convert", "h.taskpack", "--out", "h.zip"], { cwd });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /end it in \.taskpack or \.taskpack\.json/);
});

Deno.test("convert refuses a hostile input and writes nothing", async () => {
  const cwd = await tempDir();
  const flat = JSON.parse(await Deno.readTextFile(reference("handoff.taskpack.json")));
  flat.attachments[0].data = "tampered";
  await Deno.writeTextFile(`${cwd}/bad.taskpack.json`, JSON.stringify(flat, null, 2) + "\n");
  const result = await cli(["convert", "bad.taskpack.json", "--out", "out.taskpack"], { cwd });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /does not match its declared sha256/);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(cwd))).map((e) => e.name), [
    "bad.taskpack.json",
  ]);
});

Deno.test("inspect: facts with their seal state, checks as the sender's suggestions, luggage", async () => {
  const cwd = await tempDir();
  const text = await cli(["inspect", reference("handoff.taskpack")], { cwd });
  assert.equal(text.code, 0);
  assert.match(text.stdout, /not instructions/);
  assert.match(text.stdout, /⚠ re-verify on this machine: node 20 is installed/);
  assert.match(text.stdout, /sender suggests: "run the image tool once"/);
  assert.match(text.stdout, /data\/files\/notes\/deep\/n\.md/);
  const json = (await cli(["inspect", reference("handoff.taskpack"), "--json"], { cwd })).json();
  assert.deepEqual(json.facts.map((f: { state: string }) => f.state), [
    "verified",
    "verified",
    "sealed",
    "sealed",
    "sealed",
  ]);
  assert.equal(json.luggage.length, 3);
  assert.equal(json.conformant, true);
  assert.deepEqual((await Array.fromAsync(Deno.readDir(cwd))).length, 0, "inspect writes nothing");
});

Deno.test("demo runs the whole cycle", async () => {
  const cwd = await tempDir();
  const result = await cli(["demo", "--dir", cwd], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /release\.taskpack: conformant 11\/11/);
  assert.match(result.stdout, /flat -> bag: byte-identical/);
  assert.match(result.stdout, /bag -> flat: byte-identical/);
  assert.match(result.stdout, /1\. Landing check c1 \(required\)/);
});

Deno.test("a reader that stops early (| head) is no error: the command finishes quietly", async () => {
  const dir = await tempDir();
  try {
    const { buildPackObject, encodeBag, luggageFromBytes, preparePack } = await import("../mod.ts");
    const object = buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, {
      packedAt: "2026-12-02T16:46:10Z",
      machine: "vm",
    });
    const luggage = Array.from(
      { length: 10_000 },
      (_, i) => luggageFromBytes(`f${i}.txt`, `${i}\n`),
    );
    const bag = await new Response(encodeBag(await preparePack(object, luggage))).bytes();
    await Deno.writeFile(`${dir}/many.taskpack`, bag);
    // A pipe that closes after one line, as a person's `| head -1` does; the output is larger
    // than the pipe holds, so the command is still writing when it closes.
    const cliPath = new URL("../cli.ts", import.meta.url).pathname;
    const script = `"${Deno.execPath()}" run -A "${cliPath}" inspect many.taskpack | head -1; ` +
      'echo "exit ${PIPESTATUS[0]}" >&2';
    const out = await new Deno.Command("bash", { args: ["-c", script], cwd: dir }).output();
    assert.match(new TextDecoder().decode(out.stdout), /^many\.taskpack: handoff/);
    assert.equal(new TextDecoder().decode(out.stderr), "exit 0\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
