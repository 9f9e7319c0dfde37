// Copyright 2026 the taskpack authors. MIT license.
// Luggage names: the checker (with its quick path for plain names) says a name is safe exactly
// when the rules, restated here on their own, say so; and where it is not, the set check
// names the same file. Names only some systems cannot hold are safe, and warned about.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { luggageNameProblem, luggageSetProblem, portabilityWarnings } from "../mod.ts";

/** The rules of `luggageNameProblem`'s documentation, one by one. */
function safeByTheRules(name: string): boolean {
  if (name.length === 0 || name.length > 1024) return false;
  if (!name.isWellFormed()) return false;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return false;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(name)) return false;
  const segments = name.split("/");
  if (segments.length > 64) return false;
  return segments.every((s) =>
    s !== "" && s !== "." && s !== ".." && new TextEncoder().encode(s).length <= 255
  );
}

// Pieces that make names near every rule: device names, dots, spaces, drive letters,
// forbidden characters, non-ASCII letters, and plain ones.
const piece = fc.constantFrom(
  "a",
  "Z",
  "0",
  "_",
  "-",
  ".",
  "..",
  " ",
  "con",
  "AUX",
  "nul",
  "com1",
  "lpt9",
  "com¹",
  "prn",
  "c:",
  "%",
  "\\",
  "é",
  "e\u0301",
  "\u0007",
  "\ud800",
  "log",
  ".txt",
  ":",
  "*",
  '"',
  "|",
  "€".repeat(40),
  "x".repeat(100),
);
const segment = fc.array(piece, { minLength: 0, maxLength: 4 }).map((p) => p.join(""));
const name = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join("/"));

Deno.test("a luggage name is safe exactly when every rule says so", () => {
  fc.assert(
    fc.property(name, (n) => {
      assert.equal(luggageNameProblem(n) === null, safeByTheRules(n), JSON.stringify(n));
    }),
    { numRuns: 20_000 },
  );
});

Deno.test("names at the limits: 64 folders deep and 1024 characters pass, one more does not", () => {
  const deep = Array.from({ length: 64 }, (_, i) => `d${i}`).join("/");
  assert.equal(luggageNameProblem(deep), null);
  assert.match(luggageNameProblem(`${deep}/x`)!, /deeper/);
  const long = Array.from({ length: 8 }, () => "a".repeat(127)).join("/") + "a";
  assert.equal(luggageNameProblem(long), null);
  assert.match(luggageNameProblem(`${long}b`)!, /longer/);
  // A segment of 255 UTF-8 bytes is the most any common file system holds.
  assert.equal(luggageNameProblem(`a/${"x".repeat(255)}`), null);
  assert.match(luggageNameProblem(`a/${"x".repeat(256)}`)!, /255 bytes/);
  assert.equal(luggageNameProblem("é".repeat(127)), null);
  assert.match(luggageNameProblem("é".repeat(128))!, /255 bytes/);
});

Deno.test("names only some systems cannot hold are safe, and each is warned about", () => {
  for (const device of ["con", "x/CON.txt", "x/aux.tar.gz", "nul/x", "a/com1", "lpt9.log"]) {
    assert.equal(luggageNameProblem(device), null, device);
    assert.match(portabilityWarnings([device])[0]!.reason, /device name/, device);
  }
  for (
    const name of [
      "ab:c",
      "build 10:00:00.log",
      "a*",
      'q"',
      "a<b>",
      "p|q",
      "what?",
      "dot.",
      "space ",
      "x./y",
    ]
  ) {
    assert.equal(luggageNameProblem(name), null, name);
    assert.equal(portabilityWarnings([name])[0]?.systems, "Windows", name);
  }
  assert.deepEqual(luggageSetProblem(["Readme.txt", "README.txt"]), null);
  assert.deepEqual(portabilityWarnings(["Readme.txt", "README.txt"]).map((w) => w.clashesWith), [
    "Readme.txt",
  ]);
  assert.match(portabilityWarnings(["caf\u00e9", "cafe\u0301"])[0]!.reason, /normalisation/);
  // A file and a folder that differ in case: one path on a case-insensitive disk.
  assert.deepEqual(portabilityWarnings(["Notes", "notes/a.md"]).map((w) => w.name), ["notes/a.md"]);
  assert.deepEqual(portabilityWarnings(["a.txt", "b/c.md", "100 percent.txt"]), []);
  // Issue 39 family 14: % is right by RFC 8493, and a warning names the readers that fail it.
  assert.deepEqual(portabilityWarnings(["a.txt", "100%.txt"]).map((w) => w.name), ["100%.txt"]);
});

Deno.test("the set check reports the first unsafe name, whatever its neighbours", () => {
  fc.assert(
    fc.property(fc.array(name, { minLength: 1, maxLength: 6 }), (names) => {
      const firstBad = names.find((n) => !safeByTheRules(n));
      const problem = luggageSetProblem(names);
      if (firstBad !== undefined && names.indexOf(firstBad) === 0) {
        assert.equal(problem?.name, firstBad);
      }
      if (problem === null) assert.ok(names.every(safeByTheRules));
    }),
    { numRuns: 5_000 },
  );
});
