// Copyright 2026 the taskpack authors. MIT license.
/**
 * ZIP writer and reader throughput on one 64 MiB entry, compressible (log-like text) and
 * random, with the portable CRC-32 (the core's default) and the native one (what the shells
 * pass). Run with `deno bench -A bench/zip_bench.ts`.
 *
 * @module
 */
import { crc32 as nativeCrc32 } from "node:zlib";
import { openZip, writeZip, zipToBytes, type ZipWriteEntry } from "../lib/zip/mod.ts";
import {
  borrowChunks,
  bytesSource,
  chunkedStream,
  type Digests,
  portableDigests,
} from "../lib/bytes/mod.ts";
import { nativeInflater } from "../shell/host/native_inflater.ts";

const SIZE = 64 << 20;
const MODIFIED = new Date(Date.UTC(2026, 0, 1));

const native: Digests = {
  sha256: portableDigests.sha256,
  crc32: (data, previous = 0) => nativeCrc32(data, previous),
};

function textBytes(): Uint8Array {
  const out = new Uint8Array(SIZE);
  const encoder = new TextEncoder();
  let at = 0;
  for (let i = 0; at < SIZE; i++) {
    const line = encoder.encode(
      `2026-01-01T00:${String(i % 60).padStart(2, "0")}:00Z INFO worker=${i % 17} job=${i} ` +
        `took ${(i * 7919) % 1000} ms status=${i % 13 === 0 ? "retry" : "ok"}\n`,
    );
    out.set(line.subarray(0, SIZE - at), at);
    at += line.length;
  }
  return out;
}

function randomBytes(): Uint8Array {
  const out = new Uint8Array(SIZE);
  for (let at = 0; at < SIZE; at += 65_536) crypto.getRandomValues(out.subarray(at, at + 65_536));
  return out;
}

const inputs = { text: textBytes(), random: randomBytes() };

function entry(kind: "text" | "random"): ZipWriteEntry {
  const bytes = inputs[kind];
  return {
    name: `${kind}.bin`,
    size: bytes.length,
    crc32: nativeCrc32(bytes),
    compress: kind === "text",
    open: () => chunkedStream(bytes),
  };
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let total = 0;
  for await (const chunk of stream) total += chunk.length;
  return total;
}

const archives = {
  text: await zipToBytes(writeZip([entry("text")], { modified: MODIFIED })),
  random: await zipToBytes(writeZip([entry("random")], { modified: MODIFIED })),
};

for (const kind of ["text", "random"] as const) {
  for (const [crcName, digests] of [["portable", portableDigests], ["native", native]] as const) {
    Deno.bench({
      name: `write 64 MiB ${kind} (${kind === "text" ? "deflated" : "stored"}, ${crcName} CRC)`,
      group: `write ${kind}`,
      baseline: crcName === "portable",
      n: 5,
      warmup: 1,
      async fn() {
        await drain(writeZip([entry(kind)], { modified: MODIFIED, digests }));
      },
    });
    Deno.bench({
      name: `read 64 MiB ${kind} (${crcName} CRC)`,
      group: `read ${kind}`,
      baseline: crcName === "portable",
      n: 5,
      warmup: 1,
      async fn() {
        const archive = await openZip(bytesSource(archives[kind]), { digests });
        await drain(archive.open(archive.entries[0]!));
      },
    });
  }
}

// Reading the deflated 64 MiB through the runtime's inflater (what the CLI passes): streamed,
// and step by step into the reader's own buffer from a source that reads into buffers (a file).
const inflater = nativeInflater();
if (inflater?.inflateSteps) {
  const bytes = archives.text;
  const readInto = {
    ...bytesSource(bytes),
    readInto(offset: number, target: Uint8Array): Promise<void> {
      target.set(bytes.subarray(offset, offset + target.length));
      return Promise.resolve();
    },
  };
  for (
    const [way, source] of [["streamed", bytesSource(bytes)], ["step by step", readInto]] as const
  ) {
    Deno.bench({
      name: `read 64 MiB text, native inflater, ${way}`,
      group: "read text, native inflater",
      baseline: way === "streamed",
      n: 5,
      warmup: 1,
      async fn() {
        const archive = await openZip(source, { digests: native, inflater });
        let total = 0;
        for await (const chunk of borrowChunks(archive.open(archive.entries[0]!), SIZE)) {
          total += chunk.length;
        }
        if (total !== SIZE) throw new Error(`read ${total} bytes`);
      },
    });
  }
}
