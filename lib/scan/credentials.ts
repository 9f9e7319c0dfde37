// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The credential detector (TaskPack 0.1 §4.1, `C7`): private key blocks and the token shapes of
 * common vendors, found in text with zero-width characters ignored. Re-exported by
 * {@linkcode ./patterns.ts}.
 *
 * @module
 */
import { grown } from "../bytes/mod.ts";
import type { Finding } from "./finding.ts";
import { originalOffset, stripZeroWidth } from "./zero_width.ts";
/**
 * One token shape. Every match starts with one of `anchors` (or, with `start`, contains it),
 * which one pass of a combined regex finds; `re` (sticky, so it runs at one place only) then
 * decides. Every quantifier in `re` is bounded.
 */
interface CredentialDetector {
  readonly kind: string;
  readonly anchors: readonly string[];
  readonly re: RegExp;
  readonly start?: (text: string, at: number) => number;
  readonly accept?: (match: string) => boolean;
}

/** How many of lower case, upper case and digits appear. */
function charClasses(s: string): number {
  const lower = /[a-z]/.test(s) ? 1 : 0;
  const upper = /[A-Z]/.test(s) ? 1 : 0;
  const digit = /[0-9]/.test(s) ? 1 : 0;
  return lower + upper + digit;
}

/** Random-looking: at least two of lower, upper, digit. For weak prefixes. */
function looksRandom(match: string, prefixLength: number): boolean {
  return charClasses(match.slice(prefixLength)) >= 2;
}

/** `sk-` is a short prefix: even in a known shape, demand a digit, a letter, few hyphens. */
function looksLikeOpenAiKey(match: string): boolean {
  const body = match.slice(3);
  if (!/[0-9]/.test(body) || !/[A-Za-z]/.test(body)) return false;
  let hyphens = 0;
  for (let i = 0; i < body.length; i++) if (body.charCodeAt(i) === 0x2d) hyphens++;
  return hyphens * 8 <= body.length;
}

/** Counts the digits right before `at` (at most 11) and returns where they start, or -1. */
function digitRunStart(text: string, at: number): number {
  let i = at;
  while (i > 0 && at - i <= 10) {
    const code = text.charCodeAt(i - 1);
    if (code < 0x30 || code > 0x39) break;
    i--;
  }
  const run = at - i;
  return run >= 8 && run <= 10 ? i : -1;
}

/** What may separate a key block's lines: blanks, line breaks, `\n` escapes, string quotes. */
const PEM_SEP = String.raw`(?:\s|\\[nr]|["'+,])`;
/** A line break between two lines of a key's body, real or escaped, with the indent after it. */
const PEM_BREAK = String.raw`[ \t"'+,]{0,16}(?:\r?\n|\r|\\r\\n|\\[nr])${PEM_SEP}{0,64}`;
/** One line of a key's body: base64, padded or not. */
const PEM_LINE = String.raw`[A-Za-z0-9+/]{1,76}={0,2}`;

/**
 * A private key block (§4.1 "anything matching a private key block"): RSA, EC, DSA, OPENSSH,
 * ENCRYPTED, plain PKCS#8 and "PGP PRIVATE KEY BLOCK", followed by key material. Lines may be
 * separated by real line breaks or by `\n` escapes (a key inside a JSON or source string),
 * indented (a YAML block scalar, code), and preceded by armour headers (`Proc-Type: …`).
 * Either 32 base64 characters follow, or a body of any length that is base64 line by line and
 * ends at `-----END ` (a placeholder such as `...` or `YOUR KEY HERE` is not a key; neither is
 * an empty block). At most about 750 characters from `-----BEGIN` to where it is decided.
 */
const PRIVATE_KEY_BLOCK = new RegExp(
  String.raw`-----BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----${PEM_SEP}{1,64}` +
    String.raw`(?:[A-Za-z][A-Za-z0-9-]{0,30}:[^\n\\]{0,100}${PEM_SEP}{1,16}){0,2}` +
    String.raw`(?:[A-Za-z0-9+/]{32}|(?=[^-]{1,256}-----END )[A-Za-z0-9][A-Za-z0-9+/]{0,75}={0,2}` +
    String.raw`(?:${PEM_BREAK}${PEM_LINE}){0,16}(?:${PEM_BREAK}|[ \t"'+,]{0,16})-----END )`,
  "y",
);

const CREDENTIAL_DETECTORS: readonly CredentialDetector[] = [
  { kind: "private-key", anchors: ["-----BEGIN "], re: PRIVATE_KEY_BLOCK },
  {
    kind: "anthropic-key",
    anchors: ["sk-ant-"],
    re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,250}/y,
  },
  {
    kind: "openai-key",
    // Project, service account and admin keys; legacy keys (48 alphanumerics, often with
    // "T3BlbkFJ" in the middle); 32 hex digits and `sk-or-v1-` (OpenAI-compatible vendors).
    // Only these lengths: `sk-` followed by any alphanumeric run would be too loose.
    anchors: ["sk-"],
    re:
      /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,250}|(?:[A-Za-z0-9]{48}|[a-f0-9]{32}|or-v1-[a-f0-9]{64})(?![A-Za-z0-9_-]))/y,
    accept: looksLikeOpenAiKey,
  },
  {
    kind: "google-api-key",
    anchors: ["AIza"],
    re: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/y,
  },
  {
    kind: "huggingface-token",
    anchors: ["hf_"],
    re: /(?<![A-Za-z0-9_-])hf_[A-Za-z0-9]{30,40}(?![A-Za-z0-9_-])/y,
    accept: (m) => /[a-z]/.test(m.slice(3)) && /[A-Z]/.test(m),
  },
  {
    kind: "groq-key",
    anchors: ["gsk_"],
    re: /(?<![A-Za-z0-9_-])gsk_[A-Za-z0-9]{48,60}(?![A-Za-z0-9_-])/y,
    accept: (m) => looksRandom(m, 4),
  },
  {
    kind: "replicate-token",
    anchors: ["r8_"],
    re: /(?<![A-Za-z0-9_-])r8_[A-Za-z0-9]{30,50}(?![A-Za-z0-9_-])/y,
    accept: (m) => looksRandom(m, 3),
  },
  {
    kind: "xai-key",
    anchors: ["xai-"],
    re: /(?<![A-Za-z0-9_-])xai-[A-Za-z0-9]{70,90}(?![A-Za-z0-9_-])/y,
    accept: (m) => looksRandom(m, 4),
  },
  {
    kind: "perplexity-key",
    anchors: ["pplx-"],
    re: /(?<![A-Za-z0-9_-])pplx-[A-Za-z0-9]{40,60}(?![A-Za-z0-9_-])/y,
    accept: (m) => looksRandom(m, 5),
  },
  {
    kind: "github-token",
    anchors: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    re: /(?<![A-Za-z0-9_-])gh[pousr]_[A-Za-z0-9]{36,251}/y,
  },
  {
    kind: "github-token",
    anchors: ["github_pat_"],
    re: /(?<![A-Za-z0-9_-])github_pat_[A-Za-z0-9_]{40,250}/y,
  },
  {
    kind: "gitlab-token",
    anchors: ["glpat-", "gldt-", "glrt-", "glptt-"],
    re: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,250}/y,
  },
  {
    kind: "npm-token",
    anchors: ["npm_"],
    re: /(?<![A-Za-z0-9_-])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_-])/y,
    accept: (m) => looksRandom(m, 4),
  },
  {
    kind: "pypi-token",
    // A macaroon: base64 of "\x02\x01\x08pypi.org" (or test.pypi.org) and more.
    anchors: ["pypi-AgE"],
    re: /(?<![A-Za-z0-9_-])pypi-AgE[IN][A-Za-z0-9_-]{50,250}/y,
  },
  {
    kind: "aws-access-key",
    anchors: ["AKIA", "ASIA"],
    re: /(?<![A-Za-z0-9])A[KS]IA[A-Z0-9]{16}(?![A-Za-z0-9])/y,
  },
  {
    kind: "aws-secret-key",
    anchors: ["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey"],
    re:
      /(?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY|SecretAccessKey)["']?[ \t]{0,16}[:=][ \t]{0,16}["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/y,
  },
  {
    kind: "google-oauth-token",
    anchors: ["ya29."],
    re: /(?<![A-Za-z0-9_-])ya29\.[A-Za-z0-9_-]{20,250}/y,
  },
  {
    kind: "google-oauth-token",
    anchors: ["GOCSPX-"],
    re: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/y,
  },
  {
    kind: "digitalocean-token",
    anchors: ["dop_v1_", "doo_v1_", "dor_v1_"],
    re: /(?<![A-Za-z0-9_-])do[por]_v1_[a-f0-9]{64}(?![A-Za-z0-9])/y,
  },
  {
    kind: "azure-key",
    anchors: ["AccountKey=", "SharedAccessKey="],
    re: /(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,250}/y,
  },
  {
    kind: "slack-token",
    anchors: ["xoxa-", "xoxb-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-"],
    re: /(?<![A-Za-z0-9_-])(?:xox[abposr]|xapp)-[0-9]{1,20}-[A-Za-z0-9-]{16,250}/y,
  },
  {
    kind: "slack-webhook",
    anchors: ["hooks.slack.com/"],
    re:
      /hooks\.slack\.com\/(?:services\/T[A-Z0-9]{6,12}\/B[A-Z0-9]{6,12}\/[A-Za-z0-9]{16,40}|(?:workflows|triggers)\/T[A-Z0-9]{6,12}\/[A-Za-z0-9]{6,20}\/[0-9]{6,20}\/[A-Za-z0-9]{16,40})/y,
  },
  {
    kind: "discord-webhook",
    anchors: ["discord.", "discordapp."],
    re:
      /discord(?:app)?\.com\/api\/(?:v[0-9]{1,2}\/)?webhooks\/[0-9]{15,25}\/[A-Za-z0-9_-]{50,100}/y,
  },
  {
    kind: "telegram-bot-token",
    anchors: [":AA"],
    re: /(?<![A-Za-z0-9_:-])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/y,
    start: digitRunStart,
  },
  {
    kind: "stripe-key",
    anchors: ["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
    re: /(?<![A-Za-z0-9_-])[sr]k_(?:live|test)_[A-Za-z0-9]{20,250}/y,
  },
  {
    kind: "square-token",
    anchors: ["sq0atp-", "sq0csp-"],
    re: /(?<![A-Za-z0-9_-])sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}/y,
  },
  {
    kind: "sendgrid-key",
    anchors: ["SG."],
    re: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/y,
  },
  {
    kind: "twilio-key",
    anchors: ["SK"],
    re: /(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])/y,
  },
  {
    kind: "shopify-token",
    anchors: ["shpat_", "shpss_", "shpca_", "shppa_"],
    re: /(?<![A-Za-z0-9_-])shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![A-Za-z0-9])/y,
  },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * A regex source matching any of `words`, shaped as a trie (`s(?:k-|k_live_)|…`), which the
 * regex engine scans much faster than a flat alternation. Where one word is a prefix of
 * another, the longer one is preferred.
 */
function trieSource(words: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const word of words) {
    const first = word.charAt(0);
    const rest = groups.get(first) ?? [];
    rest.push(word.slice(1));
    groups.set(first, rest);
  }
  const alternatives: string[] = [];
  for (const [first, rests] of groups) {
    const longer = rests.filter((rest) => rest !== "");
    if (longer.length === 0) {
      alternatives.push(escapeRegExp(first));
      continue;
    }
    const optional = longer.length < rests.length;
    const inner = longer.length === 1 && !optional
      ? escapeRegExp(longer[0]!)
      : `(?:${longer.length === 1 ? escapeRegExp(longer[0]!) : trieSource(longer)})`;
    alternatives.push(escapeRegExp(first) + inner + (optional ? "?" : ""));
  }
  return alternatives.join("|");
}

/** Characters that end the short prefix of most token shapes (`sk-`, `ghp_`, `ya29.`). */
const DELIMITERS = "-_.=";

/** Detectors to try at a delimiter when `prefix` ends right before it. */
interface DelimitedAnchor {
  readonly prefix: string;
  readonly delimiter: string;
  readonly detectors: readonly CredentialDetector[];
}

/**
 * The anchors, compiled for one fast pass. A regex engine scanning for many literals enters
 * its alternation at every common letter; here it mostly waits for a delimiter (`-`, `_`, `.`,
 * `=`) and looks behind it for a known prefix. Anchors with no delimiter after their first
 * character (`AKIA`, `SK`, `-----BEGIN `, `:AA`) are matched as literals. Where a hit is
 * found, every anchor that fits there is tried, whichever alternative matched.
 */
const ANCHORS: {
  readonly re: RegExp;
  readonly delimited: ReadonlyMap<string, readonly DelimitedAnchor[]>;
  readonly literals: ReadonlyMap<
    number,
    readonly { literal: string; detector: CredentialDetector }[]
  >;
} = (() => {
  const delimited = new Map<string, Map<string, CredentialDetector[]>>();
  const literals = new Map<number, { literal: string; detector: CredentialDetector }[]>();
  for (const detector of CREDENTIAL_DETECTORS) {
    for (const anchor of detector.anchors) {
      let cut = 1;
      while (cut < anchor.length && !DELIMITERS.includes(anchor.charAt(cut))) cut++;
      if (cut < anchor.length && !DELIMITERS.includes(anchor.charAt(0))) {
        const byPrefix = delimited.get(anchor.charAt(cut)) ?? new Map();
        const list = byPrefix.get(anchor.slice(0, cut)) ?? [];
        if (!list.includes(detector)) list.push(detector);
        byPrefix.set(anchor.slice(0, cut), list);
        delimited.set(anchor.charAt(cut), byPrefix);
      } else {
        const list = literals.get(anchor.charCodeAt(0)) ?? [];
        list.push({ literal: anchor, detector });
        literals.set(anchor.charCodeAt(0), list);
      }
    }
  }
  const prefixes = [...delimited.values()].flatMap((byPrefix) => [...byPrefix.keys()]);
  const literalSource = trieSource([...literals.values()].flat().map((entry) => entry.literal));
  // Every delimiter escaped, so that `-` can never form a range inside the class.
  const delimiterClass = `[${[...delimited.keys()].map((c) => `\\${c}`).join("")}]`;
  const re = new RegExp(
    `(?<=${trieSource([...new Set(prefixes)])})${delimiterClass}|${literalSource}`,
    "g",
  );
  const flat = new Map<string, DelimitedAnchor[]>();
  for (const [delimiter, byPrefix] of delimited) {
    flat.set(
      delimiter,
      [...byPrefix].map(([prefix, detectors]) => ({ prefix, delimiter, detectors })),
    );
  }
  return { re, delimited: flat, literals };
})();

/** Runs `detector` at `start`; true when it matches and the match is decided. */
function detectAt(
  detector: CredentialDetector,
  text: string,
  start: number,
  final: boolean,
): boolean {
  if (start < 0) return false;
  const re = detector.re;
  re.lastIndex = start;
  const match = re.exec(text);
  return match !== null && (final || re.lastIndex < text.length) &&
    (detector.accept === undefined || detector.accept(match[0]));
}

/**
 * The first credential in `text` (already stripped of zero-width characters) whose anchor
 * lies at or after `from`. Unless `final`, a match that runs to the end of `text` is left for
 * the next window: the text after it, not yet seen, could change the verdict.
 */
export function scanCredentials(
  text: string,
  from: number,
  final: boolean,
): { kind: string; index: number } | null {
  const anchors = ANCHORS.re;
  anchors.lastIndex = from;
  for (let hit = anchors.exec(text); hit !== null; hit = anchors.exec(text)) {
    const at = hit.index;
    // Anchors may overlap: resume right after this hit's start, not after its end.
    anchors.lastIndex = at + 1;
    for (const { prefix, detectors } of ANCHORS.delimited.get(text.charAt(at)) ?? []) {
      const start = at - prefix.length;
      if (start < 0 || !text.startsWith(prefix, start)) continue;
      for (const detector of detectors) {
        if (detectAt(detector, text, start, final)) return { kind: detector.kind, index: start };
      }
    }
    for (const { literal, detector } of ANCHORS.literals.get(text.charCodeAt(at)) ?? []) {
      if (!text.startsWith(literal, at)) continue;
      const start = detector.start ? detector.start(text, at) : at;
      if (detectAt(detector, text, start, final)) return { kind: detector.kind, index: start };
    }
  }
  return null;
}

/**
 * Finds the first credential in `text`: a private key block (`-----BEGIN … PRIVATE KEY-----`,
 * including RSA, EC, DSA, OPENSSH, ENCRYPTED and PGP) or a token shape of a common vendor:
 * AI vendors (OpenAI, Anthropic, Google, Hugging Face, Groq, Replicate, xAI, Perplexity), code
 * hosts (GitHub, GitLab), registries (npm, PyPI), clouds (AWS, Google OAuth, DigitalOcean,
 * Azure), chat (Slack, Discord and Telegram), payments (Stripe, Square), SendGrid, Twilio and
 * Shopify.
 *
 * Zero-width characters (U+200B–U+200D, U+2060, U+FEFF, U+00AD) are ignored, so a token split
 * by them is still found. A token encoded in base64 (a run of at least 24 base64 characters,
 * such as a Kubernetes Secret's `data:` value) is found too, with `encoding: "base64"`. Hex
 * digests, base64 of random bytes and prose do not match.
 *
 * @param text The text to scan.
 * @returns The earliest finding, whose `index` is an offset in `text` as given, or `null`.
 *
 * @example Usage
 * ```ts
 * import { findCredential } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const key = ["sk", "ant", "api03"].join("-") + "-" + "x".repeat(40);
 * const finding = findCredential(`ANTHROPIC_API_KEY=${key}\n`);
 * assertEquals(finding, { rule: "credential", kind: "anthropic-key", index: 18 });
 * assertEquals(findCredential("sha256 " + "0123456789abcdef".repeat(4)), null);
 * ```
 */
export function findCredential(text: string): Finding | null {
  const stripped = stripZeroWidth(text);
  const found = scanCredentials(stripped, 0, true);
  const encoded = found === null
    ? scanBase64Credentials(stripped, 0, true, { chars: MAX_BASE64_CHARS })
    : null;
  const hit = found ?? encoded;
  if (hit === null) return null;
  const index = stripped === text ? hit.index : originalOffset(text, hit.index);
  return encoded === null
    ? { rule: "credential", kind: hit.kind, index }
    : { rule: "credential", kind: hit.kind, index, encoding: "base64" };
}

// ---------------------------------------------------------------------------------------------
// Base64

/** The shortest run of base64 characters decoded: 18 bytes, shorter than any token shape. */
export const MIN_BASE64_RUN = 24;
/**
 * How many base64 characters one file may have decoded, over all its runs and every
 * alignment of each that is decoded: the bound on the work base64 adds per file (about 3 MiB
 * decoded). Runs past it are not decoded.
 */
export const MAX_BASE64_CHARS = 4 << 20;

/** What is left of one file's base64 allowance ({@linkcode MAX_BASE64_CHARS}). */
export interface Base64Budget {
  /** Base64 characters that may still be decoded. */
  chars: number;
}

/** The value of each base64 character, either alphabet (`+/` and `-_`); 255 for others. */
const BASE64_VALUE: Uint8Array = (() => {
  const table = new Uint8Array(128).fill(255);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < 64; i++) table[alphabet.charCodeAt(i)] = i;
  table[0x2d] = 62;
  table[0x5f] = 63;
  return table;
})();

/** Characters of a key name: `[A-Za-z0-9_.-]`. */
function isKeyChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x2e || code === 0x2d;
}

/**
 * The key right before a value at `at` (`token: `, `"key": "`, `KEY=`), as a Kubernetes
 * Secret's `data:` or an env file holds one, or "": its name is put back in front of the
 * decoded value, so that token shapes known by the name before them
 * (`aws_secret_access_key=…`) are found too. Read backwards, a few characters at most.
 */
function keyBefore(text: string, at: number): string {
  let i = at;
  const isQuote = (c: number) => c === 0x22 || c === 0x27;
  const isBlank = (c: number) => c === 0x20 || c === 0x09;
  if (i > 0 && isQuote(text.charCodeAt(i - 1))) i--;
  while (i > 0 && at - i < 20 && isBlank(text.charCodeAt(i - 1))) i--;
  const sign = i > 0 ? text.charCodeAt(i - 1) : 0;
  if (sign !== 0x3a && sign !== 0x3d) return "";
  i--;
  while (i > 0 && at - i < 40 && isBlank(text.charCodeAt(i - 1))) i--;
  if (i > 0 && isQuote(text.charCodeAt(i - 1))) i--;
  const end = i;
  while (i > 0 && end - i < 64 && isKeyChar(text.charCodeAt(i - 1))) i--;
  if (i === end || (i > 0 && isKeyChar(text.charCodeAt(i - 1)))) return "";
  return text.slice(i, end);
}

function isBase64Char(code: number): boolean {
  return code < 128 && BASE64_VALUE[code] !== 255;
}

/**
 * Where the next run of at least {@linkcode MIN_BASE64_RUN} base64 characters starts, at or
 * after `from` (where no run goes on from before it), or -1. Such a run holds one of every
 * `MIN_BASE64_RUN` positions, so only those are looked at first; a run found through one is
 * measured both ways. In most text, few characters are read: log lines scan 1.8 times as fast
 * as when every character was.
 *
 * @param text The text.
 * @param from Where to look from: its start, or right after a run.
 * @returns The start of the run, or -1.
 */
export function nextLongRun(text: string, from: number): number {
  const n = text.length;
  let probe = from + MIN_BASE64_RUN - 1;
  while (probe < n) {
    if (!isBase64Char(text.charCodeAt(probe))) {
      probe += MIN_BASE64_RUN;
      continue;
    }
    let start = probe;
    while (start > from && isBase64Char(text.charCodeAt(start - 1))) start--;
    let end = probe + 1;
    while (end < n && end - start < MIN_BASE64_RUN && isBase64Char(text.charCodeAt(end))) end++;
    if (end - start >= MIN_BASE64_RUN) return start;
    // The run ends at `end`: the next one starts after it.
    probe = end + MIN_BASE64_RUN;
  }
  return -1;
}

/**
 * Whether the first two characters of a base64 group can encode the first two bytes of
 * text: a printable ASCII character, a tab or a line break (`[\t-\r -~]`). The first
 * character holds a byte's top six bits (2, 3 or 8-31); the second holds the next byte's
 * top four bits in its low four (0 or 2-7).
 */
const GROUP_HEAD: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const v = BASE64_VALUE[c]!;
    if (v === 255) continue;
    if (v === 2 || v === 3 || (v >= 8 && v <= 31)) table[c]! |= 1;
    const low = v & 15;
    if (low === 0 || (low >= 2 && low <= 7)) table[c]! |= 2;
  }
  return table;
})();
/**
 * Every token shape is at least 20 characters of text, so its encoding holds at least five
 * whole groups (whatever byte of a group it starts at) whose heads pass {@linkcode GROUP_HEAD}.
 */
const TEXT_GROUPS = 5;

/**
 * Whether the base64 characters of `text` from `at` to `end` hold {@linkcode TEXT_GROUPS}
 * whole groups in a row that can encode text: if not, no token can be decoded from them at
 * this alignment, and they are not decoded. Identifiers and paths almost never pass.
 */
function mayHoldText(text: string, at: number, end: number): boolean {
  let streak = 0;
  for (let i = at; i + 4 <= end; i += 4) {
    const a = text.charCodeAt(i);
    const b = text.charCodeAt(i + 1);
    if ((GROUP_HEAD[a]! & 1) !== 0 && (GROUP_HEAD[b]! & 2) !== 0) {
      if (++streak >= TEXT_GROUPS) return true;
    } else {
      streak = 0;
    }
  }
  return false;
}

/** What a decoded byte becomes: printable ASCII, tab and line breaks stay, others are NUL. */
const DECODED_CHAR: Uint8Array = (() => {
  const table = new Uint8Array(256);
  for (let b = 0x20; b < 0x7f; b++) table[b] = b;
  for (const b of [0x09, 0x0a, 0x0d]) table[b] = b;
  return table;
})();
const LATIN1 = new TextDecoder("latin1");
/** Reused by every scan: its bytes are read into a string before the scan returns. */
let scratch = new Uint8Array(1 << 16);

/**
 * Writes the key name `prefix` (ASCII), then the decoding of `length` base64 characters of
 * `text` from `at` (a final group of 2 or 3 characters is a group whose padding was left off),
 * then a NUL, to `scratch` from `o` (grown as needed). A decoded byte that is not printable
 * ASCII, a tab or a line break becomes NUL, which no token contains. Returns where they end.
 */
function writeSegment(text: string, prefix: string, at: number, length: number, o: number): number {
  const need = o + prefix.length + Math.ceil(length / 4) * 3 + 1;
  if (scratch.length < need) scratch = grown(scratch, need, o);
  const out = scratch;
  for (let k = 0; k < prefix.length; k++) out[o++] = prefix.charCodeAt(k);
  const end = at + length;
  let i = at;
  for (; i + 4 <= end; i += 4) {
    const n = (BASE64_VALUE[text.charCodeAt(i)]! << 18) |
      (BASE64_VALUE[text.charCodeAt(i + 1)]! << 12) |
      (BASE64_VALUE[text.charCodeAt(i + 2)]! << 6) | BASE64_VALUE[text.charCodeAt(i + 3)]!;
    out[o++] = DECODED_CHAR[n >>> 16]!;
    out[o++] = DECODED_CHAR[(n >>> 8) & 0xff]!;
    out[o++] = DECODED_CHAR[n & 0xff]!;
  }
  if (end - i >= 2) {
    const n = (BASE64_VALUE[text.charCodeAt(i)]! << 18) |
      (BASE64_VALUE[text.charCodeAt(i + 1)]! << 12) |
      (end - i === 3 ? BASE64_VALUE[text.charCodeAt(i + 2)]! << 6 : 0);
    out[o++] = DECODED_CHAR[n >>> 16]!;
    if (end - i === 3) out[o++] = DECODED_CHAR[(n >>> 8) & 0xff]!;
  }
  out[o++] = 0;
  return o;
}

/**
 * The first credential hidden in base64 in `text`: every run of at least
 * {@linkcode MIN_BASE64_RUN} base64 characters (standard or URL-safe alphabet) that reaches
 * past `from` is decoded at each of its four alignments (the run may begin with a few
 * characters that are not part of the encoding) and the decoded bytes are scanned with the
 * same detectors as plain text, after the name of the key the value follows, if any. The
 * decodings are put end to end, NUL between them, and scanned in one pass. Decoding stops
 * when `budget` runs out. Unless `final`, a token decoded from a run that reaches the end of
 * `text` is left for the next window, as in {@linkcode scanCredentials}.
 */
export function scanBase64Credentials(
  text: string,
  from: number,
  final: boolean,
  budget: Base64Budget,
): { kind: string; index: number } | null {
  if (budget.chars <= 0) return null;
  let start = Math.min(from, text.length);
  while (start > 0 && isBase64Char(text.charCodeAt(start - 1))) start--;
  /** Where each decoding starts in `scratch`, and where its run starts in `text`. */
  const segments: number[] = [];
  const places: number[] = [];
  let o = 0;
  let open = -1;
  const n = text.length;
  let i = start;
  scan: while (i < n) {
    const at = nextLongRun(text, i);
    if (at < 0) break;
    i = at + MIN_BASE64_RUN;
    while (i < n && isBase64Char(text.charCodeAt(i))) i++;
    const end = i;
    if (!final && end === n) {
      open = at;
      break;
    }
    const key = keyBefore(text, at);
    const prefix = key === "" ? "" : `${key}=`;
    for (let shift = 0; shift < 4; shift++) {
      const length = end - at - shift;
      if (length < MIN_BASE64_RUN - 3) break;
      if (!mayHoldText(text, at + shift, end)) continue;
      if (budget.chars < length) {
        budget.chars = 0;
        break scan;
      }
      budget.chars -= length;
      segments.push(o);
      places.push(at);
      o = writeSegment(text, shift === 0 ? prefix : "", at + shift, length, o);
    }
  }
  if (o > 0) {
    const found = scanCredentials(LATIN1.decode(scratch.subarray(0, o)), 0, true);
    if (found !== null) {
      let k = segments.length - 1;
      while (segments[k]! > found.index) k--;
      return { kind: found.kind, index: places[k]! };
    }
  }
  // The run at the end of an unfinished window: a token that reaches its end waits for more.
  if (open >= 0) {
    const end = text.length;
    for (let shift = 0; shift < 4; shift++) {
      const length = end - open - shift;
      if (length < MIN_BASE64_RUN - 3 || budget.chars < length) break;
      if (!mayHoldText(text, open + shift, end)) continue;
      budget.chars -= length;
      const stop = writeSegment(text, "", open + shift, length, 0);
      // Without the closing NUL: the decoding ends where the window does.
      const found = scanCredentials(LATIN1.decode(scratch.subarray(0, stop - 1)), 0, false);
      if (found !== null) return { kind: found.kind, index: open };
    }
  }
  return null;
}
