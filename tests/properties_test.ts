// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- tests edit parsed JSON freely to build broken packs
// The format's invariants, on generated packs of every shape (fast-check).
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { canonicalJson } from "../lib/bytes/json.ts";
import { decodeUtf8Strict, isUtf8Of, utf8 } from "../lib/bytes/bytes.ts";
import {
  buildPackObject,
  type BuildPackOptions,
  decodePack,
  encodeBag,
  encodeFlat,
  type Fact,
  isPortableScope,
  judge,
  type Luggage,
  luggageFromBytes,
  luggageNameProblem,
  luggageSetProblem,
  type PassportState,
  preparePack,
  RefusalError,
  sealPack,
} from "../mod.ts";
import { convert, decoder, encoder, parseFlat, streamBytes } from "./_helpers.ts";
import { deriveTagFiles, manifestMatches } from "../lib/format/bag.ts";
import { portableDigests } from "../lib/bytes/digests.ts";

const RUNS = 40;

const text = fc.string({ maxLength: 24, unit: "grapheme" });
const word = fc.stringMatching(/^[a-z][a-z ]{0,18}[a-z]$/);
const idPart = fc.stringMatching(/^[23456789ABCDEFGHJKMNPQRSTVWXYZ]{4}$/);
const passportId = fc.tuple(idPart, idPart).map(([a, b]) => `TP-${a}-${b}`);
const scope = fc.option(
  fc.oneof(
    fc.constantFrom("universal", "org", "machine", "Machine", "UNIVERSAL", "global", ""),
    text,
  ),
  { nil: undefined },
);
const fact = fc.record({
  claim: text,
  scope,
  verified: fc.boolean(),
  verified_on: fc.option(text, { nil: undefined }),
  needs_reverify: fc.option(fc.boolean(), { nil: undefined }),
}, { requiredKeys: ["claim"] }).map((f): Fact =>
  Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Fact
);
// Extra fields a newer writer might add; integer-like keys are left out on purpose (JavaScript
// orders them first, so no JSON writer in the language can keep them in file order).
// Keys every strict reader refuses are refused by the writer too (tested in pack_test.ts).
const jsonData = fc.jsonValue({ maxDepth: 2 }).filter((v) =>
  !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(v))
);
const extraFields = fc.dictionary(fc.stringMatching(/^x_[a-z]{1,8}$/), jsonData, { maxKeys: 3 });

const state: fc.Arbitrary<PassportState> = fc.record({
  id: passportId,
  version: fc.nat({ max: 1000 }),
  title: text,
  goal: text,
  current_state: text,
  facts: fc.array(fact, { maxLength: 6 }),
  decisions: fc.array(fc.record({ what: text, why: text }), { maxLength: 2 }),
  artifacts: fc.array(text, { maxLength: 2 }),
  next_steps: fc.array(text, { maxLength: 3 }),
  extra: extraFields,
}).map(({ extra, ...rest }) => ({ ...rest, ...extra }));

const options: fc.Arbitrary<BuildPackOptions> = fc.record({
  kind: fc.constantFrom("handoff" as const, "receipt" as const),
  packedAt: fc.date({
    min: new Date("1990-01-01T00:00:00Z"),
    max: new Date("2100-01-01T00:00:00Z"),
    noInvalidDate: true,
  }),
  machine: text,
  actor: text,
  note: text,
  asks: fc.array(fc.record({ what: word, accept: word, why: text }), { maxLength: 3 }),
  landingChecks: fc.array(fc.record({ check: word, how: text, required: fc.boolean() }), {
    maxLength: 2,
  }),
});

const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}(\.[a-z]{1,3})?$/).filter((s) =>
  luggageNameProblem(s) === null
);
const luggage: fc.Arbitrary<Luggage[]> = fc.array(
  fc.tuple(
    fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/")),
    fc.oneof(
      fc.uint8Array({ maxLength: 400 }),
      fc.string({ maxLength: 200, unit: "grapheme" }).map((s) => encoder.encode(s)),
    ),
  ),
  { maxLength: 4 },
).filter((files) => luggageSetProblem(files.map(([name]) => name)) === null)
  .map((files) => files.map(([name, bytes]) => luggageFromBytes(name, bytes)));

async function packAll(s: PassportState, o: BuildPackOptions, l: Luggage[]) {
  const prepared = await preparePack(buildPackObject(s, o), l);
  const bag = await streamBytes(encodeBag(prepared));
  const flat = encoder.encode(await encodeFlat(prepared));
  return { prepared, bag, flat };
}

Deno.test("bag -> flat -> bag and flat -> bag -> flat are byte-exact", async () => {
  await fc.assert(
    fc.asyncProperty(state, options, luggage, async (s, o, l) => {
      const { bag, flat } = await packAll(s, o, l);
      const flat2 = await convert(bag, "flat");
      assert.equal(decoder.decode(flat2), decoder.decode(flat));
      assert.deepEqual(await convert(flat2, "bag"), bag);
      assert.deepEqual(await convert(flat, "bag"), bag);
    }),
    { numRuns: RUNS },
  );
});

Deno.test("no machine-scoped or unscoped fact leaves verified, in either encoding", async () => {
  await fc.assert(
    fc.asyncProperty(state, options, async (s, o) => {
      const { bag, flat } = await packAll(s, o, []);
      for (const bytes of [bag, flat]) {
        const decoded = await decodePack(bytes);
        const facts = (decoded.object as any).passport.facts as Record<string, unknown>[];
        for (const f of facts) {
          if (!isPortableScope(f.scope)) {
            assert.equal(f.verified, false);
            assert.equal(f.needs_reverify, true);
            assert.equal(typeof f.verified_on, "string");
          }
        }
      }
    }),
    { numRuns: RUNS },
  );
});

Deno.test("sealing is idempotent: a sealed pack seals to the same bytes", () => {
  fc.assert(
    fc.property(state, options, (s, o) => {
      const sealed = sealPack(buildPackObject(s, o)).pack;
      const again = sealPack(sealed);
      assert.equal(again.pack, sealed);
      assert.deepEqual(again.repairs, []);
      assert.equal(canonicalJson(again.pack), canonicalJson(sealed));
    }),
    { numRuns: RUNS * 3 },
  );
});

Deno.test("every packable input judges conformant, in both encodings, with one digest", async () => {
  await fc.assert(
    fc.asyncProperty(state, options, luggage, async (s, o, l) => {
      const { bag, flat, prepared } = await packAll(s, o, l);
      const reports = [await judge(bag), await judge(flat)];
      for (const report of reports) {
        assert.deepEqual(report.checks.filter((c) => !c.ok), []);
        assert.equal(report.digest, prepared.digest);
      }
    }),
    { numRuns: RUNS },
  );
});

Deno.test("flipping any sealed fact back to verified fails C6 and C0", async () => {
  const withSealedFact = state.filter((s) => s.facts!.some((f) => !isPortableScope(f.scope)));
  await fc.assert(
    fc.asyncProperty(withSealedFact, options, fc.nat(), async (s, o, pick) => {
      const { flat } = await packAll(s, o, []);
      const value = parseFlat(flat);
      const facts = value.passport.passport.facts as Record<string, unknown>[];
      const sealed = facts.map((f, i) => [f, i] as const).filter(([f]) =>
        !isPortableScope(f.scope)
      );
      sealed[pick % sealed.length]![0].verified = true;
      const report = await judge(encoder.encode(canonicalJson(value)));
      const failed = report.checks.filter((c) => !c.ok).map((c) => c.id);
      assert.deepEqual(failed, ["C0", "C6"]);
    }),
    { numRuns: RUNS },
  );
});

// Secret-shaped text is assembled at run time so the repository holds none.
const planted = fc.constantFrom(
  { rule: "credential", check: "C7", text: ["gh", "p_"].join("") + "Zx9".repeat(12) },
  { rule: "credential", check: "C7", text: ["AK", "IA"].join("") + "Q7RT2WXYZ3ABCD4E" },
  {
    rule: "credential",
    check: "C7",
    text: ["-----BEGIN", "PRIVATE KEY-----"].join(" ") + "\nMIIEvQIBADAN" + "Bgkqhk".repeat(8) +
      "\n-----END PRIVATE KEY-----",
  },
  {
    rule: "credential",
    check: "C7",
    text: ["sk", "ant", "api03"].join("-") + "-" + "k".repeat(40),
  },
  {
    rule: "transcript",
    check: "C8",
    text: "\nUser: can you fix the build?\nAssistant: Fixed it.\n",
  },
  {
    rule: "transcript",
    check: "C8",
    text: "\n<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\nhi<|im_end|>\n",
  },
);

function stringPaths(
  value: unknown,
  path: (string | number)[] = [],
  out: (string | number)[][] = [],
) {
  if (typeof value === "string") out.push(path);
  else if (Array.isArray(value)) value.forEach((v, i) => stringPaths(v, [...path, i], out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) stringPaths(v, [...path, k], out);
  }
  return out;
}

Deno.test("a credential or transcript planted anywhere refuses the pack and fails C7/C8", async () => {
  await fc.assert(
    fc.asyncProperty(
      state,
      options,
      luggage,
      planted,
      fc.nat(),
      fc.boolean(),
      async (s, o, l, plant, pick, inLuggage) => {
        const object = structuredClone(buildPackObject(s, o));
        let files = l;
        if (inLuggage || l.length === 0) {
          const filler = "ordinary notes\n".repeat(pick % 6000);
          files = [...l, luggageFromBytes("zz-planted.txt", `${filler}${plant.text}\n`)];
        } else {
          // Anywhere but the two fields that decide what the object is.
          const paths = stringPaths(object).filter((p) => p[0] !== "spec" && p[0] !== "kind");
          const path = paths[pick % paths.length]!;
          let target: any = object;
          for (const key of path.slice(0, -1)) target = target[key];
          target[path.at(-1)!] += ` ${plant.text} `;
        }
        // The writer refuses...
        await assert.rejects(preparePack(object, files), (error: unknown) => {
          assert.ok(error instanceof RefusalError, String(error));
          assert.equal(error.rule, plant.rule);
          assert.ok(
            !error.message.includes(plant.text.trim()),
            "the message must not quote the secret",
          );
          return true;
        });
        // ...and the judge fails the same pack on the same check, written by hand.
        const clean = await preparePack(buildPackObject(s, o), []);
        const value = parseFlat(encoder.encode(await encodeFlat(clean)));
        value.passport = object;
        value.attachments = [];
        for (const file of files) {
          const bytes = await streamBytes(file.open());
          value.attachments.push({
            name: file.name,
            encoding: "base64",
            data: btoa(String.fromCharCode(...bytes)),
          });
        }
        const report = await judge(encoder.encode(canonicalJson(value)));
        assert.equal(report.checks.find((c) => c.id === plant.check)!.ok, false);
      },
    ),
    { numRuns: RUNS },
  );
});

Deno.test("utf8 gives the runtime's UTF-8 bytes for any text, short ASCII (copied here) or not", () => {
  const text = fc.oneof(
    fc.string({ unit: "binary-ascii", maxLength: 300 }),
    fc.string({ unit: "grapheme", maxLength: 300 }),
    // Lone surrogates become U+FFFD, as the runtime's encoder makes them.
    // Code units anywhere, and around the edges of ASCII and of the surrogates.
    fc.string({
      unit: fc.oneof(
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0x7e, max: 0x81 }),
        fc.integer({ min: 0xd7ff, max: 0xe000 }),
      ).map((code) => String.fromCharCode(code)),
    }),
  );
  fc.assert(
    fc.property(text, (value) => assert.deepEqual(utf8(value), new TextEncoder().encode(value))),
    { numRuns: 3000 },
  );
});

Deno.test("decodeUtf8Strict reads any bytes as the runtime's strict decoder does: the same text, or an error", () => {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const outcome = (decode: () => string) => {
    try {
      return { text: decode() };
    } catch (error) {
      return { error: (error as Error).constructor.name };
    }
  };
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.uint8Array({ max: 0x7f, maxLength: 300 }), // ASCII, decoded without the runtime
    fc.string({ unit: "grapheme", maxLength: 100 }).map((text) => new TextEncoder().encode(text)),
  );
  fc.assert(
    fc.property(bytes, (value) => {
      assert.deepEqual(outcome(() => decodeUtf8Strict(value)), outcome(() => strict.decode(value)));
    }),
    { numRuns: 3000 },
  );
});

Deno.test("isUtf8Of: true for a text's own UTF-8 bytes, false once a byte is changed, added or taken away", () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.string({ unit: "grapheme-ascii" }), fc.string({ unit: "grapheme" })),
      fc.nat(),
      fc.integer({ min: 1, max: 255 }),
      (text, at, flip) => {
        const bytes = utf8(text);
        assert.equal(isUtf8Of(bytes, text), true);
        assert.equal(isUtf8Of(new Uint8Array([...bytes, 0x61]), text), false);
        if (bytes.length === 0) return;
        assert.equal(isUtf8Of(bytes.subarray(0, bytes.length - 1), text), false);
        const changed = bytes.slice();
        changed[at % bytes.length]! ^= flip;
        assert.equal(isUtf8Of(changed, text), false);
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("manifestMatches: true exactly when the bytes are the manifest deriveTagFiles makes", () => {
  const hex = fc.string({
    unit: fc.constantFrom(..."0123456789abcdef"),
    minLength: 64,
    maxLength: 64,
  });
  const payload = fc.array(
    fc.record({
      path: fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).map((s) => `data/${s}`),
      sha256: hex,
      size: fc.nat(),
    }),
    { maxLength: 30 },
  );
  fc.assert(
    fc.property(payload, fc.nat(), fc.integer({ min: 1, max: 255 }), (files, at, flip) => {
      const pack = { passport: { id: "TP-AAAA-AAAA" }, origin: {} };
      const derived = deriveTagFiles(pack, files, portableDigests).manifest;
      assert.equal(manifestMatches(derived, files), true);
      assert.equal(manifestMatches(new Uint8Array([...derived, 0x0a]), files), false);
      if (derived.length === 0) return;
      assert.equal(manifestMatches(derived.subarray(0, derived.length - 1), files), false);
      const changed = derived.slice();
      changed[at % derived.length]! ^= flip;
      assert.equal(manifestMatches(changed, files), false);
      // Given the bytes it matched, deriving gives the same tag files as deriving from scratch.
      assert.deepEqual(
        deriveTagFiles(pack, files, portableDigests, derived),
        deriveTagFiles(pack, files, portableDigests),
      );
    }),
    { numRuns: 500 },
  );
});
