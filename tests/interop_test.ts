// Copyright 2026 the taskpack authors. MIT license.
// The packs the incumbent (task-passport 0.3.0) wrote: they judge conformant, convert both ways
// with identical entries and text, and land.
import assert from "node:assert/strict";
import { bytesSource, decodePack, judge, land, planLanding } from "../mod.ts";
import { openZip } from "../lib/zip/reader.ts";
import { convert, decoder, readReference, REFERENCE_FILES, streamBytes } from "./_helpers.ts";

async function zipEntries(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const zip = await openZip(bytesSource(bytes));
  const out = new Map<string, Uint8Array>();
  for (const entry of zip.entries) out.set(entry.name, await streamBytes(zip.open(entry)));
  return out;
}

Deno.test("every reference pack judges conformant", async (t) => {
  for (const name of REFERENCE_FILES) {
    await t.step(name, async () => {
      const report = await judge(await readReference(name));
      assert.deepEqual(report.checks.filter((c) => !c.ok), [], name);
      assert.equal(report.ok, true);
      assert.equal(report.passed, 11);
    });
  }
});

Deno.test("both encodings of one reference pack have the same digest", async () => {
  for (const stem of ["handoff", "minimal", "names"]) {
    const bag = await judge(await readReference(`${stem}.taskpack`));
    const flat = await judge(await readReference(`${stem}.taskpack.json`));
    assert.match(bag.digest!, /^[0-9a-f]{64}$/);
    assert.equal(bag.digest, flat.digest, stem);
  }
});

Deno.test("bag -> flat reproduces the incumbent's flat file byte for byte", async () => {
  for (const stem of ["handoff", "minimal", "names"]) {
    const flat = await convert(await readReference(`${stem}.taskpack`), "flat");
    assert.equal(
      decoder.decode(flat),
      decoder.decode(await readReference(`${stem}.taskpack.json`)),
      stem,
    );
  }
});

Deno.test("flat -> bag gives the incumbent's entries, tag files included, byte for byte", async () => {
  for (const stem of ["handoff", "minimal", "names"]) {
    const ours = await zipEntries(
      await convert(await readReference(`${stem}.taskpack.json`), "bag"),
    );
    const theirs = await zipEntries(await readReference(`${stem}.taskpack`));
    assert.deepEqual([...ours.keys()], [...theirs.keys()], stem);
    for (const [name, bytes] of theirs) assert.deepEqual(ours.get(name), bytes, `${stem}: ${name}`);
  }
});

Deno.test("the incumbent's awkward names judge conformant with a warning each, and land as written", async () => {
  for (const name of ["names.taskpack", "names.taskpack.json"]) {
    const report = await judge(await readReference(name));
    assert.equal(report.passed, 11, name);
    assert.deepEqual(report.warnings.map((w) => w.name), [
      "con.txt",
      "aux.js",
      "nul.bin",
      "README.txt",
      "sub/prn.md",
    ]);
    const landed = await land(await readReference(name));
    assert.deepEqual(landed.renamed, []);
    assert.equal(landed.luggage.length, 7);
  }
});

Deno.test("the receipt converts to a bag and back to the same text", async () => {
  const original = await readReference("receipt.taskpack.json");
  const back = await convert(await convert(original, "bag"), "flat");
  assert.equal(decoder.decode(back), decoder.decode(original));
});

Deno.test("every reference pack lands into a new passport that keeps its lineage", async (t) => {
  for (const name of REFERENCE_FILES) {
    await t.step(name, async () => {
      const landed = await land(await readReference(name));
      assert.deepEqual(landed.repairs, []);
      const plan = planLanding(landed.object, { newId: "TP-2222-3333", machine: "elsewhere" });
      assert.equal(plan.state.id, "TP-2222-3333");
      assert.deepEqual(plan.state.lineage, landed.object.lineage);
      // Facts that were sealed stay sealed; none is restored on another machine.
      assert.equal(plan.restored.length, 0);
      const decoded = await decodePack(await readReference(name));
      assert.equal(landed.luggage.length, decoded.luggage.length);
    });
  }
});

Deno.test("landing the reference handoff orders checks, re-verification, asks, then the sender's steps", async () => {
  const landed = await land(await readReference("handoff.taskpack"));
  const steps = planLanding(landed.object, { newId: "TP-2222-3333", machine: "elsewhere" }).state
    .next_steps!;
  assert.match(steps[0]!, /^Landing check c1 \(required\): this machine can render images/);
  assert.match(steps[0]!, /the sender suggests: "run the image tool once"/);
  assert.match(steps[1]!, /^Re-verify 3 sealed fact/);
  assert.match(steps[2]!, /^Answer ask a1: cover image prompt/);
  assert.deepEqual(steps.slice(3), ["generate cover image", "publish to registry"]);
});

Deno.test("restoring a ✓ needs the explicit choice and the very machine in verified_on", async () => {
  const landed = await land(await readReference("handoff.taskpack"));
  const same = planLanding(landed.object, {
    newId: "TP-2222-3333",
    machine: "vm",
    trustMachineFacts: true,
  });
  assert.equal(same.restored.length, 3);
  const notAsked = planLanding(landed.object, { newId: "TP-2222-3333", machine: "vm" });
  assert.equal(notAsked.restored.length, 0);
  const other = planLanding(landed.object, {
    newId: "TP-2222-3333",
    machine: "vm2",
    trustMachineFacts: true,
  });
  assert.equal(other.restored.length, 0);
});

Deno.test("landing starts a missing chain at the sender and says so", async () => {
  const flat = JSON.parse(decoder.decode(await readReference("minimal.taskpack.json")));
  delete flat.passport.lineage.chain;
  const landed = await land(new TextEncoder().encode(JSON.stringify(flat, null, 2) + "\n"));
  assert.deepEqual(landed.object.lineage.chain, ["TP-9CB7-J5MK@2"]);
  assert.deepEqual(landed.repairs.map((r) => r.where), ["lineage.chain"]);
});

Deno.test("a retired .tpx/0.1 file is read (never written): it lands, and judges as needing repair", async () => {
  const legacy = {
    tpx: "0.1",
    kind: "handoff",
    issued_at: "2026-08-15T11:47:56Z",
    origin: { actor: "贺方升", machine: "zhuanz-win11", harness: "claude-code" },
    lineage: { root_id: "TP-G6RZ-DS3B", from_version: 2, chain: ["TP-G6RZ-DS3B@2"] },
    passport: {
      id: "TP-G6RZ-DS3B",
      version: 2,
      title: "training delivery",
      goal: "deliver the class",
    },
    facts: [
      { claim: "class date is 2026-08-22", scope: "universal", verified: true, source: "r1" },
      { claim: "projector works", verified: true },
    ],
    peer: { note: "over to you" },
    asks: [{ id: "a1", what: "a cover prompt", accept: "one prompt ready to paste" }],
    landing_checks: [{ id: "c1", check: "attachments match", how: "automatic", required: true }],
  };
  const bytes = new TextEncoder().encode(JSON.stringify(legacy));
  const landed = await land(bytes);
  assert.equal(landed.encoding, "tpx");
  assert.equal(landed.object.packed_at, "2026-08-15T11:47:56Z");
  assert.equal(landed.object.note, "over to you");
  assert.equal(landed.object.passport.facts![0]!.verified, true, "a universal fact keeps its ✓");
  assert.equal(landed.object.passport.facts![1]!.verified, false, "an unscoped one arrives sealed");
  assert.ok(landed.repairs.some((r) => /retired \.tpx/.test(r.detail)));
  const report = await judge(bytes);
  assert.equal(report.encoding, "tpx");
  assert.deepEqual(report.checks.filter((c) => !c.ok).map((c) => c.id), ["C0", "C6", "C9"]);
  // Converting it writes the current format, which judges conformant.
  const flat = await convert(bytes, "flat");
  assert.equal((await judge(flat)).ok, true);
});
