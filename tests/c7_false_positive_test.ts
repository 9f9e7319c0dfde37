// Copyright 2026 the taskpack authors. MIT license.
/**
 * The false-positive guard of C7 (issue 22): decoding base64 and scanning every tag file must
 * not turn ordinary bytes into findings. The interop packs, the demo's packs and files that
 * are full of digests and base64 (hex digests, images, lock files, public keys, an ordinary
 * Kubernetes Secret) raise no C7 finding; the same files with a real token in base64 do.
 */
import assert from "node:assert/strict";
import { judge } from "../lib/format/conformance.ts";
import { findCredential, scanBytes, TextScanner } from "../lib/scan/patterns.ts";
import { MAX_BASE64_CHARS, scanBase64Credentials } from "../lib/scan/credentials.ts";
import { cli } from "./_cli.ts";
import { REFERENCE_DIR, REFERENCE_FILES, tempDir } from "./_helpers.ts";
import {
  bagParts,
  BASE_LUGGAGE,
  baseObject,
  flat,
  forgeBag,
  seeded,
} from "../tools/make_hostile_corpus.ts";
import { portableDigests, sha256Hex } from "../lib/bytes/digests.ts";

const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text);

/** `n` seeded pseudo-random bytes. */
function randomBytes(seed: number, n: number): Uint8Array {
  const random = seeded(seed);
  return new Uint8Array(n).map(() => Math.floor(random() * 256));
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return btoa(binary);
}

/** Ordinary files that are full of digests and base64, none of which holds a secret. */
export function ordinaryFiles(): [string, Uint8Array][] {
  const png = new Uint8Array([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...randomBytes(1, 6000),
  ]);
  const hex = Array.from(
    { length: 200 },
    (_, i) => `${sha256Hex(portableDigests, utf8(`file ${i}`))}  src/module_${i}.ts`,
  ).join("\n") + "\n";
  const lock = {
    name: "app",
    lockfileVersion: 3,
    packages: Object.fromEntries(Array.from({ length: 150 }, (_, i) => [
      `node_modules/package-number-${i}`,
      {
        version: `1.${i}.0`,
        resolved:
          `https://registry.npmjs.org/package-number-${i}/-/package-number-${i}-1.${i}.0.tgz`,
        integrity: `sha512-${base64(randomBytes(100 + i, 64))}`,
      },
    ])),
  };
  const goSum = Array.from(
    { length: 100 },
    (_, i) => `github.com/example/module${i} v0.${i}.0 h1:${base64(randomBytes(400 + i, 32))}`,
  ).join("\n");
  const publicKeys = Array.from(
    { length: 20 },
    (_, i) =>
      `ssh-ed25519 ${
        base64(
          new Uint8Array([
            0,
            0,
            0,
            11,
            ...utf8("ssh-ed25519"),
            0,
            0,
            0,
            32,
            ...randomBytes(600 + i, 32),
          ]),
        )
      } user${i}@host`,
  ).join("\n");
  const secret = [
    "apiVersion: v1",
    "kind: Secret",
    "metadata:",
    "  name: ordinary",
    "data:",
    `  username: ${btoa("deploy-user")}`,
    `  password: ${btoa("correct horse battery staple")}`,
    `  config.json: ${
      btoa('{"region":"eu-west-1","retries":3,"endpoint":"https://api.example.invalid/v2"}')
    }`,
    `  tls.crt: ${base64(randomBytes(700, 900))}`,
    "",
  ].join("\n");
  const jwtLike = [
    btoa('{"alg":"HS256","typ":"JWT"}'),
    btoa('{"sub":"1234567890","name":"A Person","iat":1516239022}'),
    base64(randomBytes(800, 32)),
  ].join(".");
  // YAML with indented block scalars that hold no key: scripts, a certificate, placeholders.
  const begin = (label: string) => ["-----BEGIN", label, "KEY-----"].join(" ");
  const end = (label: string) => ["-----END", label, "KEY-----"].join(" ");
  const workflow = [
    "jobs:",
    "  build:",
    "    steps:",
    "      - run: |",
    "          deno task test",
    "          echo done",
    "      - name: certificate",
    "        with:",
    "          cert: |",
    "                    -----BEGIN CERTIFICATE-----",
    `                    ${base64(randomBytes(33, 48))}`,
    "                    -----END CERTIFICATE-----",
    "          public: |",
    `                    ${begin("PUBLIC")}`,
    `                    ${base64(randomBytes(34, 48))}`,
    `                    ${end("PUBLIC")}`,
    "          template: |",
    `                    ${begin("PRIVATE")}`,
    "                    YOUR KEY HERE",
    `                    ${end("PRIVATE")}`,
    `          empty: "${begin("PRIVATE")}\\n${end("PRIVATE")}"`,
    "",
  ].join("\n");
  // Prose saved in Windows-1252 (not UTF-8): read as text, and no transcript.
  const cp1252 = Uint8Array.from(
    [..."The user\u2019s caf\u00e9 \u201cr\u00e9sum\u00e9\u201d \u2013 User: alice.\nSystem requirements: 4 GB.\n"]
      .map((c) =>
        ({ "\u2019": 0x92, "\u201c": 0x93, "\u201d": 0x94, "\u2013": 0x96 } as Record<
          string,
          number
        >)[c] ??
          c.charCodeAt(0)
      ),
  );
  return [
    ["digests.txt", utf8(hex)],
    ["notes-cp1252.txt", cp1252],
    [".github/workflow.yaml", utf8(workflow)],
    ["image.png", png],
    ["page.html", utf8(`<img src="data:image/png;base64,${base64(png)}">\n`)],
    ["package-lock.json", utf8(JSON.stringify(lock, null, 2) + "\n")],
    ["go.sum", utf8(goSum + "\n")],
    ["authorized_keys", utf8(publicKeys + "\n")],
    ["k8s/ordinary-secret.yaml", utf8(secret)],
    ["session.txt", utf8(`session cookie: ${jwtLike}\n`)],
    ["blob.b64", utf8(base64(randomBytes(900, 200_000)).replace(/.{76}/g, "$&\n") + "\n")],
    [
      "paths.txt",
      utf8(
        Array.from(
          { length: 300 },
          (_, i) => `src/components/very/long/path/to/module_${i}/index.ts`,
        )
          .join("\n"),
      ),
    ],
  ];
}

Deno.test("ordinary files full of digests and base64 raise no C7 finding, as luggage or in one bag", async () => {
  const files = ordinaryFiles();
  for (const [name, bytes] of files) {
    assert.equal(scanBytes(bytes).finding, null, name);
    const scanner = new TextScanner();
    for (let i = 0; i < bytes.length; i += 1000) scanner.push(bytes.subarray(i, i + 1000));
    assert.equal(scanner.finish().finding, null, `${name}, streamed`);
  }
  const base = await baseObject();
  const luggage = [...BASE_LUGGAGE, ...files];
  for (const bytes of [forgeBag(bagParts({ luggage }, base)), utf8(flat(base, luggage))]) {
    const report = await judge(bytes);
    const c7 = report.checks.find((check) => check.id === "C7")!;
    assert.ok(c7.ok, c7.detail);
    assert.ok(report.ok, JSON.stringify(report.checks.filter((c) => !c.ok)));
  }
});

Deno.test("the interop packs raise no C7 finding", async () => {
  for (const name of REFERENCE_FILES) {
    const bytes = await Deno.readFile(new URL(name, REFERENCE_DIR));
    const c7 = (await judge(bytes)).checks.find((check) => check.id === "C7")!;
    assert.ok(c7.ok, `${name}: ${c7.detail}`);
  }
});

Deno.test("the demo's packs raise no C7 finding", async () => {
  const tmp = await tempDir({ prefix: "taskpack-c7-demo-" });
  try {
    const demo = await cli(["demo", "--dir", tmp], { cwd: tmp });
    assert.equal(demo.code, 0, demo.stderr);
    let judged = 0;
    for await (const entry of Deno.readDir(tmp)) {
      if (!entry.isFile || !/\.taskpack(\.json)?$/.test(entry.name)) continue;
      const report = await judge(await Deno.readFile(`${tmp}/${entry.name}`));
      const c7 = report.checks.find((check) => check.id === "C7")!;
      assert.ok(c7.ok, `${entry.name}: ${c7.detail}`);
      judged++;
    }
    assert.ok(judged >= 2, `${judged} packs judged`);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a token in base64 is found at any alignment, padded or not, in either alphabet", () => {
  const token = ["gh", "p_"].join("") + "q7Z" + "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2z";
  // Before the token, 0 to 4 bytes: the token starts at every offset of a 3-byte group.
  for (const before of ["", " ", "k=", "k: ", "key=", '{\n  "k": "']) {
    const encoded = btoa(`${before}${token}\n`);
    for (
      const form of [
        encoded,
        encoded.replace(/=+$/, ""),
        encoded.replace(/\+/g, "-").replace(/\//g, "_"),
      ]
    ) {
      const finding = findCredential(`blob: ${form}\n`);
      assert.equal(finding?.kind, "github-token", `${before}: ${form}`);
      assert.equal(finding?.encoding, "base64");
      assert.equal(finding?.index, 6);
    }
  }
  // A run may begin with characters of the alphabet that are not part of the encoding.
  for (const glued of ["v", "x-", "id_", "blob"]) {
    const finding = findCredential(`${glued}${btoa(token)}\n`);
    assert.equal(finding?.kind, "github-token", glued);
    assert.equal(finding?.encoding, "base64", glued);
  }
  // Deep inside a long run, streamed: windows cut the run at arbitrary places.
  {
    const filler = btoa("a".repeat(150_000) + "\n");
    const tail = btoa("\n".repeat(2) + token + "\n");
    const bytes = utf8(`x: ${filler.slice(0, -4)}${tail}\n`);
    const scanner = new TextScanner();
    for (let i = 0; i < bytes.length; i += 65536) scanner.push(bytes.subarray(i, i + 65536));
    const finding = scanner.finish().finding;
    assert.equal(finding?.kind, "github-token", "deep in a streamed run");
    assert.equal(finding?.encoding, "base64");
  }
  // Run into a larger base64 blob, streamed in small chunks: the line is that of the run.
  const blob = btoa("z".repeat(3000) + "\n" + token + "\n" + "q".repeat(3000));
  const scanner = new TextScanner();
  const bytes = utf8(`line one\nblob: ${blob}\n`);
  for (let i = 0; i < bytes.length; i += 333) scanner.push(bytes.subarray(i, i + 333));
  const finding = scanner.finish().finding;
  assert.equal(finding?.kind, "github-token");
  assert.equal(finding?.encoding, "base64");
  assert.equal(finding?.line, 2);
});

Deno.test("a Kubernetes Secret's data: value is decoded after its key, so a bare AWS secret key is found", () => {
  const secretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "q7Z1aB3dE5";
  const yaml = `kind: Secret\ndata:\n  ${["aws", "secret", "access", "key"].join("_")}: ${
    btoa(secretKey)
  }\n`;
  const finding = scanBytes(utf8(yaml)).finding;
  assert.equal(finding?.kind, "aws-secret-key");
  assert.equal(finding?.encoding, "base64");
  assert.equal(finding?.line, 3);
  // The same value under an ordinary key is 40 random characters, not a credential.
  assert.equal(scanBytes(utf8(`kind: Secret\ndata:\n  blob: ${btoa(secretKey)}\n`)).finding, null);
});

Deno.test("base64 decoding is bounded per file: past MAX_BASE64_CHARS, runs are not decoded", () => {
  const token = ["gh", "p_"].join("") + "q7Z" + "aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2z";
  const text = `${btoa(token)}\n`;
  assert.notEqual(scanBase64Credentials(text, 0, true, { chars: MAX_BASE64_CHARS }), null);
  assert.equal(scanBase64Credentials(text, 0, true, { chars: 10 }), null);
  // One scanner's allowance is spent across the whole file.
  const filler = (base64(randomBytes(5, 3 << 20)) + "\n").repeat(2);
  assert.ok(filler.length * 4 > MAX_BASE64_CHARS);
  assert.equal(scanBytes(utf8(filler + text)).finding, null);
  assert.notEqual(scanBytes(utf8(text + filler)).finding, null);
});

Deno.test("every token shape is found in base64, at every offset in a group and glued to a longer run", async () => {
  const { tokens } = await import("./_hostile_generated.ts");
  for (const { kind, token } of tokens()) {
    for (const before of ["", " ", "a ", "id: ", "x\n\tz "]) {
      for (const after of ["", "\n", " end"]) {
        const encoded = btoa(`${before}${token}${after}`);
        for (const form of [encoded, encoded.replace(/=+$/, ""), `q_${encoded}`]) {
          const finding = findCredential(`value ${form}\n`);
          assert.equal(finding?.kind, kind, `${kind} after ${JSON.stringify(before)}: ${form}`);
          assert.equal(finding?.encoding, "base64");
        }
      }
    }
  }
});
