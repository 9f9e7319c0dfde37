// Copyright 2026 the taskpack authors. MIT license.
import {
  crc32,
  decodeBase64Js,
  decodeBase64Strict,
  encodeBase64,
  encodeBase64Js,
  Sha256,
} from "../lib/bytes/mod.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";

const SIZE = 16 * 1024 * 1024;
const data = new Uint8Array(SIZE);
// Deterministic, incompressible-looking filler (xorshift32).
let seed = 0x9e3779b9;
for (let i = 0; i < SIZE; i++) {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  data[i] = seed;
}
const text = encodeBase64(data);

Deno.bench("sha256 portable, 16 MiB", { group: "sha256", baseline: true }, () => {
  const hasher = new Sha256();
  hasher.update(data);
  hasher.digestHex();
});

Deno.bench("sha256 native (node:crypto), 16 MiB", { group: "sha256" }, () => {
  const hasher = nativeDigests.sha256();
  hasher.update(data);
  hasher.digestHex();
});

Deno.bench("crc32 portable, 16 MiB", { group: "crc32", baseline: true }, () => {
  crc32(data);
});

Deno.bench("crc32 native (node:zlib), 16 MiB", { group: "crc32" }, () => {
  nativeDigests.crc32(data);
});

Deno.bench("base64 encode native-or-JS, 16 MiB", { group: "base64 encode", baseline: true }, () => {
  encodeBase64(data);
});

Deno.bench("base64 encode JS, 16 MiB", { group: "base64 encode" }, () => {
  encodeBase64Js(data);
});

Deno.bench("base64 decode strict native-or-JS, 16 MiB", {
  group: "base64 decode",
  baseline: true,
}, () => {
  decodeBase64Strict(text);
});

Deno.bench("base64 decode strict JS, 16 MiB", { group: "base64 decode" }, () => {
  decodeBase64Js(text);
});
