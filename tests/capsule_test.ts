// Copyright 2026 the taskpack authors. MIT license.
// The Resumable Handoff Capsule 1.0.0: the named cases in testdata/capsule (one step per file),
// the lossless capsule -> pack -> capsule round trip on generated capsules (both encodings,
// through the chokepoint and the real encoders), packs that were not capsules, and the three
// `capsule` commands as a user runs them.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import fc from "npm:fast-check@4.11.0";
import { canonicalJson } from "../lib/bytes/json.ts";
import { runCapsule } from "../cli/capsule.ts";
import {
  buildPackObject,
  type Capsule,
  CAPSULE_CONTRACT,
  CapsuleError,
  type CapsuleResult,
  type CapsuleRule,
  capsuleToPack,
  capsuleWarnings,
  encodeBag,
  encodeFlat,
  judge,
  land,
  type PackObject,
  packToCapsule,
  parseCapsuleBytes,
  parseCapsuleText,
  planLanding,
  preparePack,
  RefusalError,
  validateCapsule,
} from "../mod.ts";
import { decoder, encoder, readReference, streamBytes, tempDir } from "./_helpers.ts";

const CAPSULE_DIR = new URL("../testdata/capsule/", import.meta.url);
const ACCEPT_DIR = new URL("accept/", CAPSULE_DIR);
const REJECT_DIR = new URL("reject/", CAPSULE_DIR);
const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const PACKED_AT = "2026-12-02T16:46:10Z";

/** Every rejection case: the rule it breaks and the field path the error names. */
const REJECTIONS: Record<string, [CapsuleRule, string]> = {
  "byte-order-mark.json": ["invalid-json", "$"],
  "done-evidence-missing.json": ["done-without-evidence", "$.work[0].evidence"],
  "done-evidence-null.json": ["done-without-evidence", "$.work[0].evidence"],
  "done-with-empty-evidence-reference.json": ["done-without-evidence", "$.work[0].evidence[1]"],
  "done-without-evidence.json": ["done-without-evidence", "$.work[0].evidence"],
  "duplicate-key-in-work.json": ["duplicate-key", "$.work[0].status"],
  "duplicate-key.json": ["duplicate-key", "$.task_id"],
  "empty-file.json": ["invalid-json", "$"],
  "evidence-not-a-list.json": ["wrong-type", "$.work[0].evidence"],
  "evidence-reference-not-a-string.json": ["wrong-type", "$.work[0].evidence[0]"],
  "extra-field-in-fact.json": ["extra-field", "$.facts[0].scope"],
  "extra-field-in-work.json": ["extra-field", "$.work[0].owner"],
  "extra-field-top-level.json": ["extra-field", "$.owner"],
  "fact-not-an-object.json": ["wrong-type", "$.facts[0]"],
  "fact-reference-not-a-string.json": ["wrong-type", "$.facts[0].reference"],
  "fact-reference-null.json": ["fact-without-reference", "$.facts[0].reference"],
  "fact-with-empty-reference.json": ["fact-without-reference", "$.facts[0].reference"],
  "fact-without-reference.json": ["fact-without-reference", "$.facts[0].reference"],
  "fact-without-text.json": ["missing-field", "$.facts[0].text"],
  "facts-not-a-list.json": ["wrong-type", "$.facts"],
  "invalid-json-trailing-comma.json": ["invalid-json", "$"],
  "invalid-utf8.json": ["invalid-json", "$"],
  "missing-outcome.json": ["missing-field", "$.outcome"],
  "missing-task-id.json": ["missing-field", "$.task_id"],
  "next-action-not-a-string.json": ["wrong-type", "$.next_action"],
  "non-finite-infinity-literal.json": ["non-finite-number", "$.facts[0]"],
  "non-finite-nan-literal.json": ["non-finite-number", "$.outcome"],
  "non-finite-number.json": ["non-finite-number", "$.next_action"],
  "not-an-object.json": ["wrong-type", "$"],
  "open-ids-mismatch.json": ["open-ids-mismatch", "$.open_ids"],
  "open-work-with-empty-next-action.json": ["next-action-required", "$.next_action"],
  "open-work-with-null-next-action.json": ["next-action-required", "$.next_action"],
  "open-work-without-next-action.json": ["next-action-required", "$.next_action"],
  "outcome-empty.json": ["empty-string", "$.outcome"],
  "proto-key.json": ["extra-field", "$.__proto__"],
  "status-not-a-string.json": ["wrong-type", "$.work[0].status"],
  "status-wrong-case.json": ["next-action-required", "$.next_action"],
  "task-id-not-a-string.json": ["wrong-type", "$.task_id"],
  "task-id-null.json": ["missing-field", "$.task_id"],
  "work-not-a-list.json": ["wrong-type", "$.work"],
  "work-without-id.json": ["missing-field", "$.work[0].id"],
  "work-without-status.json": ["missing-field", "$.work[0].status"],
};

const ALL_RULES: CapsuleRule[] = [
  "invalid-json",
  "duplicate-key",
  "non-finite-number",
  "wrong-type",
  "missing-field",
  "extra-field",
  "empty-string",
  "fact-without-reference",
  "done-without-evidence",
  "next-action-required",
  "open-ids-mismatch",
];

async function listJson(dir: URL): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name);
  }
  return names.sort();
}

/** Runs `capsule <args>` in this process, capturing what it prints. */
async function inProcess(
  args: string[],
  stdin?: Uint8Array,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCapsule(args, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
  }, stdin === undefined ? {} : { stdin: () => Promise.resolve(stdin) });
  return { code, stdout, stderr };
}

/** Runs `taskpack capsule <args>` as a subprocess in `cwd`, feeding `stdin` when given. */
async function capsuleCli(
  args: string[],
  options: { cwd: string; stdin?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "capsule", ...args],
    cwd: options.cwd,
    env: { NO_COLOR: "1" },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(encoder.encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Packs a capsule both ways through the chokepoint. */
async function packCapsule(
  capsule: Capsule,
  factScope?: "universal" | "org" | "machine",
): Promise<{ object: PackObject; bag: Uint8Array; flat: Uint8Array }> {
  const object = capsuleToPack(capsule, {
    id: "TP-9CB7-J5MK",
    packedAt: PACKED_AT,
    machine: "vm",
    actor: "alice",
    ...(factScope === undefined ? {} : { factScope }),
  });
  const ready = await preparePack(object, []);
  const bag = await streamBytes(encodeBag(ready));
  const flat = encoder.encode(await encodeFlat(ready));
  return { object: ready.object, bag, flat };
}

const EXAMPLE: Capsule = {
  task_id: "t1",
  outcome: "Publish guide",
  facts: [{ text: "Draft saved", reference: "file:guide.md" }],
  work: [
    { id: "draft", status: "done", evidence: ["file:guide.md"] },
    { id: "upload", status: "pending", evidence: [] },
  ],
  next_action: "Upload the reviewed guide",
};

Deno.test("every accepted capsule validates, equals its expected result, and checks again", async (t) => {
  const names = await listJson(ACCEPT_DIR);
  const inputs = names.filter((name) => !name.endsWith(".expected.json"));
  assert.ok(inputs.length >= 10, `expected the acceptance cases, found ${inputs.length}`);
  for (const name of names.filter((name) => name.endsWith(".expected.json"))) {
    assert.ok(inputs.includes(name.replace(/\.expected\.json$/, ".json")), `${name} has no input`);
  }
  for (const name of inputs) {
    await t.step(name, async () => {
      const bytes = await Deno.readFile(new URL(name, ACCEPT_DIR));
      const result = parseCapsuleBytes(bytes);
      const expectedName = name.replace(/\.json$/, ".expected.json");
      if (names.includes(expectedName)) {
        const expected = await Deno.readTextFile(new URL(expectedName, ACCEPT_DIR));
        assert.deepEqual(result, JSON.parse(expected));
        assert.equal(canonicalJson(result), expected, "the same bytes, keys in the same order");
      }
      // A result is a valid capsule, and checking it again changes nothing.
      assert.equal(canonicalJson(validateCapsule(result)), canonicalJson(result));
      assert.equal(canonicalJson(parseCapsuleText(canonicalJson(result))), canonicalJson(result));

      const cli = await inProcess(["check", "-"], bytes);
      assert.equal(cli.code, 0);
      // Issue 39 family 9: where the contract is silent, a warning, never a refusal.
      const warnings = capsuleWarnings(result);
      assert.equal(warnings.length > 0, name === "duplicate-work-id.json", warnings.join("; "));
      assert.equal(
        cli.stdout,
        JSON.stringify({ ok: true, result, ...(warnings.length ? { warnings } : {}) }, null, 2) +
          "\n",
      );
    });
  }
});

Deno.test("every rejected capsule throws CapsuleError naming its rule and path; check prints ok: false", async (t) => {
  const names = await listJson(REJECT_DIR);
  assert.deepEqual(names, Object.keys(REJECTIONS).sort(), "every case is in the table, and back");
  for (const name of names) {
    await t.step(name, async () => {
      const [rule, path] = REJECTIONS[name]!;
      const bytes = await Deno.readFile(new URL(name, REJECT_DIR));
      let caught: unknown;
      try {
        parseCapsuleBytes(bytes);
      } catch (error) {
        caught = error;
      }
      assert.ok(caught instanceof CapsuleError, `${name} was accepted`);
      assert.ok(caught instanceof TypeError);
      assert.equal(caught.rule, rule, caught.message);
      assert.equal(caught.path, path, caught.message);
      assert.match(caught.message, /^Cannot (read|validate) capsule: /);
      assert.doesNotMatch(caught.message, /\.$/);

      const cli = await inProcess(["check", fileURLToPath(new URL(name, REJECT_DIR))]);
      assert.equal(cli.code, 1);
      assert.equal(
        cli.stdout,
        JSON.stringify({ ok: false, error: caught.message }, null, 2) + "\n",
      );
    });
  }
});

Deno.test("the named cases cover every rule", () => {
  const covered = new Set(Object.values(REJECTIONS).map(([rule]) => rule));
  assert.deepEqual(ALL_RULES.filter((rule) => !covered.has(rule)), []);
});

Deno.test("the contract's example gives the contract's example result, byte for byte", async () => {
  const input = await Deno.readFile(new URL("example.json", ACCEPT_DIR));
  const result = parseCapsuleBytes(input);
  assert.deepEqual(Object.keys(result).at(-1), "open_ids");
  assert.deepEqual(result.open_ids, ["upload"]);
  assert.equal(
    canonicalJson(result),
    await Deno.readTextFile(new URL("example.expected.json", ACCEPT_DIR)),
  );
});

Deno.test("validateCapsule does not change its input and shares no arrays with it", () => {
  const input = structuredClone(EXAMPLE);
  const result = validateCapsule(input);
  assert.deepEqual(input, EXAMPLE);
  assert.notEqual(result.facts, input.facts);
  assert.notEqual(result.work, input.work);
  assert.notEqual(result.work[0]!.evidence, input.work[0]!.evidence);
});

// ---------------------------------------------------------------------------------------------
// The round trip

const CHARS = ["a", "b", "z", "A", "Q", "0", "7", " ", "-", "_", ":", "/", ".", "é", "中", "✓"];
const text = fc.string({ unit: fc.constantFrom(...CHARS, "🙂", "\t"), minLength: 1, maxLength: 14 })
  .filter((s) => s.trim() !== "");
const status = fc.constantFrom("done", "pending", "blocked", "in_progress", "Done", "DONE");
const workItem = fc.record({
  id: text,
  status,
  evidence: fc.array(text, { maxLength: 3 }),
}).map((item) =>
  item.status === "done" && item.evidence.length === 0 ? { ...item, evidence: ["log:done"] } : item
);
const capsule: fc.Arbitrary<Capsule> = fc.record({
  task_id: text,
  outcome: text,
  facts: fc.array(fc.record({ text, reference: text }), { maxLength: 5 }),
  work: fc.uniqueArray(workItem, { selector: (item) => item.id, maxLength: 6 }),
  next_action: text,
  keepNextAction: fc.boolean(),
}).map(({ keepNextAction, next_action, ...rest }) => {
  const open = rest.work.some((item) => item.status !== "done");
  return open || keepNextAction ? { ...rest, next_action } : rest;
});

Deno.test("capsule -> pack -> capsule is exact in both encodings, and the pack is conformant", async () => {
  await fc.assert(
    fc.asyncProperty(capsule, async (input) => {
      const result = validateCapsule(input);
      assert.deepEqual(
        result.open_ids,
        input.work.filter((item) => item.status !== "done").map((item) => item.id),
      );
      const { bag, flat } = await packCapsule(result);
      for (const bytes of [bag, flat]) {
        const report = await judge(bytes);
        assert.deepEqual(report.checks.filter((check) => !check.ok), []);
        const landed = await land(bytes);
        assert.deepEqual(landed.repairs, []);
        const back = packToCapsule(landed.object);
        assert.deepEqual(back.capsule, result);
        assert.equal(canonicalJson(back.capsule), canonicalJson(result));
        assert.deepEqual(back.leftOut, []);
        // Every fact arrived sealed: no scope was known.
        for (const fact of landed.object.passport.facts ?? []) {
          assert.equal(fact.verified, false);
          assert.equal(fact.needs_reverify, true);
          assert.equal(fact.verified_on, "vm");
        }
      }
    }),
    { numRuns: 60 },
  );
});

Deno.test("capsuleToPack maps every field where docs/capsule.md says", async () => {
  const { object } = await packCapsule(EXAMPLE);
  assert.equal(object.kind, "handoff");
  assert.equal(object.passport.id, "TP-9CB7-J5MK");
  assert.equal(object.passport.title, "t1");
  assert.equal(object.passport.goal, "Publish guide");
  assert.equal(object.passport.current_state, '1 of 2 work items done: "draft"; open: "upload".');
  assert.deepEqual(object.passport.facts, [{
    claim: "Draft saved",
    verified: false,
    source: "file:guide.md",
    needs_reverify: true,
    verified_on: "vm",
  }]);
  assert.deepEqual(object.passport.next_steps, [
    "Upload the reviewed guide",
    'Resolve work item "upload" (status: pending)',
  ]);
  assert.deepEqual(object.passport.capsule, {
    contract: CAPSULE_CONTRACT,
    task_id: "t1",
    work: EXAMPLE.work,
    next_action: "Upload the reviewed guide",
  });
  assert.deepEqual(object.origin, { actor: "alice", machine: "vm", harness: "" });
  assert.deepEqual(object.asks, []);
  assert.deepEqual(object.landing_checks, []);
});

Deno.test("facts of a known portable scope cross verified; the capsule is still exact", async () => {
  for (const scope of ["universal", "org"] as const) {
    const { bag, flat } = await packCapsule(EXAMPLE, scope);
    for (const bytes of [bag, flat]) {
      assert.equal((await judge(bytes)).ok, true);
      const landed = await land(bytes);
      // §4.2: an org fact is annotated with the source actor when packed.
      assert.deepEqual(landed.object.passport.facts![0], {
        claim: "Draft saved",
        scope,
        verified: true,
        source: "file:guide.md",
        ...(scope === "org" ? { source_actor: "alice" } : {}),
      });
      const back = packToCapsule(landed.object);
      assert.equal(canonicalJson(back.capsule), canonicalJson(validateCapsule(EXAMPLE)));
      assert.deepEqual(back.leftOut, [
        `passport.facts[0]: scope "${scope}", verified: true${
          scope === "org" ? ", source_actor" : ""
        }`,
      ]);
    }
  }
  const machine = await packCapsule(EXAMPLE, "machine");
  assert.equal((await land(machine.flat)).object.passport.facts![0]!.verified, false);
});

Deno.test("a capsule pack that lands and moves on still gives its capsule, and says what changed", async () => {
  const { flat } = await packCapsule(EXAMPLE);
  const landed = await land(flat);
  const plan = planLanding(landed.object, { newId: "TP-2222-3333", machine: "laptop" });
  const next = await preparePack(
    capsuleHop(plan.state),
    [],
  );
  const back = packToCapsule((await land(encoder.encode(await encodeFlat(next)))).object);
  assert.equal(canonicalJson(back.capsule), canonicalJson(validateCapsule(EXAMPLE)));
  assert.deepEqual(back.leftOut, [
    "lineage: 1 earlier hop(s) (TP-9CB7-J5MK@1)",
    "passport.current_state: changed since the capsule was packed",
    "passport.next_steps: changed since the capsule was packed",
  ]);
});

/** Packs a landed passport again, as the home would. */
function capsuleHop(state: PackObject["passport"]): PackObject {
  return {
    spec: "task-passport-bag/0.1",
    kind: "handoff",
    packed_at: "2026-12-03T09:00:00Z",
    origin: { actor: "bob", machine: "laptop", harness: "" },
    lineage: {
      root_id: state.lineage!.root_id,
      from_version: state.version,
      chain: [...state.lineage!.chain, `${state.id}@${state.version}`],
    },
    note: "",
    passport: state,
    asks: [],
    landing_checks: [],
  };
}

Deno.test("a pack that was never a capsule gives the closest valid capsule and lists the rest", async () => {
  const landed = await land(await readReference("handoff.taskpack"));
  const { capsule, leftOut } = packToCapsule(landed.object, {
    luggage: landed.luggage.map((file) => file.name),
  });
  assert.equal(canonicalJson(validateCapsule(capsule)), canonicalJson(capsule));
  assert.equal(capsule.task_id, "TP-9CB7-J5MK");
  assert.equal(capsule.outcome, "ship the plugin tonight");
  assert.deepEqual(capsule.facts[0], {
    text: "customer wants the release before Friday",
    reference: "email 2026-08-14",
  });
  assert.equal(capsule.facts[3]!.reference, "taskpack:TP-9CB7-J5MK@2#passport.facts[3]");
  assert.deepEqual(capsule.work.map((item) => [item.id, item.status]), [
    ["generate cover image", "pending"],
    ["publish to registry", "pending"],
  ]);
  assert.equal(capsule.next_action, "generate cover image");
  for (
    const prefix of [
      "note: ",
      "asks: 1 item (a1)",
      "landing_checks: 1 item (c1)",
      "luggage: ",
      'passport.facts[0]: scope "universal", verified: true',
      "passport.facts[3]: no source",
      "passport.title: ",
      "passport.current_state: ",
      "passport.decisions: 1 item",
      "passport.artifacts: 1 item",
    ]
  ) {
    assert.ok(leftOut.some((line) => line.startsWith(prefix)), `${prefix} in ${leftOut}`);
  }
  // Empty bookkeeping fields of the incumbent's passport are not reported.
  assert.ok(!leftOut.some((line) => /actions|learnings|verification/.test(line)), `${leftOut}`);

  const receipt = packToCapsule((await land(await readReference("receipt.taskpack.json"))).object);
  assert.ok(receipt.leftOut[0]!.startsWith("kind: a receipt"));
});

Deno.test("packToCapsule keeps repeated next steps apart and skips what is not a step", () => {
  const { capsule, leftOut } = packToCapsule({
    spec: "task-passport-bag/0.1",
    kind: "handoff",
    packed_at: PACKED_AT,
    origin: { actor: "", machine: "vm", harness: "" },
    lineage: { root_id: "TP-9CB7-J5MK", from_version: 1, chain: ["TP-9CB7-J5MK@1"] },
    note: "",
    passport: {
      id: "TP-9CB7-J5MK",
      version: 1,
      title: "only a title",
      next_steps: ["retry", "retry", 7 as unknown as string, " "],
      facts: [{ claim: "" }, { claim: "kept", source: "s" }],
    },
    asks: [],
    landing_checks: [],
  });
  assert.equal(capsule.outcome, "only a title");
  assert.deepEqual(capsule.open_ids, ["retry", "retry (2)"]);
  assert.deepEqual(capsule.facts, [{ text: "kept", reference: "s" }]);
  assert.deepEqual(leftOut, [
    "passport.facts[0]: no claim, so no capsule fact",
    "passport.next_steps[2]: not a step (a number)",
    "passport.next_steps[3]: not a step (a string)",
  ]);
});

Deno.test("packToCapsule refuses a pack with no outcome, or a broken capsule record", async () => {
  const { object } = await packCapsule(EXAMPLE);
  const noGoal = structuredClone(object);
  delete noGoal.passport.goal;
  delete noGoal.passport.title;
  assert.throws(
    () => packToCapsule(noGoal),
    (error: unknown) =>
      error instanceof CapsuleError && error.rule === "missing-field" &&
      error.path === "passport.goal" && error.message.startsWith("Cannot convert pack to capsule"),
  );
  const broken = structuredClone(object);
  (broken.passport.capsule as { work: CapsuleResult["work"] }).work[0]!.evidence = [];
  assert.throws(
    () => packToCapsule(broken),
    (error: unknown) =>
      error instanceof CapsuleError && error.rule === "done-without-evidence" &&
      error.path === "passport.capsule.work[0].evidence",
  );
});

Deno.test("capsuleToPack validates the capsule, the id and the scope", () => {
  const options = { id: "TP-9CB7-J5MK", packedAt: PACKED_AT, machine: "vm" };
  assert.throws(
    () => capsuleToPack({ ...EXAMPLE, next_action: " " }, options),
    (error: unknown) => error instanceof CapsuleError && error.rule === "next-action-required",
  );
  assert.throws(() => capsuleToPack(EXAMPLE, { ...options, id: "t1" }), RangeError);
  assert.throws(
    () => capsuleToPack(EXAMPLE, { ...options, factScope: "global" as "org" }),
    RangeError,
  );
});

Deno.test("a capsule carrying a credential is refused at the chokepoint", async () => {
  const token = "gh" + "p_" + "A".repeat(36);
  const object = capsuleToPack(
    { ...EXAMPLE, facts: [{ text: `token is ${token}`, reference: "file:.env" }] },
    { id: "TP-9CB7-J5MK", packedAt: PACKED_AT, machine: "vm" },
  );
  await assert.rejects(() => preparePack(object, []), RefusalError);
});

// ---------------------------------------------------------------------------------------------
// The commands, as a user runs them

Deno.test("capsule check: a file or standard input, the contract's envelope and exit codes", async () => {
  const cwd = await tempDir();
  const example = fileURLToPath(new URL("example.json", ACCEPT_DIR));
  const ok = await capsuleCli(["check", example], { cwd });
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), {
    ok: true,
    result: JSON.parse(await Deno.readTextFile(new URL("example.expected.json", ACCEPT_DIR))),
  });

  const piped = await capsuleCli(["check", "-"], {
    cwd,
    stdin: '{"task_id": "t1", "outcome": "x", "work": [{"id": "a", "status": "Done"}]}',
  });
  assert.equal(piped.code, 1);
  const envelope = JSON.parse(piped.stdout);
  assert.equal(envelope.ok, false);
  assert.match(envelope.error, /^Cannot validate capsule: \$\.next_action is missing/);
  assert.deepEqual(Object.keys(envelope), ["ok", "error"]);

  const missing = await capsuleCli(["check", "nope.json"], { cwd });
  assert.equal(missing.code, 1);
  assert.deepEqual(JSON.parse(missing.stdout), {
    ok: false,
    error: "No such file or folder: nope.json",
  });

  for (
    const args of [["check"], ["check", "a.json", "b.json"], ["frob"], ["check", "-", "--out=x"]]
  ) {
    const usage = await capsuleCli(args, { cwd });
    assert.equal(usage.code, 1, args.join(" "));
    assert.equal(usage.stdout, "");
    assert.match(usage.stderr, /^taskpack: .*\(see --help\)\n$/);
  }
  const help = await capsuleCli(["--help"], { cwd });
  assert.equal(help.code, 0);
  for (const word of ["check", "to-pack", "from-pack", "--fact-scope"]) {
    assert.ok(help.stdout.includes(word), word);
  }
});

Deno.test("capsule to-pack and from-pack: both encodings, conformant, and back to the same bytes", async () => {
  const cwd = await tempDir();
  const example = fileURLToPath(new URL("order-and-case-kept.json", ACCEPT_DIR));
  const expected = await Deno.readTextFile(
    new URL("order-and-case-kept.expected.json", ACCEPT_DIR),
  );
  for (const out of ["t.taskpack", "t.taskpack.json"]) {
    const made = await capsuleCli(
      ["to-pack", example, "--out", out, "--machine", "m1", "--actor", "alice", "--json"],
      { cwd },
    );
    assert.equal(made.code, 0, made.stderr);
    const summary = JSON.parse(made.stdout);
    assert.equal(summary.encoding, out.endsWith(".json") ? "flat" : "bag");
    assert.equal(summary.task_id, "T-06");
    assert.match(summary.passport_id, /^TP-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    assert.deepEqual(summary.open_ids, ["zeta", "mu", "beta", "Alpha"]);
    assert.equal(summary.sealed_facts, 2);

    const bytes = await Deno.readFile(`${cwd}/${out}`);
    const report = await judge(bytes);
    assert.equal(report.ok, true);
    assert.equal(report.digest, summary.digest);
    const landed = await land(bytes);
    assert.equal(landed.object.origin.machine, "m1");
    assert.equal(landed.object.origin.actor, "alice");

    const back = await capsuleCli(["from-pack", out], { cwd });
    assert.equal(back.code, 0, back.stderr);
    assert.equal(back.stdout, expected, "the capsule comes back byte for byte");
    assert.equal(back.stderr, "", "nothing was left out");
  }

  const piped = await capsuleCli(
    ["to-pack", "-", "--out", "p.taskpack.json", "--id", "TP-2222-3333", "--fact-scope", "org"],
    { cwd, stdin: await Deno.readTextFile(new URL("example.json", ACCEPT_DIR)) },
  );
  assert.equal(piped.code, 0, piped.stderr);
  assert.match(piped.stdout, /^wrote p\.taskpack\.json \(flat\) from capsule "t1"\n/);
  assert.match(piped.stdout, /passport TP-2222-3333/);
  const json = await capsuleCli(["from-pack", "p.taskpack.json", "--json"], { cwd });
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout);
  assert.equal(parsed.ok, true);
  assert.deepEqual(parsed.left_out, [
    'passport.facts[0]: scope "org", verified: true, source_actor',
  ]);
  assert.deepEqual(parsed.repairs, []);

  const invalid = await capsuleCli(
    [
      "to-pack",
      fileURLToPath(new URL("done-without-evidence.json", REJECT_DIR)),
      "-o",
      "x.taskpack",
    ],
    { cwd },
  );
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /^taskpack: Cannot validate capsule: .*evidence/);
  const noOut = await capsuleCli(["to-pack", example], { cwd });
  assert.equal(noOut.code, 1);
  const badEnding = await capsuleCli(["to-pack", example, "--out", "x.zip"], { cwd });
  assert.equal(badEnding.code, 1);
  await assert.rejects(() => Deno.stat(`${cwd}/x.taskpack`), Deno.errors.NotFound);
});

Deno.test("capsule from-pack on a pack that was never a capsule prints what it left out", async () => {
  const cwd = await tempDir();
  const pack = fileURLToPath(
    new URL("../testdata/interop/reference-0.3.0/handoff.taskpack", import.meta.url),
  );
  const result = await capsuleCli(["from-pack", pack], { cwd });
  assert.equal(result.code, 0, result.stderr);
  const capsule = JSON.parse(result.stdout);
  assert.equal(capsule.task_id, "TP-9CB7-J5MK");
  assert.deepEqual(capsule.open_ids, ["generate cover image", "publish to registry"]);
  const lines = result.stderr.trimEnd().split("\n");
  assert.ok(lines.every((line) => line.startsWith("left out: ")), result.stderr);
  assert.ok(lines.some((line) => line.startsWith("left out: asks: 1 item (a1)")));
  assert.ok(lines.some((line) => line.startsWith("left out: luggage: 3 files")));

  const broken = await capsuleCli(["from-pack", "missing.taskpack"], { cwd });
  assert.equal(broken.code, 1);
  await Deno.writeTextFile(`${cwd}/junk.taskpack.json`, "{}");
  const junk = await capsuleCli(["from-pack", "junk.taskpack.json"], { cwd });
  assert.equal(junk.code, 2);

  const goalless = await preparePack(
    buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, { packedAt: PACKED_AT, machine: "vm" }),
    [],
  );
  await Deno.writeTextFile(`${cwd}/goalless.taskpack.json`, await encodeFlat(goalless));
  const noOutcome = await capsuleCli(["from-pack", "goalless.taskpack.json"], { cwd });
  assert.equal(noOutcome.code, 2);
  assert.equal(noOutcome.stdout, "");
  assert.match(
    noOutcome.stderr,
    /^taskpack: Cannot convert pack to capsule: passport\.goal is missing/,
  );
});
