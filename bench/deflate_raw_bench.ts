// Copyright 2026 the taskpack authors. MIT license.
/**
 * The core's raw DEFLATE encoder for small entries (its WebAssembly build, which
 * `deflateRawSmall` uses, and its script, the same bytes) against node:zlib's
 * `deflateRawSync` (level 6) and the platform's `CompressionStream("deflate-raw")`, on 1 KiB and
 * 64 KiB of text: this repository's own TypeScript sources (lib/), as a folder being packed
 * would hold. Run with `deno bench -A bench/deflate_raw_bench.ts`.
 *
 * @module
 */
import { deflateRawSync } from "node:zlib";
import { deflateRawJs, deflateRawSmall } from "../lib/zip/mod.ts";

/** lib/format/*.ts, in name order, concatenated and cut to `size` bytes. */
async function sourceText(size: number): Promise<Uint8Array> {
  const dir = new URL("../lib/format/", import.meta.url);
  const names = (await Array.fromAsync(Deno.readDir(dir)))
    .map((entry) => entry.name)
    .filter((name) => name.endsWith(".ts"))
    .sort();
  const out = new Uint8Array(size);
  let at = 0;
  for (let i = 0; at < size; i++) {
    const bytes = await Deno.readFile(new URL(names[i % names.length]!, dir));
    out.set(bytes.subarray(0, size - at), at);
    at += Math.min(bytes.length, size - at);
  }
  return out;
}

async function compressionStream(bytes: Uint8Array): Promise<Uint8Array> {
  return await new Response(
    new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new CompressionStream("deflate-raw"),
    ),
  ).bytes();
}

for (const [label, size] of [["1 KiB", 1024], ["64 KiB", 65_536]] as const) {
  const text = await sourceText(size);
  const group = `deflate ${label} text`;
  // Print the sizes once, to read the ratio next to the times.
  const ours = deflateRawSmall(text).length;
  const zlib = deflateRawSync(text, { level: 6 }).length;
  const web = (await compressionStream(text)).length;
  console.log(
    `${group}: ${size} B -> deflateRawSmall ${ours} B, zlib level 6 ${zlib} B ` +
      `(ratio ${(ours / zlib).toFixed(3)}), CompressionStream ${web} B`,
  );
  Deno.bench({
    name: `deflateRawSmall ${label}`,
    group,
    baseline: true,
    fn() {
      deflateRawSmall(text);
    },
  });
  Deno.bench({
    name: `deflateRawJs (the script alone) ${label}`,
    group,
    fn() {
      deflateRawJs(text);
    },
  });
  Deno.bench({
    name: `node:zlib deflateRawSync level 6 ${label}`,
    group,
    fn() {
      deflateRawSync(text, { level: 6 });
    },
  });
  Deno.bench({
    name: `CompressionStream deflate-raw ${label}`,
    group,
    async fn() {
      await compressionStream(text);
    },
  });
}
