// Copyright 2026 the taskpack authors. MIT license.
// Small files read ahead on a worker: the same bytes as reading them here, the same errors,
// and reading here again whenever the worker cannot help.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { readAhead } from "../shell/workers/read_ahead.ts";
import { deflateRawSmall } from "../lib/zip/deflate.ts";
import { SMALL_DEFLATE } from "../lib/zip/deflate.ts";
import { readUntilExpected, walkLuggage } from "../shell/host/files.ts";
import { inTempDir } from "./_helpers.ts";

/**
 * What the worker gives for a file: the core's DEFLATE of it, or nothing (left for the caller
 * to deflate); never anything for a file that is not small, or empty.
 */
function assertDeflatedOrLeft(made: Uint8Array | null, bytes: Uint8Array, small: boolean): void {
  if (made !== null || !small) assert.deepEqual(made, small ? deflateRawSmall(bytes) : null);
}

Deno.test("the worker deflates a batch while the caller has an earlier one to take, and hands over as read one the caller waits for", async () => {
  await inTempDir(async (dir) => {
    // 8 batches of 256: all read before the first take (the worker reads 8 batches ahead).
    const count = 8 * 256;
    const paths = Array.from({ length: count }, (_, i) => `${dir}/${i}.txt`);
    const contents = paths.map((_, i) => new TextEncoder().encode(`line ${i}\n`.repeat(20)));
    contents.forEach((bytes, i) => Deno.writeFileSync(paths[i]!, bytes));
    const ahead = readAhead(paths, { deflate: true })!;
    try {
      const first = await ahead.take(0);
      assert.deepEqual(first, contents[0]);
      // The first batch: nothing was taken before it, so the caller was waiting for it.
      assert.equal(ahead.deflatedAt(0), null);
      // Let the worker read the rest, still with nothing else taken.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (let i = 1; i < count; i++) {
        assert.deepEqual(await ahead.take(i), contents[i]);
        const made = ahead.deflatedAt(i);
        if (i < 256) assert.equal(made, null, `file ${i}`);
        else assert.deepEqual(made, deflateRawSmall(contents[i]!), `file ${i}`);
      }
    } finally {
      ahead.close();
    }
  });
});

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
              // Deflated as the pack's deflater would, when asked and small (not empty), or
              // left to the caller (a batch the caller was waiting for).
              const small = deflate && bytes.length > 0 && bytes.length <= SMALL_DEFLATE;
              assertDeflatedOrLeft(ahead.deflatedAt(i), bytes, small);
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

Deno.test("a list given in parts: files are read as they are listed, a take waits for its file, and one past the end fails", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 3000 }), { minLength: 1, maxLength: 700 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.boolean(),
      async (contents, cuts, withSizes) => {
        await inTempDir(async (dir) => {
          const paths = contents.map((_, i) => `${dir}/${i}.bin`);
          contents.forEach((bytes, i) => Deno.writeFileSync(paths[i]!, bytes));
          const sizes = contents.map((bytes) => bytes.length);
          const ends = [...new Set(cuts.map((cut) => cut % paths.length))].sort((a, b) => a - b);
          const parts = [0, ...ends, paths.length].slice(1).map((end, i, all) =>
            [i === 0 ? 0 : all[i - 1]!, end] as const
          ).filter(([from, to]) => to > from);
          const [first, ...rest] = parts.length ? parts : [[0, paths.length] as const];
          const part = ([from, to]: readonly [number, number]) =>
            withSizes
              ? [paths.slice(from, to), sizes.slice(from, to)] as const
              : [paths.slice(from, to)] as const;
          const [firstPaths, firstSizes] = part(first!);
          const ahead = readAhead(firstPaths, {
            more: true,
            deflate: true,
            ...(firstSizes ? { sizes: firstSizes } : {}),
          })!;
          try {
            let taken = 0;
            for (const next of rest) {
              for (; taken < next[0]; taken++) {
                assert.deepEqual(await ahead.take(taken), contents[taken]);
              }
              // The next file is not listed yet: its take waits until it is.
              let settled = false;
              const waiting = ahead.take(taken).finally(() => settled = true);
              await new Promise((resolve) => setTimeout(resolve, 5));
              assert.equal(settled, false);
              const [morePaths, moreSizes] = part(next);
              ahead.add(morePaths, moreSizes);
              assert.deepEqual(await waiting, contents[taken]);
              taken++;
            }
            ahead.end();
            for (; taken < paths.length; taken++) {
              const bytes = contents[taken]!;
              assert.deepEqual(await ahead.take(taken), bytes);
              const small = bytes.length > 0 && bytes.length <= SMALL_DEFLATE;
              assertDeflatedOrLeft(ahead.deflatedAt(taken), bytes, small);
            }
            await assert.rejects(ahead.take(paths.length), RangeError);
            assert.throws(() => ahead.add([paths[0]!]), TypeError);
          } finally {
            ahead.close();
          }
        });
      },
    ),
    { numRuns: 25 },
  );
});

Deno.test("a take past the files listed so far fails once the list ends", async () => {
  await inTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/a.txt`, "a");
    const ahead = readAhead([`${dir}/a.txt`], { more: true })!;
    try {
      assert.equal(new TextDecoder().decode((await ahead.take(0))!), "a");
      const beyond = ahead.take(1);
      ahead.end();
      await assert.rejects(beyond, RangeError);
    } finally {
      ahead.close();
    }
  });
});

Deno.test("luggage read ahead reads as luggage read here, starts once enough small files are found, and a file gone since the walk is an error", async () => {
  await inTempDir(async (dir) => {
    // More than the worker reads before anything is taken (8 batches of at most 256 files):
    // the last file is read only once the files before it are taken.
    const count = 2100;
    for (let i = 0; i < count; i++) {
      await Deno.mkdir(`${dir}/tree/d${i % 3}`, { recursive: true });
      Deno.writeTextFileSync(`${dir}/tree/d${i % 3}/f${i}.txt`, `content ${i}\n`.repeat(i % 7));
    }
    Deno.writeFileSync(`${dir}/tree/big.bin`, new Uint8Array(100_000).fill(9));
    const here = walkLuggage([`${dir}/tree`]).luggage;
    const expected = await Promise.all(
      here.map((file) => file.read ? file.read() : new Response(file.open()).bytes()),
    );
    // Too few small files: no worker.
    const few = walkLuggage([`${dir}/tree`], { readAhead: { from: count + 1 } });
    assert.equal(few.readingAhead, false);
    few.close();

    const walked = walkLuggage([`${dir}/tree`], { readAhead: { from: 300, deflate: true } });
    const luggage = walked.luggage;
    assert.equal(walked.readingAhead, true);
    assert.deepEqual(luggage.map((file) => file.name), here.map((file) => file.name));
    const gone = luggage.findLast((file) => file.read)!;
    await Deno.remove(`${dir}/${gone.name}`);
    try {
      for (let i = 0; i < luggage.length; i++) {
        const file = luggage[i]!;
        if (file === gone) {
          await assert.rejects(file.read!(), { code: "ENOENT", path: `${dir}/${gone.name}` });
        } else if (file.read) {
          const bytes = await file.read();
          assert.deepEqual(bytes, expected[i], file.name);
          const small = bytes.length > 0 && bytes.length <= SMALL_DEFLATE;
          assertDeflatedOrLeft(await file.deflated!(), bytes, small);
        } else {
          assert.deepEqual(await new Response(file.open()).bytes(), expected[i]);
        }
      }
      // Read again: here, with nothing deflated.
      const again = luggage.findIndex((file) => file.read);
      assert.deepEqual(await luggage[again]!.read!(), expected[again]);
      assert.equal(await luggage[again]!.deflated!(), null);
    } finally {
      walked.close();
    }
  });
});

Deno.test("a walk that fails after its worker has started stops the worker, and reports the path", async () => {
  await inTempDir(async (dir) => {
    Deno.mkdirSync(`${dir}/tree`);
    for (let i = 0; i < 600; i++) Deno.writeTextFileSync(`${dir}/tree/f${i}.txt`, `${i}\n`);
    // The worker starts with the tree (300 small files found); then the second path fails.
    const worker = new URL("./_answering_worker.ts", import.meta.url);
    const channel = new BroadcastChannel("taskpack-test-worker");
    // Asked every 50 ms until it answers or `wait` ms pass (under `deno test`, a worker takes
    // most of a second to load; a running one is waited for longer, so a slow machine does not
    // fail the test, only makes a missed stop less likely to show).
    const answers = (wait: number) =>
      new Promise<boolean>((resolve) => {
        const ask = setInterval(() => channel.postMessage("are you running?"), 50);
        const give = (answer: boolean) => {
          clearInterval(ask);
          clearTimeout(timer);
          resolve(answer);
        };
        const timer = setTimeout(() => give(false), wait);
        channel.onmessage = () => give(true);
      });
    try {
      // The probe itself: a worker left running answers.
      const kept = walkLuggage([`${dir}/tree`], { readAhead: { from: 300, worker } });
      assert.equal(await answers(10_000), true);
      kept.close();
      assert.equal(await answers(2000), false);

      assert.throws(
        () => walkLuggage([`${dir}/tree`, `${dir}/missing`], { readAhead: { from: 300, worker } }),
        (error: { code?: string; path?: string }) =>
          error.code === "ENOENT" && error.path === `${dir}/missing`,
      );
      assert.equal(await answers(2000), false, "the worker was stopped");
    } finally {
      channel.close();
    }
  });
});

Deno.test("a file of known size is read in one read when it has that size, and read on when a read gives less", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 200 }),
      fc.integer({ min: 0, max: 220 }),
      fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 }),
      fc.boolean(),
      (content, expected, pieces, whole) => {
        // A regular file gives all that is asked for (whole); another source may give less.
        let at = 0;
        let reads = 0;
        const read = (view: Uint8Array) => {
          const limit = whole ? view.length : pieces[reads % pieces.length]!;
          const n = Math.min(view.length, limit, content.length - at);
          view.set(content.subarray(at, at + n));
          at += n;
          reads++;
          return n;
        };
        const target = new Uint8Array(expected + 1);
        const got = readUntilExpected(target, read);
        assert.deepEqual(target.subarray(0, got), content.subarray(0, got));
        if (content.length < expected) {
          assert.equal(got, content.length); // it shrank: read to its end
        } else {
          assert.ok(got >= expected && got <= Math.min(content.length, expected + 1));
          if (whole) assert.equal(got, Math.min(content.length, expected + 1)); // grew: it shows
        }
        // One read, unless it gave less than expected: then one more to hear the file ended.
        if (whole) assert.equal(reads, content.length >= expected || content.length === 0 ? 1 : 2);
      },
    ),
    { numRuns: 3000 },
  );
});
