// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The BagIt 1.0 side of a `.taskpack` (RFC 8493; TaskPack 0.1 §2.1): the tag files, derived
 * as a pure function of the pack object and the payload digests, exactly as the reference
 * implementation derives them, and strict parsing of the manifests a received bag carries.
 *
 * Because every tag file is derived, the flat form (which carries none) converts back into the
 * same bag byte for byte (check C9).
 *
 * @module
 */
import {
  decodeUtf8Strict,
  type Digests,
  isLowerHexAscii,
  isUtf8Of,
  sha256Hex,
  utf8,
  utf8Length,
} from "../bytes/mod.ts";

/** Path of the pack object inside a bag. */
export const PASSPORT_PATH = "data/passport.json";
/** Folder of the luggage inside a bag. */
export const LUGGAGE_PREFIX = "data/files/";
/** The tag files, in the order they are written and listed. */
export const TAG_FILES: readonly string[] = [
  "bagit.txt",
  "bag-info.txt",
  "manifest-sha256.txt",
  "tagmanifest-sha256.txt",
];

/** The exact `bagit.txt` every TaskPack bag carries. */
export const BAGIT_TXT = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n";

/** One payload file as the manifest lists it. */
export interface PayloadDigest {
  /** Bag-relative path (`data/passport.json` or `data/files/...`). */
  path: string;
  /** Lower-case hex SHA-256. */
  sha256: string;
  /** Size in bytes. */
  size: number;
  /**
   * Writes {@linkcode PayloadDigest.sha256} into `out` at `at` as its 64 ASCII bytes, where the
   * digest is kept as bytes: the manifest is then written without a string per line.
   */
  hexInto?(out: Uint8Array, at: number): void;
}

/**
 * A bag's payload as {@linkcode deriveTagFiles} and {@linkcode manifestMatches} read it: the
 * pack object's file, then each luggage file in pack order, each made as it is gone through
 * (every time anew): a list of 70,000 would outlive the manifest it makes.
 *
 * @param passport The digest and size of `data/passport.json`.
 * @param luggage The luggage, in pack order.
 * @param sha256At The digest of the luggage file at an index.
 * @returns The payload, to go through as often as needed.
 *
 * @example Usage
 * ```ts
 * import { payloadOf } from "./bag.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const payload = payloadOf({ sha256: "a".repeat(64), size: 2 }, [{ name: "n.md", size: 5 }], () =>
 *   "b".repeat(64));
 * assertEquals([...payload].map((f) => f.path), ["data/passport.json", "data/files/n.md"]);
 * ```
 */
export function payloadOf(
  passport: { sha256: string; size: number },
  luggage: readonly { name: string; size: number }[],
  sha256At: (index: number) => string,
  hexInto?: (index: number, out: Uint8Array, at: number) => void,
): Iterable<PayloadDigest> {
  return {
    *[Symbol.iterator]() {
      yield { path: PASSPORT_PATH, sha256: passport.sha256, size: passport.size };
      for (let i = 0; i < luggage.length; i++) {
        const file = luggage[i]!;
        yield new LuggageDigest(LUGGAGE_PREFIX + file.name, file.size, i, sha256At, hexInto);
      }
    },
  };
}

/** A luggage file of a payload: its digest made only when it is asked for. */
class LuggageDigest implements PayloadDigest {
  readonly hexInto?: (out: Uint8Array, at: number) => void;
  readonly #index: number;
  readonly #sha256At: (index: number) => string;

  constructor(
    readonly path: string,
    readonly size: number,
    index: number,
    sha256At: (index: number) => string,
    hexInto?: (index: number, out: Uint8Array, at: number) => void,
  ) {
    this.#index = index;
    this.#sha256At = sha256At;
    if (hexInto) this.hexInto = (out, at) => hexInto(index, out, at);
  }

  get sha256(): string {
    return this.#sha256At(this.#index);
  }
}

/** The four tag files of a bag and the pack digest they give. */
export interface TagFiles {
  /** `bagit.txt` */
  bagit: Uint8Array;
  /** `bag-info.txt` */
  bagInfo: Uint8Array;
  /** `manifest-sha256.txt` */
  manifest: Uint8Array;
  /** `tagmanifest-sha256.txt` */
  tagManifest: Uint8Array;
  /** SHA-256 of `tagmanifest-sha256.txt`: the pack's identity, equal for both encodings. */
  digest: string;
}

/**
 * Derives the tag files of a bag from its pack object and payload (the pack object's file
 * first, then luggage in pack order).
 *
 * @param pack The pack object as it will be written (already sealed).
 * @param payload Every payload file with its digest and size, `data/passport.json` first (a list,
 * or anything that can be gone through twice, each time from the start).
 * @param digests Hash implementation.
 * @param manifest The manifest's bytes, when the caller has them already and knows them to be
 * what would be derived ({@linkcode manifestMatches}): then the manifest is not made again.
 * @returns The tag files and the pack digest.
 *
 * @example Usage
 * ```ts
 * import { deriveTagFiles, portableDigests } from "@taskpack/cli";
 * import { assertMatch } from "@std/assert";
 *
 * const pack = {
 *   spec: "task-passport-bag/0.1",
 *   packed_at: "2026-12-02T16:46:10Z",
 *   origin: { actor: "alice", machine: "vm" },
 *   passport: { id: "TP-9CB7-J5MK", title: "release plugin" },
 * };
 * const payload = [{ path: "data/passport.json", sha256: "0".repeat(64), size: 10 }];
 * const tags = deriveTagFiles(pack, payload, portableDigests);
 * const info = new TextDecoder().decode(tags.bagInfo);
 * assertMatch(info, /^Payload-Oxum: 10\.1$/m);
 * assertMatch(info, /^External-Description: release plugin$/m);
 * ```
 */
export function deriveTagFiles(
  pack: unknown,
  payload: Iterable<PayloadDigest>,
  digests: Digests,
  manifest?: Uint8Array,
): TagFiles {
  const object = asRecord(pack);
  const state = asRecord(object.passport);
  const origin = asRecord(object.origin);
  let octets = 0;
  let count = 0;
  let manifestLength = 0;
  for (const file of payload) {
    octets += file.size;
    count++;
    if (!manifest) {
      const digest = file.hexInto ? 64 : utf8Length(file.sha256);
      manifestLength += digest + 3 + utf8Length(encodeManifestPath(file.path));
    }
  }
  // Field by field as the reference implementation writes them (JavaScript truthiness and
  // String() conversions included), so both implementations derive the same bytes.
  const bagInfo = [
    "Bag-Software-Agent: task-passport",
    `Bagging-Date: ${String(object.packed_at ?? "").slice(0, 10)}`,
    `External-Identifier: ${String(state.id)}`,
    `External-Description: ${oneLine(state.title || state.id, 200)}`,
    `Source-Organization: ${oneLine(origin.actor || "unknown", 120)}`,
    `Internal-Sender-Identifier: ${oneLine(origin.machine || "unknown", 120)}`,
    `Payload-Oxum: ${octets}.${count}`,
    `Bag-Spec: ${String(object.spec || "task-passport-bag/0.1")}`,
  ].join("\n") + "\n";
  const bagit = utf8(BAGIT_TXT);
  const info = utf8(bagInfo);
  const made = manifest ?? manifestBytes(payload, manifestLength);
  const tagManifest = utf8(manifestText([
    [sha256Hex(digests, bagit), "bagit.txt"],
    [sha256Hex(digests, info), "bag-info.txt"],
    [sha256Hex(digests, made), "manifest-sha256.txt"],
  ]));
  return {
    bagit,
    bagInfo: info,
    manifest: made,
    tagManifest,
    digest: sha256Hex(digests, tagManifest),
  };
}

/**
 * Whether `written` is, byte for byte, the manifest {@linkcode deriveTagFiles} makes of
 * `payload`: compared line by line as each is made, so that the derived text is never held
 * whole (70,000 files make 7 MiB of it, beside the 7 MiB written).
 *
 * @param written A manifest's bytes.
 * @param payload Every payload file with its digest, `data/passport.json` first.
 * @returns True when they are the same bytes.
 *
 * @example Usage
 * ```ts
 * import { manifestMatches } from "./bag.ts";
 * import { assert } from "@std/assert";
 *
 * const payload = [{ path: "data/passport.json", sha256: "0".repeat(64), size: 10 }];
 * const written = new TextEncoder().encode(`${"0".repeat(64)}  data/passport.json\n`);
 * assert(manifestMatches(written, payload));
 * assert(!manifestMatches(written.subarray(1), payload));
 * ```
 */
export function manifestMatches(written: Uint8Array, payload: Iterable<PayloadDigest>): boolean {
  let at = 0;
  for (const file of payload) {
    // A line ends at its LF (a path's own LF is written as %0A): compared in place.
    const end = written.indexOf(0x0a, at) + 1;
    if (end === 0) return false;
    const line = `${file.sha256}  ${encodeManifestPath(file.path)}\n`;
    if (!isUtf8Of(written.subarray(at, end), line)) return false;
    at = end;
  }
  return at === written.length;
}

/** One parsed manifest line. */
export interface ManifestLine {
  /** Lower-case hex SHA-256. */
  sha256: string;
  /** Bag-relative path. */
  path: string;
}

/**
 * Parses a manifest strictly: every line `<64 lower-case hex><two spaces><path>` ending in LF,
 * no blank line, no CR, no BOM, no path listed twice. A path's `%25`, `%0A` and `%0D` are read
 * back as `%`, LF and CR (RFC 8493 §2.1.3); any other `%` is itself.
 *
 * @param text The manifest's text.
 * @returns The lines, or a reason the manifest is malformed.
 *
 * @example Usage
 * ```ts
 * import { parseManifest } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * const ok = parseManifest(`${"a".repeat(64)}  data/passport.json\n`);
 * assertEquals(ok, { lines: [{ sha256: "a".repeat(64), path: "data/passport.json" }] });
 * assertMatch(parseManifest(`${"A".repeat(64)}  data/passport.json\n`).error!, /line 1/);
 * ```
 */
export function parseManifest(text: string): { lines: ManifestLine[]; error?: string } {
  const lines: ManifestLine[] = [];
  const seen = new Set<string>();
  const error = eachManifestLine(utf8(text), (sha256, path) => {
    if (seen.has(path)) return "lists a path a second time";
    seen.add(path);
    lines.push({ sha256, path });
  });
  return error === null ? { lines } : { lines: [], error };
}

/**
 * Goes through a manifest's bytes line by line, as {@linkcode parseManifest} reads its text,
 * without making a list or one string of the whole: `visit` is given each line's digest and
 * decoded path in order, and may return why the line is wrong (a path listed twice, say), which
 * stops the walk. Lines before a wrong one have been visited by then: a caller that keeps them
 * throws them away on an error.
 *
 * @param bytes The manifest, as written.
 * @param visit Told of each line (1-based); returns a reason to stop, or nothing.
 * @returns Why the manifest is malformed, or null.
 *
 * @example Usage
 * ```ts
 * import { eachManifestLine } from "./bag.ts";
 * import { utf8 } from "../bytes/mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const paths: string[] = [];
 * const text = `${"a".repeat(64)}  data/a%25.txt\n${"b".repeat(64)}  data/b.txt\n`;
 * assertEquals(eachManifestLine(utf8(text), (_, path) => void paths.push(path)), null);
 * assertEquals(paths, ["data/a%.txt", "data/b.txt"]);
 * assertEquals(eachManifestLine(utf8("x\n"), () => {}), 'line 1 is not "<sha256>  <path>"');
 * ```
 */
export function eachManifestLine(
  bytes: Uint8Array,
  visit: (sha256: string, path: string, line: number) => string | void,
): string | null {
  return eachManifestRow(bytes, (digestAt, path, line) =>
    visit(
      String.fromCharCode.apply(null, bytes.subarray(digestAt, digestAt + 64) as never),
      path,
      line,
    ));
}

/**
 * {@linkcode eachManifestLine}, telling each line's digest by where its 64 hex digits start in
 * `bytes` rather than as a string: a manifest of thousands of lines is read into a
 * {@linkcode DigestTable} without a string per digest.
 *
 * @param bytes The manifest, as written.
 * @param visit Told of each line: where its digest starts, its decoded path, its number.
 * @returns Why the manifest is malformed, or null.
 *
 * @example Usage
 * ```ts
 * import { eachManifestRow } from "./bag.ts";
 * import { utf8 } from "../bytes/mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const rows: [number, string][] = [];
 * const text = `${"a".repeat(64)}  data/a.txt\n${"b".repeat(64)}  data/b.txt\n`;
 * assertEquals(eachManifestRow(utf8(text), (at, path) => void rows.push([at, path])), null);
 * assertEquals(rows, [[0, "data/a.txt"], [77, "data/b.txt"]]);
 * ```
 */
export function eachManifestRow(
  bytes: Uint8Array,
  visit: (digestAt: number, path: string, line: number) => string | void,
): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return "it starts with a byte order mark";
  }
  if (bytes.length === 0) return "it is empty";
  if (bytes[bytes.length - 1] !== LF) return "the last line does not end in a line feed";
  for (let at = 0, line = 1; at < bytes.length; line++) {
    const end = bytes.indexOf(LF, at);
    if (!isManifestRow(bytes, at, end)) return `line ${line} is not "<sha256>  <path>"`;
    let path: string;
    try {
      path = decodeManifestPath(decodeUtf8Strict(bytes.subarray(at + 66, end)));
    } catch {
      return `line ${line} is not valid UTF-8`;
    }
    const wrong = visit(at, path, line);
    if (wrong) return `line ${line} ${wrong}`;
    at = end + 1;
  }
  return null;
}

const LF = 0x0a;
const CR = 0x0d;

/** Whether bytes `at` to `end` are 64 lower-case hex digits, two spaces and a path without CR. */
function isManifestRow(bytes: Uint8Array, at: number, end: number): boolean {
  if (end - at < 67 || bytes[at + 64] !== 0x20 || bytes[at + 65] !== 0x20) return false;
  return isLowerHexAscii(bytes, at, 64) && bytes.subarray(at + 66, end).indexOf(CR) === -1;
}

/**
 * Reads `Payload-Oxum` (`<octets>.<file count>`) from `bag-info.txt` text.
 *
 * @param bagInfo The text of `bag-info.txt`.
 * @returns The declared octets and count, or null when absent or malformed.
 *
 * @example Usage
 * ```ts
 * import { parsePayloadOxum } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(parsePayloadOxum("Payload-Oxum: 5528.4\n"), { octets: 5528, count: 4 });
 * assertEquals(parsePayloadOxum("Bag-Spec: x\n"), null);
 * ```
 */
export function parsePayloadOxum(bagInfo: string): { octets: number; count: number } | null {
  const matches = [...bagInfo.matchAll(/^Payload-Oxum: ?([0-9]{1,16})\.([0-9]{1,9})$/gm)];
  if (matches.length !== 1) return null;
  return { octets: Number(matches[0]![1]), count: Number(matches[0]![2]) };
}

const encoder = new TextEncoder();

/**
 * The manifest of `payload`, written line by line into one array of the `length` it will have:
 * neither a list of lines nor the whole text is made (70,000 files make 7 MiB of it).
 */
function manifestBytes(payload: Iterable<PayloadDigest>, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const file of payload) {
    if (file.hexInto) {
      if (at + 64 > length) throw payloadChanged();
      file.hexInto(out, at);
      at += 64;
    } else {
      at += writeUtf8(file.sha256, out, at);
    }
    at += writeUtf8("  ", out, at);
    at += writeUtf8(encodeManifestPath(file.path), out, at);
    at += writeUtf8("\n", out, at);
  }
  if (at !== length) throw payloadChanged();
  return out;
}

function payloadChanged(): RangeError {
  return new RangeError("Cannot derive the manifest: the payload changed");
}

/**
 * Writes all of `text` as UTF-8 into `out` at `at`, returning how many bytes that took: ASCII
 * byte by byte, where a call to the encoder per line would cost more.
 */
function writeUtf8(text: string, out: Uint8Array, at: number): number {
  if (at + text.length <= out.length) {
    let i = 0;
    while (i < text.length && text.charCodeAt(i) < 0x80) {
      out[at + i] = text.charCodeAt(i);
      i++;
    }
    if (i === text.length) return i;
  }
  const { read, written } = encoder.encodeInto(text, out.subarray(at));
  if (read !== text.length) throw payloadChanged();
  return written;
}

function manifestText(rows: readonly (readonly [string, string])[]): string {
  return rows.map(([sha256, path]) => `${sha256}  ${encodeManifestPath(path)}\n`).join("");
}

/**
 * A path as a manifest writes it (RFC 8493 §2.1.3): `%`, CR and LF, and only those, are
 * percent-encoded. Luggage names never hold CR or LF (control characters are refused), so in
 * practice only `%` changes; the incumbent never writes a name holding one.
 */
function encodeManifestPath(path: string): string {
  return /[%\r\n]/.test(path)
    ? path.replace(/[%\r\n]/g, (c) => c === "%" ? "%25" : c === "\r" ? "%0D" : "%0A")
    : path;
}

function decodeManifestPath(path: string): string {
  return path.includes("%")
    ? path.replace(/%(25|0A|0D)/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    : path;
}

function oneLine(value: unknown, units: number): string {
  return String(value).replace(/[\r\n]+/g, " ").slice(0, units);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? value as Record<string, unknown> : {};
}
