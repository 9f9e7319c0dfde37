// Copyright 2026 the taskpack authors. MIT license.
/**
 * The path functions the shells use: `node:path`'s, except on Deno on a POSIX system, where
 * these give the same results (a property test holds them to `node:path/posix` on generated
 * paths) without loading `node:path`, which sets up part of Deno's Node layer: about 0.015 s of
 * every command. On Windows, and on Node and Bun, `node:path` itself is used.
 *
 * @module
 */

const deno = (globalThis as { Deno?: typeof Deno }).Deno;
const nodePath = deno && deno.build.os !== "windows" ? undefined : await import("node:path");

/** Resolves `.` and `..` segments and empty ones; `..` above a relative start is kept. */
function segments(path: string, relative: boolean): string[] {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (relative) out.push("..");
      continue;
    }
    out.push(part);
  }
  return out;
}

/**
 * `path.posix.normalize`.
 *
 * @param path A path.
 * @returns The path without `.`, `..` (where they can go) and repeated slashes.
 * @example Usage
 * ```ts
 * import { posixNormalize } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(posixNormalize("/a//b/../c/"), "/a/c/");
 * ```
 */
export function posixNormalize(path: string): string {
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  const body = segments(path, !absolute).join("/");
  if (body === "") return absolute ? "/" : trailing ? "./" : ".";
  return (absolute ? "/" : "") + body + (trailing ? "/" : "");
}

/**
 * `path.posix.join`.
 *
 * @param parts Path pieces.
 * @returns The pieces joined with `/` and normalised.
 * @example Usage
 * ```ts
 * import { posixJoin } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(posixJoin("/a", "b/", "../c"), "/a/c");
 * ```
 */
export function posixJoin(...parts: string[]): string {
  const joined = parts.filter((part) => part !== "").join("/");
  return joined === "" ? "." : posixNormalize(joined);
}

/**
 * `path.posix.resolve` of `path` against an absolute `base`.
 *
 * @param base An absolute folder (the current one).
 * @param path A path.
 * @returns The absolute, normalised path, without a trailing slash.
 * @example Usage
 * ```ts
 * import { posixResolve } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(posixResolve("/home/ann", "../bob/x/"), "/home/bob/x");
 * ```
 */
export function posixResolve(base: string, path: string): string {
  const full = path.startsWith("/") ? path : `${base}/${path}`;
  return "/" + segments(full, false).join("/");
}

/**
 * `path.posix.dirname`.
 *
 * @param path A path.
 * @returns Its folder.
 * @example Usage
 * ```ts
 * import { posixDirname } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(posixDirname("/a/b/"), "/a");
 * assert.equal(posixDirname("a"), ".");
 * ```
 */
export function posixDirname(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  // The separator before the last name: trailing slashes are skipped, the root is not one.
  let seenName = false;
  let end = -1;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path[i] !== "/") seenName = true;
    else if (seenName) {
      end = i;
      break;
    }
  }
  if (end < 0) return rooted ? "/" : ".";
  if (rooted && end === 1) return "//";
  return path.slice(0, end);
}

/**
 * `path.posix.basename`.
 *
 * @param path A path.
 * @returns Its last segment.
 * @example Usage
 * ```ts
 * import { posixBasename } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(posixBasename("/a/b.txt/"), "b.txt");
 * ```
 */
export function posixBasename(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
}

/**
 * `path.win32.join` for pieces without `.` or `..` segments (the per-user folders on Windows,
 * which are worked out on any system): joined with `\`, separators of either kind collapsed, a
 * leading `\\` (a network share) kept.
 *
 * @param parts Path pieces.
 * @returns The joined path.
 * @example Usage
 * ```ts
 * import { windowsJoin } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(windowsJoin("C:\\Users\\ann\\", "AppData/Roaming"), "C:\\Users\\ann\\AppData\\Roaming");
 * ```
 */
export function windowsJoin(...parts: string[]): string {
  const joined = parts.filter((part) => part !== "").join("\\");
  if (joined === "") return ".";
  const share = /^[\\/]{2}[^\\/]/.test(joined);
  const collapsed = joined.replace(/[\\/]+/g, "\\");
  return share ? "\\" + collapsed : collapsed;
}

/**
 * Joins path pieces (`node:path`'s `join`).
 *
 * @param parts Path pieces.
 * @returns The joined, normalised path.
 * @example Usage
 * ```ts
 * import { join } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(join("a", "b"), Deno.build.os === "windows" ? "a\\b" : "a/b");
 * ```
 */
export const join: (...parts: string[]) => string = nodePath?.join ?? posixJoin;

/**
 * A path's folder (`node:path`'s `dirname`).
 *
 * @example Usage
 * ```ts
 * import { dirname } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(dirname("/a/b"), "/a");
 * ```
 */
export const dirname: (path: string) => string = nodePath?.dirname ?? posixDirname;

/**
 * A path's last segment (`node:path`'s `basename`, without the suffix argument).
 *
 * @example Usage
 * ```ts
 * import { basename } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(basename("/a/b.txt"), "b.txt");
 * ```
 */
export const basename: (path: string) => string = nodePath
  ? (path) => nodePath.basename(path)
  : posixBasename;

/**
 * `path` made absolute against `base` (`node:path`'s `resolve(base, path)`).
 *
 * @example Usage
 * ```ts
 * import { resolveFrom } from "./host_path.ts";
 * import assert from "node:assert/strict";
 * assert.equal(resolveFrom("/a", "b/../c"), Deno.build.os === "windows" ? "\\a\\c" : "/a/c");
 * ```
 */
export const resolveFrom: (base: string, path: string) => string = nodePath?.resolve ??
  posixResolve;
