// Copyright 2026 the taskpack authors. MIT license.
// The one slow check, kept out of `deno task test` (its name does not end in _test.ts) and run
// on purpose with `deno task test:slow`: a real 4 GiB ZIP64 archive, streamed through writeZip
// into a sparse file, that Info-ZIP's `unzip -t` accepts.
import assert from "node:assert/strict";
import { crc32 as nativeCrc32 } from "node:zlib";
import { writeZip } from "../../lib/zip/writer.ts";
import { type Digests, portableDigests } from "../../lib/bytes/digests.ts";
import { tempFile } from "../_helpers.ts";

const MODIFIED = new Date(Date.UTC(2026, 4, 17, 13, 45, 58));
const MiB = 1 << 20;
const fastDigests: Digests = {
  sha256: portableDigests.sha256,
  crc32: (data, previous = 0) => nativeCrc32(data, previous),
};
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

async function assertUnzipAccepts(path: string): Promise<void> {
  const { code, stdout, stderr } = await new Deno.Command("unzip", { args: ["-tqq", path] })
    .output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 0, `unzip -t failed (${code}): ${text.slice(0, 2000)}`);
}

Deno.test({
  name: "unzip -t accepts a real 4 GiB ZIP64 archive",
  async fn() {
    const ZERO = new Uint8Array(4 * MiB);
    const size = 4 * 1024 * MiB + MiB;
    let zeroCrc = 0;
    for (let done = 0; done < size; done += ZERO.length) {
      zeroCrc = nativeCrc32(ZERO.subarray(0, Math.min(ZERO.length, size - done)), zeroCrc);
    }
    const zeros = (length: number) => (): ReadableStream<Uint8Array> => {
      let done = 0;
      return new ReadableStream({
        pull(controller) {
          if (done >= length) return controller.close();
          const take = Math.min(ZERO.length, length - done);
          controller.enqueue(ZERO.subarray(0, take));
          done += take;
        },
      });
    };
    const path = await tempFile({ suffix: ".zip" });
    try {
      // Runs of zeros become holes in a sparse file, so the disk holds a few KiB.
      const file = await Deno.open(path, { write: true, truncate: true });
      let position = 0;
      const stream = writeZip([
        { name: "big.bin", size, crc32: zeroCrc, compress: false, open: zeros(size) },
        {
          name: "zeros.bin",
          size: 8 * MiB,
          crc32: nativeCrc32(new Uint8Array(8 * MiB)),
          compress: true,
          open: zeros(8 * MiB),
        },
        { name: "after.txt", bytes: utf8("after") },
      ], { modified: MODIFIED, digests: fastDigests });
      for await (const chunk of stream) {
        if (chunk.buffer !== ZERO.buffer) {
          await file.seek(position, Deno.SeekMode.Start);
          let written = 0;
          while (written < chunk.length) written += await file.write(chunk.subarray(written));
        }
        position += chunk.length;
      }
      await file.truncate(position);
      file.close();
      await assertUnzipAccepts(path);
    } finally {
      await Deno.remove(path);
    }
  },
});
