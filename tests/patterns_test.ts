// Copyright 2026 the taskpack authors. MIT license.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "npm:fast-check@4.11.0";
import {
  findCredential,
  findTranscript,
  findTranscriptInValue,
  isInstructionKey,
  scanBytes,
  TextScanner,
} from "../lib/scan/patterns.ts";
import { countNewlines } from "../lib/bytes/bytes.ts";
import { MIN_BASE64_RUN, nextLongRun } from "../lib/scan/credentials.ts";

// No literal secret-shaped token appears in this file: every token is assembled at run time
// from fragments and seeded random characters (see the self-scan test at the end).

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const HEX = "0123456789abcdef";
const ALNUM = UPPER + LOWER + DIGITS;
const B64URL = ALNUM + "-_";
const B64 = ALNUM + "+/";

/** A small deterministic PRNG (mulberry32), so every run builds the same tokens. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let tokenSeed = 1;
/** `length` random characters of `alphabet`, always containing a digit and both cases. */
function random(alphabet: string, length: number): string {
  const next = prng(tokenSeed++);
  for (;;) {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
    const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(alphabet));
    if (classes.every((re) => re.test(out))) return out;
  }
}

interface CredentialCase {
  name: string;
  kind: string;
  /** The text holding the credential; the finding starts at its first character. */
  token: string;
}

const pem = (label: string, body: string) => ["-----BEGIN", label, "KEY-----"].join(" ") + body;

const CREDENTIALS: CredentialCase[] = [
  {
    name: "PKCS#8 private key",
    kind: "private-key",
    token: pem("PRIVATE", `\n${random(B64, 64)}\n${random(B64, 64)}\n`),
  },
  {
    name: "RSA private key",
    kind: "private-key",
    token: pem("RSA PRIVATE", `\n${random(B64, 64)}\n`),
  },
  { name: "EC private key", kind: "private-key", token: pem("EC PRIVATE", `\n${random(B64, 64)}`) },
  {
    name: "DSA private key",
    kind: "private-key",
    token: pem("DSA PRIVATE", `\r\n${random(B64, 64)}`),
  },
  {
    name: "OpenSSH private key",
    kind: "private-key",
    token: pem("OPENSSH PRIVATE", `\n${random(B64, 70)}`),
  },
  {
    name: "encrypted PKCS#8 private key",
    kind: "private-key",
    token: pem("ENCRYPTED PRIVATE", `\n${random(B64, 64)}`),
  },
  {
    name: "legacy encrypted PEM with headers",
    kind: "private-key",
    token: pem(
      "RSA PRIVATE",
      `\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${random(HEX, 32).toUpperCase()}\n\n` +
        random(B64, 64),
    ),
  },
  {
    name: "PGP private key block",
    kind: "private-key",
    token: ["-----BEGIN PGP PRIVATE", "KEY BLOCK-----"].join(" ") +
      `\nVersion: GnuPG v2\n\n${random(B64, 64)}`,
  },
  {
    name: "private key inside a JSON string",
    kind: "private-key",
    token: pem("PRIVATE", `\\n${random(B64, 64)}\\n${random(B64, 64)}\\n`),
  },
  // §4.1: a key block at any length, and however indented.
  {
    name: "private key with a body of four characters",
    kind: "private-key",
    token: pem("PRIVATE", `\n${random(B64, 4)}\n${["-----END", "PRIVATE", "KEY-----"].join(" ")}`),
  },
  {
    name: "short private key inside a JSON string, padded",
    kind: "private-key",
    token: pem(
      "EC PRIVATE",
      `\\n${random(B64, 10)}==\\n${["-----END EC", "PRIVATE", "KEY-----"].join(" ")}\\n`,
    ),
  },
  {
    name: "private key in a YAML block scalar indented 24",
    kind: "private-key",
    token: pem("RSA PRIVATE", `\n${" ".repeat(24)}${random(B64, 64)}\n${" ".repeat(24)}`),
  },
  {
    name: "short private key in a YAML block scalar indented 30",
    kind: "private-key",
    token: pem(
      "PRIVATE",
      `\n${" ".repeat(30)}${random(B64, 12)}\n${" ".repeat(30)}${
        ["-----END", "PRIVATE", "KEY-----"].join(" ")
      }`,
    ),
  },
  {
    name: "private key in code, concatenated strings indented 28",
    kind: "private-key",
    token: pem("PRIVATE", `\\n" +\n${" ".repeat(28)}"${random(B64, 64)}\\n" +`),
  },
  {
    name: "OpenAI legacy key",
    kind: "openai-key",
    token: "s" + "k-" + random(ALNUM, 20) + "T3Blbk" + "FJ" + random(ALNUM, 20),
  },
  {
    name: "OpenAI project key",
    kind: "openai-key",
    token: "s" + "k-" + "proj-" + random(ALNUM, 60) + "_" + random(ALNUM, 60) + "-" +
      random(ALNUM, 34),
  },
  {
    name: "Anthropic key",
    kind: "anthropic-key",
    token: ["sk", "ant", "api03"].join("-") + "-" + random(B64URL, 93) + "AA",
  },
  { name: "Google API key", kind: "google-api-key", token: "AI" + "za" + random(B64URL, 35) },
  {
    name: "Hugging Face token",
    kind: "huggingface-token",
    token: "h" + "f_" + random(UPPER + LOWER, 34),
  },
  { name: "Groq key", kind: "groq-key", token: "gs" + "k_" + random(ALNUM, 52) },
  { name: "Replicate token", kind: "replicate-token", token: "r" + "8_" + random(ALNUM, 37) },
  { name: "xAI key", kind: "xai-key", token: "xa" + "i-" + random(ALNUM, 80) },
  { name: "Perplexity key", kind: "perplexity-key", token: "pp" + "lx-" + random(ALNUM, 48) },
  ...["p", "o", "u", "s", "r"].map((letter) => ({
    name: `GitHub gh${letter}_ token`,
    kind: "github-token",
    token: "gh" + letter + "_" + random(ALNUM, 36),
  })),
  {
    name: "GitHub fine-grained token",
    kind: "github-token",
    token: "github" + "_pat_" + random(ALNUM, 22) + "_" + random(ALNUM, 59),
  },
  { name: "GitLab token", kind: "gitlab-token", token: "glp" + "at-" + random(B64URL, 20) },
  { name: "npm token", kind: "npm-token", token: "np" + "m_" + random(ALNUM, 36) },
  {
    name: "PyPI token",
    kind: "pypi-token",
    token: "py" + "pi-" + "AgEIcHlwaS5vcmc" + random(B64URL, 150),
  },
  {
    name: "AWS access key id",
    kind: "aws-access-key",
    token: "AK" + "IA" + random(UPPER + DIGITS, 16),
  },
  {
    name: "AWS temporary access key id",
    kind: "aws-access-key",
    token: "AS" + "IA" + random(UPPER + DIGITS, 16),
  },
  {
    name: "AWS secret access key",
    kind: "aws-secret-key",
    token: "aws_secret_access_key" + " = " + random(B64, 40),
  },
  {
    name: "Google OAuth access token",
    kind: "google-oauth-token",
    token: "ya" + "29." + random(B64URL, 120),
  },
  {
    name: "Google OAuth client secret",
    kind: "google-oauth-token",
    token: "GOC" + "SPX-" + random(B64URL, 28),
  },
  {
    name: "DigitalOcean token",
    kind: "digitalocean-token",
    token: "do" + "p_v1_" + random(HEX, 64),
  },
  {
    name: "Azure storage account key",
    kind: "azure-key",
    token: "Account" + "Key=" + random(B64, 86) + "==",
  },
  {
    name: "Slack bot token",
    kind: "slack-token",
    token: "xo" + "xb-" + random(DIGITS, 12) + "-" + random(DIGITS, 13) + "-" + random(ALNUM, 24),
  },
  {
    name: "Slack user token",
    kind: "slack-token",
    token: "xo" + "xp-" + random(DIGITS, 12) + "-" + random(DIGITS, 12) + "-" +
      random(DIGITS, 13) + "-" + random(HEX, 32),
  },
  {
    name: "Slack webhook URL",
    kind: "slack-webhook",
    token: "hooks.slack.com" + "/services/T" + random(UPPER + DIGITS, 8) + "/B" +
      random(UPPER + DIGITS, 8) + "/" + random(ALNUM, 24),
  },
  {
    name: "Discord webhook URL",
    kind: "discord-webhook",
    token: "discord.com" + "/api/webhooks/" + random(DIGITS, 18) + "/" + random(B64URL, 68),
  },
  {
    name: "Telegram bot token",
    kind: "telegram-bot-token",
    token: "7" + random(DIGITS, 9) + ":A" + "A" + random(B64URL, 33),
  },
  { name: "Stripe live key", kind: "stripe-key", token: "sk" + "_live_" + random(ALNUM, 24) },
  { name: "Stripe restricted key", kind: "stripe-key", token: "rk" + "_live_" + random(ALNUM, 24) },
  { name: "Stripe test key", kind: "stripe-key", token: "sk" + "_test_" + random(ALNUM, 24) },
  { name: "Square access token", kind: "square-token", token: "sq0" + "atp-" + random(B64URL, 22) },
  { name: "Square OAuth secret", kind: "square-token", token: "sq0" + "csp-" + random(B64URL, 43) },
  {
    name: "SendGrid key",
    kind: "sendgrid-key",
    token: "S" + "G." + random(B64URL, 22) + "." + random(B64URL, 43),
  },
  { name: "Twilio API key", kind: "twilio-key", token: "S" + "K" + random(HEX, 32) },
  { name: "Shopify token", kind: "shopify-token", token: "shp" + "at_" + random(HEX, 32) },
];

const ZERO_WIDTH = ["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF", "\u00AD"];

/** `token` with zero-width characters inside its prefix and in its middle. */
function splitByZeroWidth(token: string, which: number): string {
  const a = ZERO_WIDTH[which % ZERO_WIDTH.length]!;
  const b = ZERO_WIDTH[(which + 1) % ZERO_WIDTH.length]!;
  const middle = Math.floor(token.length / 2);
  return token.slice(0, 2) + a + token.slice(2, middle) + b + b + token.slice(middle);
}

/** Ordinary lines that trigger nothing, about `bytes` long in all. */
function filler(bytes: number, seed: number): string {
  const words = [
    "the",
    "build",
    "passes",
    "on",
    "my",
    "machine;",
    "deploy",
    "step:",
    "retry",
    "SKU",
    "ASK",
    "sk-learn",
    "hf",
    "user",
    "assistant",
    "key=value",
    "AIM",
    "note:",
    "数据",
    "的",
    "0x1f",
    "a.b.c",
    "--flag",
  ];
  const next = prng(seed);
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const count = 3 + Math.floor(next() * 10);
    const line = Array.from({ length: count }, () => words[Math.floor(next() * words.length)])
      .join(" ");
    lines.push(line);
    size += new TextEncoder().encode(line).length + 1;
  }
  return lines.join("\n") + "\n";
}

/** Feeds `bytes` in random chunk sizes, with one chunk boundary forced at `cut`. */
function scanInChunks(bytes: Uint8Array, cut: number, seed: number, maxChunk = 4096) {
  const next = prng(seed);
  const scanner = new TextScanner();
  for (const [from, to] of [[0, cut], [cut, bytes.length]] as const) {
    for (let at = from; at < to;) {
      const size = 1 + Math.floor(next() * maxChunk);
      scanner.push(bytes.subarray(at, Math.min(at + size, to)));
      at += size;
    }
  }
  return scanner.finish();
}

function linesBefore(text: string, index: number): number {
  let lines = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 0x0a) lines++;
  return lines;
}

const encoder = new TextEncoder();

Deno.test("findCredential() finds each token shape", async (t) => {
  for (const { name, kind, token } of CREDENTIALS) {
    await t.step(name, () => {
      const text = `config line\nvalue: ${token}\nmore`;
      assert.deepEqual(findCredential(text), { rule: "credential", kind, index: 19 });
    });
  }
});

Deno.test("findCredential() finds each token at offset 0", async (t) => {
  for (const { name, kind, token } of CREDENTIALS) {
    await t.step(name, () => {
      assert.deepEqual(findCredential(token), { rule: "credential", kind, index: 0 });
      assert.deepEqual(findCredential(token + "\n"), { rule: "credential", kind, index: 0 });
    });
  }
});

Deno.test("findCredential() sees through zero-width characters", async (t) => {
  for (const [i, { name, kind, token }] of CREDENTIALS.entries()) {
    await t.step(name, () => {
      const text = `x\u200B = "${splitByZeroWidth(token, i)}"`;
      // The index is an offset in the text as given, zero-width characters included.
      assert.deepEqual(findCredential(text), { rule: "credential", kind, index: 6 });
    });
  }
});

Deno.test("TextScanner finds each token past 64 KiB, straddling a chunk boundary", async (t) => {
  const before = filler(70_000, 1);
  const after = filler(20_000, 2);
  for (const [i, { name, kind, token }] of CREDENTIALS.entries()) {
    await t.step(name, () => {
      const text = `${before}token: ${token}\n${after}`;
      const index = before.length + 7;
      const bytes = encoder.encode(text);
      const tokenByte = encoder.encode(text.slice(0, index)).length;
      for (let seed = 0; seed < 3; seed++) {
        const cut = tokenByte + 1 + Math.floor(prng(seed + i * 10)() * (token.length - 1));
        const result = scanInChunks(bytes, cut, seed + i * 10);
        assert.deepEqual(result, {
          finding: { rule: "credential", kind, index, line: linesBefore(text, index) },
          text: true,
        });
      }
    });
  }
});

Deno.test("TextScanner finds zero-width-split tokens fed byte by byte", async (t) => {
  for (const [i, { name, kind, token }] of CREDENTIALS.entries()) {
    await t.step(name, () => {
      const text = `${filler(1_200, i)}k=${splitByZeroWidth(token, i)}\n`;
      const index = text.indexOf("k=") + 2;
      const result = scanInChunks(encoder.encode(text), 1, i, 1);
      assert.deepEqual(result.finding, {
        rule: "credential",
        kind,
        index,
        line: linesBefore(text, index),
      });
    });
  }
});

Deno.test("TextScanner finds a token split by a run of zero-width characters longer than its overlap, wherever a chunk ends", () => {
  // The overlap counts characters a token can be made of: a run of zero-width characters, however
  // long, at the chunk boundary cannot push the token's start out of the window.
  const tokens = CREDENTIALS.filter((c) => c.token.length >= 20);
  fc.assert(
    fc.property(
      fc.nat({ max: tokens.length - 1 }),
      fc.integer({ min: 1, max: 6000 }),
      fc.nat({ max: 1000 }),
      fc.nat(),
      fc.boolean(),
      (which, run, cutInRun, seed, binary) => {
        const { kind, token } = tokens[which]!;
        const split = 2 + (seed % (token.length - 4));
        const zw = ZERO_WIDTH[seed % ZERO_WIDTH.length]!.repeat(run);
        const before = filler(1500 + (seed % 3000), seed);
        const text = `${before}k=${token.slice(0, split)}${zw}${token.slice(split)}\n`;
        const head = binary ? new Uint8Array([0, 1, 2, 0xff]) : new Uint8Array(0);
        const body = encoder.encode(text);
        const bytes = new Uint8Array(head.length + body.length);
        bytes.set(head);
        bytes.set(body, head.length);
        const zwAt = head.length + encoder.encode(text.slice(0, before.length + 2 + split)).length;
        const cut = zwAt + Math.min(cutInRun, encoder.encode(zw).length);
        const result = scanInChunks(bytes, cut, seed, 1 + (seed % 2048));
        const index = before.length + 2;
        assert.equal(result.finding?.kind, kind);
        assert.equal(result.finding?.line, linesBefore(text, index));
        // Text counts UTF-16 units; binary counts bytes.
        assert.equal(
          result.finding?.index,
          binary ? head.length + encoder.encode(text.slice(0, index)).length : index,
        );
        assert.deepEqual(scanBytes(bytes).finding, result.finding);
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("TextScanner and scanBytes() scan the whole file", async (t) => {
  const token = CREDENTIALS.find((c) => c.kind === "github-token")!.token;
  await t.step("a token after 3 MiB", () => {
    const before = filler(3 << 20, 3);
    const text = `${before}${token}\n`;
    const result = scanBytes(encoder.encode(text));
    assert.equal(result.finding?.kind, "github-token");
    assert.equal(result.finding?.index, before.length);
    assert.equal(result.finding?.line, linesBefore(text, before.length));
  });
  await t.step("a token at the very end, without a newline", () => {
    const text = filler(100_000, 4) + token;
    assert.equal(scanBytes(encoder.encode(text)).finding?.index, text.length - token.length);
  });
  await t.step("the first of two tokens", () => {
    const aws = CREDENTIALS.find((c) => c.kind === "aws-access-key")!.token;
    const text = `${filler(9_000, 5)}${aws}\n${token}\n`;
    assert.equal(scanBytes(encoder.encode(text)).finding?.kind, "aws-access-key");
  });
  await t.step("a custom overlap", () => {
    const text = `${filler(50_000, 6)}${token}\n`;
    const scanner = new TextScanner({ overlap: 4096 });
    const bytes = encoder.encode(text);
    for (let at = 0; at < bytes.length; at += 1000) scanner.push(bytes.subarray(at, at + 1000));
    assert.equal(scanner.finish().finding?.kind, "github-token");
  });
});

Deno.test("TextScanner does not decide on a token cut by the end of a chunk", () => {
  // 21 upper-case characters after the prefix are not an access key id; the first 20 are.
  const almost = "AK" + "IA" + random(UPPER + DIGITS, 16);
  const text = `id ${almost}X${random(UPPER, 8)} more\n`;
  assert.equal(findCredential(text), null);
  const bytes = encoder.encode(text);
  const cut = text.indexOf("X");
  const scanner = new TextScanner();
  scanner.push(bytes.subarray(0, cut));
  scanner.push(bytes.subarray(cut));
  assert.deepEqual(scanner.finish(), { finding: null, text: true });
});

Deno.test("TextScanner reads UTF-16 luggage with a byte order mark", async (t) => {
  const token = CREDENTIALS.find((c) => c.kind === "anthropic-key")!.token;
  const utf16 = (text: string, littleEndian: boolean) => {
    const bytes = new Uint8Array(2 + text.length * 2);
    const view = new DataView(bytes.buffer);
    view.setUint16(0, 0xfeff, littleEndian);
    for (let i = 0; i < text.length; i++) {
      view.setUint16(2 + i * 2, text.charCodeAt(i), littleEndian);
    }
    return bytes;
  };
  const text = `hello 世界\r\nkey = ${token}\r\n`;
  for (const littleEndian of [true, false]) {
    await t.step(littleEndian ? "UTF-16LE" : "UTF-16BE", () => {
      const bytes = utf16(text, littleEndian);
      const expected = {
        finding: { rule: "credential", kind: "anthropic-key", index: 16, line: 2 },
        text: true,
      };
      assert.deepEqual(scanBytes(bytes), expected);
      assert.deepEqual(scanInChunks(bytes, 37, 1, 5), expected);
    });
  }
  await t.step("a UTF-16LE transcript", () => {
    const result = scanBytes(utf16("User: hi\nAssistant: hello\n", true));
    assert.equal(result.finding?.kind, "role-lines");
  });
});

Deno.test("TextScanner scans binary files for credentials only", async (t) => {
  const token = CREDENTIALS.find((c) => c.kind === "stripe-key")!.token;
  const noise = (length: number, seed: number) => {
    const next = prng(seed);
    return Uint8Array.from({ length }, () => Math.floor(next() * 256));
  };
  const join = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  };
  await t.step("a NUL in the first 8 KiB makes a file binary", () => {
    const bytes = join(encoder.encode("plain text"), new Uint8Array([0]), encoder.encode("more"));
    assert.deepEqual(scanBytes(bytes), { finding: null, text: false });
  });
  await t.step("invalid UTF-8 with a control byte in the first 8 KiB makes a file binary", () => {
    assert.deepEqual(scanBytes(new Uint8Array([0x41, 0xff, 0x02, 0x42])), {
      finding: null,
      text: false,
    });
    assert.deepEqual(scanBytes(new Uint8Array([0x41, 0x07, 0xe4, 0xb8])), {
      finding: null,
      text: false,
    });
  });
  await t.step("invalid UTF-8 without control bytes is Windows-1252 text", () => {
    assert.deepEqual(scanBytes(new Uint8Array([0x41, 0xff, 0x42])), { finding: null, text: true });
    assert.deepEqual(scanBytes(new Uint8Array([0x41, 0xe4, 0xb8])), { finding: null, text: true });
  });
  await t.step("a character cut at 8 KiB does not make a file binary", () => {
    const text = "a".repeat(8191) + "世界";
    assert.deepEqual(scanBytes(encoder.encode(text)), { finding: null, text: true });
  });
  await t.step("a token after 64 KiB of binary, index in bytes", () => {
    const head = noise(70_000, 1);
    const bytes = join(head, encoder.encode(` ${token} `), noise(10_000, 2));
    const result = scanInChunks(bytes, head.length + 10, 3);
    assert.equal(result.text, false);
    assert.equal(result.finding?.kind, "stripe-key");
    assert.equal(result.finding?.index, head.length + 1);
  });
  await t.step("a zero-width-split token in a binary file", () => {
    const bytes = join(new Uint8Array([0, 1, 2, 0xff]), encoder.encode(splitByZeroWidth(token, 0)));
    assert.equal(scanBytes(bytes).finding?.kind, "stripe-key");
    assert.equal(scanInChunks(bytes, 7, 1, 1).finding?.kind, "stripe-key");
  });
  await t.step(
    "a private key block with a short body in a binary file, wherever a chunk ends",
    () => {
      // The body is too short for a token run: the block is known by its -----BEGIN.
      const key = pem(
        "PRIVATE",
        `\n${random(B64, 6)}\n${["-----END", "PRIVATE", "KEY-----"].join(" ")}`,
      );
      const head = noise(200_000, 4);
      const bytes = join(head, encoder.encode(key), noise(5000, 5));
      assert.equal(scanBytes(bytes).finding?.kind, "private-key");
      for (const offset of [1, 4, 5, 9, 10, 11, 20]) {
        const result = scanInChunks(bytes, head.length + offset, offset, 70_000);
        assert.equal(result.text, false);
        assert.equal(result.finding?.kind, "private-key", `cut ${offset} bytes in`);
        assert.equal(result.finding?.index, head.length);
      }
    },
  );
  await t.step("a transcript in a binary file is not reported", () => {
    const bytes = join(
      new Uint8Array([0, 1, 2, 3, 0xff, 0, 0]),
      encoder.encode("User: hi\nAssistant: hello\n"),
    );
    assert.deepEqual(scanBytes(bytes), { finding: null, text: false });
  });
});

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** `text` in Windows-1252 (its characters are Latin-1 or a few punctuation marks). */
function cp1252(text: string): Uint8Array {
  const extra: Record<string, number> = { "’": 0x92, "“": 0x93, "”": 0x94, "–": 0x96, "€": 0x80 };
  return Uint8Array.from([...text].map((c) => extra[c] ?? c.charCodeAt(0)));
}

Deno.test("a chat saved in Windows-1252 or led by NUL bytes is read as the text it is (C8)", async (t) => {
  const chat =
    "Notes from the café – “draft”\nUser: can you fix the build?\nAssistant: I’ll retry.\n";
  const expected = {
    finding: { rule: "transcript", kind: "role-lines", index: 30, line: 2 },
    text: true,
  };
  await t.step("Windows-1252", () => {
    const bytes = cp1252(chat);
    assert.throws(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    assert.deepEqual(scanBytes(bytes), expected);
    assert.deepEqual(scanInChunks(bytes, 40, 1, 7), expected);
  });
  await t.step("Windows-1252, past 64 KiB, streamed", () => {
    const before = "Notes – “x” on the café’s build\n".repeat(2500);
    const bytes = cp1252(before + chat);
    const result = scanInChunks(bytes, 70_000, 2);
    assert.equal(result.finding?.kind, "role-lines");
    assert.equal(result.finding?.index, before.length + 30);
  });
  await t.step("led by a NUL byte", () => {
    const bytes = concat(new Uint8Array([0]), encoder.encode("User: hi\nAssistant: hello\n"));
    assert.deepEqual(scanBytes(bytes), {
      finding: { rule: "transcript", kind: "role-lines", index: 0, line: 1 },
      text: true,
    });
  });
  await t.step("led by NULs, past 8 KiB, streamed", () => {
    const bytes = concat(
      new Uint8Array(16),
      encoder.encode(`${filler(9000, 3)}User: hi\nAI: yo\n`),
    );
    assert.equal(scanInChunks(bytes, 5, 3, 100).finding?.kind, "role-lines");
  });
  await t.step("Windows-1252 prose is no transcript", () => {
    const prose = "The user’s café – “résumé” notes.\nUser: alice\nThe assistant said € 5.\n";
    assert.deepEqual(scanBytes(cp1252(prose)), { finding: null, text: true });
  });
});

Deno.test("TextScanner edge cases", async (t) => {
  await t.step("an empty file is text without findings", () => {
    assert.deepEqual(new TextScanner().finish(), { finding: null, text: true });
    assert.deepEqual(scanBytes(new Uint8Array(0)), { finding: null, text: true });
  });
  await t.step("finish() is idempotent; push() after it throws", () => {
    const scanner = new TextScanner();
    scanner.push(encoder.encode("a"));
    assert.deepEqual(scanner.finish(), scanner.finish());
    assert.throws(() => scanner.push(encoder.encode("b")), TypeError);
  });
  await t.step("a bad overlap is refused", () => {
    assert.throws(() => new TextScanner({ overlap: -1 }), RangeError);
    assert.throws(() => new TextScanner({ overlap: Number.NaN }), RangeError);
  });
  await t.step("a UTF-8 byte order mark is not counted", () => {
    const token = CREDENTIALS.find((c) => c.kind === "npm-token")!.token;
    const bytes = encoder.encode(`\uFEFF${token}`);
    assert.deepEqual(scanBytes(bytes).finding, {
      rule: "credential",
      kind: "npm-token",
      index: 0,
      line: 1,
    });
  });
});

Deno.test("credential near misses are not reported", async (t) => {
  const cases: [string, string][] = [
    ["a PEM placeholder", pem("PRIVATE", "\n...\n-----END PRIVATE KEY-----")],
    ["a PEM placeholder in words", pem("PRIVATE", "\nYOUR KEY HERE\n-----END PRIVATE KEY-----")],
    ["a PEM placeholder in brackets", pem("PRIVATE", "\n<your key>\n-----END PRIVATE KEY-----")],
    ["an empty key block", pem("PRIVATE", "\n-----END PRIVATE KEY-----")],
    [
      "a key cut short by dots",
      pem("RSA PRIVATE", "\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----"),
    ],
    ["a certificate", ["-----BEGIN", "CERTIFICATE-----"].join(" ") + `\n${random(B64, 64)}`],
    ["a public key", ["-----BEGIN PUBLIC", "KEY-----"].join(" ") + `\n${random(B64, 64)}`],
    ["a Slack placeholder", "xo" + "xb-your-token-here"],
    ["a short GitHub-like word", "gh" + "p_" + random(ALNUM, 20)],
    ["an identifier after sk-", "s" + "k-" + "learn-some-very-long-kebab-case-name-2024-x"],
    ["a lower-case hf_ identifier", "h" + "f_" + "tokenizerconfigurationloaderfactory"],
    ["22 upper-case characters after AKIA", "AK" + "IA" + random(UPPER + DIGITS, 18)],
    ["a Google-like key that is too long", "AI" + "za" + random(ALNUM, 40)],
    ["a short Anthropic prefix", ["sk", "ant", "api03"].join("-") + "-short"],
    ["a publishable Stripe key", "pk" + "_live_" + random(ALNUM, 24)],
    ["an upper-case hex digest after SK", "S" + "K" + random(HEX, 40)],
    ["a phone-number-like colon pair", `${random(DIGITS, 12)}:A` + "A" + random(ALNUM, 33)],
    ["a JSON web token", "eyJ" + random(B64URL, 30) + ".eyJ" + random(B64URL, 60)],
    ["an npm config variable", "np" + "m_config_registry_" + random(LOWER, 30)],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => assert.equal(findCredential(`x ${text} y`), null));
  }
});

interface TranscriptCase {
  name: string;
  kind: string;
  text: string;
  index: number;
}

const messages = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Is the build green?" },
  { role: "assistant", content: "Yes." },
];

const TRANSCRIPTS: TranscriptCase[] = [
  { name: "User/Assistant", kind: "role-lines", text: "User: hi\nAssistant: hello\n", index: 0 },
  {
    name: "Human/Assistant after a note",
    kind: "role-lines",
    text: "A note.\n\nHuman: fix it\n\nAssistant: done\n",
    index: 9,
  },
  {
    name: "bold markdown roles",
    kind: "role-lines",
    text: "**User:** why?\n\n**ChatGPT:** because.\n",
    index: 0,
  },
  {
    name: "bold role, colon outside",
    kind: "role-lines",
    text: "- **Me**: hello\n- **Bot**: hi\n",
    index: 0,
  },
  { name: "quoted upper case", kind: "role-lines", text: "> USER: a\n> ASSISTANT: b", index: 0 },
  { name: "headings", kind: "role-lines", text: "intro\n### Claude: a\n### User: b", index: 6 },
  { name: "Chinese roles", kind: "role-lines", text: "用户：你好\n助手：你好！\n", index: 0 },
  { name: "我 and AI", kind: "role-lines", text: "我：在吗\nAI：在。\n", index: 0 },
  { name: "System and User", kind: "role-lines", text: "System: be nice\nUser: hi\n", index: 0 },
  { name: "GPT and Human", kind: "role-lines", text: "  HUMAN : a\n\tGPT: b\n", index: 0 },
  { name: "CRLF lines", kind: "role-lines", text: "x\r\nUser: a\r\nAssistant: b\r\n", index: 3 },
  {
    name: "ChatML",
    kind: "chatml",
    text: "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n",
    index: 0,
  },
  {
    name: "Llama [INST]",
    kind: "llama-inst",
    text: "<s>[INST] fix it [/INST] done </s>",
    index: 3,
  },
  {
    name: "Llama 3 headers",
    kind: "chat-template",
    text: "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>" +
      "<|start_header_id|>assistant<|end_header_id|>\n\nhello",
    index: 17,
  },
  {
    name: "Gemma turns",
    kind: "chat-template",
    text: "<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\nhello",
    index: 0,
  },
  {
    name: "a JSON message array",
    kind: "message-array",
    text: JSON.stringify({ messages }, null, 2),
    index: JSON.stringify({ messages }, null, 2).indexOf('"role"'),
  },
  {
    name: "compact JSON",
    kind: "message-array",
    text: JSON.stringify(messages),
    index: 2,
  },
  {
    name: "JSON inside a JSON string",
    kind: "message-array",
    // {"log":"[{\"role\":…: the finding starts at the quote before role.
    text: JSON.stringify({ log: JSON.stringify(messages) }),
    index: 11,
  },
  {
    name: "Python reprs",
    kind: "message-array",
    text: "[{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': 'yo'}]",
    index: 2,
  },
];

Deno.test("findTranscript() finds each transcript shape", async (t) => {
  for (const { name, kind, text, index } of TRANSCRIPTS) {
    await t.step(name, () => {
      assert.deepEqual(findTranscript(text), { rule: "transcript", kind, index });
    });
  }
});

Deno.test("TextScanner finds each transcript shape in chunks", async (t) => {
  for (const [i, { name, kind, text, index }] of TRANSCRIPTS.entries()) {
    await t.step(name, () => {
      const bytes = encoder.encode(text);
      const expected = {
        finding: { rule: "transcript", kind, index, line: linesBefore(text, index) },
        text: true,
      };
      assert.deepEqual(scanBytes(bytes), expected);
      assert.deepEqual(scanInChunks(bytes, Math.floor(bytes.length / 2), i, 3), expected);
    });
  }
  await t.step("role lines 100 KiB apart", () => {
    const text = `User: start\n${filler(100_000, 7)}Assistant: end\n`;
    const result = scanInChunks(encoder.encode(text), 50_000, 1);
    assert.deepEqual(result.finding, { rule: "transcript", kind: "role-lines", index: 0, line: 1 });
  });
  await t.step("messages 100 KiB apart, each counted once", () => {
    const one = JSON.stringify(messages[1]);
    const text = `[${one},\n${filler(100_000, 8).replace(/"/g, "")}${one}]`;
    // Two roles but each content key once per message: still two of each.
    const result = scanInChunks(encoder.encode(text), 30_000, 2, 700);
    assert.equal(result.finding?.kind, "message-array");
    const single = `[${one},\n${filler(100_000, 8).replace(/"/g, "")}]`;
    assert.deepEqual(scanInChunks(encoder.encode(single), 30_000, 2, 700).finding, null);
  });
  await t.step("keys scanned again in the overlap window are not counted again", () => {
    // One of each marker, or one role and two content keys, in the middle of the file, fed
    // in small chunks so the overlap window carries them through many scans.
    for (
      const json of [
        '{"role": "user", "content": "hi", "meta": {"content": "x"}}',
        '[{"role": "user"}, {"role": "assistant", "content": "x"}]',
        "the token <|im_start|>user starts a turn",
        "<start_of_turn>user is a Gemma marker",
      ]
    ) {
      const text = `${filler(5_000, 9)}${json}\n${filler(5_000, 10)}`;
      assert.equal(findTranscript(text), null);
      for (let seed = 0; seed < 3; seed++) {
        assert.deepEqual(scanInChunks(encoder.encode(text), 5_010, seed, 40).finding, null);
      }
    }
  });
});

Deno.test("findTranscript() ignores the negative controls", async (t) => {
  const cases: [string, string][] = [
    ["prose about the user and the assistant", "The user asked the assistant to retry."],
    ["a YAML user", "user: alice\nassistant_enabled: false\nsystem: linux\n"],
    ["one role in code", 'const message = { role: "user", content: prompt };\n'],
    ["one JSON message", JSON.stringify([messages[1]])],
    ["two roles without content", '{"role": "user"}, {"role": "assistant"}'],
    ["one 用户： in a sentence", "昨天用户：提出了一个问题，我们已经修复。"],
    ["a single User: line", "User: alice\nStatus: active\n"],
    ["Assistant: mid-sentence", "Then I told the Assistant: please stop.\n"],
    ["two user lines", "User: a\nHuman: b\nMe: c\n"],
    ["a role inside a word", "Superuser: root\nChatbotAI: none\n"],
    ["an unclosed [INST]", "[INST] alone"],
    ["[/INST] before [INST]", "[/INST] then [INST]"],
    ["one ChatML marker", "the token <|im_start|>user is special"],
    ["ChatML markers without a role", "<|im_start|> and <|im_end|>"],
    ["one Gemma turn", "<start_of_turn>user\nhi"],
    ["lower-case roles", "user: a\nassistant: b\n"],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      assert.equal(findTranscript(text), null);
      assert.equal(scanBytes(encoder.encode(text)).finding, null);
    });
  }
});

Deno.test("findTranscript() sees through zero-width characters", () => {
  assert.deepEqual(findTranscript("U\u200Bser: a\nAssis\u00ADtant: b"), {
    rule: "transcript",
    kind: "role-lines",
    index: 0,
  });
  // The index is an offset in the text as given: the "H" after two zero-width characters.
  assert.deepEqual(findTranscript("\u200B\u200BHuman: a\nAI: b"), {
    rule: "transcript",
    kind: "role-lines",
    index: 2,
  });
});

Deno.test("findTranscriptInValue()", async (t) => {
  const history = [
    { role: "user", content: "fix the build" },
    { role: "assistant", content: [{ type: "text", text: "done" }] },
  ];
  const positives: [string, unknown, string, string, number][] = [
    ["top-level array", history, "", "", 0],
    ["nested, with a root", { passport: { history } }, "pack", "pack.passport.history", 0],
    ["inside arrays", { items: [1, { messages: history }] }, "", "items[1].messages", 0],
    ["odd keys are quoted", { "my log": history }, "", '["my log"]', 0],
    [
      "mixed entries",
      { log: ["start", { role: "System", content: null }, { role: "model", parts: [] }] },
      "",
      "log",
      1,
    ],
  ];
  for (const [name, value, root, path, index] of positives) {
    await t.step(name, () => {
      assert.deepEqual(findTranscriptInValue(value, root), {
        path,
        finding: { rule: "transcript", kind: "message-array", index },
      });
    });
  }
  const negatives: [string, unknown][] = [
    ["one message", [{ role: "user", content: "hi" }]],
    ["messages in separate arrays", { a: [history[0]], b: [history[1]] }],
    ["no content", [{ role: "user" }, { role: "assistant" }]],
    ["unknown roles", [{ role: "admin", content: 1 }, { role: "owner", content: 2 }]],
    ["roles that are not strings", [{ role: 1, content: "a" }, { role: null, content: "b" }]],
    ["strings are not read", { text: JSON.stringify(history) }],
    ["scalars", "User: a\nAssistant: b"],
    ["null", null],
  ];
  for (const [name, value] of negatives) {
    await t.step(name, () => assert.equal(findTranscriptInValue(value), null));
  }
  await t.step("cycles do not loop", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.equal(findTranscriptInValue(cyclic), null);
  });
  await t.step("deep nesting does not overflow the stack", () => {
    let value: unknown = history;
    for (let i = 0; i < 20_000; i++) value = { next: value };
    assert.equal(findTranscriptInValue(value)?.path.length, 20_000 * 5 - 1);
  });
});

Deno.test("isInstructionKey()", async (t) => {
  const forbidden = [
    "how_to_use",
    "how_to_use_this_file",
    "How-To-Use This File",
    "howToUseThisFile",
    "instructions",
    "agent_instructions",
    "ai_instructions",
    "special-instruction",
    "Instruction",
    "system_prompt",
    "systemPrompt",
    "SYSTEM PROMPT",
    "prompt_for_agent",
    "agent_directive",
    "agent_directives",
    "directives",
    "to_the_agent",
    "for-the-ai",
    "execute",
    "run_this",
    "commands_to_run",
    // §4.5.1 "and friends": names are compared as they read.
    "how\u200b_to_use_this_file",
    "\uff48\uff4f\uff57\uff3f\uff54\uff4f\uff3f\uff55\uff53\uff45",
    "\uff33\uff39\uff33\uff34\uff25\uff2d \uff30\uff32\uff2f\uff2d\uff30\uff34",
    "system\u00ad_prompt",
    "agent\u2060_directive",
    "in\u200dstruc\u200ctions",
    "exe\u{e0063}cute",
    "\u202erun_this",
  ];
  const allowed = [
    "how",
    "what",
    "why",
    "accept",
    "note",
    "check",
    "next_steps",
    "note_to_reader",
    "how_to",
    "executed_at",
    "run",
    "commands",
    "prompt",
    "system",
    "goal",
    "current_state",
    "\uff4e\uff4f\uff54\uff45",
    "goal\u200b",
  ];
  for (const key of forbidden) {
    await t.step(`${key} is forbidden`, () => assert.equal(isInstructionKey(key), true));
  }
  for (const key of allowed) {
    await t.step(`${key} is allowed`, () => assert.equal(isInstructionKey(key), false));
  }
});

const PROSE_UNITS = fc.constantFrom(
  ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  ..."     \n\t.,;:!?'\"()[]{}<>-_=+/*#@&%$",
  "the ",
  "user ",
  "assistant ",
  "User",
  "key",
  "sk-",
  "AKIA",
  "-----",
  "数据",
  "用户",
  "é",
  "\u200B",
);

Deno.test("random prose, text and bytes trigger nothing", async (t) => {
  await t.step("word-like prose", () => {
    fc.assert(
      fc.property(fc.string({ unit: PROSE_UNITS, maxLength: 400, size: "max" }), (text) => {
        assert.equal(findCredential(text), null);
        assert.equal(findTranscript(text), null);
      }),
      { numRuns: 500 },
    );
  });
  await t.step("any Unicode", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 2000, size: "max" }), (text) => {
        assert.equal(findCredential(text), null);
      }),
      { numRuns: 300 },
    );
  });
  await t.step("random bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 20_000, size: "max" }), (bytes) => {
        assert.equal(scanBytes(bytes).finding, null);
      }),
      { numRuns: 200 },
    );
  });
});

Deno.test("digests and base64 of random bytes trigger nothing", async (t) => {
  const base64 = (bytes: Uint8Array) => {
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary);
  };
  await t.step("sha256 hex", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 64, size: "max" }), { maxLength: 50, size: "max" }),
        (inputs) => {
          const digests = inputs.map((bytes) => createHash("sha256").update(bytes).digest("hex"));
          const text = digests.map((d, i) => `${d}  file${i}`).join("\n");
          assert.equal(findCredential(text), null);
          assert.equal(findCredential(digests.join("").toUpperCase()), null);
        },
      ),
    );
  });
  await t.step("base64 and base64url", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 6000, size: "max" }), (bytes) => {
        const plain = base64(bytes);
        assert.equal(findCredential(plain), null);
        assert.equal(findCredential(plain.replace(/(.{76})/g, "$1\n")), null);
        assert.equal(findCredential(plain.replace(/\+/g, "-").replace(/\//g, "_")), null);
      }),
      { numRuns: 300 },
    );
  });
  await t.step("8 MiB of wrapped base64 luggage", () => {
    const next = prng(42);
    const bytes = Uint8Array.from({ length: 6 << 20 }, () => Math.floor(next() * 256));
    let text = "";
    for (let at = 0; at < bytes.length; at += 57) {
      text += base64(bytes.subarray(at, at + 57)) + "\n";
    }
    assert.deepEqual(scanBytes(encoder.encode(text)), { finding: null, text: true });
  });
});

Deno.test("this module and its tests hold no credential", async () => {
  for (const path of ["../lib/scan/patterns.ts", "./patterns_test.ts"]) {
    const text = await Deno.readTextFile(new URL(path, import.meta.url));
    assert.equal(findCredential(text), null, path);
  }
});

Deno.test("countNewlines counts exactly, at any alignment and length", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 300 }),
      fc.nat(7),
      fc.nat(300),
      fc.constantFrom(0x0a, 0x0b, 0x8a, 0x00),
      (raw, offset, endRaw, dense) => {
        // Many newlines, and their bit-neighbours, to try the carry-free test's corners.
        const bytes = raw.map((b, i) => (i % 3 === 0 ? dense : b));
        const buffer = new Uint8Array(bytes.length + offset);
        buffer.set(bytes, offset);
        const view = buffer.subarray(offset);
        const end = Math.min(endRaw, view.length);
        let expected = 0;
        for (let i = 0; i < end; i++) if (view[i] === 0x0a) expected++;
        assert.equal(countNewlines(view, end), expected);
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("scanWhole() finds exactly what push() then finish() find, for any file", () => {
  const pieces = [
    ...CREDENTIALS.map((c) => c.token),
    ...TRANSCRIPTS.map((t) => t.text),
    "plain notes\n",
    "a: b\n",
    "\u200B",
    "\u00e9\u4e2d",
    "\0",
    "\r\n",
  ];
  const bytesArb = fc.oneof(
    // Text built from findings, near misses and filler, at any length around the 8 KiB probe.
    fc.tuple(
      fc.array(fc.constantFrom(...pieces), { maxLength: 12 }),
      fc.integer({ min: 0, max: 9000 }),
      fc.integer({ min: 0, max: 1000 }),
    ).map(([parts, before, seed]) => encoder.encode(filler(before, seed) + parts.join("\n"))),
    fc.uint8Array({ maxLength: 9000 }),
    // Byte order marks, and text cut mid-character.
    fc.tuple(fc.constantFrom([0xff, 0xfe], [0xfe, 0xff], [0xef, 0xbb, 0xbf], []), fc.string())
      .map(([bom, text]) => {
        const body = encoder.encode(text);
        return new Uint8Array([...bom, ...body.subarray(0, Math.max(0, body.length - 1))]);
      }),
  );
  fc.assert(
    fc.property(bytesArb, fc.integer({ min: 1, max: 5000 }), (bytes, step) => {
      const whole = new TextScanner().scanWhole(bytes);
      const once = new TextScanner();
      once.push(bytes.slice());
      assert.deepEqual(whole, once.finish());
      // In other chunks, the same verdict (which finding comes first may differ when a file
      // holds both kinds: each window looks for credentials before transcripts).
      const streamed = new TextScanner();
      for (let i = 0; i < bytes.length; i += step) streamed.push(bytes.slice(i, i + step));
      const result = streamed.finish();
      assert.equal(result.text, whole.text);
      assert.equal(result.finding === null, whole.finding === null);
    }),
    { numRuns: 3000 },
  );
  const used = new TextScanner();
  used.push(encoder.encode("x"));
  assert.throws(() => used.scanWhole(encoder.encode("y")), /has been used/);
});

Deno.test("nextLongRun finds exactly the next run of 24 or more base64 characters", () => {
  const isBase64 = (c: string) => /[A-Za-z0-9+/_-]/.test(c);
  // The definition, one character at a time: each maximal run from `from`, the first long one.
  const reference = (text: string, from: number) => {
    for (let i = from; i < text.length;) {
      while (i < text.length && !isBase64(text[i]!)) i++;
      const start = i;
      while (i < text.length && isBase64(text[i]!)) i++;
      if (i - start >= MIN_BASE64_RUN) return start;
    }
    return -1;
  };
  // Runs near the length that counts, cut by characters outside both alphabets.
  const run = fc.integer({ min: 0, max: 40 }).chain((length) =>
    fc.string({
      unit: fc.constantFrom("A", "z", "9", "+", "/", "-", "_"),
      minLength: length,
      maxLength: length,
    })
  );
  const gap = fc.string({
    unit: fc.constantFrom(" ", "=", "\n", ":", ".", "é", "\u200b"),
    minLength: 1,
    maxLength: 3,
  });
  fc.assert(
    fc.property(fc.array(fc.tuple(run, gap), { maxLength: 30 }), fc.nat(), (parts, pick) => {
      const text = parts.map(([r, g]) => r + g).join("");
      // `from` is the start or right after a run, as the callers give it.
      const starts = [0, ...[...text].flatMap((c, i) => (isBase64(c) ? [] : [i + 1]))];
      const from = starts[pick % starts.length]!;
      assert.equal(nextLongRun(text, from), reference(text, from), JSON.stringify([text, from]));
    }),
    { numRuns: 3000 },
  );
});
