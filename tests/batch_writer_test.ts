// Copyright 2026 the taskpack authors. MIT license.
// Creating thousands of small files on a worker: every file lands with its bytes, a failure is
// reported with its path and nothing more is written after it, and landing cleans up after one.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { batchWriter } from "../shell/workers/batch_writer.ts";
import { extractLuggage } from "../app/luggage_out.ts";
import { MANY_SMALL_FILES } from "../app/codecs.ts";
import { luggageFromBytes } from "../mod.ts";
import type { ReadLuggage } from "../lib/format/read.ts";
import { inTempDir } from "./_helpers.ts";

Deno.test("every file is created with its bytes, and progress counts them all", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 3000 }), { minLength: 1, maxLength: 700 }),
      async (contents) => {
        await inTempDir(async (dir) => {
          let files = 0;
          let bytes = 0;
          const writer = batchWriter({
            onWritten(f, b) {
              files += f;
              bytes += b;
            },
          })!;
          try {
            for (let i = 0; i < contents.length; i++) {
              await writer.write(`${dir}/${i}.bin`, contents[i]!);
            }
            await writer.finish();
          } finally {
            writer.close();
          }
          for (let i = 0; i < contents.length; i++) {
            assert.deepEqual(await Deno.readFile(`${dir}/${i}.bin`), contents[i]);
          }
          assert.equal(files, contents.length);
          assert.equal(bytes, contents.reduce((sum, c) => sum + c.length, 0));
        });
      },
    ),
    { numRuns: 15 },
  );
});

Deno.test("more than the worker may hold makes the caller wait, and all of it lands", async () => {
  await inTempDir(async (dir) => {
    const writer = batchWriter()!;
    let waited = 0;
    try {
      const block = new Uint8Array(60_000).fill(7);
      for (let i = 0; i < 400; i++) {
        const wait = writer.write(`${dir}/${i}`, block);
        if (wait) {
          waited++;
          await wait;
        }
      }
      await writer.finish();
    } finally {
      writer.close();
    }
    assert.ok(waited > 0, "24 MB never made the caller wait");
    assert.equal((await Deno.stat(`${dir}/399`)).size, 60_000);
  });
});

Deno.test("an existing file stops the writer: the error names it, and nothing after it is written", async () => {
  await inTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/5.txt`, "already here");
    const writer = batchWriter()!;
    try {
      for (let i = 0; i < 10; i++) await writer.write(`${dir}/${i}.txt`, new Uint8Array([i]));
      await assert.rejects(writer.finish(), { code: "EEXIST", path: `${dir}/5.txt` });
      await writer.settle();
      assert.throws(() => writer.write(`${dir}/late.txt`, new Uint8Array(1)), { code: "EEXIST" });
    } finally {
      writer.close();
    }
    assert.equal(await Deno.readTextFile(`${dir}/5.txt`), "already here");
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names, ["0.txt", "1.txt", "2.txt", "3.txt", "4.txt", "5.txt"]);
  });
});

Deno.test("a worker that fails to start is reported, never waited for forever", async () => {
  await inTempDir(async (dir) => {
    const writer = batchWriter({ worker: new URL("./_failing_start_worker.ts", import.meta.url) })!;
    try {
      for (let i = 0; i < 300; i++) {
        try {
          await writer.write(`${dir}/${i}`, new Uint8Array(10));
        } catch {
          break;
        }
      }
      await assert.rejects(writer.finish(), /the worker failed/);
      await writer.settle();
    } finally {
      writer.close();
    }
  });
});

Deno.test("landing thousands of files cleans up when one cannot be created: no folder is left", async () => {
  await inTempDir(async (dir) => {
    const named = (name: string, text: string): ReadLuggage => ({
      ...luggageFromBytes(name, text),
      declaredSha256: null,
    });
    const luggage = Array.from(
      { length: MANY_SMALL_FILES + 50 },
      (_, i) => named(`d${i % 9}/f${i}.txt`, `file ${i}\n`),
    );
    // The same name twice (the reader refuses this; here it stands for any failure to create).
    luggage.splice(3000, 0, named("d0/f0.txt", "again\n"));
    await assert.rejects(extractLuggage(luggage, `${dir}/out`), { code: "EEXIST" });
    assert.deepEqual([...Deno.readDirSync(dir)], []);
    // And without the clash, every file lands.
    luggage.splice(3000, 1);
    await extractLuggage(luggage, `${dir}/out`);
    assert.equal(await Deno.readTextFile(`${dir}/out/d4/f4000.txt`), "file 4000\n");
  });
});
