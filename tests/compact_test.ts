// Copyright 2026 the taskpack authors. MIT license.
// The compact forms the reader keeps of many entries (digests as bytes, the central directory in
// typed arrays, the manifest read line by line from its bytes) say exactly what the plain forms
// they replace said (fast-check).
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { DigestTable } from "../lib/bytes/digest_table.ts";
import { isValidUtf8, utf8 } from "../lib/bytes/bytes.ts";
import {
  deriveTagFiles,
  eachManifestLine,
  manifestMatches,
  parseManifest,
} from "../lib/format/bag.ts";
import { portableDigests } from "../lib/bytes/digests.ts";
import { bytesSource } from "../lib/bytes/source.ts";
import { openZip, writeZip, zipNameClash, zipToBytes } from "../lib/zip/mod.ts";
import { NameIndex } from "../lib/zip/name_index.ts";
import {
  auditEach,
  auditLuggage,
  buildPackObject,
  decodePack,
  encodeBag,
  land,
  luggageFromBytes,
  luggageNameProblem,
  luggageSetProblem,
  portabilityWarnings,
  preparePack,
  TaskPackReadError,
  windowsProblem,
} from "../mod.ts";

const RUNS = 100;
const hex64 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) =>
  [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")
);

Deno.test("DigestTable gives back every digest it kept, at its index, and nothing where none was kept", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(300), hex64), { maxLength: 60 }), (pairs) => {
      const table = new DigestTable(2);
      const expected = new Map<number, string>();
      for (const [index, hex] of pairs) {
        // Kept from a string, or from its ASCII digits inside other bytes: the same digest.
        if (index % 2 === 0) table.set(index, hex);
        else table.setFromAscii(index, new TextEncoder().encode(`..${hex}..`), 2);
        expected.set(index, hex);
      }
      for (let index = 0; index <= 300; index++) {
        const hex = expected.get(index) ?? null;
        assert.equal(table.hex(index), hex);
        assert.equal(table.has(index), hex !== null);
        // Written in place, between other bytes it must leave alone.
        const out = new Uint8Array(66).fill(0x2e);
        assert.equal(table.hexInto(index, out, 1), hex !== null);
        assert.equal(
          new TextDecoder().decode(out),
          hex === null ? ".".repeat(66) : `.${hex}.`,
        );
        if (hex !== null) {
          assert.ok(table.matches(index, hex));
          const other = (hex[0] === "0" ? "1" : "0") + hex.slice(1);
          assert.ok(!table.matches(index, other));
        } else assert.ok(!table.matches(index, "0".repeat(64)));
      }
    }),
    { numRuns: RUNS },
  );
  assert.throws(() => new DigestTable().set(0, "A".repeat(64)), RangeError);
  assert.throws(() => new DigestTable().set(0, "a".repeat(63)), RangeError);
  const kept = new DigestTable();
  kept.set(0, "a".repeat(64));
  assert.throws(() => kept.hexInto(0, new Uint8Array(64), 1), RangeError);
  // Digits that are not all lower-case hex, or that run past the bytes, keep nothing.
  const ascii = (text: string) => new TextEncoder().encode(text);
  for (const bad of ["A".repeat(64), `${"a".repeat(63)}g`, "a".repeat(63)]) {
    assert.throws(() => kept.setFromAscii(1, ascii(bad), 0), RangeError);
    assert.equal(kept.has(1), false);
  }
  assert.throws(() => kept.setFromAscii(1, ascii("a".repeat(64)), 1), RangeError);
  assert.equal(kept.has(1), false);
});

Deno.test("isValidUtf8 agrees with the runtime's strict decoder on any bytes, across its 64 KiB steps", () => {
  const strict = new TextDecoder("utf-8", { fatal: true });
  const valid = (bytes: Uint8Array) => {
    try {
      strict.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), fc.string({ unit: "binary" }), (raw, text) => {
      assert.equal(isValidUtf8(raw), valid(raw));
      // A multi-byte character cut by the step boundary is still one character.
      const padded = utf8("x".repeat(64 * 1024 - 1) + text);
      assert.equal(isValidUtf8(padded), true);
      const broken = padded.slice(0, padded.length - (padded.at(-1)! >= 0x80 ? 1 : 0));
      assert.equal(isValidUtf8(broken), valid(broken));
    }),
    { numRuns: 30 },
  );
});

/** The manifest rules as a regular expression over each line of the text (the reference). */
function referenceManifest(
  text: string,
): { lines: { sha256: string; path: string }[]; error?: string } {
  if (text.startsWith("\ufeff")) return { lines: [], error: "it starts with a byte order mark" };
  if (text === "") return { lines: [], error: "it is empty" };
  if (!text.endsWith("\n")) {
    return { lines: [], error: "the last line does not end in a line feed" };
  }
  const lines = [];
  const seen = new Set<string>();
  const rows = text.slice(0, -1).split("\n");
  for (let i = 0; i < rows.length; i++) {
    const match = /^([0-9a-f]{64}) {2}([^\r\n]+)$/.exec(rows[i]!);
    if (!match) return { lines: [], error: `line ${i + 1} is not "<sha256>  <path>"` };
    const path = match[2]!.replace(
      /%(25|0A|0D)/gi,
      (_, h: string) => String.fromCharCode(parseInt(h, 16)),
    );
    if (seen.has(path)) return { lines: [], error: `line ${i + 1} lists a path a second time` };
    seen.add(path);
    lines.push({ sha256: match[1]!, path });
  }
  return { lines };
}

Deno.test("the manifest read from its bytes, line by line, says what the text read by the rules says", () => {
  const line = fc.oneof(
    fc.tuple(
      hex64,
      fc.constantFrom("data/a.txt", "data/b c.txt", "data/%25x", "data/é.md", " data/s"),
    )
      .map(([h, p]) => `${h}  ${p}`),
    fc.tuple(hex64, fc.constantFrom(" ", "\t", "\r", "   ")).map(([h, gap]) => `${h}${gap}data/x`),
    fc.tuple(hex64, fc.constantFrom("data/x\r", "", "data/y")).map(([h, p]) =>
      `${h.toUpperCase()}  ${p}`
    ),
    fc.string({ maxLength: 80 }),
  );
  fc.assert(
    fc.property(
      fc.array(line, { maxLength: 8 }),
      fc.constantFrom("", "\n"),
      fc.boolean(),
      (lines, end, bom) => {
        const text = (bom ? "\ufeff" : "") + lines.join("\n") + end;
        const expected = referenceManifest(text);
        assert.deepEqual(parseManifest(text), expected);
        const seen: string[] = [];
        const error = eachManifestLine(utf8(text), (sha256, path) => {
          if (seen.includes(path)) return "lists a path a second time";
          seen.push(sha256, path);
        });
        assert.equal(error, expected.error === undefined ? null : expected.error);
        if (error === null) {
          assert.deepEqual(seen, expected.lines.flatMap((l) => [l.sha256, l.path]));
        }
      },
    ),
    { numRuns: 300 },
  );
  // A path that is not UTF-8 stops the walk at its line.
  const bytes = new Uint8Array([...utf8(`${"a".repeat(64)}  data/`), 0xff, 0x0a]);
  assert.equal(eachManifestLine(bytes, () => {}), "line 1 is not valid UTF-8");
});

Deno.test("an entry the reader hands out reads its fields from the archive's records, and belongs to it alone", async () => {
  const modified = new Date(Date.UTC(2026, 0, 1));
  const files = Array.from({ length: 200 }, (_, i) => ({
    name: i % 50 === 0 ? `dir${i}/` : `dir/f${i}.txt`,
    bytes: i % 50 === 0 ? new Uint8Array(0) : utf8("x".repeat(i * 7)),
  }));
  const zip = await zipToBytes(writeZip(files, { modified }));
  const archive = await openZip(bytesSource(zip));
  const other = await openZip(bytesSource(zip));
  assert.equal(archive.entries.length, files.length);
  for (const [i, entry] of archive.entries.entries()) {
    const file = files[i]!;
    assert.equal(entry.name, file.name);
    assert.equal(entry.index, i);
    assert.equal(entry.isDirectory, file.name.endsWith("/"));
    assert.equal(entry.size, file.bytes.length);
    assert.equal(entry.method, file.bytes.length > 20 ? 8 : entry.method);
    assert.ok(entry.compressedSize <= file.bytes.length);
    assert.ok(Object.isFrozen(entry));
    if (!entry.isDirectory) assert.deepEqual(await archive.read(entry, 1 << 20), file.bytes);
  }
  assert.throws(() => archive.open(other.entries[1]!), /does not belong to this archive/);
  assert.throws(() => archive.metadata({ ...archive.entries[1]!, index: 1 }), /does not belong/);
});

async function bag(files: Record<string, string>): Promise<Uint8Array> {
  const pack = buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, {
    packedAt: "2026-12-02T16:46:10Z",
    machine: "vm",
  });
  const ready = await preparePack(
    pack,
    Object.entries(files).map(([name, text]) => luggageFromBytes(name, text)),
  );
  return new Uint8Array(await new Response(encodeBag(ready)).arrayBuffer());
}

Deno.test("auditEach hands on, in order, the audits auditLuggage lists, and stops where its visitor throws", async () => {
  const bytes = await bag({ "a.txt": "one\n", "b.txt": "two\n", "c.txt": "three\n" });
  const decoded = await decodePack(bytes);
  const listed = await auditLuggage(decoded);
  const seen: unknown[] = [];
  await auditEach(decoded, {}, (audit, index) => void seen.push([index, { ...audit }]));
  assert.deepEqual(seen, listed.map((audit, index) => [index, { ...audit }]));
  let visits = 0;
  await assert.rejects(
    auditEach(decoded, {}, () => {
      visits++;
      throw new Error("stop here");
    }),
    /stop here/,
  );
  assert.equal(visits, 1);
});

Deno.test("a bag's declared digests come from its manifest, by entry: each file's, none for a file it leaves out", async () => {
  const bytes = await bag({ "a.txt": "one\n", "b.txt": "two\n" });
  const decoded = await decodePack(bytes);
  const manifest = new TextDecoder().decode(decoded.tagFiles!["manifest-sha256.txt"]);
  for (const file of decoded.luggage) {
    const line = manifest.split("\n").find((l) => l.endsWith(`  data/files/${file.name}`))!;
    assert.equal(file.declaredSha256, line.slice(0, 64));
  }
  const audits = await auditLuggage(decoded);
  assert.deepEqual(audits.map((a) => a.sha256), decoded.luggage.map((f) => f.declaredSha256));
});

Deno.test("land refuses at the first luggage file that fails, naming it", async () => {
  const bytes = await bag({ "a.txt": "one\n", "b.txt": "two\n", "c.txt": "three\n" });
  // b.txt is stored (too small to deflate): change its one byte on disk, and its CRC fails.
  const at = new TextDecoder("latin1").decode(bytes).indexOf("two\n");
  const damaged = bytes.slice();
  damaged[at] = "T".charCodeAt(0);
  const checked: string[] = [];
  const error = await land(damaged, { onChecked: (file) => void checked.push(file.name) })
    .then(() => null, (e) => e);
  assert.ok(error instanceof TaskPackReadError, String(error));
  assert.equal(error.where, "data/files/b.txt");
  assert.deepEqual(checked, ["a.txt"]);
});

Deno.test("the manifest written line by line into one array is the text of its lines, whatever the paths", () => {
  const path = fc.string({ unit: "binary", minLength: 1, maxLength: 12 }).map((p) =>
    `data/files/${p}`
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(hex64, path, fc.nat(1000)), { maxLength: 12 }), (rows) => {
      const payload = rows.map(([sha256, path, size]) => ({ sha256, path, size }));
      const tags = deriveTagFiles({ spec: "task-passport-bag/0.1" }, payload, portableDigests);
      const text = payload.map((f) =>
        `${f.sha256}  ${
          f.path.replace(/[%\r\n]/g, (c) => c === "%" ? "%25" : c === "\r" ? "%0D" : "%0A")
        }\n`
      ).join("");
      assert.deepEqual(tags.manifest, new TextEncoder().encode(text));
      assert.ok(manifestMatches(tags.manifest, payload));
      // Digests kept as bytes and written in place make the same manifest.
      const table = new DigestTable();
      rows.forEach(([sha256], i) => table.set(i, sha256));
      const kept = payload.map((f, i) => ({
        ...f,
        hexInto: (out: Uint8Array, at: number) => void table.hexInto(i, out, at),
      }));
      const fromTable = deriveTagFiles({ spec: "task-passport-bag/0.1" }, kept, portableDigests);
      assert.deepEqual(fromTable.manifest, tags.manifest);
    }),
    { numRuns: RUNS },
  );
});

/** The clash check as it was written with maps of strings: the reference for NameIndex. */
function clashByMaps(names: readonly string[]): { index: number; problem: string } | null {
  const byKey = new Map<string, number>();
  const folders = new Map<string, number>();
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const directory = name.endsWith("/");
    const key = directory ? name.slice(0, -1) : name;
    const twin = byKey.get(key);
    if (twin !== undefined) {
      const first = names[twin]!;
      const problem = first === name
        ? "the name appears twice"
        : first.endsWith("/") !== directory
        ? `the name clashes with the ${first.endsWith("/") ? "directory" : "file"} "${first}"`
        : `the name clashes with "${first}"`;
      return { index, problem };
    }
    if (!directory && folders.has(key)) {
      return {
        index,
        problem: `"${names[folders.get(key)!]}" lies inside the name, which is a file`,
      };
    }
    for (let at = key.indexOf("/"); at !== -1; at = key.indexOf("/", at + 1)) {
      const folder = key.slice(0, at);
      const file = byKey.get(folder);
      if (file !== undefined && !names[file]!.endsWith("/")) {
        return { index, problem: `the name lies inside "${names[file]}", which is a file` };
      }
      if (!folders.has(folder)) folders.set(folder, index);
    }
    byKey.set(key, index);
  }
  return null;
}

Deno.test("the name index finds the clash the maps of strings found, and every name by its key", () => {
  // Names that meet often, and pairs whose hashes are equal (FNV-1a), so that a hit must be
  // confirmed by the name itself.
  const segment = fc.constantFrom(
    "a",
    "b",
    "costarring",
    "liquid",
    "declinate",
    "macallums",
    "x.txt",
  );
  const name = fc.tuple(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.boolean())
    .map(([parts, directory]) => parts.join("/") + (directory ? "/" : ""));
  fc.assert(
    fc.property(fc.array(name, { maxLength: 40 }), (names) => {
      assert.deepEqual(zipNameClash(names), clashByMaps(names), JSON.stringify(names));
      const clash = clashByMaps(names);
      const kept = clash === null ? names : names.slice(0, clash.index);
      const index = new NameIndex((at) => kept[at]!);
      for (const n of kept) assert.equal(index.add(n), null);
      kept.forEach((n, at) => assert.equal(index.find(n), at));
      for (const other of ["liquid", "costarring/x", "zzz"]) {
        const at = kept.findIndex((n) => n.replace(/\/$/, "") === other);
        assert.equal(index.find(other), at);
      }
    }),
    { numRuns: 2000 },
  );
  // Runs of names in one folder, as packs hold them (a name in the folder of the name before
  // checks no folder again): a clash with a file or folder met earlier is still found.
  // Empty segments too ("/", "a//b", "/x"): what a hostile archive may hold.
  const part = fc.oneof(segment, fc.constant(""));
  const inFolder = fc.tuple(
    fc.array(part, { maxLength: 3 }),
    fc.array(fc.tuple(part, fc.boolean()), { minLength: 1, maxLength: 4 }),
  ).map(([folder, leaves]) =>
    leaves.map(([leaf, directory]) => [...folder, leaf].join("/") + (directory ? "/" : ""))
  );
  fc.assert(
    fc.property(fc.array(inFolder, { maxLength: 12 }), (groups) => {
      const names = groups.flat();
      const clash = clashByMaps(names);
      assert.deepEqual(zipNameClash(names), clash, JSON.stringify(names));
      // Each name added is found by its key, however it was hashed when added.
      const kept = clash === null ? names : names.slice(0, clash.index);
      const index = new NameIndex((at) => kept[at]!);
      for (const n of kept) index.add(n);
      kept.forEach((n, at) => assert.equal(index.find(n), at, JSON.stringify([kept, n])));
    }),
    { numRuns: 3000 },
  );
  // Many names: the tables grow, and each name is still found.
  const many = Array.from({ length: 20_000 }, (_, i) => `d${i % 97}/f${i}.txt`);
  assert.deepEqual(zipNameClash([...many, "d5"]), {
    index: many.length,
    problem: `"d5/f5.txt" lies inside the name, which is a file`,
  });
});

/** The portability warnings as they were written with maps of strings: the reference. */
function warningsByMaps(names: readonly string[]): unknown[] {
  const warnings: unknown[] = [];
  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  for (const name of names) {
    const windows = windowsProblem(name);
    if (windows) warnings.push({ name, systems: "Windows", reason: windows });
    const form = name.normalize("NFC");
    const key = form.toLowerCase();
    let clash = files.get(key) ?? folders.get(key);
    let part = form;
    for (let at = form.indexOf("/"); at !== -1; at = form.indexOf("/", at + 1)) {
      const folder = form.slice(0, at);
      const folderKey = folder.toLowerCase();
      if (clash === undefined && files.has(folderKey)) {
        clash = files.get(folderKey)!;
        part = folder;
      }
      if (!folders.has(folderKey)) folders.set(folderKey, name);
    }
    if (clash !== undefined) {
      const sameCase = clash.normalize("NFC").startsWith(part);
      warnings.push({
        name,
        systems: sameCase
          ? "file systems that normalise Unicode: macOS"
          : "case-insensitive file systems: Windows, macOS",
        reason: sameCase
          ? `it and "${clash}" differ only in Unicode normalisation form`
          : `it and "${clash}" differ only in letter case`,
        clashesWith: clash,
      });
    }
    if (!files.has(key)) files.set(key, name);
  }
  return warnings;
}

Deno.test("the portability warnings from hashed keys are the ones the maps of keys gave", () => {
  const segment = fc.constantFrom(
    "a",
    "A",
    "é",
    "e\u0301",
    "İ",
    "liquid",
    "costarring",
    "con.txt",
    "Docs",
    "docs",
    "x:y",
  );
  const name = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
  fc.assert(
    fc.property(fc.array(name, { maxLength: 30 }), (names) => {
      assert.deepEqual(portabilityWarnings(names), warningsByMaps(names), JSON.stringify(names));
    }),
    { numRuns: 3000 },
  );
  // Runs of names in one folder, as a walk gives them (the folders of the name before are not
  // looked up again): files and folders that clash must still be told, each time.
  // Empty segments too: a judge reads the names a pack holds, allowed or not.
  const part = fc.oneof(segment, fc.constant(""));
  const inFolder = fc.tuple(
    fc.array(part, { maxLength: 3 }),
    fc.array(part, { minLength: 1, maxLength: 4 }),
  ).map(([folder, leaves]) => leaves.map((leaf) => [...folder, leaf].join("/")));
  fc.assert(
    fc.property(fc.array(inFolder, { maxLength: 10 }), (groups) => {
      const names = groups.flat();
      assert.deepEqual(portabilityWarnings(names), warningsByMaps(names), JSON.stringify(names));
    }),
    { numRuns: 3000 },
  );
});

Deno.test("windowsProblem() passes quickly only names Windows can hold", () => {
  // The rules one by one: the reference the quick test in front of them must agree with.
  const byRules = (name: string) => {
    const forbidden = /[:*?"<>|]/.exec(name);
    if (forbidden) return `it holds the character "${forbidden[0]}", which Windows forbids`;
    for (const segment of name.split("/")) {
      if (/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i.test(segment)) {
        return `"${segment}" is a Windows device name`;
      }
      if (/[. ]$/.test(segment)) return `"${segment}" ends in a dot or a space`;
    }
    return null;
  };
  const piece = fc.constantFrom(
    "con",
    "CON",
    "Prn",
    "aux",
    "nul",
    "com",
    "COM1",
    "com¹",
    "lpt",
    "LPT9",
    "lpt³",
    "x",
    ".",
    " ",
    ".txt",
    "a",
    "\n",
    "é",
    ":",
    "|",
    "?",
    "conx",
    "com0",
    "/",
  );
  fc.assert(
    fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), (pieces) => {
      const name = pieces.join("");
      assert.equal(windowsProblem(name), byRules(name), JSON.stringify(name));
    }),
    { numRuns: 5000 },
  );
});

/** The set check as it was written with a set and a map of strings: the reference. */
function setProblemByMaps(names: readonly string[]): { name: string; problem: string } | null {
  const files = new Set<string>();
  const folders = new Map<string, string>();
  for (const name of names) {
    const problem = luggageNameProblem(name);
    if (problem) return { name, problem };
    if (files.has(name)) return { name, problem: "the name appears twice" };
    if (folders.has(name)) {
      return { name, problem: `the name is also a folder of "${folders.get(name)}"` };
    }
    for (let at = name.indexOf("/"); at !== -1; at = name.indexOf("/", at + 1)) {
      const folder = name.slice(0, at);
      if (files.has(folder)) return { name, problem: `"${folder}" is a file, not a folder` };
      if (!folders.has(folder)) folders.set(folder, name);
    }
    files.add(name);
  }
  return null;
}

Deno.test("the luggage set check from hashed names finds what the set of names found", () => {
  const segment = fc.constantFrom("a", "b", "liquid", "costarring", "x.txt", "..", "");
  const name = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
  fc.assert(
    fc.property(fc.array(name, { maxLength: 30 }), (names) => {
      assert.deepEqual(luggageSetProblem(names), setProblemByMaps(names), JSON.stringify(names));
    }),
    { numRuns: 5000 },
  );
});
