// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Luggage names: the path of a file under `data/files/`. The same rules hold when packing
 * (a bad name is refused) and when reading (a bad name means a hostile pack), so a name that
 * one side accepts can always be written to disk safely on every operating system.
 *
 * @module
 */

const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
// Control characters, the characters Windows forbids, and `%` (BagIt escapes it in
// manifests, so a name holding one cannot be written the same way by every writer).
// deno-lint-ignore no-control-regex
const FORBIDDEN_CHAR = /[\u0000-\u001f\u007f-\u009f\\:*?"<>|%]/;
const MAX_NAME_LENGTH = 1024;
const MAX_DEPTH = 64;

/**
 * Says what is wrong with a luggage name, or returns null when it is safe.
 *
 * A safe name is relative, `/`-separated, with no empty, `.` or `..` segment, no control
 * character, none of `\ : * ? " < > | %`, no segment ending in a dot or a space, no Windows
 * device name (`CON`, `aux.txt`), at most 1024 characters and 64 segments, and valid Unicode.
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
 * assertMatch(luggageNameProblem("../x")!, /\.\./);
 * assertMatch(luggageNameProblem("aux.txt")!, /device/);
 * ```
 */
export function luggageNameProblem(name: string): string | null {
  if (isPlainName(name)) return null;
  if (typeof name !== "string" || name.length === 0) return "the name is empty";
  if (name.length > MAX_NAME_LENGTH) return `the name is longer than ${MAX_NAME_LENGTH} characters`;
  if (!isWellFormed(name)) return "the name is not valid Unicode";
  if (name.startsWith("/")) return "the name is absolute";
  if (/^[A-Za-z]:/.test(name)) return "the name starts with a drive letter";
  const forbidden = FORBIDDEN_CHAR.exec(name);
  if (forbidden) {
    const code = forbidden[0].codePointAt(0)!;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f)
      ? "the name holds a control character"
      : `the name holds the character ${JSON.stringify(forbidden[0])}`;
  }
  const segments = name.split("/");
  if (segments.length > MAX_DEPTH) return `the name is deeper than ${MAX_DEPTH} folders`;
  for (const segment of segments) {
    if (segment === "") return "the name has an empty segment";
    if (segment === "." || segment === "..") return `the name has a "${segment}" segment`;
    if (/[. ]$/.test(segment)) return "a segment ends in a dot or a space";
    if (WINDOWS_DEVICE.test(segment)) return "a segment is a Windows device name";
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
 * Finds the first problem in a list of luggage names: a bad name, two names that clash, or a
 * name that is also a folder of another (`a` and `a/b`).
 *
 * @param names The names, in pack order.
 * @returns The offending name and the reason, or null when all are safe together.
 *
 * @example Usage
 * ```ts
 * import { luggageSetProblem } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(luggageSetProblem(["a.txt", "b/c.txt"]), null);
 * assertEquals(luggageSetProblem(["a", "a/b"])?.name, "a/b");
 * assertEquals(luggageSetProblem(["Read.me", "read.ME"])?.name, "read.ME");
 * ```
 */
export function luggageSetProblem(
  names: readonly string[],
): { name: string; problem: string } | null {
  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  for (const name of names) {
    const problem = luggageNameProblem(name);
    if (problem) return { name, problem };
    const key = nameClashKey(name);
    const twin = files.get(key);
    if (twin !== undefined) {
      return {
        name,
        problem: twin === name ? "the name appears twice" : `the name clashes with "${twin}"`,
      };
    }
    if (folders.has(key)) {
      return { name, problem: `the name is also a folder of "${folders.get(key)}"` };
    }
    for (let at = key.indexOf("/"); at !== -1; at = key.indexOf("/", at + 1)) {
      const folder = key.slice(0, at);
      const file = files.get(folder);
      if (file !== undefined) return { name, problem: `"${file}" is a file, not a folder` };
      if (!folders.has(folder)) folders.set(folder, name);
    }
    files.set(key, name);
  }
  return null;
}

// The common case, decided by two regular expressions rather than the rules one by one: ASCII
// letters, digits, `_`, `-` and inner dots, no segment starting or ending in a dot, no device
// name. What this passes, every rule above passes; anything else takes the full check.
const PLAIN_NAME =
  /^[A-Za-z0-9_-](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?(?:\/[A-Za-z0-9_-](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?)*$/;
const PLAIN_DEVICE = /(?:^|\/)(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\.[^/]*)?(?:\/|$)/i;

function isPlainName(name: string): boolean {
  if (typeof name !== "string" || name.length > MAX_NAME_LENGTH || !PLAIN_NAME.test(name)) {
    return false;
  }
  let depth = 1;
  for (let at = name.indexOf("/"); at !== -1; at = name.indexOf("/", at + 1)) depth++;
  return depth <= MAX_DEPTH && !PLAIN_DEVICE.test(name);
}

function isWellFormed(text: string): boolean {
  // Lone surrogates cannot be written as UTF-8.
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}
