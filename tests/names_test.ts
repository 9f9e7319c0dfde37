// Copyright 2026 the taskpack authors. MIT license.
// Luggage names: the checker (with its quick path for plain names) says a name is safe exactly
// when the rules, restated here on their own, say so; and where it is not, the set check
// names the same file.
import assert from "node:assert/strict";
import fc from "fast-check";
import { luggageNameProblem, luggageSetProblem } from "../mod.ts";

/** The rules of `luggageNameProblem`'s documentation, one by one. */
function safeByTheRules(name: string): boolean {
  if (name.length === 0 || name.length > 1024) return false;
  if (!name.isWellFormed()) return false;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return false;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\\:*?"<>|%]/.test(name)) return false;
  const segments = name.split("/");
  if (segments.length > 64) return false;
  return segments.every((s) =>
    s !== "" && s !== "." && s !== ".." && !s.endsWith(".") && !s.endsWith(" ") &&
    !/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i.test(s)
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
  const long = "a".repeat(1024);
  assert.equal(luggageNameProblem(long), null);
  assert.match(luggageNameProblem(`${long}b`)!, /longer/);
  for (const device of ["con", "x/CON.txt", "x/aux.tar.gz", "nul/x", "a/com1", "lpt9.log"]) {
    assert.match(luggageNameProblem(device)!, /device/, device);
  }
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
