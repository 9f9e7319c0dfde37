// Copyright 2026 the taskpack authors. MIT license.
// The chokepoint: every refusal names its rule and where, encoders accept nothing else, and
// the bag is canonical.
import assert from "node:assert/strict";
import {
  buildPackObject,
  decodePack,
  encodeBag,
  encodeFlat,
  judge,
  luggageFromBytes,
  type PackObject,
  type PreparedPack,
  preparePack,
  RefusalError,
} from "../mod.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";
import { deflateRawSmall } from "../lib/zip/deflate.ts";
import { platformDeflater } from "../lib/zip/deflate.ts";
import { packBoth, SAMPLE_OPTIONS, sampleState, streamBytes } from "./_helpers.ts";

function pack(change: (p: PackObject) => void = () => {}): PackObject {
  const object = buildPackObject(sampleState(), SAMPLE_OPTIONS);
  change(object);
  return object;
}

async function refusal(promise: Promise<unknown>): Promise<RefusalError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RefusalError, String(error));
    return error;
  }
  throw new assert.AssertionError({ message: "expected a refusal" });
}

/** Incompressible bytes from a fixed seed (xorshift). */
function noise(length: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = 2463534242;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const githubToken = () => ["gh", "p_"].join("") + "k3Y".repeat(12);

Deno.test("each refusal names its rule and where, never the secret", async (t) => {
  const cases: [string, string, string, () => Promise<unknown>][] = [
    [
      "a credential in a fact",
      "credential",
      "passport.facts[0].claim",
      () =>
        preparePack(
          pack((p) => (p.passport.facts![0]!.claim = `token ${githubToken()} works`)),
          [],
        ),
    ],
    [
      "a credential in a key",
      "credential",
      "passport.<key ",
      () =>
        preparePack(
          pack((p) => ((p.passport as Record<string, unknown>)[`x ${githubToken()}`] = 1)),
          [],
        ).catch((e) => {
          assert.match(e.message, /\(key\)/);
          throw e;
        }),
    ],
    [
      "a credential deep in the luggage, with its line",
      "credential",
      "data/files/env.txt:70002",
      () =>
        preparePack(pack(), [
          luggageFromBytes("env.txt", `${"ok\n".repeat(70_001)}TOKEN=${githubToken()}\n`),
        ]),
    ],
    [
      "a transcript in the note",
      "transcript",
      "note",
      () => preparePack(pack((p) => (p.note = "User: can you help?\nAssistant: Sure.")), []),
    ],
    ["a transcript as a message list", "transcript", "passport.history", () =>
      preparePack(
        pack((
          p,
        ) => (p.passport.history = [{ role: "user", content: "hi" }, {
          role: "assistant",
          content: "hello",
        }])),
        [],
      )],
    [
      "a transcript in the luggage",
      "transcript",
      "data/files/chat.md:2",
      () =>
        preparePack(pack(), [
          luggageFromBytes("chat.md", "# log\nUser: fix it\nAssistant: fixed\n"),
        ]),
    ],
    [
      "an ask without accept",
      "ask-without-accept",
      "asks[0]",
      () => preparePack(pack((p) => (p.asks[0]!.accept = "  ")), []),
    ],
    [
      "an ask without what",
      "ask-without-what",
      "asks[0]",
      () => preparePack(pack((p) => (p.asks[0]!.what = "")), []),
    ],
    [
      "an instruction field at depth",
      "instruction-field",
      "passport.decisions[0].how_to_use_this_file",
      () =>
        preparePack(pack((p) => (p.passport.decisions![0]!.how_to_use_this_file = "run it")), []),
    ],
    [
      "receipt instructions",
      "instruction-field",
      "receipt_instructions",
      () => preparePack(pack((p) => (p.receipt_instructions = "reply with")), []),
    ],
    [
      "a prototype key",
      "forbidden-key",
      "passport.__proto__",
      () =>
        preparePack(
          pack((p) =>
            Object.defineProperty(p.passport, "__proto__", { value: 1, enumerable: true })
          ),
          [],
        ),
    ],
    [
      "a luggage name with ..",
      "luggage-name",
      "data/files/../x",
      () => preparePack(pack(), [luggageFromBytes("../x", "x")]),
    ],
    [
      "a backslash in a luggage name",
      "luggage-name",
      "data/files/docs\\aux.txt",
      () => preparePack(pack(), [luggageFromBytes("docs\\aux.txt", "x")]),
    ],
    [
      "one luggage name twice",
      "luggage-name",
      "data/files/read.md",
      () =>
        preparePack(pack(), [luggageFromBytes("read.md", "a"), luggageFromBytes("read.md", "b")]),
    ],
  ];
  for (const [name, rule, where, run] of cases) {
    await t.step(name, async () => {
      const error = await refusal(run());
      assert.equal(error.rule, rule);
      assert.ok(
        error.where.startsWith(where.replace(/ \(key\)$/, "")),
        `${error.where} should start with ${where}`,
      );
      assert.match(error.message, /^Cannot pack: /);
      assert.ok(!error.message.includes(githubToken()), "the secret is never quoted");
    });
  }
});

Deno.test("encoders accept only what the chokepoint prepared", async () => {
  const { prepared } = await packBoth();
  const forged = { ...prepared } as PreparedPack;
  assert.throws(() => encodeBag(forged), /pass the result of preparePack/);
  await assert.rejects(encodeFlat(forged), /pass the result of preparePack/);
});

Deno.test("the flat form refuses an attachment over 1 MiB unless the limit is lifted", async () => {
  const big = luggageFromBytes("big.bin", new Uint8Array(1_048_577));
  const prepared = await preparePack(pack(), [big]);
  const error = await refusal(encodeFlat(prepared));
  assert.equal(error.rule, "flat-too-large");
  assert.equal(error.where, "data/files/big.bin");
  const flat = await encodeFlat(prepared, { maxAttachmentBytes: Infinity });
  assert.equal(
    (await judge(new TextEncoder().encode(flat))).ok,
    true,
    "the judge has no size limit (C9)",
  );
});

Deno.test("luggage that changes between hashing and writing is caught", async () => {
  let calls = 0;
  const shifty = {
    name: "shifty.bin",
    size: 200_000,
    open: () => {
      const bytes = new Uint8Array(200_000).fill(calls++ === 0 ? 1 : 2);
      return new Blob([bytes]).stream();
    },
  };
  const prepared = await preparePack(pack(), [shifty]);
  await assert.rejects(streamBytes(encodeBag(prepared)), /changed while packing/);
  const liar = { name: "liar.bin", size: 10, open: () => new Blob([new Uint8Array(11)]).stream() };
  await assert.rejects(preparePack(pack(), [liar]), /is 11 bytes, not the 10 declared/);
});

Deno.test("the bag is canonical: same pack, same bytes; times from packed_at, never the clock", async () => {
  const luggage = () => [
    luggageFromBytes("a.txt", "x".repeat(100_000)),
    luggageFromBytes("r.bin", noise(70_000)),
  ];
  const fixed = luggage();
  const one = await streamBytes(encodeBag(await preparePack(pack(), fixed)));
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const two = await streamBytes(encodeBag(await preparePack(pack(), fixed)));
  assert.deepEqual(one, two);
  const names = (await decodePack(one)).luggage.map((f) => f.name);
  assert.deepEqual(names, ["a.txt", "r.bin"]);
});

Deno.test("a pack made from a landed passport extends the chain; a receipt points home", () => {
  const landed = {
    ...sampleState(),
    id: "TP-BBBB-BBBB",
    version: 3,
    lineage: { root_id: "TP-9CB7-J5MK", from_version: 2, chain: ["TP-9CB7-J5MK@2"] },
  };
  const onward = buildPackObject(landed, { ...SAMPLE_OPTIONS, kind: "receipt" });
  assert.deepEqual(onward.lineage, {
    root_id: "TP-9CB7-J5MK",
    from_version: 3,
    chain: ["TP-9CB7-J5MK@2", "TP-BBBB-BBBB@3"],
  });
});

Deno.test("more than 65,535 luggage files pack, judge and read back (ZIP64 end records)", async () => {
  const files = Array.from(
    { length: 70_000 },
    (_, i) => luggageFromBytes(`d${i % 100}/f${i}.txt`, `file ${i}\n`),
  );
  const prepared = await preparePack(pack(), files, { digests: nativeDigests });
  const bag = await streamBytes(encodeBag(prepared, { digests: nativeDigests }));
  const report = await judge(bag, { digests: nativeDigests });
  assert.deepEqual(report.checks.filter((c) => !c.ok), []);
  assert.equal((await decodePack(bag)).luggage.length, 70_000);
});

Deno.test("small luggage is read whole when its source can, with the same result as streaming it", async () => {
  const text = "release notes\n".repeat(100);
  const streamed = luggageFromBytes("notes.txt", text);
  const streamOnly = { name: streamed.name, size: streamed.size, open: () => streamed.open() };
  const a = await preparePack(pack(), [streamed]);
  const b = await preparePack(pack(), [streamOnly]);
  assert.equal(a.digest, b.digest);
  assert.deepEqual(await streamBytes(encodeBag(a)), await streamBytes(encodeBag(b)));
  // A source whose whole read disagrees with its declared size (the file changed) is refused.
  const grown = {
    ...streamOnly,
    read: () => Promise.resolve(new TextEncoder().encode(text + "!")),
  };
  await assert.rejects(preparePack(pack(), [grown]), /is 1401 bytes, not the 1400 declared/);
  // Each path reads the bytes it is given: a source's read() is what gets hashed.
  const other = {
    ...streamOnly,
    read: () => Promise.resolve(new TextEncoder().encode("x".repeat(1400))),
  };
  assert.notEqual((await preparePack(pack(), [other])).digest, a.digest);
  // The prepared pack keeps a copy: a source that changes its array afterwards changes nothing.
  const mine = new TextEncoder().encode(text);
  const held = await preparePack(pack(), [luggageFromBytes("notes.txt", mine)]);
  mine.fill(0x21);
  assert.deepEqual(await streamBytes(encodeBag(held)), await streamBytes(encodeBag(a)));
});

Deno.test("a bag's small luggage read whole is checked as strictly as when streamed", async () => {
  const prepared = await preparePack(pack(), [luggageFromBytes("a.txt", "hello there")]);
  const bag = await streamBytes(encodeBag(prepared));
  const decoded = await decodePack(bag);
  const file = decoded.luggage[0]!;
  assert.ok(file.read, "bag luggage offers a whole read");
  assert.deepEqual(await file.read!(), await streamBytes(file.open()));
  // Corrupt one byte of the stored body: both paths refuse with the CRC.
  const at = new TextDecoder("latin1").decode(bag).indexOf("hello there");
  assert.ok(at > 0);
  const broken = bag.slice();
  broken[at] = 0x48;
  const bad = (await decodePack(broken)).luggage[0]!;
  await assert.rejects(bad.read!(), /CRC-32/);
  await assert.rejects(streamBytes(bad.open()), /CRC-32/);
});

Deno.test("what a source deflated as it read is written as the entry, in place of the deflater's", async () => {
  const text = new TextEncoder().encode("release notes\n".repeat(100));
  const plain = luggageFromBytes("notes.txt", text);
  const source = (made: Uint8Array | null) => ({ ...plain, deflated: () => Promise.resolve(made) });
  const deflater = { ...platformDeflater };

  // Nothing from the source: the deflater's output is the entry.
  const viaDeflater = await preparePack(pack(), [source(null)], { deflater });
  const own = deflateRawSmall(text);
  assert.ok(indexOf(await streamBytes(encodeBag(viaDeflater, { deflater })), own) >= 0);

  // A valid DEFLATE stream of the same bytes that no deflater here makes (an empty stored block
  // first): when the source gives it, it is the entry, and the pack is the same pack.
  const rival = new Uint8Array(own.length + 5);
  rival.set([0x00, 0x00, 0x00, 0xff, 0xff]);
  rival.set(own, 5);
  const viaSource = await preparePack(pack(), [source(rival)], { deflater });
  const bag = await streamBytes(encodeBag(viaSource, { deflater }));
  assert.ok(indexOf(bag, rival) >= 0, "the source's deflated bytes are the entry");
  assert.equal(indexOf(bag, own), indexOf(bag, rival) + 5); // only inside the rival
  assert.equal(viaSource.digest, viaDeflater.digest);
  assert.equal((await judge(bag)).ok, true);

  // Without a deflater at preparation (as for the flat form), nothing deflated is asked for.
  let asked = false;
  const flatSource = { ...plain, deflated: () => (asked = true, Promise.resolve(rival)) };
  await preparePack(pack(), [flatSource]);
  assert.equal(asked, false);
});

Deno.test("bytes read are kept as they are only when the source says they are its caller's alone", async () => {
  const text = new TextEncoder().encode("draft\n".repeat(50));
  for (const own of [false, true]) {
    const bytes = text.slice();
    const source = { ...luggageFromBytes("draft.txt", text), read: () => Promise.resolve(bytes) };
    const ready = await preparePack(pack(), [{ ...source, readsOwnBytes: own }]);
    // The source changes its array after the checks: only a copy keeps what was checked.
    bytes.fill(0x41);
    const bag = await streamBytes(encodeBag(ready));
    assert.equal((await judge(bag)).ok, !own, own ? "kept as they are" : "kept as a copy");
  }
});

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

Deno.test("a prepared pack keeps the luggage it was given, whatever the caller's array does after", async () => {
  const list = [luggageFromBytes("a.txt", "alpha\n"), luggageFromBytes("b/c.md", "gamma\n")];
  const ready = await preparePack(pack(), list);
  // The caller's list changes after preparing: the pack must still write what it checked.
  list.reverse();
  list.push(luggageFromBytes("late.txt", "not checked\n"));
  const decoded = await decodePack(await streamBytes(encodeBag(ready)));
  assert.deepEqual(decoded.luggage.map((f) => f.name), ["a.txt", "b/c.md"]);
  const flat = JSON.parse(await encodeFlat(ready));
  assert.deepEqual(flat.attachments.map((a: { name: string }) => a.name), ["a.txt", "b/c.md"]);
  // Its luggage, made when first asked for, says what the bag holds, and stays the same list.
  const hex = async (text: string) =>
    Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
  assert.deepEqual(ready.luggage.map((f) => [f.name, f.size, f.sha256]), [
    ["a.txt", 6, await hex("alpha\n")],
    ["b/c.md", 6, await hex("gamma\n")],
  ]);
  assert.deepEqual(decoded.luggage.map((f) => [f.name, f.size]), [["a.txt", 6], ["b/c.md", 6]]);
  assert.equal(ready.luggage, ready.luggage);
  assert.ok(Object.isFrozen(ready.luggage));
});
