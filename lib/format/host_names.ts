// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Names some systems cannot hold. A luggage name the spec allows (see `names.ts`) is conformant
 * everywhere; whether a given machine can write it is that machine's question, asked when it
 * lands the pack. {@linkcode portabilityWarnings} tells a sender and a judge which names will
 * trouble which receivers; {@linkcode planHostNames} is the landing's decision for one host,
 * whose rules the shell passes in (the core never asks which system it runs on).
 *
 * @module
 */
import { HashSlots, hashText, startsAlike } from "../bytes/mod.ts";

const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
const WINDOWS_FORBIDDEN = /[:*?"<>|]/;
const WINDOWS_FORBIDDEN_ALL = /[:*?"<>|]/g;
/**
 * Every name Windows cannot hold matches this (and a few it can: any segment that begins as a
 * device name does), so a name that does not is passed by one test.
 */
const WINDOWS_MAYBE = /[:*?"<>|]|(?:^|\/)(?:con|prn|aux|nul|com|lpt)|[. ](?:\/|$)/i;

/**
 * A segment git reads as its own folder: `.git` in any letter case, with trailing dots or
 * spaces (Windows drops them), or `git~1` (its 8.3 short name on Windows), once the characters
 * macOS ignores in names are removed.
 */
const GIT_SEGMENT = /(?:^|\/)(?:\.git[. ]*|git~1)(?:\/|$)/i;
/** Characters HFS+ ignores in a name (zero-width and direction marks, joiners, the BOM). */
const IGNORED = /[\u200b-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
const HAS_IGNORED = /[\u200b-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/;
/** Readers that do not decode `%25` in a manifest (bagit-python#157, bagit-java#139). */
const PERCENT_READERS = "the incumbent task-passport, bagit-python, bagit-java";

/** Systems named in warnings. */
const WINDOWS = "Windows";
const GIT = "git, on the receiver's next git command";
const CASE_INSENSITIVE = "case-insensitive file systems: Windows, macOS";
const NORMALISING = "file systems that normalise Unicode: macOS";

/** A luggage name that some systems cannot hold as written. */
export interface PortabilityWarning {
  /** The luggage name (the path under `data/files/`). */
  name: string;
  /** The systems that cannot hold it, in words. */
  systems: string;
  /** Why, in one short sentence (no final period). */
  reason: string;
  /** For a clash: the earlier name it clashes with. */
  clashesWith?: string;
  /**
   * True when the warning is about a member name of the pack object, not a luggage name:
   * `name` is then the field's path, such as `passport.facts[0].constructor`.
   */
  field?: boolean;
}

/**
 * Lists the luggage names that some systems cannot hold: Windows device names (`con.txt`,
 * `COM1`), the characters Windows forbids (`: * ? " < > |`), a segment ending in a dot or a
 * space, and two names equal under case folding or Unicode normalisation. Warnings never make a
 * pack non-conformant; they tell the sender which receivers will have to rename.
 *
 * @param names Luggage names the spec allows, in pack order.
 * @returns One warning per name and reason, in pack order.
 *
 * @example Usage
 * ```ts
 * import { portabilityWarnings } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const warnings = portabilityWarnings(["con.txt", "Readme.txt", "README.txt", "ok.md"]);
 * assertEquals(warnings.map((w) => [w.name, w.systems]), [
 *   ["con.txt", "Windows"],
 *   ["README.txt", "case-insensitive file systems: Windows, macOS"],
 * ]);
 * ```
 */
export function portabilityWarnings(names: readonly string[]): PortabilityWarning[] {
  return portabilityWarningsOf(names.length, (index) => names[index]!);
}

/**
 * {@linkcode portabilityWarnings} of `count` names that `nameAt` makes when asked (again for an
 * earlier one, to confirm a clash): a caller need not hold a list of them.
 */
export function portabilityWarningsOf(
  count: number,
  nameAt: (index: number) => string,
): PortabilityWarning[] {
  const warnings: PortabilityWarning[] = [];
  // Clash keys (NFC, lower case) of files, and of the folders names lie in, each kept as the
  // first name that has it: hashed, and confirmed by making that name's key again (a map of
  // 70,000 keys would be megabytes of table and a string more per name).
  const files = new HashSlots();
  const folders = new HashSlots();
  /** For each folder: the index of the first name inside it, and where the folder ends. */
  const folderName: number[] = [];
  const folderEnd: number[] = [];
  const probe = new KeyProbe();
  const isFile = (i: number) => probe.matches(nfc(nameAt(i)), -1);
  const isFolder = (f: number) => probe.matches(nfc(nameAt(folderName[f]!)), folderEnd[f]!);
  // The folders of the name before: a name in the same folder (most of them, in a walk's
  // order) has the same folders to check, with the same outcome.
  let previous = "";
  let previousSlash = -1;
  /** The first file one of those folders is (an index, or -1), and where that folder ends. */
  let folderClash = -1;
  let folderClashEnd = -1;
  for (let index = 0; index < count; index++) {
    const name = nameAt(index);
    const git = gitProblem(name);
    if (git) warnings.push({ name, systems: GIT, reason: git });
    if (name.includes("%")) {
      warnings.push({
        name,
        systems: PERCENT_READERS,
        reason:
          'it holds "%", which the manifest rightly writes as %25 (RFC 8493 §2.1.3); these readers do not decode it and fail the pack',
      });
    }
    const windows = windowsProblem(name);
    if (windows) warnings.push({ name, systems: WINDOWS, reason: windows });
    const plain = PLAIN.test(name);
    const form = plain ? name : name.normalize("NFC");
    const hash = probe.set(form, -1, plain);
    const twin = files.find(hash, isFile);
    let clash = twin;
    if (clash === -1) {
      const folder = folders.find(hash, isFolder);
      if (folder !== -1) clash = folderName[folder]!;
    }
    const slash = form.lastIndexOf("/");
    if (slash !== previousSlash || !startsAlike(form, previous, slash + 1)) {
      folderClash = -1;
      for (let at = form.indexOf("/"); at !== -1; at = form.indexOf("/", at + 1)) {
        const folderHash = probe.set(form, at, plain);
        if (folderClash === -1) {
          folderClash = files.find(folderHash, isFile);
          folderClashEnd = at;
        }
        if (folders.find(folderHash, isFolder) === -1) {
          folders.add(folderHash, folderName.length);
          folderName.push(index);
          folderEnd.push(at);
        }
      }
      previous = form;
      previousSlash = slash;
    }
    let part = form;
    if (clash === -1 && folderClash !== -1) {
      clash = folderClash;
      part = form.slice(0, folderClashEnd);
    }
    if (clash !== -1) {
      const earlier = nameAt(clash);
      // Equal in NFC as written: only the normalisation form differs, not the letter case.
      const sameCase = nfc(earlier).startsWith(part);
      warnings.push({
        name,
        systems: sameCase ? NORMALISING : CASE_INSENSITIVE,
        reason: sameCase
          ? `it and "${earlier}" differ only in Unicode normalisation form`
          : `it and "${earlier}" differ only in letter case`,
        clashesWith: earlier,
      });
    }
    if (twin === -1) files.add(hash, index);
  }
  return warnings;
}

/** Printable ASCII without capital letters: a name (or folder) that is its own NFC form and key. */
const PLAIN = /^[\x20-\x40\x5b-\x7e]*$/;

/** A name's NFC form (itself when plain, without making a copy). */
function nfc(name: string): string {
  return PLAIN.test(name) ? name : name.normalize("NFC");
}

/**
 * The clash key looked up: the first `end` characters of `text`. A plain form is its own key
 * (no copy is made); any other part is folded to lower case.
 */
class KeyProbe {
  #text = "";
  #end = 0;

  /**
   * Looks up the key of the first `end` characters of an NFC form (all of it for -1); `plain`
   * says the form is known to be plain (then so is any part of it), and false only costs a copy.
   */
  set(form: string, end: number, plain: boolean): number {
    const length = end === -1 ? form.length : end;
    if (plain) {
      this.#text = form;
      this.#end = length;
    } else {
      this.#text = form.slice(0, length).toLowerCase();
      this.#end = this.#text.length;
    }
    return hashText(this.#text, 0, this.#end);
  }

  /** Whether the key of the first `end` characters of `form` (all for -1) is the one looked up. */
  matches(form: string, end: number): boolean {
    const length = end === -1 ? form.length : end;
    const plain = PLAIN.test(form);
    const text = plain ? form : form.slice(0, length).toLowerCase();
    const size = plain ? length : text.length;
    return size === this.#end && startsAlike(text, this.#text, size);
  }
}

/**
 * Why Windows cannot hold a name as written, or null.
 *
 * @param name A luggage name the spec allows.
 * @returns A short reason, or null.
 *
 * @example Usage
 * ```ts
 * import { windowsProblem } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * assertMatch(windowsProblem("sub/prn.md")!, /device name/);
 * assertMatch(windowsProblem("build 10:00.log")!, /":"/);
 * assertEquals(windowsProblem("notes/plan.md"), null);
 * ```
 */
export function windowsProblem(name: string): string | null {
  if (!WINDOWS_MAYBE.test(name)) return null;
  const forbidden = WINDOWS_FORBIDDEN.exec(name);
  if (forbidden) return `it holds the character "${forbidden[0]}", which Windows forbids`;
  for (const segment of name.split("/")) {
    if (WINDOWS_DEVICE.test(segment)) return `"${segment}" is a Windows device name`;
    if (/[. ]$/.test(segment)) return `"${segment}" ends in a dot or a space`;
  }
  return null;
}

/**
 * Why a luggage name would put a file inside a `.git` folder (or be a `.git` file) once landed,
 * or null. Git reads such a folder as a repository's own: a `config` there with
 * `core.fsmonitor`, or a hook, runs a command on the receiver's next `git status` — data
 * turned into instructions (§4.5). A `.git` file points git at another folder. The spec allows
 * the name, so the judge only warns; `land` refuses it unless told to rename it.
 *
 * @param name A luggage name the spec allows.
 * @returns A short reason, or null.
 *
 * @example Usage
 * ```ts
 * import { gitProblem } from "./host_names.ts";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * assertMatch(gitProblem("repo/.git/config")!, /runs commands/);
 * assertMatch(gitProblem("repo/.GIT./hooks/pre-commit")!, /runs commands/);
 * assertEquals(gitProblem("notes/.gitignore"), null);
 * ```
 */
export function gitProblem(name: string): string | null {
  const plain = PLAIN.test(name) || !HAS_IGNORED.test(name) ? name : name.replace(IGNORED, "");
  if (!GIT_SEGMENT.test(plain)) return null;
  return "it lands inside a .git folder, from which git runs commands (core.fsmonitor, hooks) on the receiver's next git status";
}

/** A `.git` segment made inert: it gains a `_` (`.git` → `.git_`). */
function gitSafe(segment: string): string {
  return GIT_SEGMENT.test(segment.replace(IGNORED, "")) ? `${segment}_` : segment;
}

/** What a landing host's file system can hold; the shell finds out and passes it in. */
export interface HostNameRules {
  /** Windows' rules on names apply (device names, `: * ? " < > |`, trailing dot or space). */
  windows: boolean;
  /** Two names that differ only in letter case are one file there. */
  foldsCase: boolean;
  /** Two names that differ only in Unicode normalisation are one file there. */
  normalises: boolean;
}

/** A case-sensitive POSIX file system (Linux, ext4): every name the spec allows lands as is. */
export const POSIX_HOST: Readonly<HostNameRules> = Object.freeze({
  windows: false,
  foldsCase: false,
  normalises: false,
});

/** One luggage file that lands under another name than it travelled under. */
export interface LandedName {
  /** The name in the pack. */
  original: string;
  /** The name it lands under. */
  landed: string;
  /** Why it was renamed. */
  reason: string;
}

/** A landing host's decision on a pack's luggage names. */
export interface HostNamePlan {
  /** The first name the host cannot hold as written, and why; null when all land as is. */
  problem: { name: string; reason: string } | null;
  /** Every renamed file (only with `rename`); empty when nothing is renamed. */
  renamed: LandedName[];
}

/**
 * Decides, for one landing host, which luggage names it can hold as written. Without `rename`,
 * the first name it cannot hold is the problem (the landing refuses before writing). With
 * `rename`, every such name gets a safe one instead: a character Windows forbids becomes `_`,
 * a device name or a segment ending in a dot or a space gains a `_` (`con.txt` → `con_.txt`,
 * `notes.` → `notes._`), a `.git` segment gains a `_` on every host (`.git` → `.git_`: git
 * would run commands from a `.git` folder, see {@linkcode gitProblem}), and a name that would be the same file as an earlier one gains `~2`
 * (then `~3`, …) before its extension (`README.txt` → `README~2.txt`). Earlier names keep
 * theirs; a new name never takes one a later file needs as written.
 *
 * @param names Luggage names the spec allows, in pack order.
 * @param host The host's rules (see {@linkcode HostNameRules}).
 * @param rename Whether to rename instead of refusing.
 * @returns The decision.
 *
 * @example Usage
 * ```ts
 * import { planHostNames } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const windows = { windows: true, foldsCase: true, normalises: false };
 * const names = ["con.txt", "Readme.txt", "README.txt"];
 * assertEquals(planHostNames(names, windows, false).problem?.name, "con.txt");
 * assertEquals(planHostNames(names, windows, true).renamed.map((r) => r.landed), [
 *   "con_.txt",
 *   "README~2.txt",
 * ]);
 * ```
 */
export function planHostNames(
  names: readonly string[],
  host: HostNameRules,
  rename: boolean,
): HostNamePlan {
  const key = (path: string): string => {
    let k = host.normalises ? path.normalize("NFC") : path;
    if (host.foldsCase) k = k.toLowerCase();
    return k;
  };
  const why = (name: string): string | null =>
    gitProblem(name) ?? (host.windows ? windowsProblem(name) : null);
  if (!host.windows && !host.foldsCase && !host.normalises && !names.some((n) => gitProblem(n))) {
    return { problem: null, renamed: [] };
  }

  // Names that land as they are written, and their folders, may not be taken by a renamed one.
  const asWritten = new Set<string>();
  for (const name of names) {
    if (why(name)) continue;
    asWritten.add(key(name));
    for (let at = name.indexOf("/"); at !== -1; at = name.indexOf("/", at + 1)) {
      asWritten.add(key(name.slice(0, at)));
    }
  }

  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  const folderLanded = new Map<string, string>();
  const renamed: LandedName[] = [];
  for (const name of names) {
    const problem = why(name);
    if (problem && !rename) return { problem: { name, reason: problem }, renamed: [] };
    const segments = name.split("/");
    let landed = "";
    let original = "";
    for (let i = 0; i < segments.length; i++) {
      const leaf = i === segments.length - 1;
      original = i === 0 ? segments[0]! : `${original}/${segments[i]}`;
      const known = leaf ? undefined : folderLanded.get(original);
      if (known !== undefined) {
        landed = known;
        continue;
      }
      const inert = gitSafe(segments[i]!);
      const safe = host.windows ? windowsSafe(inert) : inert;
      const taken = (candidate: string): string | undefined => {
        const k = key(candidate);
        const clash = files.get(k) ?? (leaf ? folders.get(k) : undefined);
        if (clash !== undefined) return clash;
        // A new name may not take one that a later file lands under as written.
        return candidate !== original && asWritten.has(k) ? candidate : undefined;
      };
      let candidate = landed ? `${landed}/${safe}` : safe;
      let clash = taken(candidate);
      if (clash !== undefined && !rename) {
        return {
          problem: {
            name,
            reason: `it would be the same file as "${clash}" on this file system`,
          },
          renamed: [],
        };
      }
      for (let n = 2; clash !== undefined; n++) {
        candidate = `${landed ? `${landed}/` : ""}${withSuffix(safe, n)}`;
        clash = taken(candidate);
      }
      landed = candidate;
      if (leaf) files.set(key(landed), name);
      else {
        folderLanded.set(original, landed);
        if (!folders.has(key(landed))) folders.set(key(landed), name);
      }
    }
    if (landed !== name) {
      renamed.push({
        original: name,
        landed,
        reason: problem ??
          "another file has the same name on this file system (letter case or Unicode form)",
      });
    }
  }
  return { problem: null, renamed };
}

/** One segment made safe for Windows. */
function windowsSafe(segment: string): string {
  let safe = segment.replace(WINDOWS_FORBIDDEN_ALL, "_");
  if (WINDOWS_DEVICE.test(safe)) {
    const dot = safe.indexOf(".");
    safe = dot === -1 ? `${safe}_` : `${safe.slice(0, dot)}_${safe.slice(dot)}`;
  }
  if (/[. ]$/.test(safe)) safe += "_";
  return safe;
}

/** `README.txt` → `README~2.txt`; `Makefile` → `Makefile~2`; `.env` → `.env~2`. */
function withSuffix(segment: string, n: number): string {
  const dot = segment.lastIndexOf(".");
  return dot > 0 ? `${segment.slice(0, dot)}~${n}${segment.slice(dot)}` : `${segment}~${n}`;
}
