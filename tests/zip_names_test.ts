// Copyright 2026 the taskpack authors. MIT license.
// ZIP entry names: the checker (with its quick path for plain names) says a name is safe
// exactly when the rules, restated here on their own, say so; and the clash check finds the
// first name that clashes with an earlier one, as comparing every pair does.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { DEFAULT_ZIP_LIMITS, zipNameClash, zipNameProblem } from "../lib/zip/reader.ts";

/** The rules of `zipNameProblem`'s documentation, one by one. */
function safeByTheRules(name: string, limits: { maxNameBytes: number; maxDepth: number }) {
  if (name.length === 0 || !name.isWellFormed()) return false;
  if (new TextEncoder().encode(name).length > limits.maxNameBytes) return false;
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(name)) return false;
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return false;
  const segments = (name.endsWith("/") ? name.slice(0, -1) : name).split("/");
  if (segments.length > limits.maxDepth) return false;
  return segments.every((s) => s !== "" && s !== "." && s !== "..");
}

// Pieces that make names near every rule, and plain ones.
const piece = fc.constantFrom(
  "a",
  "Z",
  "0",
  "_",
  "-",
  ".",
  "..",
  "...",
  " ",
  "c:",
  "\\",
  "é",
  "\u0007",
  "\u0085",
  "\ud800",
  "log",
  ".txt",
);
const segment = fc.array(piece, { minLength: 0, maxLength: 4 }).map((p) => p.join(""));
const name = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([segments, directory]) => segments.join("/") + (directory ? "/" : ""));
const limits = fc.record({
  maxNameBytes: fc.integer({ min: 1, max: 40 }),
  maxDepth: fc.integer({ min: 1, max: 7 }),
});

Deno.test("a ZIP entry name is safe exactly when every rule says so, at any limits", () => {
  fc.assert(
    fc.property(name, fc.oneof(fc.constant(DEFAULT_ZIP_LIMITS), limits), (n, l) => {
      assert.equal(zipNameProblem(n, l) === null, safeByTheRules(n, l), JSON.stringify([n, l]));
    }),
    { numRuns: 20_000 },
  );
});

/**
 * Whether two names land on the same path everywhere, or one inside the other, a file. Names
 * equal only under case folding or normalisation are two entries (the host decides).
 */
function clash(a: string, b: string): boolean {
  const key = (n: string) => n.endsWith("/") ? n.slice(0, -1) : n;
  const [ka, kb] = [key(a), key(b)];
  return ka === kb || (!a.endsWith("/") && kb.startsWith(ka + "/")) ||
    (!b.endsWith("/") && ka.startsWith(kb + "/"));
}

// Few pieces, so that names meet: case, NFC and NFD forms, folders and files of one name.
const near = fc.tuple(
  fc.array(fc.constantFrom("a", "A", "b", "é", "e\u0301"), { minLength: 1, maxLength: 3 }),
  fc.boolean(),
).map(([segments, directory]) => segments.join("/") + (directory ? "/" : ""));

Deno.test("the clash check finds the first name that clashes with an earlier one, and names it", () => {
  fc.assert(
    fc.property(fc.array(near, { maxLength: 12 }), (names) => {
      let expected: number | null = null;
      for (let i = 0; i < names.length && expected === null; i++) {
        if (names.slice(0, i).some((earlier) => clash(earlier, names[i]!))) expected = i;
      }
      const found = zipNameClash(names);
      assert.equal(found?.index ?? null, expected, JSON.stringify(names));
      if (found === null) return;
      // The reason quotes an earlier name it clashes with, or says it is the same name.
      const earlier = names.slice(0, found.index).filter((e) => clash(e, names[found.index]!));
      assert.ok(
        found.problem === "the name appears twice" ||
          earlier.some((e) => found.problem.includes(`"${e}"`)),
        `${JSON.stringify(names)}: ${found.problem}`,
      );
    }),
    { numRuns: 20_000 },
  );
});
