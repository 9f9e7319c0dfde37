// Copyright 2026 the taskpack authors. MIT license.
// The fast paths of issue 8 give the same answers as the slow ones: the binary scanner's skip,
// the worker deflater, the file layer's block cache and small-file reads, and progress counts.
import assert from "node:assert/strict";
import { inflateRawSync } from "node:zlib";
import { join } from "node:path";
import {
  auditLuggage,
  buildPackObject,
  decodePack,
  encodeBag,
  encodeBagInto,
  findCredential,
  judge,
  luggageFromBytes,
  preparePack,
  type Progress,
  TextScanner,
} from "../mod.ts";
import { deflatePool } from "../shell/workers/deflate_pool.ts";
import {
  fileStream,
  openFileSource,
  walkLuggage,
  writeFileAtomic,
  writeNewFile,
} from "../shell/host/files.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";
import { streamBytes, tempDir } from "./_helpers.ts";

/** xorshift32, seeded. */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0 || 1;
  return (n) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  };
}

const TOKENS = [
  "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
  "AK" + "IA" + "ABCDEFGHIJKLMNOP",
  "-----BEGIN RSA PRIV" + "ATE KEY-----\nMIIEowIBAAKCAQEAx1y2z3abcdefghijklmnopqrstuvwxyz0123",
  "xo" + "xb-1234567890-abcdefghijklmnopqrst",
  "sk" + "-ant-api03-" + "x".repeat(40),
  "123456789:A" + "A" + "b".repeat(33),
];
const ZERO_WIDTH = [[0xc2, 0xad], [0xe2, 0x80, 0x8b], [0xef, 0xbb, 0xbf], [0xe2, 0x81, 0xa0]];

/** A binary file: random bytes, short ASCII runs, zero-width characters, maybe tokens. */
function binaryFile(next: (n: number) => number): Uint8Array {
  const out: number[] = [0];
  const size = 8192 + next(120_000);
  while (out.length < size) {
    const r = next(1000);
    if (r < 8) out.push(...ZERO_WIDTH[next(ZERO_WIDTH.length)]!);
    else if (r < 20) { for (let i = next(30); i > 0; i--) out.push(0x41 + next(26)); }
    else if (r < 30) out.push(0x0a);
    else out.push(next(256));
  }
  for (let k = next(3); k > 0; k--) {
    const token = new TextEncoder().encode(TOKENS[next(TOKENS.length)]!);
    const cut = next(token.length);
    const piece: number[] = [];
    token.forEach((byte, i) => {
      if (i === cut && next(2)) piece.push(...ZERO_WIDTH[next(ZERO_WIDTH.length)]!);
      piece.push(byte);
    });
    out.splice(1 + next(out.length - 1), 0, ...piece);
  }
  return new Uint8Array(out);
}

/** What scanning a binary file must find: its one-character-per-byte text, scanned whole. */
function expectedBinaryFinding(bytes: Uint8Array): unknown {
  let text = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) {
      text += String.fromCharCode(b);
      continue;
    }
    const zw = ZERO_WIDTH.find((seq) => seq.every((v, j) => bytes[i + j] === v));
    if (zw) {
      text += "\u00ad".repeat(zw.length);
      i += zw.length - 1;
    } else {
      text += "\u0000";
    }
  }
  const found = findCredential(text);
  if (!found) return null;
  const line = text.slice(0, found.index).split("\n").length;
  return { ...found, line };
}

Deno.test("the binary scanner's skip finds exactly what a whole scan finds, at any chunking", () => {
  const next = rng(0x5ca9);
  let findings = 0;
  for (let round = 0; round < 250; round++) {
    const bytes = binaryFile(next);
    const expected = expectedBinaryFinding(bytes);
    if (expected) findings++;
    const step = [1 + next(40), 1 + next(5000), 1 + next(70_000)][round % 3]!;
    const scanner = new TextScanner();
    for (let at = 0; at < bytes.length; at += step) scanner.push(bytes.subarray(at, at + step));
    const { finding, text } = scanner.finish();
    assert.equal(text, false);
    assert.deepEqual(finding, expected, `round ${round}, chunks of ${step}`);
  }
  assert.ok(findings > 50 && findings < 250, `${findings} rounds with a finding`);
});

Deno.test("a token split across 1 MiB chunks of random bytes is found, with its line", () => {
  const next = rng(7);
  const bytes = new Uint8Array(3 << 20);
  for (let i = 0; i < bytes.length; i++) bytes[i] = next(256) | 0x80; // no ASCII, no newline
  bytes[5] = 0;
  const token = new TextEncoder().encode("\n\nexport KEY=" + TOKENS[0]! + "\n");
  const at = (2 << 20) - 20; // across the second chunk boundary
  bytes.set(token, at);
  const scanner = new TextScanner();
  for (let i = 0; i < bytes.length; i += 1 << 20) scanner.push(bytes.subarray(i, i + (1 << 20)));
  const { finding } = scanner.finish();
  assert.deepEqual(finding, {
    rule: "credential",
    kind: "github-token",
    index: at + 13,
    line: 3,
  });
});

Deno.test("the worker deflater's output depends only on the bytes, and inflates back", async () => {
  const next = rng(99);
  const text = new TextEncoder().encode(
    Array.from({ length: 120_000 }, (_, i) => `line ${i} value ${next(1000)}\n`).join(""),
  );
  const outputs: Uint8Array[] = [];
  for (const workers of [0, 1, 2]) {
    const pool = deflatePool({ workers });
    try {
      outputs.push(await pool.deflate(text));
      for (const step of [65_536, 1_000_003]) {
        const pieces = [];
        for (let i = 0; i < text.length; i += step) pieces.push(text.subarray(i, i + step));
        outputs.push(
          await streamBytes(ReadableStream.from(pieces).pipeThrough(pool.deflateStream())),
        );
      }
      const small = await Promise.all(
        Array.from({ length: 50 }, (_, i) => pool.deflate(text.subarray(i * 100, i * 100 + 999))),
      );
      small.forEach((packed, i) => {
        assert.deepEqual(
          new Uint8Array(inflateRawSync(packed)),
          text.subarray(i * 100, i * 100 + 999),
        );
      });
    } finally {
      pool.close();
    }
  }
  for (const out of outputs) assert.deepEqual(out, outputs[0]);
  assert.deepEqual(new Uint8Array(inflateRawSync(outputs[0]!)), text);
  const empty = deflatePool({ workers: 1 });
  try {
    const packed = await streamBytes(ReadableStream.from([]).pipeThrough(empty.deflateStream()));
    assert.equal(inflateRawSync(packed).length, 0);
  } finally {
    empty.close();
  }
  const closed = deflatePool({ workers: 1 });
  closed.close();
  await assert.rejects(closed.deflate(text), /closed/);
});

Deno.test("a bag made with the worker deflater is the same file, and judges conformant", async () => {
  const next = rng(3);
  const big = new TextEncoder().encode("x=1 y=2\n".repeat(600_000));
  const luggage = [
    luggageFromBytes("big.log", big),
    ...Array.from({ length: 40 }, (_, i) => luggageFromBytes(`small/${i}.txt`, `n ${next(99)}\n`)),
  ];
  const object = buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, {
    packedAt: "2026-12-02T16:46:10Z",
    machine: "vm",
  });
  const bags: Uint8Array[] = [];
  for (const workers of [0, 2]) {
    const deflater = deflatePool({ workers });
    try {
      const ready = await preparePack(object, luggage, { digests: nativeDigests, deflater });
      bags.push(await streamBytes(encodeBag(ready, { digests: nativeDigests, deflater })));
    } finally {
      deflater.close();
    }
  }
  assert.deepEqual(bags[0], bags[1]);
  const report = await judge(bags[0]!, { digests: nativeDigests });
  assert.equal(report.ok, true, JSON.stringify(report.checks.filter((c) => !c.ok)));
  const plain = await streamBytes(encodeBag(await preparePack(object, luggage)));
  assert.equal((await judge(plain)).digest, report.digest);
});

Deno.test("progress counts reach the totals while packing, writing and checking", async () => {
  const luggage = [
    luggageFromBytes("a.bin", new Uint8Array(3 << 20).fill(7)),
    luggageFromBytes("b.txt", "hello\n"),
    luggageFromBytes("c/d.txt", ""),
  ];
  const total = (3 << 20) + 6;
  const object = buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, {
    packedAt: "2026-12-02T16:46:10Z",
    machine: "vm",
  });
  const seen: Record<string, Progress[]> = { prepare: [], write: [], audit: [] };
  const ready = await preparePack(object, luggage, { onProgress: (p) => seen.prepare!.push(p) });
  const bag = await streamBytes(encodeBag(ready, { onProgress: (p) => seen.write!.push(p) }));
  await auditLuggage(await decodePack(bag), { onProgress: (p) => seen.audit!.push(p) });
  for (const [phase, list] of Object.entries(seen)) {
    const last = list.at(-1)!;
    assert.deepEqual(last, { bytes: total, totalBytes: total, files: 3, totalFiles: 3 }, phase);
    for (let i = 1; i < list.length; i++) {
      assert.ok(list[i]!.bytes >= list[i - 1]!.bytes && list[i]!.files >= list[i - 1]!.files);
    }
  }
});

Deno.test("the file layer: folders in order, block-cached reads, small files, new files", async () => {
  const dir = await tempDir({ prefix: "taskpack-files-" });
  try {
    await Deno.mkdir(join(dir, "tree/b/c"), { recursive: true });
    await Deno.writeTextFile(join(dir, "tree/b/c/z.txt"), "zz");
    await Deno.writeTextFile(join(dir, "tree/a.txt"), "a");
    const big = new Uint8Array(200_000).map((_, i) => i % 251);
    await Deno.writeFile(join(dir, "tree/big.bin"), big);
    await Deno.symlink(join(dir, "tree/a.txt"), join(dir, "tree/link"));
    await Deno.symlink(join(dir, "tree/b"), join(dir, "tree/folder-link"));
    await Deno.writeTextFile(join(dir, "tree/B.txt"), "B");
    await Deno.writeTextFile(join(dir, "tree/é.txt"), "é");
    const skipped: string[] = [];
    const { luggage } = walkLuggage([join(dir, "tree")], { onSkip: (path) => skipped.push(path) });
    // In code unit order ("B" before "a"), links to files and to folders skipped.
    assert.deepEqual(luggage.map((f) => [f.name, f.size]), [
      ["tree/B.txt", 1],
      ["tree/a.txt", 1],
      ["tree/b/c/z.txt", 2],
      ["tree/big.bin", 200_000],
      ["tree/é.txt", 2],
    ]);
    assert.deepEqual(skipped, [join(dir, "tree/folder-link"), join(dir, "tree/link")]);
    assert.deepEqual(await streamBytes(luggage[3]!.open()), big);
    assert.equal(new TextDecoder().decode(await streamBytes(luggage[2]!.open())), "zz");
    // A file that grew after it was listed is read to its end (the core then refuses it).
    await Deno.writeFile(join(dir, "tree/big.bin"), new Uint8Array(200_010));
    assert.equal(
      (await streamBytes(fileStream(join(dir, "tree/big.bin"), 200_000))).length,
      200_010,
    );
    assert.throws(() => walkLuggage([join(dir, "missing")]), { code: "ENOENT" });

    const source = await openFileSource(join(dir, "tree/big.bin"));
    try {
      const all = await Deno.readFile(join(dir, "tree/big.bin"));
      const next = rng(11);
      for (let i = 0; i < 300; i++) {
        const offset = next(all.length);
        const length = Math.min(all.length - offset, next(3) ? next(100) : next(100_000));
        assert.deepEqual(await source.read(offset, length), all.subarray(offset, offset + length));
      }
      await assert.rejects(source.read(all.length - 1, 2), RangeError);
    } finally {
      await source.close();
    }

    const made = join(dir, "new.bin");
    await writeNewFile(made, ReadableStream.from([new Uint8Array([1, 2]), new Uint8Array([3])]));
    assert.deepEqual(await Deno.readFile(made), new Uint8Array([1, 2, 3]));
    await assert.rejects(writeNewFile(made, ReadableStream.from([new Uint8Array([9])])));
    await assert.rejects(
      writeNewFile(join(dir, "tree/link"), ReadableStream.from([new Uint8Array([9])])),
    );
    assert.equal(await Deno.readTextFile(join(dir, "tree/a.txt")), "a");
    await writeFileAtomic(made, "replaced");
    assert.equal(await Deno.readTextFile(made), "replaced");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writing into a sink gives the stream's bytes, stored luggage read through one buffer", async () => {
  const dir = await tempDir({ prefix: "taskpack-sink-" });
  try {
    const next = rng(5);
    const random = new Uint8Array(3 * (1 << 20) + 17).map(() => next(256));
    await Deno.writeFile(join(dir, "random.bin"), random);
    await Deno.writeTextFile(join(dir, "note.txt"), "short note\n");
    const { luggage } = walkLuggage([join(dir, "random.bin"), join(dir, "note.txt")]);
    const object = buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, {
      packedAt: "2026-12-02T16:46:10Z",
      machine: "vm",
    });
    const ready = await preparePack(object, luggage, { digests: nativeDigests });
    assert.equal(ready.luggage[0]!.compress, false);
    const streamed = await streamBytes(encodeBag(ready, { digests: nativeDigests }));
    const parts: Uint8Array[] = [];
    await encodeBagInto(ready, (chunk) => void parts.push(chunk.slice()), {
      digests: nativeDigests,
    });
    const total = parts.reduce((sum, part) => sum + part.length, 0);
    const sunk = new Uint8Array(total);
    let at = 0;
    for (const part of parts) {
      sunk.set(part, at);
      at += part.length;
    }
    assert.deepEqual(sunk, streamed);
    const target = join(dir, "out.taskpack");
    await writeFileAtomic(target, (write) => encodeBagInto(ready, write));
    assert.deepEqual(await Deno.readFile(target), await streamBytes(encodeBag(ready)));
    assert.equal((await judge(await Deno.readFile(target))).ok, true);
    // A file that changes between hashing and writing is refused in this mode too.
    await Deno.writeFile(join(dir, "random.bin"), random.map((b) => b ^ 1));
    await assert.rejects(encodeBagInto(ready, () => {}), /changed while packing/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
