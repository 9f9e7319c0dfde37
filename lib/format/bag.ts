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
import { type Digests, isUtf8Of, sha256Hex, utf8 } from "../bytes/mod.ts";

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
  for (const file of payload) {
    octets += file.size;
    count++;
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
  const made = manifest ?? utf8(manifestText(Array.from(payload, (f) => [f.sha256, f.path])));
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
  if (text.startsWith("\ufeff")) return { lines: [], error: "it starts with a byte order mark" };
  if (text === "") return { lines: [], error: "it is empty" };
  if (!text.endsWith("\n")) {
    return { lines: [], error: "the last line does not end in a line feed" };
  }
  const lines: ManifestLine[] = [];
  const seen = new Set<string>();
  const rows = text.slice(0, -1).split("\n");
  for (let i = 0; i < rows.length; i++) {
    const match = /^([0-9a-f]{64}) {2}([^\r\n]+)$/.exec(rows[i]!);
    if (!match) return { lines: [], error: `line ${i + 1} is not "<sha256>  <path>"` };
    const path = decodeManifestPath(match[2]!);
    if (seen.has(path)) return { lines: [], error: `line ${i + 1} lists a path a second time` };
    seen.add(path);
    lines.push({ sha256: match[1]!, path });
  }
  return { lines };
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
