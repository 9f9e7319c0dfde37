// Copyright 2026 the taskpack authors. MIT license.
// Small files read ahead on a worker: the same bytes as reading them here, the same errors,
// and reading here again whenever the worker cannot help.
import assert from "node:assert/strict";
import fc from "fast-check";
import { readAhead } from "../shell/read_ahead.ts";
import { deflateRawSmall } from "../lib/_deflate_raw.ts";
import { SMALL_DEFLATE } from "../lib/deflate.ts";
import { luggageFromPaths, readSmallFilesAhead } from "../shell/files.ts";
import { inTempDir } from "./_helpers.ts";

Deno.test("files taken in order are the files' bytes (and deflated, when asked), whatever their sizes, and whatever size was expected", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          bytes: fc.uint8Array({ maxLength: 70_000 }),
          // The size it had when listed: the same, or it has since grown or shrunk.
          change: fc.oneof(fc.constant(0), fc.integer({ min: -3, max: 3 })),
        }),
        { minLength: 1, maxLength: 60 },
      ),
      fc.boolean(),
      fc.boolean(),
      async (files, withSizes, deflate) => {
        const contents = files.map((file) => file.bytes);
        const sizes = files.map((file) => Math.max(0, file.bytes.length + file.change));
        await inTempDir(async (dir) => {
          const paths = contents.map((_, i) => `${dir}/${i}.bin`);
          contents.forEach((bytes, i) => Deno.writeFileSync(paths[i]!, bytes));
          const ahead = readAhead(paths, { ...(withSizes ? { sizes } : {}), deflate })!;
          try {
            for (let i = 0; i < paths.length; i++) {
              const bytes = contents[i]!;
              assert.deepEqual(await ahead.take(i), bytes);
              // Deflated as the pack's deflater would, when asked and small (not empty).
              const small = deflate && bytes.length > 0 && bytes.length <= SMALL_DEFLATE;
              assert.deepEqual(ahead.deflatedAt(i), small ? deflateRawSmall(bytes) : null);
            }
          } finally {
            ahead.close();
          }
        });
      },
    ),
    { numRuns: 40 },
  );
});

Deno.test("thousands of files: the worker waits for room, and every file arrives", async () => {
  await inTempDir(async (dir) => {
    const paths = Array.from({ length: 3500 }, (_, i) => `${dir}/${i}.txt`);
    paths.forEach((path, i) => Deno.writeTextFileSync(path, `file ${i}\n`));
    const ahead = readAhead(paths)!;
    try {
      for (let i = 0; i < paths.length; i++) {
        assert.equal(new TextDecoder().decode((await ahead.take(i))!), `file ${i}\n`);
      }
    } finally {
      ahead.close();
    }
  });
});

Deno.test("a file that cannot be read fails with its code and path; one whose batch has passed is left to the caller", async () => {
  await inTempDir(async (dir) => {
    const paths = [`${dir}/a.txt`, `${dir}/gone.txt`, `${dir}/c.txt`, `${dir}/sub`];
    Deno.writeTextFileSync(paths[0]!, "a");
    Deno.writeTextFileSync(paths[2]!, "c");
    Deno.mkdirSync(paths[3]!);
    for (const options of [{}, { sizes: [1, 1, 1, 0] }]) {
      const ahead = readAhead(paths, options)!;
      try {
        await assert.rejects(ahead.take(1), { code: "ENOENT", path: paths[1] });
        assert.equal(new TextDecoder().decode((await ahead.take(2))!), "c");
        await assert.rejects(ahead.take(3), { path: paths[3] });
        // Still in the batch at hand: served.
        assert.equal(new TextDecoder().decode((await ahead.take(0))!), "a");
        await assert.rejects(ahead.take(4), RangeError);
      } finally {
        ahead.close();
      }
    }
    // A batch passed is dropped: a file in it is left to the caller.
    const many = Array.from({ length: 300 }, (_, i) => `${dir}/m${i}`);
    many.forEach((path) => Deno.writeTextFileSync(path, "m"));
    const later = readAhead(many)!;
    try {
      assert.equal(new TextDecoder().decode((await later.take(280))!), "m");
      assert.equal(await later.take(3), null);
    } finally {
      later.close();
    }
  });
});

Deno.test("a worker that fails, or a closed reader, leaves every file to the caller", async () => {
  await inTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/a.txt`, "a");
    const failing = readAhead([`${dir}/a.txt`], {
      worker: new URL("./_failing_start_worker.ts", import.meta.url),
    })!;
    try {
      assert.equal(await failing.take(0), null);
    } finally {
      failing.close();
    }
    const closed = readAhead([`${dir}/a.txt`])!;
    closed.close();
    assert.equal(await closed.take(0), null);
  });
});

Deno.test("luggage read ahead reads as luggage read here, and a file gone since the walk is an error", async () => {
  await inTempDir(async (dir) => {
    for (let i = 0; i < 300; i++) {
      await Deno.mkdir(`${dir}/tree/d${i % 3}`, { recursive: true });
      Deno.writeTextFileSync(`${dir}/tree/d${i % 3}/f${i}.txt`, `content ${i}\n`.repeat(i % 7));
    }
    Deno.writeFileSync(`${dir}/tree/big.bin`, new Uint8Array(100_000).fill(9));
    const here = await luggageFromPaths([`${dir}/tree`]);
    const expected = await Promise.all(
      here.map((file) => file.read ? file.read() : new Response(file.open()).bytes()),
    );
    const luggage = await luggageFromPaths([`${dir}/tree`]);
    await Deno.remove(`${dir}/tree/d1/f4.txt`);
    const ahead = readSmallFilesAhead(luggage, 1);
    try {
      for (let i = 0; i < luggage.length; i++) {
        const file = luggage[i]!;
        if (file.name === "tree/d1/f4.txt") {
          await assert.rejects(file.read!(), { code: "ENOENT", path: `${dir}/tree/d1/f4.txt` });
        } else if (file.read) {
          assert.deepEqual(await file.read(), expected[i], file.name);
        } else {
          assert.deepEqual(await new Response(file.open()).bytes(), expected[i]);
        }
      }
    } finally {
      ahead.close();
    }
  });
});
