// Copyright 2026 the taskpack authors. MIT license.
/**
 * One-shot raw DEFLATE decoding of log-like text, 1 KiB (a typical small ZIP entry) and
 * 1 MiB: the portable decoder against `node:zlib`'s `inflateRawSync` (plain, and with the
 * options the shell's strict native inflater passes) and the platform's
 * `DecompressionStream`. Run with `deno bench -A bench/inflate_raw_bench.ts`.
 *
 * @module
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { inflateRawStrict } from "../lib/zip/mod.ts";
import { readAllBytes } from "../lib/bytes/mod.ts";

function textBytes(size: number): Uint8Array {
  const out = new Uint8Array(size);
  const encoder = new TextEncoder();
  let at = 0;
  for (let i = 0; at < size; i++) {
    const line = encoder.encode(
      `2026-01-01T00:${String(i % 60).padStart(2, "0")}:00Z INFO worker=${i % 17} job=${i} ` +
        `took ${(i * 7919) % 1000} ms status=${i % 13 === 0 ? "retry" : "ok"}\n`,
    );
    out.set(line.subarray(0, size - at), at);
    at += line.length;
  }
  return out;
}

function check(out: Uint8Array, size: number): void {
  if (out.length !== size) throw new Error(`inflated ${out.length} bytes, expected ${size}`);
}

for (const [label, size] of [["1 KiB", 1024], ["1 MiB", 1 << 20]] as const) {
  const packed = new Uint8Array(deflateRawSync(textBytes(size)));
  const group = `inflate ${label} text`;
  Deno.bench({
    name: `inflateRawStrict ${label}`,
    group,
    baseline: true,
    fn() {
      const result = inflateRawStrict(packed, size);
      if (!("bytes" in result)) throw new Error(result.problem);
      check(result.bytes, size);
    },
  });
  Deno.bench({
    name: `node:zlib inflateRawSync ${label}`,
    group,
    fn() {
      check(inflateRawSync(packed), size);
    },
  });
  Deno.bench({
    name: `node:zlib inflateRawSync, strict options ${label}`,
    group,
    fn() {
      const options = { maxOutputLength: size, rejectGarbageAfterEnd: true };
      check(inflateRawSync(packed, options as Parameters<typeof inflateRawSync>[1]), size);
    },
  });
  Deno.bench({
    name: `DecompressionStream ${label}`,
    group,
    async fn() {
      const stream = ReadableStream.from([packed]).pipeThrough(
        new DecompressionStream("deflate-raw"),
      );
      check(await readAllBytes(stream as ReadableStream<Uint8Array>), size);
    },
  });
}
