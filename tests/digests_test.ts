// Copyright 2026 the taskpack authors. MIT license.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { crc32 as zlibCrc32 } from "node:zlib";
import fc from "npm:fast-check@4.11.0";
import { Sha256 } from "../lib/bytes/sha256.ts";
import { crc32 } from "../lib/bytes/crc32.ts";
import {
  decodeBase64Js,
  decodeBase64Strict,
  encodeBase64,
  encodeBase64Js,
} from "../lib/bytes/base64.ts";
import { portableDigests, sha256Hex } from "../lib/bytes/digests.ts";
import { digestsOver, nativeDigests } from "../shell/host/node_digests.ts";

const encoder = new TextEncoder();

/** Splits `bytes` at the given cut points (sorted, clamped), including empty pieces. */
function split(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = cuts.map((cut) => cut % (bytes.length + 1)).sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

/** Random bytes, sometimes as a view into a larger buffer (non-zero byteOffset). */
const bytesArb = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 5000 }),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 5000 }), fc.nat()).map(([bytes, n]) =>
    bytes.subarray(n % bytes.length)
  ),
);
const cutsArb = fc.array(fc.nat(), { maxLength: 20 });

function nodeSha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function portableSha256(data: Uint8Array): string {
  const hasher = new Sha256();
  hasher.update(data);
  return hasher.digestHex();
}

/** Reference base64 through `btoa`. */
function btoaBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

Deno.test("Sha256 matches the FIPS 180 example vectors", () => {
  const vectors: [string, string][] = [
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    [
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ],
  ];
  for (const [message, hex] of vectors) {
    assert.equal(portableSha256(encoder.encode(message)), hex, JSON.stringify(message));
  }
});

Deno.test("Sha256 hashes one million 'a', whole and in odd chunks", () => {
  const expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  const data = new Uint8Array(1_000_000).fill(0x61);
  assert.equal(portableSha256(data), expected);
  const hasher = new Sha256();
  for (let i = 0; i < data.length; i += 997) hasher.update(data.subarray(i, i + 997));
  assert.equal(hasher.digestHex(), expected);
});

Deno.test("Sha256 pads correctly around the 55/56/64-byte boundaries", () => {
  for (let n = 0; n <= 200; n++) {
    const data = new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff);
    assert.equal(portableSha256(data), nodeSha256(data), `length ${n}`);
  }
});

Deno.test("Sha256 digest returns 32 bytes, is repeatable, and refuses later updates", () => {
  const hasher = new Sha256();
  hasher.update(encoder.encode("abc"));
  const first = hasher.digest();
  assert.equal(first.length, 32);
  first[0] = 0; // the caller's copy; must not affect the hasher
  assert.equal(
    hasher.digestHex(),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.throws(() => hasher.update(new Uint8Array(1)), TypeError);
});

Deno.test("Sha256 in random chunks equals node:crypto", () => {
  fc.assert(
    fc.property(bytesArb, cutsArb, (bytes, cuts) => {
      const hasher = new Sha256();
      for (const piece of split(bytes, cuts)) hasher.update(piece);
      assert.equal(hasher.digestHex(), nodeSha256(bytes));
    }),
    { numRuns: 300 },
  );
});

Deno.test("crc32 matches known values", () => {
  assert.equal(crc32(new Uint8Array()), 0);
  assert.equal(crc32(encoder.encode("123456789")), 0xcbf43926);
  assert.equal(crc32(encoder.encode("hello")), 0x3610a686);
  assert.equal(crc32(new Uint8Array(32)), 0x190a55ad);
  assert.equal(crc32(new Uint8Array(32).fill(0xff)), 0xff6cab0b);
  assert.equal(crc32(new Uint8Array(), 0xdeadbeef), 0xdeadbeef);
});

Deno.test("crc32 in random chunks with continuation equals node:zlib", () => {
  fc.assert(
    fc.property(bytesArb, cutsArb, fc.nat({ max: 0xffffffff }), (bytes, cuts, seed) => {
      assert.equal(crc32(bytes), zlibCrc32(bytes));
      assert.equal(crc32(bytes, seed), zlibCrc32(bytes, seed));
      let running = 0;
      for (const piece of split(bytes, cuts)) {
        running = crc32(piece, running);
        assert.ok(running >= 0 && running <= 0xffffffff && Number.isInteger(running));
      }
      assert.equal(running, zlibCrc32(bytes));
    }),
    { numRuns: 300 },
  );
});

Deno.test("base64 encoding equals the btoa reference, natively and in JS", () => {
  fc.assert(
    fc.property(bytesArb, (bytes) => {
      const expected = btoaBase64(bytes);
      assert.equal(encodeBase64(bytes), expected);
      assert.equal(encodeBase64Js(bytes), expected);
      assert.deepEqual(decodeBase64Strict(expected), bytes.slice());
      assert.deepEqual(decodeBase64Js(expected), bytes.slice());
    }),
    { numRuns: 300 },
  );
});

Deno.test("base64 handles inputs longer than one encoder chunk", () => {
  const bytes = new Uint8Array(1_000_003).map((_, i) => (i * 2654435761) >>> 24);
  const expected = btoaBase64(bytes);
  assert.equal(encodeBase64Js(bytes), expected);
  assert.equal(encodeBase64(bytes), expected);
  assert.deepEqual(decodeBase64Js(expected), bytes);
  assert.deepEqual(decodeBase64Strict(expected), bytes);
});

Deno.test("base64 small known values", () => {
  const cases: [string, string][] = [
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg=="],
    ["fooba", "Zm9vYmE="],
    ["foobar", "Zm9vYmFy"],
  ];
  for (const [plain, encoded] of cases) {
    const bytes = encoder.encode(plain);
    assert.equal(encodeBase64(bytes), encoded);
    assert.equal(encodeBase64Js(bytes), encoded);
    assert.deepEqual(decodeBase64Strict(encoded), bytes);
    assert.deepEqual(decodeBase64Js(encoded), bytes);
  }
  assert.deepEqual(decodeBase64Strict("+/+/"), new Uint8Array([0xfb, 0xff, 0xbf]));
});

Deno.test("base64 strict decoding rejects non-canonical text with reason and offset", () => {
  const cases: [string, RegExp][] = [
    ["Zm9v YmFy", /whitespace is not allowed at offset 4$/],
    ["Zm9vYmFy\n", /whitespace is not allowed at offset 8$/],
    ["Zm9v\nYmFy", /whitespace is not allowed at offset 4$/],
    ["Zm9vYmE=\r\n", /whitespace is not allowed at offset 8$/],
    ["Zm9v\tYmE", /whitespace is not allowed at offset 4$/],
    ["Zm9vYg= ", /whitespace is not allowed at offset 7$/],
    ["Zm9vY g==", /whitespace is not allowed at offset 5$/],
    ["Zm9vYg", /missing padding at offset 6$/],
    ["Zm9vYmE", /missing padding at offset 7$/],
    ["Zm9vYg=", /missing padding at offset 7$/],
    ["Zm9vYmE==", /too much padding at offset 8$/],
    ["Zm9vYg===", /too much padding at offset 6$/],
    ["Zm9v====", /too much padding at offset 4$/],
    ["====", /too much padding at offset 0$/],
    ["Zm9v=", /too much padding at offset 4$/],
    ["Zm8=Zm8=", /padding is only allowed at the end at offset 3$/],
    ["Zg=a", /padding is only allowed at the end at offset 2$/],
    ["-_8=", /URL-safe alphabet is not allowed at offset 0$/],
    ["ab_c", /URL-safe alphabet is not allowed at offset 2$/],
    ["ab-c", /URL-safe alphabet is not allowed at offset 2$/],
    ["QR==", /non-zero trailing bits at offset 1$/],
    ["Zh==", /non-zero trailing bits at offset 1$/],
    ["Zm9=", /non-zero trailing bits at offset 2$/],
    ["Zm9vZ", /incomplete final group at offset 4$/],
    ["Zm9vZ===", /too much padding at offset 5$/],
    ["Zm9", /missing padding at offset 3$/],
    ["Z", /incomplete final group at offset 0$/],
    ["Zm9vY", /incomplete final group at offset 4$/],
    ["Zm.v", /invalid character U\+002E at offset 2$/],
    ["Zm9\u00e9", /invalid character U\+00E9 at offset 3$/],
    ["Zm9\u0141", /invalid character U\+0141 at offset 3$/], // & 0x7f would be "A"
    ["Zm9\u01c1", /invalid character U\+01C1 at offset 3$/], // & 0xff would be "A"
    ["Zm\u00009", /invalid character U\+0000 at offset 2$/],
  ];
  for (const [text, message] of cases) {
    for (const decode of [decodeBase64Strict, decodeBase64Js]) {
      assert.throws(
        () => decode(text),
        (error: unknown) => {
          assert.ok(error instanceof TypeError, `${decode.name}(${JSON.stringify(text)})`);
          assert.match(error.message, /^Cannot decode base64: /);
          assert.match(error.message, message, `${decode.name}(${JSON.stringify(text)})`);
          return true;
        },
      );
    }
  }
});

Deno.test("base64 strict decoding accepts exactly the canonical encodings", () => {
  // Random short strings over the alphabet, padding and a few intruders: whatever is accepted
  // re-encodes to itself, on both paths, and both paths agree on acceptance.
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=== \n-_".split(
    "",
  );
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...chars), { maxLength: 16 }), (list) => {
      const text = list.join("");
      let native: Uint8Array | undefined;
      let js: Uint8Array | undefined;
      let nativeError: unknown;
      let jsError: unknown;
      try {
        native = decodeBase64Strict(text);
      } catch (error) {
        nativeError = error;
      }
      try {
        js = decodeBase64Js(text);
      } catch (error) {
        jsError = error;
      }
      if (native === undefined || js === undefined) {
        assert.ok(nativeError instanceof TypeError, text);
        assert.ok(jsError instanceof TypeError, text);
        assert.equal(nativeError.message, jsError.message);
      } else {
        assert.deepEqual(native, js);
        assert.equal(encodeBase64(native), text);
        assert.equal(encodeBase64Js(js), text);
      }
    }),
    { numRuns: 3000 },
  );
});

Deno.test("base64 strict decoding: one-character edits of valid text", () => {
  const chars = "AQgw+/=- \n_\u00c1".split("");
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 12 }),
      fc.nat(),
      fc.constantFrom("replace", "insert", "delete"),
      fc.constantFrom(...chars),
      (bytes, where, edit, char) => {
        const valid = encodeBase64(bytes);
        const at = where % (valid.length + 1);
        const text = edit === "replace"
          ? valid.slice(0, at) + char + valid.slice(at + 1)
          : edit === "insert"
          ? valid.slice(0, at) + char + valid.slice(at)
          : valid.slice(0, at) + valid.slice(at + 1);
        let nativeResult: Uint8Array | string;
        let jsResult: Uint8Array | string;
        try {
          nativeResult = decodeBase64Strict(text);
        } catch (error) {
          assert.ok(error instanceof TypeError);
          nativeResult = error.message;
        }
        try {
          jsResult = decodeBase64Js(text);
        } catch (error) {
          assert.ok(error instanceof TypeError);
          jsResult = error.message;
        }
        assert.deepEqual(nativeResult, jsResult, JSON.stringify(text));
        if (typeof jsResult !== "string") assert.equal(encodeBase64Js(jsResult), text);
      },
    ),
    { numRuns: 3000 },
  );
});

Deno.test("nativeDigests equals portableDigests", () => {
  fc.assert(
    fc.property(bytesArb, cutsArb, (bytes, cuts) => {
      const native = nativeDigests.sha256();
      const portable = portableDigests.sha256();
      let nativeCrc = 0;
      let portableCrc = 0;
      for (const piece of split(bytes, cuts)) {
        native.update(piece);
        portable.update(piece);
        nativeCrc = nativeDigests.crc32(piece, nativeCrc);
        portableCrc = portableDigests.crc32(piece, portableCrc);
      }
      assert.equal(native.digestHex(), portable.digestHex());
      assert.equal(nativeCrc, portableCrc);
      assert.equal(nativeDigests.crc32(bytes), portableDigests.crc32(bytes));
      assert.equal(sha256Hex(nativeDigests, bytes), sha256Hex(portableDigests, bytes));
    }),
    { numRuns: 200 },
  );
});

Deno.test("an empty chunk leaves a running CRC-32 as it is, whatever the runtime's crc32 does with one", () => {
  // Some builds of Node 20 return 0 for an empty view with a starting value.
  const zeroOnEmpty = (data: Uint8Array, value = 0) =>
    data.length === 0 ? 0 : zlibCrc32(data, value);
  const digests = digestsOver(zeroOnEmpty);
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 }), (pieces) => {
      let running = 0;
      let portable = 0;
      for (const piece of pieces) {
        running = digests.crc32(piece, running);
        running = digests.crc32(piece.subarray(piece.length), running);
        portable = crc32(piece, portable);
      }
      assert.equal(running, portable);
    }),
    { numRuns: 300 },
  );
  assert.equal(nativeDigests.crc32(new Uint8Array(0), 0xcbf43926), 0xcbf43926);
  assert.equal(digestsOver(undefined).crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
});
