// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Luggage names: the path of a file under `data/files/`. The spec (§2, §6) and BagIt (RFC 8493)
 * ask only for a relative path, so a name fails only when it is unsafe on every system: these
 * rules hold alike when packing (a bad name is refused), reading and judging (a bad name means a
 * hostile pack). What only some systems cannot hold — a Windows device name, a character
 * Windows forbids, two names equal under case folding — is a portability warning
 * (`host_names.ts`), and the landing host decides.
 *
 * @module
 */
import { utf8Length } from "../bytes/mod.ts";
import { NameIndex } from "../zip/mod.ts";

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_NAME_LENGTH = 1024;
const MAX_DEPTH = 64;
/** No mainstream file system holds a longer file or folder name (ext4, APFS, NTFS: 255). */
const MAX_SEGMENT_BYTES = 255;

/**
 * Says what is wrong with a luggage name, or returns null when it is safe.
 *
 * A safe name is relative (no leading `/`, no drive letter), `/`-separated with no backslash,
 * with no empty, `.` or `..` segment, no control character (C0, DEL, C1), valid Unicode, at
 * most 1024 characters, 64 segments, and 255 UTF-8 bytes per segment. Nothing else is refused:
 * `con.txt`, `a:b` and `Readme.txt` beside `README.txt` are safe names here, with a portability
 * warning (see {@linkcode portabilityWarnings}).
 *
 * @param name The path under `data/files/`.
 * @returns A short reason, or null.
 *
 * @example Usage
 * ```ts
 * import { luggageNameProblem } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * assertEquals(luggageNameProblem("notes/deep/n.md"), null);
 * assertEquals(luggageNameProblem("aux.txt"), null);
 * assertMatch(luggageNameProblem("../x")!, /\.\./);
 * assertMatch(luggageNameProblem("a\\b")!, /backslash/);
 * ```
 */
export function luggageNameProblem(name: string): string | null {
  if (isPlainName(name)) return null;
  if (typeof name !== "string" || name.length === 0) return "the name is empty";
  if (name.length > MAX_NAME_LENGTH) return `the name is longer than ${MAX_NAME_LENGTH} characters`;
  if (!isWellFormed(name)) return "the name is not valid Unicode";
  if (name.startsWith("/")) return "the name is absolute";
  if (/^[A-Za-z]:/.test(name)) return "the name starts with a drive letter";
  if (CONTROL.test(name)) return "the name holds a control character";
  if (name.includes("\\")) return "the name holds a backslash";
  const segments = name.split("/");
  if (segments.length > MAX_DEPTH) return `the name is deeper than ${MAX_DEPTH} folders`;
  for (const segment of segments) {
    if (segment === "") return "the name has an empty segment";
    if (segment === "." || segment === "..") return `the name has a "${segment}" segment`;
    if (segment.length * 3 > MAX_SEGMENT_BYTES && utf8Length(segment) > MAX_SEGMENT_BYTES) {
      return `a segment is longer than ${MAX_SEGMENT_BYTES} bytes, more than any common file system holds`;
    }
  }
  return null;
}

/**
 * The key under which two names clash on a case-insensitive or normalising file system
 * (NFC, then lower case).
 *
 * @param name A luggage name.
 * @returns The comparison key.
 *
 * @example Usage
 * ```ts
 * import { nameClashKey } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(nameClashKey("Caf\u00e9.TXT"), nameClashKey("cafe\u0301.txt"));
 * ```
 */
export function nameClashKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

/**
 * Finds the first problem in a list of luggage names: a bad name, a name that appears twice,
 * or a name that is also a folder of another (`a` and `a/b`). Names are compared as written:
 * `Readme.txt` and `README.txt` are two files (a portability warning, not a problem).
 *
 * @param names The names, in pack order.
 * @returns The offending name and the reason, or null when all are safe together.
 *
 * @example Usage
 * ```ts
 * import { luggageSetProblem } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(luggageSetProblem(["a.txt", "b/c.txt", "A.txt"]), null);
 * assertEquals(luggageSetProblem(["a", "a/b"])?.name, "a/b");
 * assertEquals(luggageSetProblem(["x.md", "x.md"])?.problem, "the name appears twice");
 * ```
 */
export function luggageSetProblem(
  names: readonly string[],
): { name: string; problem: string } | null {
  // The archive's own index of names: by hash, no set of 70,000 names (megabytes of table).
  const index = new NameIndex((at) => names[at]!);
  for (const name of names) {
    const problem = luggageNameProblem(name);
    if (problem) return { name, problem };
    const clash = index.add(name);
    if (clash?.kind === "same") return { name, problem: "the name appears twice" };
    if (clash?.kind === "holds") {
      return { name, problem: `the name is also a folder of "${clash.other}"` };
    }
    if (clash?.kind === "inside") {
      return { name, problem: `"${clash.other}" is a file, not a folder` };
    }
  }
  return null;
}

/**
 * The names of luggage files, in order, each read as it is gone through (every time anew): a
 * check over all of them then holds no list of tens of thousands.
 *
 * @param luggage The luggage.
 * @returns Its names, to go through as often as needed.
 */
export function namesOf(luggage: readonly { name: string }[]): Iterable<string> {
  return {
    *[Symbol.iterator]() {
      for (const file of luggage) yield file.name;
    },
  };
}

// The common case, decided by one regular expression rather than the rules one by one: ASCII
// letters, digits, `_`, `-` and `.`, no segment of only dots. What this passes, every rule
// above passes; anything else takes the full check.
const PLAIN_NAME = /^(?!\.\.?(?:\/|$))[\w.-]{1,255}(?:\/(?!\.\.?(?:\/|$))[\w.-]{1,255})*$/;

function isPlainName(name: string): boolean {
  if (typeof name !== "string" || name.length > MAX_NAME_LENGTH || !PLAIN_NAME.test(name)) {
    return false;
  }
  let depth = 1;
  for (let at = name.indexOf("/"); at !== -1; at = name.indexOf("/", at + 1)) depth++;
  return depth <= MAX_DEPTH;
}

function isWellFormed(text: string): boolean {
  // Lone surrogates cannot be written as UTF-8.
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}
