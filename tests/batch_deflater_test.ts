// Copyright 2026 the taskpack authors. MIT license.
// The batch deflater (many small files deflated on another core) gives exactly the bytes of
// deflating on the calling thread, whatever the batching, and still does when its worker fails.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { deflateRawSmall } from "../lib/zip/deflate.ts";
import { type Deflater, platformDeflater, SMALL_DEFLATE } from "../lib/zip/deflate.ts";
import { batchDeflater } from "../shell/workers/batch_deflater.ts";
import { MANY_SMALL_FILES } from "../app/codecs.ts";
import { cli } from "./_cli.ts";
import { tempDir } from "./_helpers.ts";

/** Entries of any size up to a little over the small limit: text-like, or random. */
const entry = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 2048 }),
  fc.tuple(fc.string({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 600 })).map(
    ([line, times]) => new TextEncoder().encode(line.repeat(times)).subarray(0, SMALL_DEFLATE + 99),
  ),
).filter((bytes) => bytes.length > 0);

/** What the calling thread alone makes of `bytes`. */
function expected(bytes: Uint8Array): Promise<Uint8Array> {
  return bytes.length <= SMALL_DEFLATE
    ? Promise.resolve(deflateRawSmall(bytes))
    : platformDeflater.deflate(bytes);
}

Deno.test("batches on a worker give the calling thread's bytes, for any entries and batch size", async () => {
  for (const batchBytes of [1, 3000, 64 * 1024]) {
    const deflater = batchDeflater(platformDeflater, { batchBytes });
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 40 }), async (entries) => {
          // All at once, as a pack asks for them, so that batches really form.
          const outputs = await Promise.all(entries.map((bytes) => deflater.deflate(bytes)));
          for (let i = 0; i < entries.length; i++) {
            assert.deepEqual(outputs[i], await expected(entries[i]!));
          }
        }),
        { numRuns: 40 },
      );
    } finally {
      deflater.close();
    }
  }
});

Deno.test("a worker that fails costs only time: every entry is still deflated, to the same bytes", async () => {
  const deflater = batchDeflater(platformDeflater, {
    batchBytes: 100,
    worker: new URL("./_failing_start_worker.ts", import.meta.url),
  });
  try {
    const entries = Array.from(
      { length: 300 },
      (_, i) => new TextEncoder().encode(`entry ${i} `.repeat(1 + (i % 50))),
    );
    const outputs = await Promise.all(entries.map((bytes) => deflater.deflate(bytes)));
    outputs.forEach((out, i) => assert.deepEqual(out, deflateRawSmall(entries[i]!)));
  } finally {
    deflater.close();
  }
});

Deno.test("closing fails what is still waiting, refuses more, and closes the deflater inside", async () => {
  let innerClosed = false;
  const inner: Deflater & { close(): void } = {
    ...platformDeflater,
    close() {
      innerClosed = true;
    },
  };
  const deflater = batchDeflater(inner, { batchBytes: 1 << 20 });
  const waiting = deflater.deflate(new TextEncoder().encode("never sent"));
  deflater.close();
  await assert.rejects(waiting, /closed/);
  await assert.rejects(deflater.deflate(new Uint8Array([1, 2, 3])), /closed/);
  assert.equal(innerClosed, true);
});

Deno.test("the CLI packs, and converts, many small files deflated on another core: same entries, same deflated bytes", async () => {
  const dir = await tempDir();
  try {
    const tree = `${dir}/tree`;
    const count = MANY_SMALL_FILES + 10;
    for (let i = 0; i < count; i++) {
      const folder = `${tree}/d${i % 7}`;
      if (i < 7) await Deno.mkdir(folder, { recursive: true });
      Deno.writeFileSync(
        `${folder}/f${i}.txt`,
        new TextEncoder().encode(`line ${i}\n`.repeat(i % 40)),
      );
    }
    const made = await cli([
      "new",
      "--title",
      "t",
      "--goal",
      "g",
      "--store",
      `${dir}/store`,
      "--json",
    ], {
      cwd: dir,
    });
    const id = made.json().passport_id;
    const packed = await cli(
      [
        "pack",
        id,
        "--store",
        `${dir}/store`,
        "--out",
        `${dir}/p.taskpack`,
        "--file",
        tree,
        "--json",
      ],
      { cwd: dir },
    );
    assert.equal(packed.code, 0, packed.stderr);
    assert.equal(packed.json().luggage.length, count);

    // Every deflated entry holds exactly what the core's encoder makes of the file: packed
    // (read ahead and deflated by one worker), and converted to the flat form and back (the
    // batches of the batch deflater).
    await checkDeflated(`${dir}/p.taskpack`, dir);
    for (
      const [from, to] of [["p.taskpack", "p.taskpack.json"], ["p.taskpack.json", "q.taskpack"]]
    ) {
      const converted = await cli(
        ["convert", `${dir}/${from}`, "--out", `${dir}/${to}`, "--json"],
        {
          cwd: dir,
        },
      );
      assert.equal(converted.code, 0, converted.stderr);
    }
    await checkDeflated(`${dir}/q.taskpack`, dir);

    const landed = await cli(
      [
        "land",
        `${dir}/p.taskpack`,
        "--store",
        `${dir}/home`,
        "--files-out",
        `${dir}/out`,
        "--json",
      ],
      { cwd: dir },
    );
    assert.equal(landed.code, 0, landed.stderr);
    for (const i of [0, 1, 39, count - 1]) {
      const rel = `tree/d${i % 7}/f${i}.txt`;
      assert.deepEqual(
        await Deno.readFile(`${dir}/out/${rel}`),
        await Deno.readFile(`${dir}/${rel}`),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Checks that every deflated luggage entry of a pack is the core encoder's output for its file. */
async function checkDeflated(pack: string, dir: string): Promise<void> {
  const zip = await Deno.readFile(pack);
  const view = new DataView(zip.buffer);
  let checked = 0;
  for (let at = 0; view.getUint32(at, true) === 0x04034b50;) {
    const method = view.getUint16(at + 8, true);
    const compressed = view.getUint32(at + 18, true);
    const nameLength = view.getUint16(at + 26, true);
    const extra = view.getUint16(at + 28, true);
    const name = new TextDecoder().decode(zip.subarray(at + 30, at + 30 + nameLength));
    const data = zip.subarray(
      at + 30 + nameLength + extra,
      at + 30 + nameLength + extra + compressed,
    );
    if (name.startsWith("data/files/") && method === 8) {
      const original = await Deno.readFile(`${dir}/${name.slice("data/files/".length)}`);
      assert.deepEqual(data, deflateRawSmall(original), name);
      checked++;
    }
    at += 30 + nameLength + extra + compressed;
  }
  assert.ok(checked > MANY_SMALL_FILES / 2, `only ${checked} entries were deflated`);
}
