// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- the flat file is edited field by field
// No report, refusal or repair quotes a secret (issue 38): a credential used as a key or a value
// anywhere in a flat file — the wrapper's unknown fields, an attachment's unknown fields — fails
// C7, and is never printed back: not in the conformance report (library, HTTP, CLI), not in
// inspect's summary, not in a landing's refusal or repairs. Every token here is built from
// fragments at run time; none is written in the repository.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import {
  buildPackObject,
  encodeFlat,
  judge,
  land,
  type Luggage,
  preparePack,
  RefusalError,
} from "../mod.ts";
import { redactCredentials, REDACTED } from "../lib/scan/mod.ts";
import { refusalOf } from "../app/mod.ts";
import { createJudgeHandler } from "../serve.ts";
import { cli } from "./_cli.ts";
import { SAMPLE_OPTIONS, sampleState, tempDir } from "./_helpers.ts";

/** Tokens of three vendors' shapes, each built from fragments and random characters. */
const tokenArb: fc.Arbitrary<string> = fc.tuple(
  fc.constantFrom("github", "anthropic", "aws"),
  fc.stringMatching(/^[a-z][A-Z][0-9][A-Za-z0-9]{37}$/),
).map(([kind, body]) => {
  if (kind === "github") return ["gh", "p_"].join("") + body.slice(0, 36);
  if (kind === "anthropic") return ["sk", "ant", "api03"].join("-") + "-" + body;
  return ["AK", "IA"].join("") + body.slice(0, 16).toUpperCase().replace(/[^A-Z2-7]/g, "Q");
});

/** Where the token goes in the flat file. */
type Place =
  | "wrapper key"
  | "wrapper value"
  | "nested wrapper value"
  | "attachment key"
  | "attachment value"
  | "pack value"
  | "pack key";
const placeArb = fc.constantFrom<Place>(
  "wrapper key",
  "wrapper value",
  "nested wrapper value",
  "attachment key",
  "attachment value",
  "pack value",
  "pack key",
);

let flatBase: Promise<Record<string, any>> | undefined;
/** A conformant flat pack with one attachment, as parsed JSON. */
function baseFlat(): Promise<Record<string, any>> {
  return flatBase ??= (async () => {
    const text = new TextEncoder().encode("notes\n");
    const notes: Luggage = {
      name: "notes.txt",
      size: text.length,
      open: () => new Blob([text]).stream(),
    };
    const pack = await preparePack(buildPackObject(sampleState(), SAMPLE_OPTIONS), [notes]);
    return JSON.parse(await encodeFlat(pack));
  })();
}

async function flatWith(token: string, place: Place): Promise<Uint8Array<ArrayBuffer>> {
  const file = structuredClone(await baseFlat());
  if (place === "wrapper key") file[token] = "x";
  if (place === "wrapper value") file.extra = token;
  if (place === "nested wrapper value") file.extra = { deeper: [1, { at: `key=${token}` }] };
  if (place === "attachment key") file.attachments[0][token] = 1;
  if (place === "attachment value") file.attachments[0].source = token;
  if (place === "pack value") file.passport.passport.goal = `deploy with ${token}`;
  if (place === "pack key") file.passport.passport.notes = { [token]: "kept" };
  return new TextEncoder().encode(JSON.stringify(file, null, 2));
}

Deno.test("a credential anywhere in a flat file's wrapper or attachments fails C7 and is never quoted", async () => {
  const handler = createJudgeHandler({ viewerHtml: "" });
  await fc.assert(
    fc.asyncProperty(tokenArb, placeArb, async (token, place) => {
      const bytes = await flatWith(token, place);
      const report = await judge(bytes);
      const c7 = report.checks.find((check) => check.id === "C7")!;
      assert.equal(c7.ok, false, `${place}: ${JSON.stringify(report.checks)}`);
      assert.ok(!JSON.stringify(report).includes(token), `${place}: the report quotes it`);
      // Over HTTP, the same report and the summary.
      for (const path of ["/conformance", "/inspect"]) {
        const response = await handler(
          new Request(`http://localhost${path}`, { method: "POST", body: bytes }),
        );
        const text = await response.text();
        assert.ok(!text.includes(token), `${place}: ${path} quotes it`);
      }
      // Landing refuses it, in a sentence that does not quote it.
      await assert.rejects(
        () => land(bytes),
        (error: unknown) => {
          assert.ok(error instanceof RefusalError, String(error));
          assert.equal(error.rule, "credential");
          assert.ok(!error.message.includes(token), `${place}: ${error.message}`);
          assert.ok(!refusalOf(error).sentence.includes(token));
          return true;
        },
      );
    }),
    { numRuns: 30 },
  );
});

Deno.test("the CLI's conformance and land --json do not print a credential they were sent", async () => {
  const dir = await tempDir();
  const token = ["gh", "p_"].join("") + "a1B2".repeat(9);
  const path = `${dir}/wrapped.taskpack.json`;
  await Deno.writeFile(path, await flatWith(token, "wrapper key"));
  for (
    const args of [
      ["conformance", path],
      ["conformance", "--json", path],
      ["land", "--json", "--store", `${dir}/store`, path],
      ["inspect", "--json", path],
    ]
  ) {
    const result = await cli(args, { cwd: dir });
    assert.ok(!result.stdout.includes(token), `${args.join(" ")}: stdout quotes it`);
    assert.ok(!result.stderr.includes(token), `${args.join(" ")}: stderr quotes it`);
  }
  const report = JSON.parse((await cli(["conformance", "--json", path], { cwd: dir })).stdout);
  const c0 = report.checks.find((check: { id: string }) => check.id === "C0");
  assert.match(c0.detail, /<wrapper key \d+>: an unknown wrapper field was ignored/);
});

Deno.test("redactCredentials: every word that looks like a credential goes, every other word stays", () => {
  fc.assert(
    fc.property(
      fc.array(fc.stringMatching(/^[a-z]{1,8}$/), { maxLength: 6 }),
      tokenArb,
      fc.nat(),
      (words, token, at) => {
        const position = at % (words.length + 1);
        const text = [...words.slice(0, position), `${token}:`, ...words.slice(position)]
          .join(" ");
        const shown = redactCredentials(text);
        assert.ok(!shown.includes(token));
        assert.equal(
          shown,
          [...words.slice(0, position), `${REDACTED}:`, ...words.slice(position)].join(" "),
        );
        assert.equal(redactCredentials(words.join(" ")), words.join(" "));
      },
    ),
  );
});
