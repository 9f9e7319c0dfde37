// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- tests edit parsed JSON freely to build broken packs
// The judge: for every check C0-C10, a pack built to break it fails it, and the judge never
// throws, whatever the bytes.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { canonicalJson } from "../lib/bytes/json.ts";
import { writeZip } from "../lib/zip/writer.ts";
import {
  type CheckId,
  deriveTagFiles,
  judge,
  luggageFromBytes,
  portableDigests,
  type Report,
  sha256Hex,
} from "../mod.ts";
import { encoder, packBoth, parseFlat, streamBytes } from "./_helpers.ts";

function failing(report: Report): CheckId[] {
  return report.checks.filter((check) => !check.ok).map((check) => check.id);
}

/** A good flat pack, changed by `change`, written back canonically (so C9 still holds). */
async function mutatedFlat(change: (flat: Record<string, any>) => void): Promise<Uint8Array> {
  const { flat } = await packBoth(undefined, undefined, [
    luggageFromBytes("brief.txt", "Release brief\n"),
  ]);
  const value = parseFlat(flat);
  change(value);
  return encoder.encode(canonicalJson(value));
}

/** A bag whose manifests are honest about whatever `passportJson` and luggage hold. */
async function honestBag(
  passportJson: Uint8Array,
  luggage: [string, Uint8Array][] = [],
): Promise<Uint8Array> {
  let object: unknown = {};
  try {
    object = JSON.parse(new TextDecoder().decode(passportJson));
  } catch {
    // Not JSON: the tag files still describe the bytes honestly.
  }
  const payload = [
    {
      path: "data/passport.json",
      sha256: sha256Hex(portableDigests, passportJson),
      size: passportJson.length,
    },
    ...luggage.map(([name, bytes]) => ({
      path: `data/files/${name}`,
      sha256: sha256Hex(portableDigests, bytes),
      size: bytes.length,
    })),
  ];
  const tags = deriveTagFiles(object, payload, portableDigests);
  return await streamBytes(writeZip([
    { name: "bagit.txt", bytes: tags.bagit },
    { name: "bag-info.txt", bytes: tags.bagInfo },
    { name: "manifest-sha256.txt", bytes: tags.manifest },
    { name: "tagmanifest-sha256.txt", bytes: tags.tagManifest },
    { name: "data/passport.json", bytes: passportJson },
    ...luggage.map(([name, bytes]) => ({ name: `data/files/${name}`, bytes })),
  ], { modified: new Date(Date.UTC(2026, 11, 2)) }));
}

async function goodObject(): Promise<Record<string, any>> {
  const { prepared } = await packBoth();
  return structuredClone(prepared.object);
}

const token = () => ["gh", "p_"].join("") + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";

Deno.test("a well-made pack passes every check, in both encodings", async () => {
  const { bag, flat } = await packBoth(undefined, undefined, [
    luggageFromBytes("a.txt", "hello\n"),
  ]);
  for (const bytes of [bag, flat]) {
    const report = await judge(bytes);
    assert.deepEqual(failing(report), []);
    assert.equal(report.ok, true);
    assert.equal(report.total, 11);
  }
});

Deno.test("each check fails on a pack built to break it", async (t) => {
  const cases: [string, CheckId[], () => Promise<Uint8Array>][] = [
    ["C0: an instruction field", ["C0"], () =>
      mutatedFlat((f) => {
        f.passport.passport.how_to_use_this_file = "read me first";
      })],
    ["C0 and C9: a leading byte order mark", ["C0", "C9"], async () => {
      const good = await mutatedFlat(() => {});
      return new Uint8Array([0xef, 0xbb, 0xbf, ...good]);
    }],
    ["C0 and C9: an attachment with no sha256", ["C0", "C9"], () =>
      mutatedFlat((f) => {
        delete f.attachments[0].sha256;
      })],
    ["C0: a lineage without a chain", ["C0"], () =>
      mutatedFlat((f) => {
        delete f.passport.lineage.chain;
      })],
    ["C1: a luggage file that does not match its manifest", ["C1", "C9"], async () => {
      const { prepared } = await packBoth();
      const json = prepared.passportJson;
      const bag = await honestBag(json, [["a.txt", encoder.encode("one")]]);
      // Same length, different bytes, manifest untouched: patch the stored body in place.
      const at = new TextDecoder("latin1").decode(bag).lastIndexOf("one");
      bag.set(encoder.encode("two"), at);
      return bag;
    }],
    ["C1: a flat attachment whose sha256 lies", ["C1"], () =>
      mutatedFlat((f) => {
        f.attachments[0].sha256 = "0".repeat(64);
      })],
    ["C2: data/passport.json is not JSON", ["C2"], () => honestBag(encoder.encode("{ not json\n"))],
    ["C2: duplicate keys", ["C2"], async () => {
      const text = new TextDecoder().decode(await mutatedFlat(() => {}));
      return encoder.encode(text.replace('"note": ', '"note": "x",\n    "note": '));
    }],
    ["C3: an unknown kind", ["C3"], () =>
      mutatedFlat((f) => {
        f.passport.kind = "memo";
      })],
    ["C4: no root_id", ["C4"], () =>
      mutatedFlat((f) => {
        delete f.passport.lineage.root_id;
      })],
    ["C5: an ask without accept", ["C5"], () =>
      mutatedFlat((f) => {
        delete f.passport.asks[0].accept;
      })],
    ["C6: a sealed fact flipped back to verified", ["C0", "C6"], () =>
      mutatedFlat((f) => {
        f.passport.passport.facts[2].verified = true;
      })],
    ["C6: an unscoped verified fact", ["C0", "C6"], () =>
      mutatedFlat((f) => {
        f.passport.passport.facts.push({ claim: "the disk is empty", verified: true });
      })],
    ["C7: a credential in the note", ["C7"], () =>
      mutatedFlat((f) => {
        f.passport.note = `use ${token()} to publish`;
      })],
    ["C7: a credential in the luggage", ["C7"], () =>
      mutatedFlat((f) => {
        const data = `config\n${"x\n".repeat(40000)}token=${token()}\n`;
        f.attachments[0] = {
          name: "cfg.txt",
          encoding: "utf8",
          sha256: sha256Hex(portableDigests, encoder.encode(data)),
          bytes: encoder.encode(data).length,
          data,
        };
      })],
    ["C8: a chat transcript in the state", ["C8"], () =>
      mutatedFlat((f) => {
        f.passport.passport.current_state = "User: can you fix it?\nAssistant: Sure, done.";
      })],
    ["C9: passport.json indented with four spaces", ["C9"], async () => {
      const object = await goodObject();
      return await honestBag(encoder.encode(JSON.stringify(object, null, 4) + "\n"));
    }],
    ["C9: a flat file with keys reordered", ["C9"], async () => {
      const f = parseFlat(await mutatedFlat(() => {}));
      const { attachments, ...rest } = f;
      return encoder.encode(canonicalJson({ attachments, ...rest }));
    }],
    ["C10: no packed_at", ["C10"], () =>
      mutatedFlat((f) => {
        delete f.passport.packed_at;
      })],
    ["C10: packed_at that is not a time", ["C10"], () =>
      mutatedFlat((f) => {
        f.passport.packed_at = "yesterday";
      })],
  ];
  for (const [name, expected, make] of cases) {
    await t.step(name, async () => {
      const report = await judge(await make());
      const failed = failing(report);
      assert.equal(report.ok, false);
      for (const id of expected) {
        assert.ok(failed.includes(id), `${id} should fail; failed: ${failed}`);
      }
      if (!expected.includes("C1") && !expected.includes("C2")) {
        assert.deepEqual(failed, expected, "only the broken checks fail");
      }
      for (const check of report.checks.filter((c) => !c.ok)) assert.notEqual(check.detail, "");
    });
  }
});

Deno.test("details name where, never the secret", async () => {
  const report = await judge(
    await mutatedFlat((f) => {
      f.passport.passport.facts[0].claim = `key ${token()}`;
    }),
  );
  const c7 = report.checks.find((c) => c.id === "C7")!;
  assert.match(c7.detail, /passport\.facts\[0\]\.claim/);
  assert.ok(!c7.detail.includes(token()));
});

Deno.test("an unknown taskpack version or pack spec is refused, not guessed (§8)", async () => {
  for (
    const change of [
      (f: Record<string, any>) => (f.taskpack = "0.2"),
      (f: Record<string, any>) => (f.passport.spec = "task-passport-bag/9"),
    ]
  ) {
    const report = await judge(await mutatedFlat(change));
    assert.equal(report.ok, false);
    assert.match(
      report.checks.find((c) => c.id === "C2")!.detail,
      /not a (TaskPack version|pack spec)/,
    );
  }
});

Deno.test("judge() never throws: arbitrary bytes get a full report", async () => {
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
      const report = await judge(bytes);
      assert.equal(report.checks.length, 11);
      assert.equal(report.ok, false);
    }),
    { numRuns: 200 },
  );
});

Deno.test("judge() never throws on damaged packs", async () => {
  const { bag, flat } = await packBoth(undefined, undefined, [
    luggageFromBytes("b.bin", new Uint8Array(3000).fill(7)),
  ]);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(bag, flat),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.option(fc.nat()),
      async (original, flips, cut) => {
        const bytes = original.slice(0, cut === null ? undefined : cut % (original.length + 1));
        for (const [at, value] of flips) if (bytes.length) bytes[at % bytes.length] = value;
        const report = await judge(bytes);
        assert.equal(report.checks.length, 11);
        assert.equal(typeof report.ok, "boolean");
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("flatTextMatches() agrees with comparing flatText() whole, for any edit of the text", async () => {
  const { flatAttachment, flatText, flatTextMatches } = await import("../lib/format/flat.ts");
  const enc = new TextEncoder();
  const pack = { spec: "task-passport-bag/0.1", note: 'a "quoted"\nnote ✓' };
  const lists = [
    [],
    [flatAttachment("a.txt", enc.encode("one\n"), "0".repeat(64))],
    [
      flatAttachment("a.txt", enc.encode("one\n"), "0".repeat(64)),
      flatAttachment("b/c.bin", new Uint8Array([0, 1, 2, 255]), "1".repeat(64)),
      flatAttachment("d.md", enc.encode("line\n  indented\n"), "2".repeat(64)),
    ],
  ];
  for (const list of lists) {
    const text = flatText(pack, list);
    const matches = (t: string, n = list.length) => flatTextMatches(t, pack, n, (i) => list[i]!);
    assert.equal(await matches(text), true);
    assert.equal(await matches(text + "\n"), false);
    assert.equal(await matches(text.slice(0, -1)), false);
    assert.equal(await matches(text.replace("\n    {", "\n   {")), list.length === 0);
    assert.equal(await matches(text.replaceAll("  ", "\t")), false);
    if (list.length > 0) assert.equal(await matches(text, list.length - 1), false);
    // Every one-character change is caught, as a whole comparison would.
    for (let i = 0; i < text.length; i += 7) {
      const edited = text.slice(0, i) + (text[i] === "x" ? "y" : "x") + text.slice(i + 1);
      assert.equal(await matches(edited), edited === text, `edit at ${i}`);
    }
  }
});
