// Copyright 2026 the taskpack authors. MIT license.
// Issue 20: memory does not depend on how compressible the content is. The deflate pool's
// streams hold a fixed number of blocks however slowly their output is read, reuse their block
// buffers, and the ZIP writer feeding a copying deflater from one reused buffer writes the same
// bytes as the plain path (and still refuses a file that changed).
import assert from "node:assert/strict";
import { inflateRawSync } from "node:zlib";
import { join } from "node:path";
import type { Deflater } from "../lib/zip/deflate.ts";
import { writeZip, writeZipTo } from "../lib/zip/writer.ts";
import {
  BLOCKS_AHEAD_PER_WORKER,
  DEFLATE_BLOCK,
  deflatePool,
} from "../shell/workers/deflate_pool.ts";
import { fileStream } from "../shell/host/files.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";
import { streamBytes, tempDir } from "./_helpers.ts";
import { concatBytes } from "../lib/bytes/bytes.ts";

/** Compressible text, `size` bytes: the kind that used to pile up. */
function logText(size: number): Uint8Array {
  const out = new Uint8Array(size);
  const line = new TextEncoder().encode(
    "2026-11-01T00:00:00.000Z INFO  api[3] path=/v1/orders status=200 took=12ms\n",
  );
  for (let at = 0; at < size; at += line.length) {
    out.set(line.subarray(0, Math.min(line.length, size - at)), at);
    out[at + 20] = 0x30 + ((at / line.length) % 10); // a little variety
  }
  return out;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("a deflate stream read slowly holds a fixed number of blocks", async () => {
  for (const workers of [0, 1, 2]) {
    const pool = deflatePool({ workers });
    try {
      const stream = pool.deflateStream();
      const writer = stream.writable.getWriter();
      const reader = stream.readable.getReader();
      const chunk = logText(1 << 20);
      const total = 24 * DEFLATE_BLOCK; // 48 MiB in, far more than the bound
      let accepted = 0;
      const writing = (async () => {
        for (let sent = 0; sent < total; sent += chunk.length) {
          await writer.write(chunk);
          accepted += chunk.length;
        }
        await writer.close();
      })();
      // Blocks cut and not yet deflated and read: the one being filled, the one held back, and
      // the ones ahead; and the bytes the writer got past the reader, a few blocks' worth.
      const maxBlocks = 2 + Math.max(1, workers) * BLOCKS_AHEAD_PER_WORKER + 1;
      const out: Uint8Array[] = [];
      let mostAhead = 0;
      while (true) {
        // Give the writer every chance to run ahead before the next read.
        for (let i = 0; i < 20; i++) await tick();
        await new Promise((resolve) => setTimeout(resolve, 5));
        assert.ok(
          pool.held().blocks <= maxBlocks,
          `${pool.held().blocks} blocks held (workers: ${workers})`,
        );
        const readBlocks = out.length;
        mostAhead = Math.max(mostAhead, accepted - readBlocks * DEFLATE_BLOCK);
        assert.ok(
          accepted <= (readBlocks + maxBlocks + 1) * DEFLATE_BLOCK,
          `the writer ran ${accepted} bytes ahead of ${readBlocks} blocks read`,
        );
        const { done, value } = await reader.read();
        if (done) break;
        out.push(value);
      }
      await writing;
      // The writer did get ahead of the reader (else this test proves nothing), and stopped.
      assert.ok(mostAhead >= 2 * DEFLATE_BLOCK, `the writer got ${mostAhead} bytes ahead`);
      assert.equal(pool.held().blocks, 0);
      assert.ok(pool.held().spare > 0 && pool.held().spare <= maxBlocks + 2);
      const inflated = new Uint8Array(inflateRawSync(concatBytes(out)));
      assert.equal(inflated.length, total);
      assert.deepEqual(inflated.subarray(0, chunk.length), chunk);
      assert.deepEqual(inflated.subarray(total - chunk.length), chunk);
    } finally {
      pool.close();
    }
  }
});

Deno.test("a pool stream reuses its block buffers and gives the same bytes every time", async () => {
  const pool = deflatePool({ workers: 1 });
  try {
    const text = logText(9 * DEFLATE_BLOCK + 12_345);
    const outputs: Uint8Array[] = [];
    for (let round = 0; round < 3; round++) {
      const pieces = [];
      for (let i = 0; i < text.length; i += 777_777) pieces.push(text.subarray(i, i + 777_777));
      outputs.push(
        await streamBytes(ReadableStream.from(pieces).pipeThrough(pool.deflateStream())),
      );
      assert.equal(pool.held().blocks, 0);
    }
    assert.deepEqual(outputs[1], outputs[0]);
    assert.deepEqual(outputs[2], outputs[0]);
    assert.deepEqual(new Uint8Array(inflateRawSync(outputs[0]!)), text);
    assert.ok(pool.held().spare > 0, "block buffers came back to be reused");
  } finally {
    pool.close();
  }
});

Deno.test("the ZIP writer feeds a copying deflater from one reused buffer, to the same bytes", async () => {
  const dir = await tempDir();
  const pool = deflatePool({ workers: 1 });
  try {
    const text = logText(5 * DEFLATE_BLOCK + 99);
    const path = join(dir, "big.log");
    await Deno.writeFile(path, text);
    const crc32 = nativeDigests.crc32(text, 0);
    const entry = (size = text.length) => ({
      name: "data/files/big.log",
      size,
      crc32,
      compress: true,
      // A byte stream: read into one reused buffer when the deflater copies.
      open: () => fileStream(path, text.length),
    });
    const modified = new Date(Date.UTC(2026, 10, 30, 12));
    // The same pool without the promise to copy: the writer then pipes fresh chunks.
    const plain: Deflater = { deflate: pool.deflate, deflateStream: pool.deflateStream };
    assert.equal(pool.streamCopiesInput, true);
    const borrowed: Uint8Array[] = [];
    await writeZipTo([entry()], (chunk) => void borrowed.push(chunk.slice()), {
      modified,
      deflater: pool,
      digests: nativeDigests,
    });
    const piped = await streamBytes(
      writeZip([entry()], { modified, deflater: plain, digests: nativeDigests }),
    );
    assert.deepEqual(concatBytes(borrowed), piped);
    const viaStream = await streamBytes(
      writeZip([entry()], { modified, deflater: pool, digests: nativeDigests }),
    );
    assert.deepEqual(viaStream, piped);
    // A file that is not what was declared is still refused, on the copying path too.
    await assert.rejects(
      writeZipTo([entry(text.length - 1)], () => {}, { modified, deflater: pool }),
      /changed while packing/,
    );
    await assert.rejects(
      writeZipTo([{ ...entry(), crc32: (crc32 ^ 1) >>> 0 }], () => {}, {
        modified,
        deflater: pool,
        digests: nativeDigests,
      }),
      /changed while packing/,
    );
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the ZIP writer gives back each deflated chunk only once its sink is done with it", async () => {
  // Letters at random: deflated blocks large enough to be worth filling again.
  const text = new Uint8Array(3 * DEFLATE_BLOCK + 5);
  for (let i = 0, x = 1; i < text.length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    text[i] = 0x61 + (x >>> 28);
  }
  const crc32 = nativeDigests.crc32(text, 0);
  const entry = {
    name: "data/files/big.log",
    size: text.length,
    crc32,
    compress: true,
    open: () => ReadableStream.from([text.subarray(0, 1000), text.subarray(1000)]),
  };
  const modified = new Date(Date.UTC(2026, 10, 30, 12));
  // A deflater that spoils every chunk it is given back: were one given back before the sink
  // used it, the archive would differ.
  const given: number[] = [];
  const spoiling: Deflater = {
    deflate: (bytes) => Promise.resolve(bytes),
    deflateStream: () =>
      new CompressionStream("deflate-raw") as TransformStream<Uint8Array, Uint8Array>,
    recycle(chunk) {
      given.push(chunk.length);
      chunk.fill(0xff);
    },
  };
  const plain: Deflater = { deflate: spoiling.deflate, deflateStream: spoiling.deflateStream };
  const borrowed: Uint8Array[] = [];
  await writeZipTo([entry], (chunk) => void borrowed.push(chunk.slice()), {
    modified,
    deflater: spoiling,
  });
  const expected = await streamBytes(writeZip([entry], { modified, deflater: plain }));
  assert.deepEqual(concatBytes(borrowed), expected);
  assert.ok(given.length > 0, "the writer gave chunks back");
  // A stream's reader may keep its chunks: nothing is given back there.
  given.length = 0;
  assert.deepEqual(
    await streamBytes(writeZip([entry], { modified, deflater: spoiling })),
    expected,
  );
  assert.deepEqual(given, []);

  // The pool sends what it is given back to its workers, to fill again: the same bytes.
  const pool = deflatePool({ workers: 1 });
  try {
    const viaPool: Uint8Array[] = [];
    for (let round = 0; round < 2; round++) {
      const parts: Uint8Array[] = [];
      await writeZipTo([entry], (chunk) => void parts.push(chunk.slice()), {
        modified,
        deflater: pool,
      });
      viaPool.push(concatBytes(parts));
    }
    assert.deepEqual(viaPool[1], viaPool[0]);
    assert.ok(pool.held().outputs > 0, "output buffers came back to be filled again");
    assert.deepEqual(
      viaPool[0],
      await streamBytes(
        writeZip([entry], {
          modified,
          deflater: { deflate: pool.deflate, deflateStream: pool.deflateStream },
        }),
      ),
    );
  } finally {
    pool.close();
  }
});
