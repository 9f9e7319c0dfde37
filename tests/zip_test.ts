// Copyright 2026 the taskpack authors. MIT license.
import assert from "node:assert/strict";
import { crc32 as nativeCrc32 } from "node:zlib";
import fc from "npm:fast-check@4.11.0";
import {
  deflateRaw,
  deflateRawStream,
  inflateRawStream,
  looksCompressible,
} from "../lib/zip/deflate.ts";
import {
  writeZip,
  type WriteZipOptions,
  writeZipTo,
  type ZipStreamEntry,
  zipToBytes,
  type ZipWriteEntry,
} from "../lib/zip/writer.ts";
import {
  DEFAULT_ZIP_LIMITS,
  openZip,
  type ZipArchive,
  type ZipLimits,
  zipNameClash,
  zipNameProblem,
} from "../lib/zip/reader.ts";
import { type ByteSource, bytesSource } from "../lib/bytes/source.ts";
import { type ReadErrorCode, TaskPackReadError } from "../lib/bytes/errors.ts";
import { type Digests, portableDigests } from "../lib/bytes/digests.ts";
import { concatBytes } from "../lib/bytes/bytes.ts";
import { nativeInflater } from "../shell/host/native_inflater.ts";
import {
  crc,
  deflate,
  descriptor,
  extraRecord,
  type ForgeEntry,
  forgeZip,
  LE,
  unicodePathExtra,
  utf8,
  zip64Extra,
} from "./_zip_forge.ts";
import { tempDir, tempFile } from "./_helpers.ts";

const MODIFIED = new Date(Date.UTC(2026, 4, 17, 13, 45, 58));
const OPTIONS: WriteZipOptions = { modified: MODIFIED };
const MiB = 1 << 20;

/** Native CRC-32 (as the shells pass it), for the tests that move gigabytes. */
const fastDigests: Digests = {
  sha256: portableDigests.sha256,
  crc32: (data, previous = 0) => nativeCrc32(data, previous),
};

// ---------------------------------------------------------------------------------------------
// Helpers

function streamOf(bytes: Uint8Array, sizes: readonly number[] = [MiB]): ReadableStream<Uint8Array> {
  let offset = 0;
  let turn = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      const size = Math.max(1, sizes[turn++ % sizes.length]!);
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

function streamed(
  name: string,
  bytes: Uint8Array,
  compress: boolean,
  sizes?: readonly number[],
): ZipStreamEntry {
  return {
    name,
    size: bytes.length,
    crc32: crc(bytes),
    compress,
    open: () => streamOf(bytes, sizes),
  };
}

async function zip(
  entries: Iterable<ZipWriteEntry> | AsyncIterable<ZipWriteEntry>,
  options: Partial<WriteZipOptions> = {},
): Promise<Uint8Array> {
  return await zipToBytes(writeZip(entries, { ...OPTIONS, ...options }));
}

async function readAll(archive: ZipArchive): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const entry of archive.entries) out.set(entry.name, await archive.read(entry, 1 << 30));
  return out;
}

/** Opens an archive and reads every entry: the whole reader, front to back. */
async function readZip(
  bytes: Uint8Array,
  limits?: Partial<ZipLimits>,
): Promise<Map<string, Uint8Array>> {
  const archive = await openZip(bytesSource(bytes), limits ? { limits } : {});
  return await readAll(archive);
}

async function assertRefused(
  bytes: Uint8Array,
  code: ReadErrorCode,
  message?: RegExp,
  limits?: Partial<ZipLimits>,
): Promise<void> {
  await assert.rejects(readZip(bytes, limits), (error: unknown) => {
    assert.ok(error instanceof TaskPackReadError, `expected a TaskPackReadError, got ${error}`);
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at += 65_536) crypto.getRandomValues(out.subarray(at, at + 65_536));
  return out;
}

function u16(bytes: Uint8Array, offset: number): number {
  return bytes[offset]! | (bytes[offset + 1]! << 8);
}

function u32(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(offset, true);
}

function indexOfSignature(bytes: Uint8Array, signature: number, from = 0): number {
  for (let i = from; i + 4 <= bytes.length; i++) if (u32(bytes, i) === signature) return i;
  return -1;
}

const HAVE_UNZIP = await has("unzip");
const HAVE_ZIP = await has("zip");

/** The Info-ZIP checks fail, never skip, without the tool: `.ci/run` installs it. */
function need(tool: "zip" | "unzip", present: boolean): void {
  assert.ok(present, `\`${tool}\` (Info-ZIP) is not installed: apt-get install zip unzip`);
}

async function has(command: string): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(command, {
      args: ["-v"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return success;
  } catch {
    return false;
  }
}

/** Runs `unzip -t` on a file and asserts it found no error. */
async function assertUnzipAccepts(path: string): Promise<void> {
  const { code, stdout, stderr } = await new Deno.Command("unzip", { args: ["-tqq", path] })
    .output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 0, `unzip -t failed (${code}): ${text.slice(0, 2000)}`);
}

async function assertUnzipAcceptsBytes(bytes: Uint8Array): Promise<void> {
  const path = await tempFile({ suffix: ".zip" });
  try {
    await Deno.writeFile(path, bytes);
    await assertUnzipAccepts(path);
  } finally {
    await Deno.remove(path);
  }
}

// ---------------------------------------------------------------------------------------------
// deflate.ts

Deno.test("deflateRaw() is deterministic and inflates back", async () => {
  const text = utf8("The quick brown fox jumps over the lazy dog. ".repeat(5000));
  const a = await deflateRaw(text);
  const b = await deflateRaw(text);
  assert.deepEqual(a, b);
  assert.ok(a.length < text.length / 10);
  const back = await new Response(streamOf(a).pipeThrough(inflateRawStream())).bytes();
  assert.deepEqual(back, text);
});

Deno.test("deflateRawStream() output does not depend on how the input is chunked", async () => {
  const text = utf8(Array.from({ length: 30_000 }, (_, i) => `row ${i} ${i % 7}\n`).join(""));
  const whole = await deflateRaw(text);
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 1, max: 200_000 }), { minLength: 1, maxLength: 6 }),
      async (sizes) => {
        const out = await new Response(streamOf(text, sizes).pipeThrough(deflateRawStream()))
          .bytes();
        assert.deepEqual(out, whole);
      },
    ),
    { numRuns: 25 },
  );
  const empty = await new Response(streamOf(new Uint8Array(0)).pipeThrough(deflateRawStream()))
    .bytes();
  assert.deepEqual(empty, await deflateRaw(new Uint8Array(0)));
});

Deno.test("looksCompressible() tells text from random bytes", async (t) => {
  const random = new Uint8Array(65_536);
  crypto.getRandomValues(random);
  const table: [string, Uint8Array, boolean][] = [
    ["text", utf8("2026-05-17 INFO all good\n".repeat(3000)).subarray(0, 65_536), true],
    ["random", random, false],
    ["tiny random", random.subarray(0, 63), true],
    ["empty", new Uint8Array(0), true],
  ];
  for (const [name, sample, expected] of table) {
    await t.step(name, async () => assert.equal(await looksCompressible(sample), expected));
  }
});

// ---------------------------------------------------------------------------------------------
// Writer: canonical output

Deno.test("writeZip() writes canonical headers", async () => {
  const bytes = await zip([
    { name: "a.txt", bytes: utf8("hello") },
    { name: "d/", bytes: new Uint8Array(0) },
    streamed("d/log.txt", utf8("log\n".repeat(1000)), true),
  ]);
  // Local header of a.txt: version 20, UTF-8 flag, stored, DOS time of MODIFIED in UTC.
  assert.equal(u32(bytes, 0), 0x04034b50);
  assert.equal(u16(bytes, 4), 20);
  assert.equal(u16(bytes, 6), 0x0800);
  assert.equal(u16(bytes, 8), 0);
  assert.equal(u16(bytes, 10), (13 << 11) | (45 << 5) | (58 >> 1));
  assert.equal(u16(bytes, 12), ((2026 - 1980) << 9) | (5 << 5) | 17);
  assert.equal(u16(bytes, 28), 0); // no extra field
  const cd = indexOfSignature(bytes, 0x02014b50);
  assert.equal(u16(bytes, cd + 4), 0x0314); // made by Unix, 2.0
  assert.equal(u32(bytes, cd + 38), (0o100644 << 16) >>> 0);
  // The streamed, deflated entry uses a data descriptor with signature.
  const archive = await openZip(bytesSource(bytes));
  assert.deepEqual(archive.entries.map((e) => [e.name, e.method, e.isDirectory]), [
    ["a.txt", 0, false],
    ["d/", 0, true],
    ["d/log.txt", 8, false],
  ]);
  assert.notEqual(indexOfSignature(bytes, 0x08074b50), -1);
  // No comment; the end record closes the file.
  assert.equal(u32(bytes, bytes.length - 22), 0x06054b50);
});

Deno.test("writeZip() gives the same bytes for the same input, whatever the chunking", async () => {
  const text = utf8("same bytes every time\n".repeat(20_000));
  const random = randomBytes(50_000);
  const make = (sizes: number[]) => [
    { name: "m.txt", bytes: text },
    { name: "m.bin", bytes: random },
    streamed("s.txt", text, true, sizes),
    streamed("s.bin", random, false, sizes),
  ];
  const a = await zip(make([1 << 20]));
  const b = await zip(make([1, 4095, 70_000, 13]));
  assert.deepEqual(a, b);
  // The deflated bodies of the in-memory and the streamed text are byte-identical.
  const archive = await openZip(bytesSource(a));
  assert.equal(archive.entries[0]!.compressedSize, archive.entries[2]!.compressedSize);
  // The timestamp is taken in UTC: another Date for the same instant gives the same bytes.
  assert.deepEqual(await zip(make([100]), { modified: new Date(MODIFIED.getTime()) }), a);
});

Deno.test("writeZip() stores in-memory entries that deflate does not shrink", async () => {
  const random = randomBytes(10_000);
  const archive = await openZip(bytesSource(
    await zip([
      { name: "r", bytes: random },
      { name: "t", bytes: utf8("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") },
      { name: "e", bytes: new Uint8Array(0) },
      { name: "x", bytes: utf8("x") },
    ]),
  ));
  assert.deepEqual(archive.entries.map((e) => e.method), [0, 8, 0, 0]);
});

Deno.test("writeZip() takes entries from an array, a generator or an async one alike, and lets a source stopped early close", async () => {
  const entries: ZipWriteEntry[] = [
    { name: "a.txt", bytes: utf8("alpha ".repeat(40)) },
    { name: "b.txt", bytes: utf8("beta") },
    // Made already: written as given (a deflater here makes the same bytes).
    {
      name: "c.txt",
      bytes: utf8("gamma ".repeat(40)),
      deflated: await deflateRaw(utf8("gamma ".repeat(40))),
    },
  ];
  const fromArray = await zip(entries);
  assert.deepEqual(
    await zip((function* () {
      yield* entries;
    })()),
    fromArray,
  );
  assert.deepEqual(
    await zip((async function* () {
      yield* entries;
    })()),
    fromArray,
  );

  // A bad name part way: the writer refuses, and the generator's own cleanup runs.
  for (
    const make of [
      function* (log: string[]) {
        try {
          yield entries[0]!;
          yield { name: "../escape", bytes: utf8("x") };
          yield entries[1]!;
        } finally {
          log.push("closed");
        }
      },
      async function* (log: string[]) {
        try {
          yield entries[0]!;
          yield { name: "../escape", bytes: utf8("x") };
          yield entries[1]!;
        } finally {
          log.push("closed");
        }
      },
    ]
  ) {
    const log: string[] = [];
    await assert.rejects(zip(make(log)), /\.\./);
    assert.deepEqual(log, ["closed"]);
  }
});

Deno.test("writeZip() is pull-based: entries are opened only as output is read", async () => {
  const opened: string[] = [];
  const big = new Uint8Array(3 * MiB);
  const entry = (name: string): ZipStreamEntry => ({
    name,
    size: big.length,
    crc32: crc(big),
    compress: false,
    open() {
      opened.push(name);
      return streamOf(big, [64 * 1024]);
    },
  });
  const reader = writeZip([entry("a"), entry("b")], OPTIONS).getReader();
  await reader.read();
  assert.deepEqual(opened, ["a"]);
  await reader.cancel();
  assert.deepEqual(opened, ["a"]);
});

Deno.test("writeZip() refuses a streamed entry that changed while packing", async (t) => {
  const bytes = utf8("content ".repeat(10_000));
  const table: [string, ZipStreamEntry][] = [
    ["shorter than declared", { ...streamed("a.txt", bytes, true), size: bytes.length + 1 }],
    ["longer than declared", { ...streamed("a.txt", bytes, false), size: bytes.length - 1 }],
    ["other CRC, stored", { ...streamed("a.txt", bytes, false), crc32: (crc(bytes) ^ 1) >>> 0 }],
    ["other CRC, deflated", { ...streamed("a.txt", bytes, true), crc32: (crc(bytes) ^ 1) >>> 0 }],
  ];
  for (const [name, entry] of table) {
    await t.step(name, async () => {
      await assert.rejects(
        zip([entry]),
        (error: unknown) =>
          error instanceof TypeError &&
          error.message === 'Cannot write zip: "a.txt" changed while packing (size or CRC differs)',
      );
    });
  }
});

Deno.test("writeZip() refuses names openZip would refuse", async (t) => {
  const table: [string, string[]][] = [
    ["dot dot", ["../x"]],
    ["absolute", ["/x"]],
    ["backslash", ["a\\b"]],
    ["empty", [""]],
    ["control", ["a\u0001"]],
    ["lone surrogate", ["a\ud800"]],
    ["duplicate", ["a", "a"]],
    ["file and folder", ["a", "a/b"]],
  ];
  for (const [name, names] of table) {
    await t.step(name, async () => {
      await assert.rejects(
        zip(names.map((n) => ({ name: n, bytes: utf8("x") }))),
        (error: unknown) => error instanceof TypeError && /^Cannot write zip: /.test(error.message),
      );
    });
  }
  await t.step("directory with bytes", async () => {
    await assert.rejects(zip([{ name: "d/", bytes: utf8("x") }]), TypeError);
  });
  await t.step("date before 1980", () => {
    assert.throws(() => writeZip([], { modified: new Date(Date.UTC(1979, 11, 31)) }), RangeError);
  });
});

Deno.test("writeZip() holds each name against those a MiB of directory before it", async (t) => {
  // 1,200 names of 1,000 bytes: a central directory of 1.2 MiB, made in more than one block.
  const long = (i: number) => `n${String(i).padStart(4, "0")}/${"x".repeat(994)}`;
  const names = Array.from({ length: 1200 }, (_, i) => long(i));
  const entries = (more: string[]) =>
    [...names, ...more].map((name) => ({ name, bytes: new Uint8Array(0) }));
  await t.step("every name reads back, in order", async () => {
    const archive = await openZip(bytesSource(await zip(entries([]))));
    assert.deepEqual(archive.entries.map((e) => e.name), names);
  });
  // The earlier name is read back from the directory's first block to say what clashed.
  const clashes: [string, string, string][] = [
    ["the first name again", long(0), "the name appears twice"],
    [
      "a file under an early one",
      `${long(3)}/y`,
      `the name lies inside "${long(3)}", which is a file`,
    ],
  ];
  for (const [what, late, problem] of clashes) {
    await t.step(what, async () => {
      await assert.rejects(
        zip(entries([late])),
        (error: unknown) => error instanceof TypeError && error.message.endsWith(problem),
      );
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Round trip

const SEGMENT_CHARS = [
  ..."abcdefghijklmnopqrstuvwxyz0123456789-_.",
  "é",
  "ü",
  "ß",
  "中",
  "文",
  "😀",
];
const segmentArb = fc
  .string({ unit: fc.constantFrom(...SEGMENT_CHARS), minLength: 1, maxLength: 8 })
  .filter((s) => s !== "." && s !== "..");
const nameArb = fc.array(segmentArb, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
const contentArb = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.tuple(fc.string({ maxLength: 40 }), fc.integer({ min: 0, max: 2000 })).map(([s, n]) =>
    utf8(s.repeat(n))
  ),
);
const entryArb = fc.record({
  name: nameArb,
  content: contentArb,
  kind: fc.constantFrom("memory", "deflated", "stored"),
  chunk: fc.integer({ min: 1, max: 5000 }),
});

Deno.test("writeZipTo() hands a sink writeZip()'s bytes, even one that scribbles over each chunk once it has copied it", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          content: fc.uint8Array({ maxLength: 20_000, size: "max" }),
          kind: fc.constantFrom("memory", "memory", "deflated", "stored"),
        }),
        { minLength: 1, maxLength: 30, size: "max" },
      ),
      async (files) => {
        // Fresh copies each time: a large piece is handed on as the entry's own bytes.
        const make = () =>
          files.map((f, i): ZipWriteEntry =>
            f.kind === "memory"
              ? { name: `f${i}`, bytes: f.content.slice() }
              : streamed(`f${i}`, f.content.slice(), f.kind === "deflated", [4096])
          );
        const parts: Uint8Array[] = [];
        await writeZipTo(make(), (chunk) => {
          parts.push(chunk.slice());
          chunk.fill(0xee); // a chunk is the sink's only during the call
        }, OPTIONS);
        const bytes = concatBytes(parts);
        assert.deepEqual(bytes, await zip(make()));
        const archive = await openZip(bytesSource(bytes));
        for (const [i, entry] of archive.entries.entries()) {
          assert.deepEqual(await archive.read(entry, 1 << 20), files[i]!.content);
        }
      },
    ),
    // Large cases shrink slowly: the first failure is reported as found.
    { numRuns: 40, endOnFailure: true },
  );
});

Deno.test("writeZip() and openZip() round-trip random entries", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(entryArb, {
        maxLength: 12,
        selector: (e) => e.name.normalize("NFC").toLowerCase(),
      })
        .filter((entries) => zipNameClash(entries.map((e) => e.name)) === null),
      fc.boolean(),
      async (entries, force) => {
        const make = () =>
          entries.map((e): ZipWriteEntry =>
            e.kind === "memory"
              ? { name: e.name, bytes: e.content }
              : streamed(e.name, e.content, e.kind === "deflated", [e.chunk])
          );
        const bytes = await zip(make(), { forceZip64: force });
        assert.deepEqual(await zip(make(), { forceZip64: force }), bytes);
        const archive = await openZip(bytesSource(bytes));
        assert.deepEqual(archive.entries.map((e) => e.name), entries.map((e) => e.name));
        for (const [i, entry] of archive.entries.entries()) {
          assert.equal(entry.index, i);
          assert.equal(entry.isDirectory, false);
          assert.deepEqual(await archive.read(entry, 1 << 20), entries[i]!.content);
        }
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("a source that reads into the reader's buffer reads as one that returns bytes, whole or damaged, across windows", async () => {
  // Headers past the first 1 MiB window, and a central directory of many entries.
  const base = await zip([
    { name: "big-1.bin", bytes: randomBytes(900_000) },
    ...Array.from(
      { length: 40 },
      (_, i) => ({ name: `small/${i}.txt`, bytes: utf8(`${i} `.repeat(i)) }),
    ),
    { name: "big-2.bin", bytes: randomBytes(700_000) },
    streamed("tail.txt", utf8("tail ".repeat(300)), true),
  ], { forceZip64: false });
  const intoSource = (
    bytes: Uint8Array,
  ): ByteSource & { readInto(o: number, t: Uint8Array): Promise<void> } => ({
    size: bytes.length,
    read: (offset, length) => Promise.resolve(bytes.slice(offset, offset + length)),
    readInto(offset, target) {
      if (offset + target.length > bytes.length) {
        return Promise.reject(new RangeError("past the end"));
      }
      target.set(bytes.subarray(offset, offset + target.length));
      return Promise.resolve();
    },
  });
  const outcome = async (source: ByteSource) => {
    try {
      const archive = await openZip(source);
      return { entries: archive.entries, contents: await readAll(archive) };
    } catch (error) {
      return { error: String(error) };
    }
  };
  const whole = await outcome(intoSource(base));
  assert.ok("entries" in whole && whole.entries.length === 43);
  assert.deepEqual(whole, await outcome(bytesSource(base)));
  // A central directory of more than one window (12,000 names of 100 bytes and more).
  const many = await zip(
    Array.from({ length: 12_000 }, (_, i) => ({
      name: `${"folder-".repeat(13)}/${i}.txt`,
      bytes: utf8(String(i)),
    })),
  );
  const manyRead = await outcome(intoSource(many));
  assert.ok("entries" in manyRead && manyRead.entries.length === 12_000);
  assert.deepEqual(manyRead, await outcome(bytesSource(many)));
  // Damage anywhere, and mostly in the headers: the same reading, or the same refusal.
  const headers = base.length - 2 * 1024;
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.tuple(
          fc.oneof(fc.nat(), fc.integer({ min: headers, max: base.length - 1 })),
          fc.integer({ min: 0, max: 255 }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      async (edits) => {
        const bytes = base.slice();
        for (const [at, value] of edits) bytes[at % bytes.length] = value;
        assert.deepEqual(await outcome(intoSource(bytes)), await outcome(bytesSource(bytes)));
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("openZip() refuses or reads every mutation of a valid archive, never crashing", async () => {
  const base = await zip([
    { name: "a.txt", bytes: utf8("hello ".repeat(100)) },
    { name: "b/", bytes: new Uint8Array(0) },
    streamed("b/c.bin", randomBytes(300), true),
    { name: "d", bytes: utf8("d") },
  ], { forceZip64: false });
  const base64 = await zip([{ name: "z", bytes: utf8("zzz") }, streamed("y", utf8("yy"), true)], {
    forceZip64: true,
  });
  await fc.assert(
    fc.asyncProperty(
      fc.boolean(),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 4,
      }),
      async (use64, edits) => {
        const bytes = (use64 ? base64 : base).slice();
        for (const [at, value] of edits) bytes[at % bytes.length] = value;
        try {
          await readZip(bytes);
        } catch (error) {
          assert.ok(error instanceof TaskPackReadError, `not a TaskPackReadError: ${error}`);
        }
      },
    ),
    { numRuns: 400 },
  );
});

// ---------------------------------------------------------------------------------------------
// Interop with Info-ZIP

Deno.test({
  name: "unzip -t accepts small archives, forced ZIP64 ones, and non-ASCII names",
  async fn(t) {
    need("unzip", HAVE_UNZIP);
    const text = utf8("text line\n".repeat(50_000));
    const random = randomBytes(200_000);
    const entries = (): ZipWriteEntry[] => [
      { name: "bagit.txt", bytes: utf8("BagIt-Version: 1.0\n") },
      { name: "data/", bytes: new Uint8Array(0) },
      { name: "data/empty", bytes: new Uint8Array(0) },
      { name: "data/files/ünïcödé 中文.txt", bytes: text },
      streamed("data/files/s.txt", text, true, [777]),
      streamed("data/files/s.bin", random, false),
      streamed("data/files/e", new Uint8Array(0), true),
    ];
    for (const forceZip64 of [false, true]) {
      await t.step(forceZip64 ? "forced ZIP64" : "plain", async () => {
        const bytes = await zip(entries(), { forceZip64 });
        await assertUnzipAcceptsBytes(bytes);
        const back = await readZip(bytes);
        assert.deepEqual(back.get("data/files/ünïcödé 中文.txt"), text);
        if (forceZip64) assert.notEqual(indexOfSignature(bytes, 0x06064b50), -1);
      });
    }
    await t.step("unzip extracts UTF-8 names and readable files", async () => {
      const dir = await tempDir();
      try {
        await Deno.writeFile(`${dir}/a.zip`, await zip(entries()));
        const { success } = await new Deno.Command("unzip", { args: ["-qq", "a.zip"], cwd: dir })
          .output();
        assert.ok(success);
        assert.deepEqual(await Deno.readFile(`${dir}/data/files/ünïcödé 中文.txt`), text);
        const mode = (await Deno.stat(`${dir}/data/files/s.bin`)).mode!;
        assert.equal(mode & 0o777, 0o644);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  },
});

Deno.test({
  name: "writeZip() switches to ZIP64 end records for 70,000 entries (unzip -t accepts)",
  async fn() {
    need("unzip", HAVE_UNZIP);
    const count = 70_000;
    function* entries(): Generator<ZipWriteEntry> {
      for (let i = 0; i < count; i++) {
        yield {
          name: `data/files/${i % 100}/${i}.txt`,
          size: 2,
          crc32: crc(utf8("ab")),
          compress: false,
          open: () => streamOf(utf8("ab")),
        };
      }
    }
    const bytes = await zip(entries());
    const eocd = bytes.length - 22;
    assert.equal(u16(bytes, eocd + 10), 0xffff);
    assert.equal(u32(bytes, eocd - 20), 0x07064b50);
    const archive = await openZip(bytesSource(bytes));
    assert.equal(archive.entries.length, count);
    assert.equal(archive.entries[count - 1]!.name, `data/files/99/${count - 1}.txt`);
    assert.deepEqual(await archive.read(archive.entries[12_345]!, 10), utf8("ab"));
    await assertUnzipAcceptsBytes(bytes);
  },
});

Deno.test({
  name:
    "openZip() reads archives made by Info-ZIP zip (directories, extra fields, ZIP64, descriptors)",
  async fn(t) {
    need("zip", HAVE_ZIP);
    const dir = await tempDir();
    try {
      const files: [string, Uint8Array][] = [
        ["a.txt", utf8("hello\n")],
        ["sub/nums.txt", utf8(Array.from({ length: 20_000 }, (_, i) => `${i}\n`).join(""))],
        ["sub/deeper/r.bin", randomBytes(5000)],
        ["sub/deeper/empty", new Uint8Array(0)],
      ];
      for (const [name, bytes] of files) {
        await Deno.mkdir(`${dir}/src/${name.split("/").slice(0, -1).join("/")}`, {
          recursive: true,
        });
        await Deno.writeFile(`${dir}/src/${name}`, bytes);
      }
      const table: [string, string[]][] = [
        ["zip -r", ["-qr"]],
        ["zip -r -fz (ZIP64)", ["-qr", "-fz"]],
        ["zip -r -fd (data descriptors)", ["-qr", "-fd"]],
        ["zip -r -0 (stored)", ["-qr", "-0"]],
      ];
      await t.step("a non-ASCII name: read when zip sets bit 11, else refused", async () => {
        // Info-ZIP zip writes a name's bytes as they are, and sets the UTF-8 flag only in some
        // builds and locales: without it, unzip and Windows take the name as code page 437.
        await Deno.writeFile(`${dir}/ünï.txt`, utf8("ü\n"));
        const out = `${dir}/${crypto.randomUUID()}.zip`;
        const { success } = await new Deno.Command("zip", {
          args: ["-q", out, "ünï.txt"],
          cwd: dir,
        })
          .output();
        assert.ok(success);
        const bytes = await Deno.readFile(out);
        const flags = new DataView(bytes.buffer).getUint16(6, true);
        if (flags & 0x0800) assert.deepEqual((await readZip(bytes)).get("ünï.txt"), utf8("ü\n"));
        else await assertRefused(bytes, "zip-name", /UTF-8 flag/);
      });
      for (const [name, args] of table) {
        await t.step(name, async () => {
          const out = `${dir}/${crypto.randomUUID()}.zip`;
          const { success } = await new Deno.Command("zip", {
            args: [...args, out, "."],
            cwd: `${dir}/src`,
          }).output();
          assert.ok(success);
          const archive = await openZip(bytesSource(await Deno.readFile(out)));
          const dirs = archive.entries.filter((e) => e.isDirectory).map((e) => e.name).sort();
          assert.deepEqual(dirs, ["sub/", "sub/deeper/"]);
          const back = await readAll(archive);
          for (const [file, bytes] of files) assert.deepEqual(back.get(file), bytes, file);
        });
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

// ---------------------------------------------------------------------------------------------
// ZIP64 for real: a 4 GiB + 1 MiB entry, written and read without holding it in memory.

/** A ByteSource over a sparse list of segments, where runs of zeros take no memory. */
class SparseSink {
  readonly segments: { offset: number; bytes: Uint8Array | null; length: number }[] = [];
  size = 0;
  add(chunk: Uint8Array, zero: boolean): void {
    const last = this.segments[this.segments.length - 1];
    if (zero && last && last.bytes === null) last.length += chunk.length;
    else {this.segments.push({
        offset: this.size,
        bytes: zero ? null : chunk.slice(),
        length: chunk.length,
      });}
    this.size += chunk.length;
  }
  source(): ByteSource {
    const segments = this.segments;
    return {
      size: this.size,
      read(offset: number, length: number): Promise<Uint8Array> {
        const out = new Uint8Array(length);
        let lo = 0;
        let hi = segments.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (segments[mid]!.offset <= offset) lo = mid;
          else hi = mid - 1;
        }
        for (let i = lo, at = 0; at < length && i < segments.length; i++) {
          const s = segments[i]!;
          const from = Math.max(offset + at, s.offset) - s.offset;
          const take = Math.min(s.length - from, length - at);
          if (s.bytes !== null) out.set(s.bytes.subarray(from, from + take), at);
          at += take;
        }
        return Promise.resolve(out);
      },
    };
  }
}

Deno.test("writeZip() and openZip() handle a real 4 GiB entry with ZIP64 sizes and offsets", async () => {
  const ZERO = new Uint8Array(4 * MiB);
  const size = 4 * 1024 * MiB + MiB; // past 0xFFFFFFFF
  let zeroCrc = 0;
  for (let done = 0; done < size; done += ZERO.length) {
    zeroCrc = nativeCrc32(ZERO.subarray(0, Math.min(ZERO.length, size - done)), zeroCrc);
  }
  const zeros = (): ReadableStream<Uint8Array> => {
    let done = 0;
    return new ReadableStream({
      pull(controller) {
        if (done >= size) return controller.close();
        const take = Math.min(ZERO.length, size - done);
        controller.enqueue(ZERO.subarray(0, take));
        done += take;
      },
    });
  };
  const sink = new SparseSink();
  const stream = writeZip([
    { name: "big.bin", size, crc32: zeroCrc, compress: false, open: zeros },
    { name: "after.txt", bytes: utf8("after the big one") },
  ], { modified: MODIFIED, digests: fastDigests });
  for await (const chunk of stream) sink.add(chunk, chunk.buffer === ZERO.buffer);
  assert.ok(sink.size > size);

  const archive = await openZip(sink.source(), { digests: fastDigests });
  const [big, after] = archive.entries;
  assert.equal(big!.size, size);
  assert.equal(big!.compressedSize, size);
  assert.deepEqual(await archive.read(after!, 100), utf8("after the big one"));
  let seen = 0;
  for await (const chunk of archive.open(big!)) seen += chunk.length;
  assert.equal(seen, size);
  // Version needed 4.5 and a ZIP64 end record.
  const tail = await sink.source().read(sink.size - 98, 98);
  assert.equal(u32(tail, 0), 0x06064b50);
});

// ---------------------------------------------------------------------------------------------
// Reader: refusals

const HELLO = utf8("hello, world\n");

function plain(name: string, content = HELLO): ForgeEntry {
  return { name, data: content };
}

Deno.test("openZip() accepts what the forge writes by default", async () => {
  const deflated = await deflate(HELLO);
  const back = await readZip(forgeZip([
    plain("a"),
    { name: "b", data: deflated, content: HELLO, method: 8 },
    {
      name: "c",
      data: deflated,
      content: HELLO,
      method: 8,
      flags: 0x0808,
      after: descriptor(crc(HELLO), deflated.length, HELLO.length),
    },
    {
      name: "d",
      data: HELLO,
      flags: 0x0808,
      localSize: 13,
      localCompressedSize: 13,
      after: descriptor(crc(HELLO), 13, 13, { signature: false }),
    },
    {
      name: "e",
      data: HELLO,
      flags: 0x0808,
      // 8-byte sizes in the descriptor: the local header has a zip64 extra field.
      localSize: 0xffffffff,
      localCompressedSize: 0xffffffff,
      localExtra: zip64Extra(13, 13),
      after: descriptor(crc(HELLO), 13, 13, { zip64: true }),
    },
    {
      name: "f",
      data: HELLO,
      flags: 0x0808,
      // 8-byte sizes in the descriptor: the local header has a zip64 extra field.
      localSize: 0xffffffff,
      localCompressedSize: 0xffffffff,
      localExtra: zip64Extra(13, 13),
      after: descriptor(crc(HELLO), 13, 13, { zip64: true, signature: false }),
    },
    { name: "g/", madeBy: 0x031e, externalAttributes: (0o040755 << 16) >>> 0 },
    {
      name: "g/h",
      data: HELLO,
      madeBy: 0x031e,
      externalAttributes: (0o100644 << 16) >>> 0,
      comment: utf8("hi"),
    },
    { name: "ü", data: HELLO, extra: unicodePathExtra(utf8("ü"), "ü") },
  ], { comment: utf8("archive comment") }));
  assert.equal(back.size, 9);
  for (const [name, bytes] of back) {
    assert.deepEqual(bytes, name === "g/" ? new Uint8Array(0) : HELLO, name);
  }
});

Deno.test("openZip() reads an archive whose central directory lists the entries in another order than their local records", async () => {
  const entries = ["a", "b", "c", "d"].map((name, i) => ({
    name,
    data: utf8(`${name} `.repeat(i + 1)),
  }));
  const archive = await openZip(bytesSource(forgeZip(entries, { centralOrder: [2, 0, 3, 1] })));
  assert.deepEqual(archive.entries.map((entry) => entry.name), ["c", "a", "d", "b"]);
  for (const entry of archive.entries) {
    const expected = `${entry.name} `.repeat("abcd".indexOf(entry.name) + 1);
    assert.equal(new TextDecoder().decode(await archive.read(entry, 1024)), expected);
  }
});

Deno.test("openZip() gives the archive comment, entry comments and extra fields as raw bytes", async () => {
  const archive = await openZip(bytesSource(forgeZip([
    {
      ...plain("a"),
      comment: utf8("note"),
      extra: extraRecord(0xcafe, utf8("central")),
      localExtra: new Uint8Array([
        ...extraRecord(0xbeef, utf8("local")),
        ...extraRecord(0x5455, new Uint8Array([1, 0, 0, 0, 0])),
      ]),
    },
    plain("b"),
  ], { comment: utf8("archive comment") })));
  assert.deepEqual(archive.comment, utf8("archive comment"));
  assert.deepEqual(archive.metadata(archive.entries[0]!), {
    comment: utf8("note"),
    extraFields: [
      { id: 0xcafe, local: false, bytes: utf8("central") },
      { id: 0xbeef, local: true, bytes: utf8("local") },
      { id: 0x5455, local: true, bytes: new Uint8Array([1, 0, 0, 0, 0]) },
    ],
  });
  assert.deepEqual(archive.metadata(archive.entries[1]!), {
    comment: new Uint8Array(0),
    extraFields: [],
  });
});

Deno.test("openZip() refuses bad entry bodies when they are read", async (t) => {
  const zeros = new Uint8Array(200 * MiB);
  const bomb = await deflate(zeros);
  const deflated = await deflate(HELLO);
  const table: [string, () => Uint8Array, ReadErrorCode, RegExp][] = [
    [
      "corrupt CRC, stored",
      () => forgeZip([{ ...plain("a"), crc32: crc(HELLO) ^ 0x10 }]),
      "zip-crc",
      /CRC-32/,
    ],
    [
      "corrupt CRC, deflated",
      () => forgeZip([{ name: "a", data: deflated, content: HELLO, method: 8, crc32: 1 }]),
      "zip-crc",
      /CRC-32/,
    ],
    [
      "declared size larger than the data",
      () =>
        forgeZip([{
          name: "a",
          data: deflated,
          content: HELLO,
          method: 8,
          size: HELLO.length + 1,
        }]),
      "zip-size",
      /declares 14/,
    ],
    [
      "declared size smaller than the data",
      () =>
        forgeZip([{
          name: "a",
          data: deflated,
          content: HELLO,
          method: 8,
          size: HELLO.length - 1,
        }]),
      "zip-size",
      /more than/,
    ],
    [
      "deflate bomb: 200 MiB of zeros declared as 1 KiB",
      () => forgeZip([{ name: "bomb", data: bomb, method: 8, size: 1024, crc32: 0 }]),
      "zip-size",
      /more than the 1024/,
    ],
    [
      "bytes after the deflate stream",
      () => {
        const data = new Uint8Array([...deflated, 1, 2, 3]);
        return forgeZip([{ name: "a", data, content: HELLO, method: 8 }]);
      },
      "zip-size",
      /past the end of the deflate stream/,
    ],
    [
      "corrupt deflate data",
      () =>
        forgeZip([{
          name: "a",
          data: new Uint8Array([0xff, 0xff, 0xff, 0xff]),
          content: HELLO,
          method: 8,
        }]),
      "zip-crc",
      /corrupt/,
    ],
  ];
  for (const [name, make, code, message] of table) {
    await t.step(name, () => assertRefused(make(), code, message));
  }
  await t.step(
    "stored entry whose sizes differ",
    () => assertRefused(forgeZip([{ ...plain("a"), compressedSize: 12 }]), "zip-size", /stored/),
  );
  await t.step("the bomb stops early", async () => {
    const archive = await openZip(
      bytesSource(forgeZip([{ name: "bomb", data: bomb, method: 8, size: 1024, crc32: 0 }])),
    );
    let delivered = 0;
    await assert.rejects(async () => {
      for await (const chunk of archive.open(archive.entries[0]!)) delivered += chunk.length;
    }, TaskPackReadError);
    assert.ok(delivered <= 1024);
  });
});

Deno.test("openZip() refuses broken or ambiguous structure", async (t) => {
  const a = plain("a");
  const b = plain("b");
  const one = forgeZip([a]);
  const table: [string, () => Uint8Array, RegExp][] = [
    ["not a zip", () => utf8("just some text, no zip here at all"), /no end of central directory/],
    ["too short", () => new Uint8Array(10), /too short/],
    [
      "overlapping entries sharing one body",
      () => forgeZip([a, { ...b, name: "a2", localName: "a", noLocal: true, offset: 0 }]),
      /overlap/,
    ],
    ["entry inside another entry's body", () => {
      const inner = forgeZip([plain("x")]);
      return forgeZip([{ name: "outer", data: inner.subarray(0, 44) }, {
        name: "x",
        noLocal: true,
        data: HELLO,
        offset: 30 + 5,
      }]);
    }, /overlap|no entry/],
    [
      "local and central names differ",
      () => forgeZip([{ ...a, localName: "b" }]),
      /names a different file/,
    ],
    [
      "local and central methods differ",
      () => forgeZip([{ ...a, localMethod: 8 }]),
      /compression method differs/,
    ],
    ["local and central flags differ", () => forgeZip([{ ...a, localFlags: 0 }]), /flags differ/],
    ["local and central sizes differ", () => forgeZip([{ ...a, localSize: 99 }]), /sizes differ/],
    [
      "local and central CRCs differ",
      () => forgeZip([{ ...a, localCrc32: 99 }]),
      /CRC-32 or sizes differ/,
    ],
    [
      "bad local signature",
      () => forgeZip([{ ...a, localSignature: 0x04034b51 }]),
      /local header has a bad signature/,
    ],
    [
      "bad central signature",
      () => forgeZip([{ ...a, centralSignature: 0x02014b51 }]),
      /bad signature/,
    ],
    [
      "entry hidden past the end record's count",
      () => forgeZip([a, b], { count: 1 }),
      /after the 1 entries/,
    ],
    [
      "end record counts an entry that is missing",
      () => forgeZip([a], { count: 2 }),
      /cannot hold|runs past/,
    ],
    [
      "bytes between two records",
      () => forgeZip([{ ...a, after: utf8("smuggled") }, b]),
      /belong to no entry/,
    ],
    [
      "bytes before the central directory",
      () => forgeZip([a], { beforeCentral: utf8("smuggled") }),
      /belong to no entry/,
    ],
    [
      "bytes between the central directory and the end record",
      () => forgeZip([a], { afterCentral: utf8("junk") }),
      /does not end where the end records begin/,
    ],
    ["prefix junk", () => forgeZip([a], { prefix: utf8("MZ prefix") }), /starts with 9 bytes/],
    ["prefix junk, offsets not adjusted", () => {
      const z = forgeZip([{ ...a, offset: 0 }], { prefix: utf8("MZ prefix") });
      return forgeZip([{ ...a, offset: 0 }], {
        prefix: utf8("MZ prefix"),
        cdOffset: indexOfSignature(z, 0x02014b50) - 9,
      });
    }, /does not end where/],
    [
      "trailing junk",
      () => new Uint8Array([...one, 1, 2, 3]),
      /does not reach the end of the file/,
    ],
    [
      "comment length too long",
      () => forgeZip([a], { comment: utf8("abc"), commentLength: 5 }),
      /does not reach the end of the file/,
    ],
    ["two end records that both fit", () => {
      const inner = forgeZip([], {});
      const comment = new Uint8Array([...inner.subarray(0, 20), 0, 0]);
      return forgeZip([a], { comment });
    }, /more than one end of central directory record/],
    ["multi-disk", () => forgeZip([a], { disk: 1 }), /multi-disk/],
    ["central directory offset wrong", () => forgeZip([a], { cdOffset: 1 }), /does not end where/],
    ["count fields disagree", () => forgeZip([a, b], { diskCount: 1 }), /counts/],
    [
      "data descriptor differs",
      () =>
        forgeZip([{
          ...a,
          localSize: 13,
          localCompressedSize: 13,
          flags: 0x0808,
          after: descriptor(crc(HELLO) ^ 1, 13, 13),
        }]),
      /data descriptor differs/,
    ],
    [
      "data descriptor missing",
      () => forgeZip([{ ...a, localSize: 13, localCompressedSize: 13, flags: 0x0808 }]),
      /no room for its data descriptor/,
    ],
    [
      "data descriptor with junk",
      () =>
        forgeZip([{
          ...a,
          localSize: 13,
          localCompressedSize: 13,
          flags: 0x0808,
          after: new Uint8Array([...descriptor(crc(HELLO), 13, 13), 0, 0, 0, 0, 0]),
        }]),
      /fits no data descriptor/,
    ],
    [
      "stored entry with a descriptor and no sizes in its local header",
      () => forgeZip([{ ...a, flags: 0x0808, after: descriptor(crc(HELLO), 13, 13) }]),
      /local header does not give its sizes/,
    ],
    [
      "directory entry with data",
      () => forgeZip([{ name: "d/", data: HELLO }]),
      /directory entry holds data/,
    ],
    ["unsupported flag", () => forgeZip([{ ...a, flags: 0x0820 }]), /unsupported flags/],
    [
      "malformed extra field",
      () => forgeZip([{ ...a, extra: new Uint8Array([1, 0, 9, 0, 1]) }]),
      /extra field/,
    ],
    [
      "zip64 extra field of the wrong length",
      () => forgeZip([{ ...a, size: 0xffffffff, extra: zip64Extra(13, 13) }]),
      /zip64 extra field is 16 bytes where 8/,
    ],
    [
      "zip64 extra field missing",
      () => forgeZip([{ ...a, size: 0xffffffff }]),
      /lacks the zip64 extra field/,
    ],
    [
      "zip64 end record disagrees",
      () => forgeZip([a], { zip64: { markers: false, count: 2 } }),
      /disagree/,
    ],
    [
      "zip64 end record with extensible data",
      () => forgeZip([a], { zip64: { extensible: utf8("xx") } }),
      /unexpected size|locator/,
    ],
    [
      "zip64 locator points elsewhere",
      () => forgeZip([a], { zip64: { recordOffset: 0 } }),
      /locator points/,
    ],
    [
      "zip64 end record has a bad signature",
      () => forgeZip([a], { zip64: { signature: 0x06064b51 } }),
      /bad signature/,
    ],
    ["zip64 multi-disk", () => forgeZip([a], { zip64: { totalDisks: 2 } }), /multi-disk/],
    [
      "entry offset past the central directory",
      () => forgeZip([{ ...a, offset: 10_000 }]),
      /outside/,
    ],
  ];
  for (const [name, make, message] of table) {
    await t.step(name, () => assertRefused(make(), "zip-structure", message));
  }
  await t.step("valid ZIP64 end records are accepted", async () => {
    assert.equal((await readZip(forgeZip([a, b], { zip64: true }))).size, 2);
    assert.equal((await readZip(forgeZip([a, b], { zip64: { markers: false } }))).size, 2);
  });
});

Deno.test("openZip() refuses encryption, other methods and special files", async (t) => {
  const a = plain("a");
  const unix = (mode: number) => ({ ...a, madeBy: 0x0314, externalAttributes: (mode << 16) >>> 0 });
  const table: [string, ForgeEntry, ReadErrorCode][] = [
    ["method 12 (bzip2)", { ...a, method: 12 }, "zip-method"],
    ["method 99 (AES)", { ...a, method: 99 }, "zip-method"],
    ["method 9 (deflate64)", { ...a, method: 9 }, "zip-method"],
    ["encryption flag", { ...a, flags: 0x0801 }, "zip-encrypted"],
    ["strong encryption flag", { ...a, flags: 0x0840 }, "zip-encrypted"],
    ["AES: encrypted, method 99", { ...a, flags: 0x0801, method: 99 }, "zip-encrypted"],
    ["symlink", unix(0o120777), "zip-symlink"],
    ["symlink from macOS", { ...unix(0o120777), madeBy: 0x1314 }, "zip-symlink"],
    ["fifo", unix(0o010644), "zip-symlink"],
    ["block device", unix(0o060644), "zip-symlink"],
    ["directory mode on a file name", unix(0o040755), "zip-symlink"],
    ["symlink mode under an MS-DOS host", { ...unix(0o120777), madeBy: 20 }, "zip-symlink"],
    ["symlink mode under an NTFS host", { ...unix(0o120777), madeBy: 0x0a14 }, "zip-symlink"],
    ["setuid", unix(0o104755), "zip-symlink"],
    ["setgid", unix(0o102755), "zip-symlink"],
    ["non-ASCII name without the UTF-8 flag", { ...a, name: "\u00fc", flags: 0 }, "zip-name"],
    [
      "non-ASCII name without the UTF-8 flag, with an agreeing Unicode path field",
      { ...a, name: "\u00fc", flags: 0, extra: unicodePathExtra(utf8("\u00fc"), "\u00fc") },
      "zip-name",
    ],
  ];
  for (const [name, entry, code] of table) {
    await t.step(name, () => assertRefused(forgeZip([entry]), code));
  }
  await t.step("unix regular files and unknown-type modes are fine", async () => {
    assert.equal(
      (await readZip(forgeZip([unix(0o100644), { ...unix(0o644), name: "b" }]))).size,
      2,
    );
  });
});

Deno.test("openZip() refuses unsafe and clashing names", async (t) => {
  const table: [string, (string | Uint8Array)[], ReadErrorCode, RegExp?][] = [
    ["dot dot", ["../evil"], "zip-name", /"\.\."/],
    ["dot dot inside", ["a/../../evil"], "zip-name"],
    ["dot", ["a/./b"], "zip-name"],
    ["absolute", ["/etc/passwd"], "zip-name", /absolute/],
    ["backslash", ["a\\..\\b"], "zip-name", /backslash/],
    ["drive letter", ["C:/x"], "zip-name", /drive/],
    ["drive letter, relative", ["c:x"], "zip-name", /drive/],
    ["NUL", ["a\u0000b"], "zip-name", /control/],
    ["C0 control", ["a\u001bb"], "zip-name", /control/],
    ["DEL", ["a\u007f"], "zip-name", /control/],
    ["C1 control", ["a\u0085"], "zip-name", /control/],
    ["empty segment", ["a//b"], "zip-name", /empty segment/],
    ["empty name", [""], "zip-name", /empty/],
    ["two trailing slashes", ["a//"], "zip-name"],
    ["non-UTF-8", [new Uint8Array([0x61, 0xff, 0x62])], "zip-name", /UTF-8/],
    ["overlong UTF-8", [new Uint8Array([0xc0, 0xaf])], "zip-name", /UTF-8/],
    ["encoded surrogate", [new Uint8Array([0xed, 0xa0, 0x80])], "zip-name", /UTF-8/],
    [
      "too long",
      ["x".repeat(1025)],
      "zip-name",
      /1025 bytes, over the limit of 1024 \(raise maxNameBytes\)/,
    ],
    [
      "too deep",
      [Array.from({ length: 65 }, () => "d").join("/")],
      "zip-name",
      /65 levels deep.*raise maxDepth/,
    ],
    ["duplicate", ["a", "a"], "zip-duplicate-name", /twice/],
    ["file and directory entry", ["a", "a/"], "zip-duplicate-name", /directory|file/],
    ["file that is a folder of another", ["a", "a/b"], "zip-duplicate-name", /is a file/],
    ["file that is a folder, other order", ["x/a/b", "x/a"], "zip-duplicate-name", /is a file/],
  ];
  for (const [name, names, code, message] of table) {
    await t.step(
      name,
      () =>
        assertRefused(
          forgeZip(names.map((n) => (typeof n === "string" && n.endsWith("/")
            ? { name: n }
            : { ...plain("x"), name: n })
          )),
          code,
          message,
        ),
    );
  }
  await t.step("names equal only under case folding or NFC are two entries", async () => {
    const names = ["README", "readme", "caf\u00e9", "cafe\u0301", "\u212a", "k", "X/A", "x/a/b"];
    const archive = await openZip(
      bytesSource(forgeZip(names.map((n) => ({ ...plain("x"), name: n })))),
    );
    assert.deepEqual(archive.entries.map((e) => e.name), names);
  });
  await t.step("Unicode path extra field that disagrees", () =>
    assertRefused(
      forgeZip([{ ...plain("a.txt"), extra: unicodePathExtra(utf8("a.txt"), "../b.txt") }]),
      "zip-name",
      /Unicode path/,
    ));
  await t.step("directory entries and folders that are only implied are fine", async () => {
    const back = await readZip(
      forgeZip([{ name: "a/" }, plain("a/b"), plain("a/c/d"), plain("ab"), plain("a-b")]),
    );
    assert.equal(back.size, 5);
  });
  await t.step("zipNameProblem() and the writer agree", () => {
    assert.equal(zipNameProblem("data/files/ok.txt", DEFAULT_ZIP_LIMITS), null);
    assert.notEqual(zipNameProblem("a\ud800", DEFAULT_ZIP_LIMITS), null);
  });
});

Deno.test("openZip() enforces its limits before inflating", async (t) => {
  const a = plain("a");
  const many = Array.from({ length: 11 }, (_, i) => plain(`f${i}`));
  const table: [string, () => Uint8Array, Partial<ZipLimits>, RegExp][] = [
    [
      "too many entries",
      () => forgeZip(many),
      { maxEntries: 10 },
      /^Cannot read taskpack: entry count 11 is over the limit of 10 \(raise maxEntries\)$/,
    ],
    [
      "entry too large",
      () => forgeZip([a]),
      { maxEntrySize: 12 },
      /entry size 13 is over the limit of 12 \(raise maxEntrySize\)/,
    ],
    [
      "total too large",
      () => forgeZip(many),
      { maxTotalSize: 100 },
      /total size 104 is over the limit of 100 \(raise maxTotalSize\)/,
    ],
    [
      "ratio too high",
      () =>
        forgeZip([{ name: "z", data: new Uint8Array(100), method: 8, size: 2 * MiB, crc32: 0 }]),
      {},
      /compression ratio 20972 is over the limit of 1100 \(raise maxRatio\)/,
    ],
    [
      "ratio of a 200 MiB bomb",
      () =>
        forgeZip([{
          name: "z",
          data: new Uint8Array(100 * 1024),
          method: 8,
          size: 200 * MiB + 1,
          crc32: 0,
        }]),
      {},
      /compression ratio 2048 is over the limit of 1100/,
    ],
    [
      "name too long, custom limit",
      () => forgeZip([plain("abcdef")]),
      { maxNameBytes: 5 },
      /raise maxNameBytes/,
    ],
  ];
  for (const [name, make, limits, message] of table) {
    await t.step(name, async () => {
      const code: ReadErrorCode = /maxNameBytes/.test(message.source) ? "zip-name" : "limit";
      await assertRefused(make(), code, message, limits);
    });
  }
  await t.step("read() refuses entries over maxBytes before reading", async () => {
    const archive = await openZip(bytesSource(forgeZip([a])));
    await assert.rejects(
      archive.read(archive.entries[0]!, 12),
      (error: unknown) => error instanceof TaskPackReadError && error.code === "limit",
    );
  });
  await t.step("open() refuses entries of another archive", async () => {
    const archive = await openZip(bytesSource(forgeZip([a])));
    const other = await openZip(bytesSource(forgeZip([a])));
    assert.throws(() => archive.open(other.entries[0]!), TypeError);
  });
});

Deno.test("openZip() passes the source's own errors through", async () => {
  const bytes = forgeZip([plain("a")]);
  const failure = new Error("disk on fire");
  let reads = 0;
  const source: ByteSource = {
    size: bytes.length,
    read(offset, length) {
      if (++reads > 3) return Promise.reject(failure);
      return bytesSource(bytes).read(offset, length);
    },
  };
  const archive = await openZip(source);
  await assert.rejects(
    archive.read(archive.entries[0]!, 100),
    (error: unknown) => error === failure,
  );
});

// Keep the forge's small helpers exercised so their shape stays honest.
Deno.test("the forge writes raw little-endian records", () => {
  assert.deepEqual(new LE().u16(0x0102).u32(0x03040506).bytes, new Uint8Array([2, 1, 6, 5, 4, 3]));
  assert.deepEqual(extraRecord(0x0001, new Uint8Array([9])), new Uint8Array([1, 0, 1, 0, 9]));
});

/** A source over bytes that can also read into a buffer it is given, as a file can. */
function readIntoSource(bytes: Uint8Array): ByteSource & {
  readInto(offset: number, target: Uint8Array): Promise<void>;
} {
  return {
    ...bytesSource(bytes),
    readInto(offset, target) {
      if (offset + target.length > bytes.length) return Promise.reject(new RangeError("past end"));
      target.set(bytes.subarray(offset, offset + target.length));
      return Promise.resolve();
    },
  };
}

Deno.test("a deflated entry must end exactly where its data does, small or large, in one pass", async (t) => {
  const native = nativeInflater();
  assert.ok(
    native?.inflateStream,
    "node:zlib is strict (by what it consumes), so the shell streams with it",
  );
  assert.ok(native?.inflateSteps, "and it can inflate step by step into the reader's buffers");
  // Which way each read went: step by step (a source that reads into buffers), or streamed.
  let steps = 0;
  const counting = { ...native, inflateSteps: () => (steps++, native.inflateSteps!()) };
  // Deno's inflater accepts a stream cut short; the reader must not.
  const random = new Uint8Array(300_000);
  for (let i = 0; i < random.length; i += 65_536) {
    crypto.getRandomValues(random.subarray(i, i + 65_536));
  }
  // Over 256 KiB deflated, so that it streams rather than inflating in one call.
  const text = utf8(
    Array.from({ length: 120_000 }, (_, i) => `${i * 7919 % 100_003} a log line\n`).join(""),
  );
  for (
    const [label, content] of [["hello", utf8("hello")], ["random", random], [
      "text",
      text,
    ]] as const
  ) {
    const whole = await deflate(content);
    const cases: [string, Uint8Array, ReadErrorCode | null][] = [
      ["whole", whole, null],
      ["bytes after the end", new Uint8Array([...whole, 1, 2, 3]), "zip-size"],
      ["one zero byte after the end", new Uint8Array([...whole, 0]), "zip-size"],
      ["cut short by one byte", whole.subarray(0, -1), "zip-crc"],
      ["cut in half", whole.subarray(0, whole.length >> 1), "zip-crc"],
      ["declaring one byte less", whole, "zip-size"],
    ];
    for (
      const [[name, data, code], way] of cases.flatMap((c) =>
        (["platform", "stream", "steps"] as const).map((w) => [c, w] as const)
      )
    ) {
      const by = way === "platform" ? "the platform" : `node:zlib (${way})`;
      await t.step(`${label} (${content.length} bytes), ${name}, by ${by}`, async () => {
        const size = name === "declaring one byte less" ? content.length - 1 : content.length;
        const bytes = forgeZip([{ name: "f", method: 8, data, content, size }]);
        const source = way === "steps" ? readIntoSource(bytes) : bytesSource(bytes);
        const before = steps;
        const zip = await openZip(source, way === "platform" ? {} : { inflater: counting });
        const outcome = await zip.read(zip.entries[0]!, Infinity).then(
          (read) => ({ read, error: null }),
          (error: unknown) => ({ read: null, error }),
        );
        // Entries over 256 KiB deflated stream: step by step when the source reads into
        // buffers. Smaller ones are inflated in one call, whichever way.
        const streamed = data.length > 256 * 1024;
        assert.equal(steps - before, way === "steps" && streamed ? 1 : 0);
        if (code === null) assert.deepEqual(outcome.read, content);
        else {
          assert.ok(outcome.error instanceof TaskPackReadError, String(outcome.error));
          assert.equal(outcome.error.code, code, outcome.error.message);
        }
      });
    }
  }
  assert.ok(steps >= 8, `${steps} entries went step by step`);
});

Deno.test("a large deflated entry is inflated step by step straight into the buffer its reader brings, and its bytes are the entry's", async () => {
  const native = nativeInflater()!;
  const content = utf8(
    Array.from({ length: 200_000 }, (_, i) => `${i * 7919 % 100_003} a log line\n`).join(""),
  );
  const data = await deflate(content);
  assert.ok(data.length > 256 * 1024, "large enough to stream");
  const zip = await openZip(readIntoSource(forgeZip([{ name: "f", method: 8, data, content }])), {
    inflater: native,
  });
  const reader = zip.open(zip.entries[0]!).getReader({ mode: "byob" });
  let buffer = new ArrayBuffer(64 * 1024);
  const got: Uint8Array[] = [];
  while (true) {
    const { done, value } = await reader.read(new Uint8Array(buffer));
    if (done) break;
    // The bytes arrive in the buffer that was brought (moved, as BYOB reads move it).
    assert.equal(value.byteOffset, 0);
    assert.equal(value.buffer.byteLength, 64 * 1024);
    got.push(value.slice());
    buffer = value.buffer as ArrayBuffer;
  }
  assert.deepEqual(concatBytes(got), content);
});

Deno.test("inflating step by step and streaming agree on every large entry, whole or damaged: the same bytes, or both refuse it", async () => {
  const native = nativeInflater()!;
  // Over 256 KiB deflated, so that both ways stream: random bytes, then text.
  const random = new Uint8Array(280_000);
  for (let i = 0; i < random.length; i += 65_536) {
    crypto.getRandomValues(random.subarray(i, i + 65_536));
  }
  const content = concatBytes([random, utf8("a line of a log\n".repeat(20_000))]);
  const whole = await deflate(content);
  const outcome = async (bytes: Uint8Array, steps: boolean) => {
    const source = steps ? readIntoSource(bytes) : bytesSource(bytes);
    try {
      const zip = await openZip(source, { inflater: native });
      return { bytes: await zip.read(zip.entries[0]!, Infinity) };
    } catch (error) {
      return { error: error instanceof TaskPackReadError ? error : String(error) };
    }
  };
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.record({ kind: fc.constant("cut" as const), at: fc.nat({ max: whole.length - 1 }) }),
        fc.record({
          kind: fc.constant("flip" as const),
          at: fc.nat({ max: whole.length - 1 }),
          mask: fc.integer({ min: 1, max: 255 }),
        }),
        fc.record({
          kind: fc.constant("after" as const),
          extra: fc.uint8Array({ minLength: 1, maxLength: 8 }),
        }),
        fc.record({ kind: fc.constant("whole" as const) }),
      ),
      async (damage) => {
        const data = damage.kind === "cut"
          ? whole.subarray(0, damage.at)
          : damage.kind === "flip"
          ? whole.map((b, i) => i === damage.at ? b ^ damage.mask : b)
          : damage.kind === "after"
          ? concatBytes([whole, damage.extra])
          : whole;
        const bytes = forgeZip([{ name: "f", method: 8, data, content }]);
        const streamed = await outcome(bytes, false);
        const stepped = await outcome(bytes, true);
        if ("bytes" in streamed || "bytes" in stepped) {
          assert.deepEqual(stepped, streamed);
        } else {
          const [a, b] = [stepped.error, streamed.error];
          assert.ok(
            a instanceof TaskPackReadError && b instanceof TaskPackReadError,
            `${a} / ${b}`,
          );
          // One damage can do two things: inflate past the declared size, then hit corrupt data.
          // The step way (as the one-shot way) names whichever comes first in the stream; the
          // stream way looks at its output a piece of input (1 to 16 KiB) at a time, and may
          // name the corruption first. Any other disagreement is a bug.
          if (a.code !== b.code) {
            assert.match(a.message, /inflates to more than/);
            assert.match(b.message, /deflate data is corrupt/);
          }
        }
        if (damage.kind === "whole") assert.deepEqual(stepped, { bytes: content });
      },
    ),
    { numRuns: 60 },
  );
});
