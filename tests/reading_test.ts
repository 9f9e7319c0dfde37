// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- tests edit parsed JSON freely to build broken packs
// Issue 39, "read exactly as the spec reads": for each family a case built to break its rule,
// with the rule named, and the judge and `land` reading it alike. The hostile corpus
// (tests/hostile_test.ts) holds the committed files; this file holds what needs more than one
// file: round trips, the writer, receipts, the HTTP judge, and the properties.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import {
  buildPackObject,
  encodeBag,
  encodeFlat,
  judge,
  land,
  lineageForPack,
  lineageProblem,
  luggageFromBytes,
  mergeReceipt,
  packWarnings,
  planHostNames,
  portabilityWarnings,
  preparePack,
  RefusalError,
  TaskPackReadError,
} from "../mod.ts";
import { canonicalJson } from "../lib/bytes/json.ts";
import { isRfc3339DateTime } from "../lib/format/time.ts";
import { gitProblem } from "../lib/format/host_names.ts";
import { createJudgeHandler } from "../serve.ts";
import { main } from "../cli.ts";
import {
  bagParts,
  BASE_LUGGAGE,
  baseObject,
  clone,
  flat,
  forgeBag,
} from "../tools/make_hostile_corpus.ts";
import { convert, encoder, packBoth, sampleState, streamBytes } from "./_helpers.ts";

/** The outcome of `land`: "accept", or the refusal's code. */
async function landOutcome(bytes: Uint8Array, options = {}): Promise<string> {
  try {
    await land(bytes, options);
    return "accept";
  } catch (error) {
    if (error instanceof TaskPackReadError) return error.code;
    if (error instanceof RefusalError) return error.rule;
    throw error;
  }
}

function failing(report: { checks: { id: string; ok: boolean }[] }): string[] {
  return report.checks.filter((c) => !c.ok).map((c) => c.id);
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

// ---------------------------------------------------------------------------------------------
// Family 4: C10 is exactly RFC 3339 §5.6.

Deno.test("family 4 (RFC 3339 §5.6): every field in its range passes, in either case, with any fraction", () => {
  fc.assert(
    fc.property(
      fc.date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)) }),
      fc.boolean(),
      fc.option(fc.stringMatching(/^[0-9]{1,30}$/)),
      fc.option(fc.tuple(fc.constantFrom("+", "-"), fc.nat(23), fc.nat(59))),
      (date, lower, fraction, offset) => {
        if (Number.isNaN(date.getTime())) return;
        const [t, z] = lower ? ["t", "z"] : ["T", "Z"];
        const text = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${
          pad(date.getUTCDate())
        }${t}${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${
          fraction === null ? "" : `.${fraction}`
        }${offset === null ? z : `${offset[0]}${pad(offset[1])}:${pad(offset[2])}`}`;
        assert.equal(isRfc3339DateTime(text), true, text);
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("family 4 (RFC 3339 §5.6): a field out of its range, or a shape the grammar lacks, fails", () => {
  const good = "2024-02-29T23:59:60.5+23:59";
  assert.equal(isRfc3339DateTime(good), true, "a leap day, a leap second, the largest offset");
  for (
    const bad of [
      "2026-13-02T16:46:10Z", // month 13
      "2026-00-02T16:46:10Z", // month 0
      "2026-12-00T16:46:10Z", // day 0
      "2026-12-32T16:46:10Z", // day 32
      "2026-04-31T16:46:10Z", // April has 30 days
      "2026-02-29T16:46:10Z", // 2026 is no leap year
      "1900-02-29T16:46:10Z", // a century is not, unless divisible by 400
      "2026-12-02T99:46:10Z", // hour 99
      "2026-12-02T24:00:00Z", // hour 24
      "2026-12-02T16:60:10Z", // minute 60
      "2026-12-02T16:46:61Z", // second 61
      "2026-12-02T16:46:10+24:00", // offset hour 24
      "2026-12-02T16:46:10+05:60", // offset minute 60
      "2026-12-02T16:46:10.Z", // a point with no digit
      "2026-12-02 16:46:10Z", // a space is readable, but not the grammar
      "2026-12-02T16:46:10", // no offset
      "2026-12-02T16:46Z", // no seconds
      "+2026-12-02T16:46:10Z", // a sign on the year
      "2026-12-02T16:46:10Z\n", // a trailing line feed
      "２０２６-12-02T16:46:10Z", // fullwidth digits
    ]
  ) {
    assert.equal(isRfc3339DateTime(bad), false, bad);
  }
  assert.equal(isRfc3339DateTime("2000-02-29T00:00:00Z"), true, "2000 is a leap year");
  assert.equal(isRfc3339DateTime(null), false);
  assert.equal(isRfc3339DateTime(1796229970), false);
});

// ---------------------------------------------------------------------------------------------
// Family 5: the last chain entry is the sender (§3).

Deno.test("family 5 (§3): the last chain entry is passport.id at from_version; an id with @ fails C4", async () => {
  const chain = {
    root_id: "TP-AAAA-AAAA",
    from_version: 3,
    chain: ["TP-AAAA-AAAA@2", "TP-BBBB-BBBB@3"],
  };
  assert.equal(lineageProblem(chain, "TP-BBBB-BBBB"), null);
  assert.match(lineageProblem(chain, "TP-AAAA-AAAA")!, /not the sender/);
  assert.match(
    lineageProblem({ root_id: "TP-A@B", from_version: 2, chain: ["TP-A@B@2"] }, "TP-A@B")!,
    /split two ways/,
  );
  assert.match(
    lineageProblem({ root_id: "TP-A", from_version: 2, chain: ["TP-A@2", "TP-B@C@2"] })!,
    /chain\[1\] is not of the form/,
  );
  // With no chain, one can be started at the sender only when the sender is root_id.
  assert.equal(lineageProblem({ root_id: "TP-A", from_version: 2 }, "TP-A"), null);
  assert.match(lineageProblem({ root_id: "TP-A", from_version: 2 }, "TP-B")!, /no chain/);
  const chainless: any = clone(await baseObject());
  delete chainless.lineage.chain;
  chainless.passport.id = "TP-CCCC-DDDD";
  const chainlessBytes = encoder.encode(flat(chainless));
  assert.deepEqual(failing(await judge(chainlessBytes)), ["C4"]);
  assert.equal(await landOutcome(chainlessBytes), "wrong-type");
  // The bag reads as the flat file does (the corpus holds the flat ones).
  const base = await baseObject();
  const broken = { ...clone(base), passport: { ...clone(base.passport), id: "TP-CCCC-DDDD" } };
  const ready = await preparePack(broken as any, []);
  const bag = await streamBytes(encodeBag(ready));
  assert.deepEqual(failing(await judge(bag)), ["C4"]);
  assert.equal(await landOutcome(bag), "wrong-type");
});

Deno.test("family 5 (§3.1): a pack made from any landed passport names itself last in its chain", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.stringMatching(/^TP-[0-9A-Z]{4}-[0-9A-Z]{4}$/), fc.nat(50)), {
        minLength: 0,
        maxLength: 5,
      }),
      fc.stringMatching(/^TP-[0-9A-Z]{4}-[0-9A-Z]{4}$/),
      fc.nat(50),
      (hops, id, version) => {
        const kept = hops.length
          ? {
            root_id: hops[0]![0],
            from_version: hops.at(-1)![1],
            chain: hops.map(([i, v]) => `${i}@${v}`),
          }
          : undefined;
        const lineage = lineageForPack({ id, version, ...(kept ? { lineage: kept } : {}) });
        assert.equal(lineageProblem(lineage, id), null);
      },
    ),
  );
});

// ---------------------------------------------------------------------------------------------
// Family 6: one reading for values.

Deno.test("family 6: required that is not a boolean fails C2 and is refused, in both encodings", async () => {
  const base = await baseObject();
  for (const value of ["false", "true", 0, 1, null, [], {}]) {
    const object: any = clone(base);
    object.landing_checks[0].required = value;
    const flatBytes = encoder.encode(flat(object));
    const bag = forgeBag(bagParts({ object }, base));
    for (const bytes of [flatBytes, bag]) {
      const report = await judge(bytes);
      assert.deepEqual(failing(report), ["C2"], JSON.stringify(value));
      assert.match(report.checks[2]!.detail, /landing_checks\[0\]\.required/);
      assert.equal(await landOutcome(bytes), "wrong-type", JSON.stringify(value));
    }
  }
  for (const value of [true, false]) {
    const object: any = clone(base);
    object.landing_checks[0].required = value;
    const bytes = encoder.encode(flat(object));
    assert.deepEqual(failing(await judge(bytes)), [], "a boolean is the control");
    assert.equal(await landOutcome(bytes), "accept");
  }
});

Deno.test("family 6 (RFC 7493 §2.1): a lone surrogate escape fails C2 and is refused, in a bag too", async () => {
  const base = await baseObject();
  const passport = encoder.encode(
    canonicalJson(base).replace('"note": "', '"note": "\\udfff '),
  );
  // A bag whose data/passport.json holds the escape (its manifests honest about it).
  const bag = forgeBag(bagParts({ passportBytes: passport }, base));
  const report = await judge(bag);
  assert.deepEqual(
    failing(report).filter((id) =>
      !report.checks.find((c) => c.id === id)!.detail.startsWith("not evaluated")
    ),
    ["C2"],
  );
  assert.match(report.checks[2]!.detail, /lone surrogate/);
  assert.equal(await landOutcome(bag), "json-lone-surrogate");
});

// ---------------------------------------------------------------------------------------------
// Family 7: typed refusals everywhere.

const EVIL = { toString: 1 };
const TEXT_FIELDS: [string, (o: any) => void][] = [
  ["note", (o) => (o.note = EVIL)],
  ["packed_at", (o) => (o.packed_at = EVIL)],
  ["origin.actor", (o) => (o.origin.actor = EVIL)],
  ["origin.machine", (o) => (o.origin.machine = [EVIL])],
  ["lineage.root_id", (o) => (o.lineage.root_id = EVIL)],
  ["lineage.chain[0]", (o) => (o.lineage.chain[0] = EVIL)],
  ["passport.id", (o) => (o.passport.id = EVIL)],
  ["passport.version", (o) => (o.passport.version = EVIL)],
  ["passport.title", (o) => (o.passport.title = EVIL)],
  ["passport.current_state", (o) => (o.passport.current_state = EVIL)],
  ["passport.facts[0].claim", (o) => (o.passport.facts[0].claim = EVIL)],
  ["passport.facts[1].verified_on", (o) => (o.passport.facts[1].verified_on = EVIL)],
  ["passport.next_steps[0]", (o) => (o.passport.next_steps[0] = EVIL)],
  ["asks[0].id", (o) => (o.asks[0].id = EVIL)],
  ["asks[0].status", (o) => (o.asks[0].status = EVIL)],
  ["landing_checks[0].check", (o) => (o.landing_checks[0].check = EVIL)],
];

Deno.test("family 7: an object where text is wanted is a typed refusal naming the field, at every door", async (t) => {
  const base = await baseObject();
  const tmp = await Deno.makeTempDir({ prefix: "taskpack-reading-" });
  const handler = createJudgeHandler({});
  for (const [field, edit] of TEXT_FIELDS) {
    await t.step(field, async () => {
      const object: any = clone(base);
      edit(object);
      const bytes = encoder.encode(flat(object));
      // The library: a TaskPackReadError with its code, naming the field.
      await assert.rejects(land(bytes), (error: unknown) => {
        assert.ok(error instanceof TaskPackReadError, String(error));
        assert.equal(error.code, "wrong-type");
        assert.equal(error.where, field);
        return true;
      });
      const report = await judge(bytes);
      assert.ok(failing(report).includes("C2"));
      assert.match(report.checks[2]!.detail, new RegExp(field.replace(/[.[\]]/g, "\\$&")));
      // The command line: exit 2 and one sentence, never exit 1 or a conversion error.
      const file = `${tmp}/p.taskpack.json`;
      await Deno.writeFile(file, bytes);
      for (
        const args of [
          ["land", file, "--store", `${tmp}/store`, "--files-out", `${tmp}/out`, "--machine", "m"],
          ["inspect", file],
          ["capsule", "from-pack", file],
          ["conformance", file],
        ]
      ) {
        let err = "";
        const code = await main(args, { out: () => {}, err: (text) => void (err += text) });
        assert.equal(code, 2, `${args[0]}: ${err}`);
        assert.doesNotMatch(err, /primitive value|TypeError|\n\s+at /, args[0]);
      }
      // Over HTTP: a report whose C2 names the field (400: the body could not be read).
      for (const path of ["/conformance", "/inspect"]) {
        const response = await handler(
          new Request(`http://judge.invalid${path}`, { method: "POST", body: bytes }),
        );
        const json = await response.json();
        assert.equal(response.status, 400, path);
        assert.match(json.error, /where the format wants a string/);
      }
    });
  }
  await Deno.remove(tmp, { recursive: true });
});

// ---------------------------------------------------------------------------------------------
// Family 8: the round trip at the limits.

Deno.test("family 8 (C9): a bag at the nesting limit converts to a flat file the same judge accepts", async () => {
  const base = await baseObject();
  for (const [levels, ok] of [[256, true], [257, false]] as const) {
    const object: any = clone(base);
    // The pack object is level 1; "deep" holds the other levels.
    object.deep = JSON.parse(`${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}`);
    const ready = await preparePack(object, [luggageFromBytes("a.txt", "a\n")]);
    const bag = await streamBytes(encodeBag(ready));
    const flatBytes = encoder.encode(await encodeFlat(ready));
    for (const bytes of [bag, flatBytes]) {
      assert.equal((await judge(bytes)).ok, ok, `${levels} levels`);
      assert.equal(await landOutcome(bytes), ok ? "accept" : "json-too-deep");
    }
    if (ok) {
      assert.deepEqual(await convert(bag, "flat"), flatBytes);
      assert.deepEqual(await convert(flatBytes, "bag"), bag);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Family 9: strictness beyond the spec becomes a warning.

Deno.test("family 9: a constructor member packs, judges conformant with a warning, and lands", async () => {
  const { prepared, bag, flat: flatBytes } = await packBoth({
    ...sampleState(),
    constructor: "a member like any other",
    prototype: { constructor: 1 },
  } as any);
  assert.ok(prepared);
  const warned = packWarnings(prepared.object.passport, [], prepared.object.asks);
  assert.ok(warned.some((w) => w.startsWith("passport.constructor:")), warned.join("\n"));
  for (const bytes of [bag, flatBytes]) {
    const report = await judge(bytes);
    assert.equal(report.ok, true, JSON.stringify(failing(report)));
    assert.deepEqual(report.warnings.filter((w) => w.field).map((w) => w.name), [
      "passport.constructor",
      "passport.prototype",
      "passport.prototype.constructor",
    ]);
    assert.equal(await landOutcome(bytes), "accept");
  }
  // __proto__ stays refused: JSON readers read it two ways.
  const text = new TextDecoder().decode(flatBytes).replace('"constructor":', '"__proto__":');
  assert.equal(await landOutcome(encoder.encode(text)), "json-forbidden-key");
});

// ---------------------------------------------------------------------------------------------
// Family 10: a landed .git folder runs commands (§4.5).

Deno.test("family 10 (§4.5): a .git folder is judged with a warning, refused by land, renamed to .git_ on request", async () => {
  const base = await baseObject();
  const config = encoder.encode("[core]\n\tfsmonitor = touch /tmp/x\n");
  for (const name of ["repo/.git/config", ".Git/hooks/pre-commit", "a/GIT~1/config", "b/.git"]) {
    const bytes = encoder.encode(flat(base, [...BASE_LUGGAGE, [name, config]]));
    const report = await judge(bytes);
    assert.equal(report.ok, true);
    assert.deepEqual(report.warnings.map((w) => w.name), [name]);
    assert.equal(await landOutcome(bytes), "git-folder", name);
    const landed = await land(bytes, { renameUnportable: true });
    assert.equal(landed.renamed.length, 1);
    assert.equal(gitProblem(landed.renamed[0]!.landed), null, landed.renamed[0]!.landed);
    assert.match(landed.renamed[0]!.landed, /(\.git|git~1)_(\/|$)/i);
  }
  // On Windows the same rule, after Windows' own.
  const windows = { windows: true, foldsCase: true, normalises: false };
  assert.deepEqual(
    planHostNames(["x/.git/config", "x/.git_/config"], windows, true).renamed.map((r) => r.landed),
    ["x/.git_~2/config"],
  );
  for (const name of [".gitignore", ".github/ci.yml", "git/config", "my.git/x", "notes/.gitkeep"]) {
    assert.equal(gitProblem(name), null, name);
  }
});

// ---------------------------------------------------------------------------------------------
// Families 11 and 12: org facts and adopted asks.

Deno.test("family 11 (§4.2): an org fact is annotated with the source actor when packed, and the pack is conformant", async () => {
  const state = {
    id: "TP-9CB7-J5MK",
    version: 2,
    facts: [
      { claim: "ids are kebab-case", scope: "org", verified: true },
      { claim: "the first hop said so", scope: "org", verified: true, source_actor: "carol" },
      { claim: "the customer wants Friday", scope: "universal", verified: true },
    ],
  };
  const object = buildPackObject(state, {
    packedAt: "2026-12-02T16:46:10Z",
    machine: "vm",
    actor: "alice",
  });
  assert.equal(object.passport.facts![0]!.source_actor, "alice");
  assert.equal(
    object.passport.facts![1]!.source_actor,
    "carol",
    "the source is kept on later hops",
  );
  assert.equal(
    object.passport.facts![2]!.source_actor,
    undefined,
    "universal facts are not annotated",
  );
  assert.equal(state.facts[0]!.source_actor, undefined, "the passport itself is not changed");
  const ready = await preparePack(object, []);
  const report = await judge(await streamBytes(encodeBag(ready)));
  assert.equal(report.ok, true);
});

Deno.test("family 12 (§4.4.1.3): an ask adopted from a receipt is open, with no answered_by or answered_at", () => {
  const home = { id: "TP-AAAA-AAAA", version: 2, asks: [] };
  const receipt: any = {
    spec: "task-passport-bag/0.1",
    kind: "receipt",
    packed_at: "2026-12-03T09:00:00Z",
    origin: { actor: "bob", machine: "laptop", harness: "" },
    lineage: {
      root_id: "TP-AAAA-AAAA",
      from_version: 1,
      chain: ["TP-AAAA-AAAA@2", "TP-BBBB-BBBB@1"],
    },
    note: "",
    passport: { id: "TP-BBBB-BBBB", version: 1 },
    asks: [{
      id: "b1",
      what: "which palette?",
      accept: "a palette name",
      status: "answered",
      answer: "their own",
      answered_by: "bob@laptop",
      answered_at: "2026-12-03T08:00:00Z",
    }],
    landing_checks: [],
  };
  const merged = mergeReceipt(home, receipt);
  assert.deepEqual(merged.adopted, ["b1"]);
  const ask = merged.state.asks!.find((a) => a.id === "b1")!;
  assert.equal(ask.status, "open");
  assert.equal(ask.answer, null);
  assert.equal("answered_by" in ask, false);
  assert.equal("answered_at" in ask, false);
});

// ---------------------------------------------------------------------------------------------
// Family 14: % is right by RFC 8493, but common readers fail it.

Deno.test("family 14 (RFC 8493 §2.1.3): a % in a name warns, naming the readers that fail it, when packing and judging", async () => {
  const [warning, ...rest] = portabilityWarnings(["plain.txt", "50%.txt"]);
  assert.equal(rest.length, 0);
  assert.equal(warning!.name, "50%.txt");
  assert.match(warning!.systems, /task-passport/);
  assert.match(warning!.systems, /bagit-python/);
  assert.match(warning!.reason, /%25/);
  const { bag } = await packBoth(undefined, undefined, [luggageFromBytes("50%.txt", "half\n")]);
  const report = await judge(bag);
  assert.equal(report.ok, true);
  assert.deepEqual(report.warnings.map((w) => w.name), ["50%.txt"]);
  assert.equal(await landOutcome(bag), "accept");
});

Deno.test("families 6 and 7: the writer does not write what the judge fails C2 for", async () => {
  const base = await baseObject();
  const edits: [string, (o: any) => void][] = [
    ["note", (o) => (o.note = EVIL)],
    ["landing_checks[0].required", (o) => (o.landing_checks[0].required = "yes")],
    ["passport.goal", (o) => (o.passport.goal = "half \ud83d")],
    ["passport.k\udc00", (o) => (o.passport["k\udc00"] = 1)],
  ];
  for (const [where, edit] of edits) {
    const object: any = clone(base);
    edit(object);
    await assert.rejects(preparePack(object, []), (error: unknown) => {
      assert.ok(error instanceof TypeError, String(error));
      assert.ok(error.message.endsWith(`(${where})`), error.message);
      return true;
    });
  }
  // A surrogate pair is one character, and packs.
  const fine: any = clone(base);
  fine.note = "\ud83d\ude00 done";
  assert.equal((await judge(await streamBytes(encodeBag(await preparePack(fine, []))))).ok, true);
});
