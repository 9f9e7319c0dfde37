// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The trust list, in git's and OpenSSH's `allowed_signers` format (ssh-keygen(1), ALLOWED
 * SIGNERS): one key a line, with the principals it speaks for and options
 * (`namespaces="..."`, `valid-after="..."`, `valid-before="..."`, `cert-authority`).
 *
 * @module
 */
import { bytesEqual } from "../bytes/mod.ts";
import { SignatureError } from "./errors.ts";
import { KNOWN_KEY_TYPES, parsePublicKey, type SshPublicKey } from "./keys.ts";

/** One usable line of an `allowed_signers` file. */
export interface AllowedSigner {
  /** Its line number, from 1. */
  readonly line: number;
  /** The principals, as written (a comma-separated pattern list, such as `alice@example.com`). */
  readonly principals: string;
  /** The key. */
  readonly key: SshPublicKey;
  /** `namespaces="..."`: the namespaces the key may sign for (a pattern list), when limited. */
  readonly namespaces?: string;
  /** `valid-after`, in milliseconds since 1970 (UTC), when given. */
  readonly validAfter?: number;
  /** `valid-before`, in milliseconds since 1970 (UTC), when given. */
  readonly validBefore?: number;
  /** `cert-authority`: the key signs certificates, which this library does not verify. */
  readonly certAuthority: boolean;
  /** Why the line cannot vouch for its key (a time this library cannot read), when it cannot. */
  readonly unusable?: string;
}

/** An `allowed_signers` file, read. */
export interface AllowedSigners {
  /** The name it was read from, for notes. */
  readonly where: string;
  /** Its lines with a key of a type this library verifies (others are left out). */
  readonly signers: readonly AllowedSigner[];
}

const OPTION_NAMES = ["cert-authority", "namespaces", "valid-after", "valid-before"];

/**
 * Reads an `allowed_signers` file, as git and `ssh-keygen -Y verify` read it. Lines with a key
 * of another type (`ssh-dss`, `ecdsa-sha2-nistp384`, ...) are left out: no signature this library
 * accepts can match them.
 *
 * @param text The file's text.
 * @param where Its name, for error messages and notes.
 * @returns The lines that hold a key this library verifies.
 * @throws {SignatureError} `allowed-signers` for a line that cannot be read, naming the line.
 *
 * @example Usage
 * ```ts
 * import { parseAllowedSigners } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const list = parseAllowedSigners(
 *   '# the team\nalice@example.com namespaces="git,taskpack" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea\n',
 * );
 * assertEquals(list.signers[0]!.principals, "alice@example.com");
 * assertEquals(list.signers[0]!.namespaces, "git,taskpack");
 * ```
 */
export function parseAllowedSigners(text: string, where = "allowed_signers"): AllowedSigners {
  const signers: AllowedSigner[] = [];
  text.replace(/^\ufeff/, "").split("\n").forEach((raw, index) => {
    const line = raw.replace(/\r$/, "").trim();
    if (line === "" || line.startsWith("#")) return;
    const signer = parseLine(line, index + 1, `${where}:${index + 1}`);
    if (signer) signers.push(signer);
  });
  return { where, signers };
}

function parseLine(line: string, number: number, where: string): AllowedSigner | null {
  const fail = (detail: string): never => {
    throw new SignatureError("allowed-signers", where, detail);
  };
  let rest = line;
  const take = (quoted: boolean): string => {
    rest = rest.trimStart();
    let end = 0;
    let inQuotes = false;
    while (end < rest.length && (inQuotes || !/\s/.test(rest[end]!))) {
      if (quoted && rest[end] === '"') inQuotes = !inQuotes;
      end++;
    }
    if (inQuotes) fail("a quote is not closed");
    const token = rest.slice(0, end);
    rest = rest.slice(end);
    return token;
  };
  let principals = take(true);
  if (principals.startsWith('"')) {
    if (!principals.endsWith('"') || principals.length < 2) {
      fail("the principals' quotes do not match");
    }
    principals = principals.slice(1, -1);
  }
  if (principals === "") fail("the line has no principals");
  let type = take(false);
  let options = "";
  if (!KNOWN_KEY_TYPES.has(type)) {
    rest = type + rest;
    options = take(true);
    type = take(false);
  }
  if (type === "") fail("the line has no key");
  if (!KNOWN_KEY_TYPES.has(type)) fail(`"${type.slice(0, 40)}" is not a key type`);
  const base64 = take(false);
  if (base64 === "") fail("the key's base64 is missing");
  const parsed: {
    namespaces?: string;
    validAfter?: number;
    validBefore?: number;
    certAuthority: boolean;
    unusable?: string;
  } = { certAuthority: false };
  for (const option of splitOptions(options, fail)) {
    const eq = option.indexOf("=");
    const name = (eq < 0 ? option : option.slice(0, eq)).toLowerCase();
    if (!OPTION_NAMES.includes(name)) {
      fail(`"${name.slice(0, 40)}" is not an allowed_signers option`);
    }
    if (name === "cert-authority") {
      if (eq >= 0) fail("cert-authority takes no value");
      parsed.certAuthority = true;
      continue;
    }
    if (eq < 0) fail(`${name} needs a value`);
    let value = option.slice(eq + 1);
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      value = value.slice(1, -1);
    }
    if (value.includes('"')) fail(`the value of ${name} is badly quoted`);
    if (name === "namespaces") {
      parsed.namespaces = value;
      continue;
    }
    const time = parseTime(value);
    if (time === null) {
      return fail(`${name}="${value.slice(0, 20)}" is not a YYYYMMDD[HHMM[SS]][Z] time`);
    }
    if (time === "local") {
      parsed.unusable =
        `${name}="${value}" is a local time, which taskpack does not read (end it with Z for UTC)`;
    } else if (name === "valid-after") parsed.validAfter = time;
    else parsed.validBefore = time;
  }
  let key: SshPublicKey;
  try {
    key = parsePublicKey(`${type} ${base64}`, where);
  } catch (error) {
    if (error instanceof SignatureError && error.code === "sig-unsupported") return null;
    throw new SignatureError(
      "allowed-signers",
      where,
      error instanceof SignatureError ? error.message.replace(/ \([^)]*\)$/, "") : String(error),
    );
  }
  return { line: number, principals, key, ...parsed };
}

/** The options, split at the commas outside quotes. */
function splitOptions(options: string, fail: (detail: string) => never): string[] {
  if (options === "") return [];
  const out: string[] = [];
  let current = "";
  let inQuotes = false;
  for (const char of options) {
    if (char === '"') inQuotes = !inQuotes;
    if (char === "," && !inQuotes) {
      out.push(current);
      current = "";
    } else current += char;
  }
  out.push(current);
  if (out.some((option) => option === "")) fail("an option is empty");
  return out;
}

/** `YYYYMMDD[HHMM[SS]][Z]` as milliseconds (UTC), "local" without the Z, null when malformed. */
function parseTime(value: string): number | "local" | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2})?)?(Z?)$/.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const ms = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!);
  const back = new Date(ms);
  if (
    back.getUTCMonth() !== month! - 1 || back.getUTCDate() !== day! || hour! > 23 ||
    minute! > 59 || second! > 59
  ) return null;
  return m[7] === "Z" ? ms : "local";
}

/** Whether `text` matches an OpenSSH pattern (`*` any run, `?` any one character). */
export function matchPattern(text: string, pattern: string): boolean {
  const regex = new RegExp(
    "^" +
      [...pattern].map((c) =>
        c === "*" ? "[\\s\\S]*" : c === "?" ? "[\\s\\S]" : c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
      ).join("") + "$",
  );
  return regex.test(text);
}

/**
 * Whether `text` matches an OpenSSH pattern list: comma-separated patterns, any of which may be
 * negated with `!`. A negated match wins; otherwise any positive match.
 *
 * @param text The text (a namespace).
 * @param list The pattern list.
 * @returns Whether it matches.
 *
 * @example Usage
 * ```ts
 * import { matchPatternList } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(matchPatternList("taskpack", "git,task*"), true);
 * assertEquals(matchPatternList("git", "*,!git"), false);
 * ```
 */
export function matchPatternList(text: string, list: string): boolean {
  let matched = false;
  for (const raw of list.split(",")) {
    const negated = raw.startsWith("!");
    const pattern = negated ? raw.slice(1) : raw;
    if (!matchPattern(text, pattern)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

/** Who a key speaks for, by a trust list. */
export interface SignerMatch {
  /** The principals of each line that vouches for the key, as written, in file order. */
  readonly principals: readonly string[];
  /** Lines that hold the key but do not vouch for it here, and why, one sentence each. */
  readonly notes: readonly string[];
}

/**
 * The principals a trust list gives a key, for signatures in `namespace` checked at `at`.
 * A line holding the key vouches for it unless it limits the namespaces to others, its time
 * window does not hold `at` (or no time is given), or it is a `cert-authority` line; each such
 * line is noted instead.
 *
 * @param list The trust list.
 * @param key The key that signed.
 * @param namespace The namespace of the signature.
 * @param at When the signature is checked (milliseconds since 1970); needed by lines with a
 *   time window.
 * @returns The principals and the notes.
 *
 * @example Usage
 * ```ts
 * import { findPrincipals, parseAllowedSigners, parsePublicKey } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const list = parseAllowedSigners(
 *   'alice@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea\nbob@example.com namespaces="git" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea\n',
 *   "team",
 * );
 * const found = findPrincipals(list, parsePublicKey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea"), "taskpack");
 * assertEquals(found.principals, ["alice@example.com"]);
 * assertEquals(found.notes, ['team:2 lists the key for the namespaces "git" only']);
 * ```
 */
export function findPrincipals(
  list: AllowedSigners,
  key: SshPublicKey,
  namespace: string,
  at?: number,
): SignerMatch {
  const principals: string[] = [];
  const notes: string[] = [];
  for (const signer of list.signers) {
    if (!bytesEqual(signer.key.blob, key.blob)) continue;
    const where = `${list.where}:${signer.line}`;
    if (signer.certAuthority) {
      notes.push(`${where} lists the key as a certificate authority, which taskpack does not use`);
    } else if (signer.unusable) notes.push(`${where}: ${signer.unusable}`);
    else if (signer.namespaces !== undefined && !matchPatternList(namespace, signer.namespaces)) {
      notes.push(`${where} lists the key for the namespaces "${signer.namespaces}" only`);
    } else if (
      (signer.validAfter !== undefined || signer.validBefore !== undefined) && at === undefined
    ) {
      notes.push(`${where} lists the key for a time window, and no time was given`);
    } else if (signer.validAfter !== undefined && at! < signer.validAfter) {
      notes.push(`${where} lists the key from ${iso(signer.validAfter)} only`);
    } else if (signer.validBefore !== undefined && at! > signer.validBefore) {
      notes.push(`${where} lists the key until ${iso(signer.validBefore)} only`);
    } else principals.push(signer.principals);
  }
  return { principals, notes };
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}
