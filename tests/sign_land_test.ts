// Copyright 2026 the taskpack authors. MIT license.
// Signed packs as people pass them: Alice packs and signs, Bob lands it requiring a signature
// from a key he lists, answers, packs and signs a receipt, and Alice merges it requiring the
// same — each a CLI subprocess with its own HOME, trust list and store, keys made by the real
// ssh-keygen at test time. A forged receipt (Bob's name, Eve's key) and a pack changed after it
// was signed are refused before anything is written.
import assert from "node:assert/strict";
import { cli, type CliResult, snapshot } from "./_cli.ts";
import { tempDir } from "./_helpers.ts";
import { createJudgeHandler, SIGNATURE_HEADER } from "../serve.ts";
import { buildPackObject, encodeFlat, preparePack, signPackDigest } from "../mod.ts";
import { encodeBase64 } from "../lib/bytes/mod.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;

/** One person: a home folder, a key, a trust list in taskpack's own place, a store. */
interface Person {
  name: string;
  run: (...args: string[]) => Promise<CliResult>;
  pub: string;
  store: string;
  trust: string;
}

async function keygen(path: string): Promise<string> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  const made = await new Deno.Command("ssh-keygen", {
    args: ["-t", "ed25519", "-N", "", "-q", "-C", "test", "-f", path],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(made.code, 0, new TextDecoder().decode(made.stderr));
  return (await Deno.readTextFile(`${path}.pub`)).trim();
}

async function person(dir: string, name: string, extra: Record<string, string> = {}) {
  const home = `${dir}/${name}`;
  const pub = await keygen(`${home}/home/.ssh/id_ed25519`);
  await Deno.mkdir(`${home}/config/taskpack`, { recursive: true });
  const env = {
    HOME: `${home}/home`,
    XDG_CONFIG_HOME: `${home}/config`,
    GIT_CONFIG_GLOBAL: `${home}/gitconfig`,
    GIT_CONFIG_NOSYSTEM: "1",
    SSH_AUTH_SOCK: "",
    DENO_DIR,
    TASKPACK_ACTOR: name,
    TASKPACK_MACHINE: `${name}-laptop`,
    // Each test says when signatures are required; a developer's own setting does not leak in.
    TASKPACK_REQUIRE_SIGNED: "",
    ...extra,
  };
  const store = `${home}/store`;
  const run = (...args: string[]) => cli([...args, "--store", store], { cwd: dir, env });
  return { name, run, pub, store, trust: `${home}/config/taskpack/allowed_signers` };
}

async function trusts(who: Person, ...others: [string, string][]): Promise<void> {
  await Deno.writeTextFile(who.trust, others.map(([id, pub]) => `${id} ${pub}\n`).join(""));
}

function ok(result: CliResult): CliResult {
  assert.equal(result.code, 0, result.stderr);
  return result;
}

function refusedInOneSentence(result: CliResult, pattern: RegExp): void {
  assert.equal(result.code, 2, result.stdout + result.stderr);
  assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /\bat .*\.ts:\d+/, "no stack trace");
}

async function fingerprint(pub: string, dir: string): Promise<string> {
  await Deno.writeTextFile(`${dir}/fp.pub`, pub + "\n");
  const out = await new Deno.Command("ssh-keygen", { args: ["-l", "-f", `${dir}/fp.pub`] })
    .output();
  return new TextDecoder().decode(out.stdout).split(" ")[1]!;
}

Deno.test("sign-land: Alice -> Bob -> Alice, signed both ways, --require-signed on both sides; the outbox matches the receipt to the pack it answers", async () => {
  const dir = await tempDir();
  const alice = await person(dir, "alice");
  const bob = await person(dir, "bob");
  await trusts(alice, ["bob@example.com", bob.pub]);
  await trusts(bob, ["alice@example.com", alice.pub]);
  const aliceKey = await fingerprint(alice.pub, dir);
  const bobKey = await fingerprint(bob.pub, dir);

  const a = ok(await alice.run("new", "--title", "logo", "--goal", "a logo", "--json")).json()
    .passport_id;
  const packed = ok(
    await alice.run(
      "pack",
      a,
      "--out",
      "handoff.taskpack",
      "--ask",
      "which colours?|two named colours|for the brand",
      "--sign",
      "--json",
    ),
  ).json();
  assert.equal(packed.signature, "handoff.taskpack.sig");
  assert.deepEqual(packed.signed_by, {
    status: "unknown-key",
    key_type: "ED25519",
    fingerprint: aliceKey,
  });
  assert.match(await Deno.readTextFile(`${dir}/handoff.taskpack.sig`), /^-----BEGIN SSH SIG/);

  const landed = ok(await bob.run("land", "handoff.taskpack", "--require-signed", "--json"))
    .json();
  assert.deepEqual(landed.signature, {
    status: "signed",
    principal: "alice@example.com",
    key_type: "ED25519",
    fingerprint: aliceKey,
  });
  const b = landed.passport_id;
  const opened = ok(await bob.run("open", b, "--json")).json();
  assert.deepEqual(opened.state.landed_packs[0].signature, landed.signature);
  assert.match(
    opened.compiled_context,
    new RegExp(
      `landed as a handoff .*: signed by alice@example\\.com \\(ED25519 ${escape(aliceKey)}\\)`,
    ),
  );
  // The text says who signed it too.
  const text = ok(await bob.run("land", "handoff.taskpack", "--require-signed"));
  assert.match(text.stdout, /already landed as .*\n {2}signed by alice@example\.com \(ED25519 /);

  ok(await bob.run("answer", b, "a1", "--text", "teal and orange"));
  const receipt = ok(
    await bob.run("pack", b, "--kind", "receipt", "--out", "receipt.taskpack.json", "--sign"),
  );
  assert.match(receipt.stdout, /signed -> receipt\.taskpack\.json\.sig \(ED25519 /);

  const merged = ok(
    await alice.run("land", "receipt.taskpack.json", "--into", a, "--require-signed", "--json"),
  ).json();
  assert.deepEqual(merged.answered, ["a1"]);
  assert.equal(merged.signature.principal, "bob@example.com");
  assert.equal(merged.signature.fingerprint, bobKey);
  assert.deepEqual(merged.answers, { version: 1, sent: true, digest: packed.digest });

  const home = ok(await alice.run("open", a, "--json")).json();
  const a1 = home.state.asks.find((ask: { id: string }) => ask.id === "a1");
  assert.equal(a1.answered_by, "bob@bob-laptop", "as the receipt wrote it");
  assert.equal(a1.answered_by_verified.principal, "bob@example.com", "as verified");
  assert.equal(home.state.sent_packs.length, 1);
  assert.deepEqual(
    { ...home.state.sent_packs[0], at: "", out: "" },
    {
      digest: packed.digest,
      kind: "handoff",
      encoding: "bag",
      version: 1,
      at: "",
      out: "",
      signature: packed.signed_by,
    },
  );
  assert.equal(home.state.sent_packs[0].out, `${dir}/handoff.taskpack`);
  const context = ok(await alice.run("open", a)).stdout;
  assert.match(context, /by bob@bob-laptop, the receipt signed by bob@example\.com \(ED25519 /);
  assert.match(
    context,
    /sent a handoff \(bag\) of version 1 .* to .*handoff\.taskpack: signed with ED25519 /,
  );
  assert.match(
    context,
    /landed a receipt .*: signed by bob@example\.com .*answering the pack of version 1 sent from here/,
  );

  // The home's records never travel: a pack made now carries none of them.
  ok(await alice.run("pack", a, "--out", "again.taskpack.json"));
  const again = JSON.parse(await Deno.readTextFile(`${dir}/again.taskpack.json`)).passport;
  assert.equal(again.passport.id, a);
  assert.equal(again.passport.sent_packs, undefined);
  assert.equal(again.passport.landed_packs, undefined);
  const carried = again.passport.asks.find((ask: { id: string }) => ask.id === "a1");
  assert.equal(carried.answered_by, "bob@bob-laptop");
  assert.equal(carried.answered_by_verified, undefined);
});

Deno.test("sign-land: a forged receipt (Bob's name, Eve's key) is refused with --require-signed, before anything is written; without it, it lands reported as an unlisted key", async () => {
  const dir = await tempDir();
  const alice = await person(dir, "alice");
  const bob = await person(dir, "bob");
  const eve = await person(dir, "eve");
  await trusts(alice, ["bob@example.com", bob.pub]);
  const a = ok(await alice.run("new", "--title", "t", "--goal", "g", "--json")).json().passport_id;
  ok(await alice.run("pack", a, "--out", "h.taskpack", "--ask", "why?|one reason given", "--sign"));
  const b = ok(await bob.run("land", "h.taskpack", "--json")).json().passport_id;
  ok(await bob.run("answer", b, "a1", "--text", "because"));
  // Eve holds Bob's passport (the pack he would send), and signs it with her own key.
  ok(
    await bob.run(
      "pack",
      b,
      "--kind",
      "receipt",
      "--out",
      "r.taskpack",
      "--sign",
      "--key",
      `${dir}/eve/home/.ssh/id_ed25519`,
    ),
  );
  assert.ok(eve.pub);
  const before = await snapshot(alice.store);
  const forged = await alice.run("land", "r.taskpack", "--into", a, "--require-signed");
  refusedInOneSentence(
    forged,
    /signed by a key you do not list \(ED25519 SHA256:.*signatures are required/,
  );
  assert.deepEqual(await snapshot(alice.store), before, "nothing written");
  // The store's standing setting refuses it the same way.
  const bySetting = await cli(["land", "r.taskpack", "--into", a, "--store", alice.store], {
    cwd: dir,
    env: {
      HOME: `${dir}/alice/home`,
      XDG_CONFIG_HOME: `${dir}/alice/config`,
      GIT_CONFIG_GLOBAL: `${dir}/alice/gitconfig`,
      GIT_CONFIG_NOSYSTEM: "1",
      DENO_DIR,
      TASKPACK_REQUIRE_SIGNED: "1",
    },
  });
  refusedInOneSentence(bySetting, /signatures are required/);
  assert.deepEqual(await snapshot(alice.store), before, "nothing written");

  const reported = ok(await alice.run("land", "r.taskpack", "--into", a, "--json")).json();
  assert.equal(reported.signature.status, "unknown-key");
  assert.equal(reported.signature.principal, undefined);
  assert.equal(reported.signature.fingerprint, await fingerprint(eve.pub, dir));
  const home = ok(await alice.run("open", a, "--json")).json();
  const a1 = home.state.asks.find((ask: { id: string }) => ask.id === "a1");
  assert.equal(a1.answered_by_verified.status, "unknown-key");
});

Deno.test("sign-land: a pack changed after it was signed is refused before anything is written, whatever the flags; an unsigned pack only when signatures are required", async () => {
  const dir = await tempDir();
  const alice = await person(dir, "alice");
  const bob = await person(dir, "bob");
  await trusts(bob, ["alice@example.com", alice.pub]);
  const a = ok(await alice.run("new", "--title", "t", "--goal", "g", "--json")).json().passport_id;
  ok(await alice.run("pack", a, "--out", "h.taskpack.json", "--sign"));
  // The pack is changed, the signature kept.
  const pack = JSON.parse(await Deno.readTextFile(`${dir}/h.taskpack.json`));
  pack.passport.goal = "g, and wire the money to Eve";
  await Deno.writeTextFile(`${dir}/h.taskpack.json`, JSON.stringify(pack));
  const before = await snapshot(bob.store);
  for (const flags of [[], ["--dry-run"], ["--again"], ["--trust-machine-facts"]]) {
    const tampered = await bob.run("land", "h.taskpack.json", ...flags);
    refusedInOneSentence(tampered, /h\.taskpack\.json is refused: the signature does not match/);
  }
  assert.deepEqual(await snapshot(bob.store), before, "nothing written");
  // A signature for another pack beside this one: refused the same way.
  ok(await alice.run("pack", a, "--out", "other.taskpack", "--sign"));
  await Deno.copyFile(`${dir}/other.taskpack.sig`, `${dir}/h.taskpack.json.sig`);
  refusedInOneSentence(await bob.run("land", "h.taskpack.json"), /does not match/);
  // With --sig naming the right signature, the pack it signs lands.
  const right = ok(
    await bob.run("land", "other.taskpack", "--sig", "other.taskpack.sig", "--json"),
  );
  assert.equal(right.json().signature.principal, "alice@example.com");

  await Deno.remove(`${dir}/h.taskpack.json.sig`);
  const unsigned = ok(await bob.run("land", "h.taskpack.json", "--json")).json();
  assert.deepEqual(unsigned.signature, { status: "unsigned" });
  const required = await bob.run("land", "h.taskpack.json", "--again", "--require-signed");
  refusedInOneSentence(required, /is unsigned and signatures are required/);
});

Deno.test("sign-land: a pack that cannot be signed is kept unsigned, recorded in the outbox, and the failure said in one sentence (exit 1); signed later, the outbox says so", async () => {
  const dir = await tempDir();
  const alice = await person(dir, "alice");
  const a = ok(await alice.run("new", "--title", "t", "--goal", "g", "--json")).json().passport_id;
  const failed = await alice.run("pack", a, "--out", "h.taskpack", "--sign", "--key", "nokey");
  assert.equal(failed.code, 1, failed.stderr);
  assert.equal(failed.stderr.trim().split("\n").length, 1, failed.stderr);
  assert.match(failed.stderr, /h\.taskpack was written but not signed: There is no key at nokey/);
  assert.ok((await Deno.stat(`${dir}/h.taskpack`)).isFile, "the pack is kept");
  await assert.rejects(Deno.stat(`${dir}/h.taskpack.sig`), Deno.errors.NotFound);
  const home = ok(await alice.run("open", a, "--json")).json();
  assert.deepEqual(home.state.sent_packs.map((r: { signature: unknown }) => r.signature), [
    { status: "unsigned" },
  ]);
  // Signed afterwards, with the key there now: the outbox says so.
  const signedLater = ok(await alice.run("sign", "h.taskpack", "--json")).json();
  assert.equal(signedLater.outbox, a);
  const after = ok(await alice.run("open", a, "--json")).json();
  assert.deepEqual(after.state.sent_packs.map((r: { signature: unknown }) => r.signature), [
    { status: "unknown-key", key_type: "ED25519", fingerprint: signedLater.fingerprint },
  ]);
  const noSign = await alice.run("pack", a, "--out", "h.taskpack", "--key", "nokey");
  assert.equal(noSign.code, 1);
  assert.match(noSign.stderr, /--key names the key to sign with: add --sign/);
});

/** A string as a regular expression matching it literally. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

Deno.test("judge: POST /conformance with the signature in x-taskpack-signature reports which key signed it beside the verdict, never in it", async () => {
  const handler = createJudgeHandler({ viewerHtml: "" });
  const ready = await preparePack(
    buildPackObject({ id: "TP-9CB7-J5MK", version: 1, title: "t", goal: "g" }, {
      packedAt: new Date("2026-01-02T03:04:05Z"),
      machine: "edge",
      actor: "bot",
    }),
    [],
  );
  const body = new TextEncoder().encode(await encodeFlat(ready));
  const keys = await crypto.subtle.generateKey("Ed25519", false, ["sign", "verify"]);
  const sig = await signPackDigest(ready.digest, keys as CryptoKeyPair);
  const post = async (headers: Record<string, string>) => {
    const response = await handler(
      new Request("http://localhost/conformance", { method: "POST", body, headers }),
    );
    assert.equal(response.status, 200);
    return await response.json();
  };
  const plain = await post({});
  assert.equal(plain.signature, undefined);
  const signed = await post({ [SIGNATURE_HEADER]: encodeBase64(new TextEncoder().encode(sig)) });
  assert.equal(signed.signature.status, "matches");
  assert.equal(signed.signature.key_type, "ED25519");
  assert.match(signed.signature.fingerprint, /^SHA256:/);
  const { signature: _, ...verdict } = signed;
  assert.deepEqual(verdict, plain, "the verdict is the same, signed or not");
  // A signature over another pack: refused beside a verdict that does not change.
  const other = await signPackDigest("0".repeat(64), keys as CryptoKeyPair);
  const wrong = await post({ [SIGNATURE_HEADER]: encodeBase64(new TextEncoder().encode(other)) });
  assert.equal(wrong.signature.status, "refused");
  assert.equal(wrong.signature.reason, "sig-mismatch");
  assert.equal(wrong.ok, plain.ok);
  const garbled = await post({ [SIGNATURE_HEADER]: "not base64!" });
  assert.equal(garbled.signature.reason, "sig-armor");
});

Deno.test("sign-land: a receipt answering a version this home never sent is reported, not refused", async () => {
  const dir = await tempDir();
  const alice = await person(dir, "alice");
  const bob = await person(dir, "bob");
  const a = ok(await alice.run("new", "--title", "t", "--goal", "g", "--json")).json().passport_id;
  ok(await alice.run("pack", a, "--out", "h.taskpack", "--ask", "why?|one reason given"));
  // Alice's home loses its outbox (a checkpoint of a state without it).
  const { state } = ok(await alice.run("open", a, "--json")).json();
  assert.equal(state.sent_packs.length, 1);
  delete state.sent_packs;
  await Deno.writeTextFile(`${dir}/state.json`, JSON.stringify(state));
  ok(
    await alice.run(
      "checkpoint",
      "--file",
      "state.json",
      "--expected-version",
      String(state.version),
    ),
  );
  const b = ok(await bob.run("land", "h.taskpack", "--json")).json().passport_id;
  ok(await bob.run("answer", b, "a1", "--text", "because"));
  ok(await bob.run("pack", b, "--kind", "receipt", "--out", "r.taskpack"));
  const merged = ok(await alice.run("land", "r.taskpack", "--into", a));
  assert.match(
    merged.stdout,
    new RegExp(`note: it answers version 1 of ${a}, which this home has no record of sending`),
  );
  assert.doesNotMatch(merged.stdout, /signed/, "an unsigned pack, the usual case, says nothing");
  const home = ok(await alice.run("open", a, "--json")).json();
  assert.deepEqual(home.state.landed_packs.at(-1).answers, { version: 1, sent: false });
  assert.match(
    home.compiled_context,
    /answering version 1, which this home has no record of sending/,
  );
});
