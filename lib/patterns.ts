// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * What a credential, a chat transcript and an instruction field are (TaskPack 0.1 §4.1, §4.5).
 *
 * The writer refuses to pack anything these detectors find, and the judge's checks `C7` and
 * `C8` call the very same functions, so the two can never disagree (§6).
 *
 * - {@linkcode findCredential} finds private key blocks and the token shapes of common
 *   vendors. Zero-width characters are ignored, so a token split by them is still found.
 * - {@linkcode findTranscript} finds chat transcripts in text: role-marked lines, chat
 *   templates (ChatML, `[INST]`, Llama 3, Gemma) and JSON message arrays.
 * - {@linkcode findTranscriptInValue} finds message arrays in parsed JSON.
 * - {@linkcode isInstructionKey} tells whether a field name is a forbidden instruction field.
 * - {@linkcode TextScanner} streams one luggage file through both detectors in bounded memory.
 *
 * A {@linkcode Finding} names the detector and the place, never the matched text: reporting a
 * secret would leak it a second time.
 *
 * @module
 */

/** What a detector found: which rule, which detector and where. Never the matched text. */
export interface Finding {
  /** The TaskPack rule broken: `credential` (§4.1, `C7`) or `transcript` (§4.1, `C8`). */
  rule: "credential" | "transcript";
  /**
   * The detector, such as `private-key`, `github-token`, `aws-access-key`, `chatml`,
   * `role-lines` or `message-array`.
   */
  kind: string;
  /**
   * Where the match starts: a UTF-16 offset in the text as given (zero-width characters
   * included), or, from {@linkcode findTranscriptInValue}, the array index of the first message.
   */
  index: number;
}

/** The outcome of scanning one luggage file with {@linkcode TextScanner}. */
export interface ScanResult {
  /**
   * The first finding, with the 1-based line it starts on (lines end with `\n`), or `null`.
   * In a text file `index` counts UTF-16 code units of the decoded text (a byte order mark
   * is not counted); in a binary file it is a byte offset.
   */
  finding: (Finding & { line: number }) | null;
  /**
   * Whether the file looks like text: false when its first 8 KiB hold a NUL byte or invalid
   * UTF-8 (a file starting with a UTF-16 byte order mark is text). Transcripts are looked
   * for in text files only; credentials in every file.
   */
  text: boolean;
}

// ---------------------------------------------------------------------------------------------
// Zero-width characters

const ZERO_WIDTH_ALL = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;

function isZeroWidth(code: number): boolean {
  return code === 0x00ad || (code >= 0x200b && code <= 0x200d) || code === 0x2060 ||
    code === 0xfeff;
}

/**
 * Whether `text` holds a zero-width character. One `indexOf` per character: far faster than
 * a regex over a long text, and instant for the characters a one-byte string cannot hold.
 */
function hasZeroWidth(text: string): boolean {
  return text.indexOf("\u00ad") !== -1 || text.indexOf("\u200b") !== -1 ||
    text.indexOf("\u200c") !== -1 || text.indexOf("\u200d") !== -1 ||
    text.indexOf("\u2060") !== -1 || text.indexOf("\ufeff") !== -1;
}

function stripZeroWidth(text: string): string {
  return hasZeroWidth(text) ? text.replace(ZERO_WIDTH_ALL, "") : text;
}

/** Maps an offset in `stripZeroWidth(original)` back to an offset in `original`. */
function originalOffset(original: string, stripped: number): number {
  let seen = 0;
  for (let i = 0; i < original.length; i++) {
    if (isZeroWidth(original.charCodeAt(i))) continue;
    if (seen === stripped) return i;
    seen++;
  }
  return original.length;
}

// ---------------------------------------------------------------------------------------------
// Credentials

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

const CREDENTIAL_DETECTORS: readonly CredentialDetector[] = [
  {
    kind: "private-key",
    anchors: ["-----BEGIN "],
    // RSA, EC, DSA, OPENSSH, ENCRYPTED, plain PKCS#8 and "PGP PRIVATE KEY BLOCK", followed
    // by key material (a placeholder such as "..." is not a key). Lines may be separated by
    // real line breaks or by `\n` escapes (a key inside a JSON or source string), and may
    // be preceded by armour headers (`Proc-Type: …`, `Version: …`).
    re:
      /-----BEGIN (?:[A-Z0-9]{1,20} ){0,4}PRIVATE KEY(?: BLOCK)?-----(?:\s|\\[nr]|["'+,]){1,16}(?:[A-Za-z][A-Za-z0-9-]{0,30}:[^\n\\]{0,100}(?:\s|\\[nr]|["'+,]){1,16}){0,2}[A-Za-z0-9+/]{32}/y,
  },
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
function scanCredentials(
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
 * by them is still found. Hex digests, base64 of random bytes and prose do not match.
 *
 * @param text The text to scan.
 * @returns The earliest finding, whose `index` is an offset in `text` as given, or `null`.
 *
 * @example Usage
 * ```ts
 * import { findCredential } from "@taskpack/cli";
 * import assert from "node:assert/strict";
 *
 * const key = ["sk", "ant", "api03"].join("-") + "-" + "x".repeat(40);
 * const finding = findCredential(`ANTHROPIC_API_KEY=${key}\n`);
 * assert.deepEqual(finding, { rule: "credential", kind: "anthropic-key", index: 18 });
 * assert.equal(findCredential("sha256 " + "0123456789abcdef".repeat(4)), null);
 * ```
 */
export function findCredential(text: string): Finding | null {
  const stripped = stripZeroWidth(text);
  const found = scanCredentials(stripped, 0, true);
  if (found === null) return null;
  const index = stripped === text ? found.index : originalOffset(text, found.index);
  return { rule: "credential", kind: found.kind, index };
}

// ---------------------------------------------------------------------------------------------
// Transcripts

const USER_ROLES: readonly string[] = ["User", "USER", "Human", "HUMAN", "Me", "用户", "我"];
const ASSISTANT_ROLES: readonly string[] = [
  "Assistant",
  "ASSISTANT",
  "AI",
  "ChatGPT",
  "Claude",
  "GPT",
  "Bot",
  "助手",
  "系统",
  "System",
  "SYSTEM",
];

/** Role words by their last UTF-16 unit, so a colon costs one map look-up. */
const ROLES_BY_LAST_UNIT: ReadonlyMap<number, readonly { word: string; user: boolean }[]> = (() => {
  const map = new Map<number, { word: string; user: boolean }[]>();
  const add = (word: string, user: boolean) => {
    const last = word.charCodeAt(word.length - 1);
    const list = map.get(last) ?? [];
    list.push({ word, user });
    map.set(last, list);
  };
  for (const word of USER_ROLES) add(word, true);
  for (const word of ASSISTANT_ROLES) add(word, false);
  return map;
})();

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x3000;
}

/** Markers allowed before a role at the start of a line: blanks, `>`, `#`, `*`, `-`. */
function isLineMarker(code: number): boolean {
  return isBlank(code) || code === 0x3e || code === 0x23 || code === 0x2a || code === 0x2d;
}

/**
 * If the colon at `colon` ends a role marker at the start of a line, returns the side of the
 * role (user or not) and where its line starts; otherwise null. `lineStartAt0` says whether
 * offset 0 is the start of a line.
 */
function roleAtColon(
  text: string,
  colon: number,
  lineStartAt0: boolean,
): { user: boolean; lineStart: number } | null {
  let end = colon;
  while (end > 0 && colon - end < 8 && isBlank(text.charCodeAt(end - 1))) end--;
  if (end >= 2 && text.charCodeAt(end - 1) === 0x2a && text.charCodeAt(end - 2) === 0x2a) {
    end -= 2;
    while (end > 0 && colon - end < 16 && isBlank(text.charCodeAt(end - 1))) end--;
  }
  if (end === 0) return null;
  const candidates = ROLES_BY_LAST_UNIT.get(text.charCodeAt(end - 1));
  if (candidates === undefined) return null;
  for (const { word, user } of candidates) {
    const wordStart = end - word.length;
    if (wordStart < 0 || !text.startsWith(word, wordStart)) continue;
    let p = wordStart;
    while (p > 0 && wordStart - p < 64 && isLineMarker(text.charCodeAt(p - 1))) p--;
    const before = p === 0 ? -1 : text.charCodeAt(p - 1);
    if (p === 0 ? lineStartAt0 : before === 0x0a || before === 0x0d) return { user, lineStart: p };
  }
  return null;
}

const CHATML_AT = /<\|im_start\|>[ \t]{0,8}(?:user|assistant|system|tool|function)\b/y;
const TEMPLATE_AT =
  /(?:<\|start_header_id\|>(?:user|assistant|system|tool|ipython)<\|end_header_id\|>|<start_of_turn>(?:user|model))/y;
const ROLE_KEY_AT =
  /role\\?["'][ \t\r\n]{0,16}:[ \t\r\n]{0,16}\\?["'](?:user|assistant|system|tool)\\?["']/y;
const CONTENT_KEY_AT = /content\\?["'][ \t\r\n]{0,16}:/y;
const TRANSCRIPT_MARKERS =
  /<(?:\|(?:im_(?:start|end)\||start_header_id\|)>|start_of_turn>)|\[\/?INST\]|["'](?:role|content)\\?["']/g;

/** Where a transcript detector saw something, as the caller locates it. */
interface Place {
  index: number;
  line: number;
}

/**
 * Transcript evidence gathered over one text or one stream. Counters remember the absolute
 * position of what they counted last, so text scanned twice (the overlap window) is not
 * counted twice.
 */
class TranscriptTracker {
  #user: Place | null = null;
  #assistant: Place | null = null;
  #chatmlFirst: Place | null = null;
  #chatmlFirstAt = -1;
  #chatmlRole = false;
  #chatmlCount = 0;
  #chatmlLast: number[] = [-1, -1];
  #templateFirst: Place | null = null;
  #templateCount = 0;
  #templateLast: number[] = [-1, -1];
  #inst: Place | null = null;
  #instAt = -1;
  #roleFirst: Place | null = null;
  #roleCount = 0;
  #roleLast = -1;
  #contentCount = 0;
  #contentLast = -1;

  /**
   * Scans `text` from `from`. `base` is the absolute offset of `text[0]` in the stream (to
   * de-duplicate), `locate` turns an offset in `text` into a reportable place. Unless `final`,
   * a match that runs to the end of `text` is left for the next window.
   */
  scan(
    text: string,
    from: number,
    final: boolean,
    base: number,
    lineStartAt0: boolean,
    locate: (offset: number) => Place,
  ): { kind: string; place: Place } | null {
    const complete = (end: number) => final || end < text.length;

    // (a) Role markers at the start of lines, on both sides. The earliest of each side wins.
    if (this.#user === null || this.#assistant === null) {
      let userAt = -1;
      let assistantAt = -1;
      for (const colonChar of [":", "："]) {
        let sawUser = this.#user !== null;
        let sawAssistant = this.#assistant !== null;
        for (
          let at = text.indexOf(colonChar, from);
          at !== -1;
          at = text.indexOf(colonChar, at + 1)
        ) {
          const role = roleAtColon(text, at, lineStartAt0);
          if (role === null) continue;
          if (role.user && !sawUser) {
            sawUser = true;
            if (userAt === -1 || role.lineStart < userAt) userAt = role.lineStart;
          } else if (!role.user && !sawAssistant) {
            sawAssistant = true;
            if (assistantAt === -1 || role.lineStart < assistantAt) assistantAt = role.lineStart;
          }
          if (sawUser && sawAssistant) break;
        }
      }
      if (this.#user === null && userAt !== -1) this.#user = locate(userAt);
      if (this.#assistant === null && assistantAt !== -1) this.#assistant = locate(assistantAt);
    }
    if (this.#user !== null && this.#assistant !== null) {
      const first = this.#user.index < this.#assistant.index ? this.#user : this.#assistant;
      return { kind: "role-lines", place: first };
    }

    // (b) Chat templates and (c) JSON message arrays, in one pass over their markers.
    const markers = TRANSCRIPT_MARKERS;
    markers.lastIndex = from;
    for (let hit = markers.exec(text); hit !== null; hit = markers.exec(text)) {
      const at = hit.index;
      const marker = hit[0];
      const end = at + marker.length;
      markers.lastIndex = end;
      if (!complete(end)) continue;
      const abs = base + at;
      switch (marker) {
        case "<|im_start|>":
        case "<|im_end|>": {
          const m = marker === "<|im_start|>" ? 0 : 1;
          // The role after `<|im_start|>` must be in view before the marker is counted.
          if (abs <= this.#chatmlLast[m]! || (m === 0 && !complete(end + 32))) break;
          this.#chatmlLast[m] = abs;
          this.#chatmlCount++;
          if (m === 0) {
            CHATML_AT.lastIndex = at;
            this.#chatmlRole ||= CHATML_AT.test(text) && complete(CHATML_AT.lastIndex);
          }
          if (this.#chatmlFirst === null || abs < this.#chatmlFirstAt) {
            this.#chatmlFirst = locate(at);
            this.#chatmlFirstAt = abs;
          }
          if (this.#chatmlRole && this.#chatmlCount >= 2) {
            return { kind: "chatml", place: this.#chatmlFirst };
          }
          break;
        }
        case "<|start_header_id|>":
        case "<start_of_turn>": {
          const m = marker === "<start_of_turn>" ? 1 : 0;
          if (abs <= this.#templateLast[m]!) break;
          TEMPLATE_AT.lastIndex = at;
          if (!TEMPLATE_AT.test(text) || !complete(TEMPLATE_AT.lastIndex)) break;
          this.#templateLast[m] = abs;
          this.#templateCount++;
          this.#templateFirst ??= locate(at);
          if (this.#templateCount >= 2) {
            return { kind: "chat-template", place: this.#templateFirst };
          }
          break;
        }
        case "[INST]":
          if (this.#inst === null) {
            this.#inst = locate(at);
            this.#instAt = abs;
          }
          break;
        case "[/INST]":
          if (this.#inst !== null && abs > this.#instAt) {
            return { kind: "llama-inst", place: this.#inst };
          }
          break;
        default: {
          // `"role"`, `'content'`, `"role\\"`…: a quoted key.
          const role = marker.charAt(1) === "r";
          const re = role ? ROLE_KEY_AT : CONTENT_KEY_AT;
          re.lastIndex = at + 1;
          if (!re.test(text) || !complete(re.lastIndex)) break;
          if (role && abs > this.#roleLast) {
            this.#roleLast = abs;
            this.#roleCount++;
            this.#roleFirst ??= locate(at);
          } else if (!role && abs > this.#contentLast) {
            this.#contentLast = abs;
            this.#contentCount++;
          }
        }
      }
    }
    if (this.#roleFirst !== null && this.#roleCount >= 2 && this.#contentCount >= 2) {
      return { kind: "message-array", place: this.#roleFirst };
    }
    return null;
  }
}

/**
 * Finds a chat transcript in `text`. Three shapes count:
 *
 * - `role-lines`: at least one line starting with a user-side marker (`User`, `Human`, `Me`,
 *   `用户`, `我`, or upper-case `USER`, `HUMAN`) and one with an assistant-side marker
 *   (`Assistant`, `AI`, `ChatGPT`, `Claude`, `GPT`, `Bot`, `助手`, `系统`, `System`, …), each
 *   followed by `:` or `：`. Blanks, `>`, `#`, `*`, `-` and `**` may come first.
 * - `chatml` (`<|im_start|>user` … `<|im_end|>`), `llama-inst` (`[INST]` then `[/INST]`) and
 *   `chat-template` (two Llama 3 header or Gemma turn markers).
 * - `message-array`: two `"role": "user|assistant|system|tool"` keys and two `"content"` keys,
 *   quoted with `"` or `'`, escaped or not.
 *
 * Prose about "the user", a YAML `user: alice`, one `User:` line or one message do not count.
 *
 * @param text The text to scan.
 * @returns The first finding, whose `index` is an offset in `text` as given, or `null`.
 *
 * @example Usage
 * ```ts
 * import { findTranscript } from "@taskpack/cli";
 * import assert from "node:assert/strict";
 *
 * const chat = "User: is the build green?\nAssistant: yes, on my machine.\n";
 * assert.deepEqual(findTranscript(chat), { rule: "transcript", kind: "role-lines", index: 0 });
 * assert.equal(findTranscript("The user asked the assistant to retry.\nuser: alice\n"), null);
 * ```
 */
export function findTranscript(text: string): Finding | null {
  const stripped = stripZeroWidth(text);
  const locate = stripped === text
    ? (offset: number): Place => ({ index: offset, line: 0 })
    : (offset: number): Place => ({ index: originalOffset(text, offset), line: 0 });
  const found = new TranscriptTracker().scan(stripped, 0, true, 0, true, locate);
  return found === null ? null : { rule: "transcript", kind: found.kind, index: found.place.index };
}

const MESSAGE_ROLES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  "tool",
  "model",
  "human",
]);

function isMessage(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  const role = record["role"];
  return typeof role === "string" && MESSAGE_ROLES.has(role.toLowerCase()) &&
    (Object.hasOwn(record, "content") || Object.hasOwn(record, "parts"));
}

function childPath(path: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/**
 * Finds a chat transcript in a parsed JSON value: an array holding two or more objects that
 * each have a string `role` (`user`, `assistant`, `system`, `tool`, `model` or `human`, any
 * case) and a `content` (or Gemini-style `parts`) field. Strings are not read: pass them to
 * {@linkcode findTranscript}.
 *
 * @param value The value, as `JSON.parse` returns it.
 * @param root The path of `value` itself, prefixed to the reported path.
 * @returns The path of the first such array (`passport.history`, `items[2].messages`) and a
 * finding whose `index` is the array index of its first message, or `null`.
 *
 * @example Usage
 * ```ts
 * import { findTranscriptInValue } from "@taskpack/cli";
 * import assert from "node:assert/strict";
 *
 * const pack = {
 *   passport: {
 *     history: [
 *       { role: "user", content: "fix the build" },
 *       { role: "assistant", content: "done" },
 *     ],
 *   },
 * };
 * assert.deepEqual(findTranscriptInValue(pack), {
 *   path: "passport.history",
 *   finding: { rule: "transcript", kind: "message-array", index: 0 },
 * });
 * assert.equal(findTranscriptInValue({ role: "user", content: "one message" }), null);
 * ```
 */
export function findTranscriptInValue(
  value: unknown,
  root = "",
): { path: string; finding: Finding } | null {
  const seen = new WeakSet<object>();
  const stack: { value: unknown; path: string }[] = [{ value, path: root }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current !== "object" || current === null || seen.has(current)) continue;
    seen.add(current);
    if (Array.isArray(current)) {
      let first = -1;
      let count = 0;
      for (let i = 0; i < current.length; i++) {
        if (!isMessage(current[i])) continue;
        if (first === -1) first = i;
        count++;
      }
      if (count >= 2) {
        return { path, finding: { rule: "transcript", kind: "message-array", index: first } };
      }
      for (let i = current.length - 1; i >= 0; i--) {
        stack.push({ value: current[i], path: `${path}[${i}]` });
      }
    } else {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push({
          value: (current as Record<string, unknown>)[key],
          path: childPath(path, key),
        });
      }
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Instruction fields

const INSTRUCTION_KEYS: ReadonlySet<string> = new Set([
  "system_prompt",
  "prompt_for_agent",
  "agent_directive",
  "agent_directives",
  "directive",
  "directives",
  "to_the_agent",
  "for_the_ai",
  "ai_instructions",
  "execute",
  "run_this",
  "commands_to_run",
]);

/**
 * Whether a field name is an instruction field, which a pack must not contain (TaskPack 0.1
 * §4.5): one that starts with `how_to_use`, contains `instruction`, or is `system_prompt`,
 * `prompt_for_agent`, `agent_directive(s)`, `directives`, `to_the_agent`, `for_the_ai`,
 * `ai_instructions`, `execute`, `run_this` or `commands_to_run`. Case, camelCase, `-` and
 * spaces do not matter (`How-To-Use`, `systemPrompt`).
 *
 * @param key The field name.
 * @returns True when the field is forbidden.
 *
 * @example Usage
 * ```ts
 * import { isInstructionKey } from "@taskpack/cli";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isInstructionKey("how_to_use_this_file"), true);
 * assert.equal(isInstructionKey("Agent-Instructions"), true);
 * assert.equal(isInstructionKey("next_steps"), false);
 * assert.equal(isInstructionKey("note_to_reader"), false);
 * ```
 */
export function isInstructionKey(key: string): boolean {
  const normal = key
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[\s\-_]+/g, "_");
  return normal.startsWith("how_to_use") || normal.includes("instruction") ||
    INSTRUCTION_KEYS.has(normal);
}

// ---------------------------------------------------------------------------------------------
// Streaming scan of luggage

/** Chars at the start of a carried-over window that were already scanned with full context. */
const CONTEXT = 128;
/** The longest match any detector needs to decide, plus `CONTEXT`, stays below this. */
const MIN_OVERLAP = 768;
const TEXT_PROBE_BYTES = 8192;
/** What a non-ASCII byte of a binary file becomes: a character no token contains. */
const BINARY_BOUNDARY = 0x00;
/** What the bytes of a UTF-8 zero-width character in a binary file become: U+00AD, stripped. */
const BINARY_ZERO_WIDTH = 0xad;

/**
 * How many bytes at `bytes[at]` encode a zero-width character in UTF-8 (U+00AD, U+200B–D,
 * U+2060, U+FEFF): 2 or 3; 0 when they do not; -1 when `bytes` ends too soon to tell.
 */
function zeroWidthUtf8Length(bytes: Uint8Array, at: number): number {
  const b0 = bytes[at];
  if (b0 === 0xc2) {
    if (at + 1 >= bytes.length) return -1;
    return bytes[at + 1] === 0xad ? 2 : 0;
  }
  if (b0 !== 0xe2 && b0 !== 0xef) return 0;
  if (at + 1 >= bytes.length) return -1;
  const b1 = bytes[at + 1];
  if (b0 === 0xe2 ? b1 !== 0x80 && b1 !== 0x81 : b1 !== 0xbb) return 0;
  if (at + 2 >= bytes.length) return -1;
  const b2 = bytes[at + 2]!;
  if (b0 === 0xef) return b2 === 0xbf ? 3 : 0;
  return (b1 === 0x80 && b2 >= 0x8b && b2 <= 0x8d) || (b1 === 0x81 && b2 === 0xa0) ? 3 : 0;
}

/**
 * Every credential detector needs a run of at least this many consecutive characters of
 * `[A-Za-z0-9+/_-]` (zero-width characters aside): the body of the token. A detector added to
 * `CREDENTIAL_DETECTORS` must keep to this, because the streaming scanner skips binary data
 * that holds no such run without decoding or matching it.
 */
const MIN_TOKEN_RUN = 16;

/**
 * 1 for a byte that can lie inside a token run of a binary file: a token character, or a byte
 * of a UTF-8 zero-width character (which the scanner strips, so it does not break a run).
 */
const RUN_BYTE: Uint8Array = (() => {
  const table = new Uint8Array(256);
  const token = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-";
  for (let i = 0; i < token.length; i++) table[token.charCodeAt(i)] = 1;
  for (const byte of [0xc2, 0xad, 0xe2, 0x80, 0x81, 0x8b, 0x8c, 0x8d, 0xa0, 0xef, 0xbb, 0xbf]) {
    table[byte] = 1;
  }
  return table;
})();

/** 1 for a pair of bytes (read as one 16-bit unit, either byte order) that are both {@linkcode RUN_BYTE}s. */
const RUN_PAIR: Uint8Array = (() => {
  const table = new Uint8Array(65536);
  for (let v = 0; v < 65536; v++) table[v] = RUN_BYTE[v & 0xff]! & RUN_BYTE[v >>> 8]!;
  return table;
})();

/**
 * Whether `bytes` hold a run of {@linkcode MIN_TOKEN_RUN} or more {@linkcode RUN_BYTE}s, the
 * first `carried` of which came at the end of the bytes before.
 *
 * A run of 16 covers four bytes starting at every twelfth position, so only those quads are
 * read (as two 16-bit units, against a table of pairs): where they are not all run bytes, which
 * is nearly everywhere in data without tokens, nothing else is looked at.
 */
function hasTokenRun(bytes: Uint8Array, carried: number): boolean {
  const n = bytes.length;
  let lead = 0;
  while (lead < n && RUN_BYTE[bytes[lead]!] === 1) {
    if (carried + ++lead >= MIN_TOKEN_RUN) return true;
  }
  if (n < MIN_TOKEN_RUN) return false;
  if (trailingRun(bytes) >= MIN_TOKEN_RUN) return true;
  // Any other run lies inside the 16-bit units: it covers a quad at off + 12k.
  const off = bytes.byteOffset & 1;
  const units = new Uint16Array(bytes.buffer, bytes.byteOffset + off, (n - off) >>> 1);
  const last = units.length - 1;
  for (let j = 0; j < last; j += 6) {
    if ((RUN_PAIR[units[j]!]! & RUN_PAIR[units[j + 1]!]!) === 0) continue;
    const at = off + 2 * j;
    let left = at;
    while (left > 0 && RUN_BYTE[bytes[left - 1]!] === 1) left--;
    let right = at + 4;
    while (right < n && RUN_BYTE[bytes[right]!] === 1) right++;
    if (right - left >= MIN_TOKEN_RUN) return true;
  }
  return false;
}

/** The length of the run of {@linkcode RUN_BYTE}s at the end of `bytes`, up to `MIN_TOKEN_RUN`. */
function trailingRun(bytes: Uint8Array): number {
  let run = 0;
  while (run < MIN_TOKEN_RUN && run < bytes.length) {
    if (RUN_BYTE[bytes[bytes.length - 1 - run]!] === 0) break;
    run++;
  }
  return run;
}

/**
 * Where the text of a binary chunk ends: before a zero-width character cut off by the end of
 * the chunk (its bytes wait for the next chunk), unless the chunk is the last.
 */
function binaryEnd(bytes: Uint8Array, final: boolean): number {
  const n = bytes.length;
  if (final) return n;
  if (n >= 2 && zeroWidthUtf8Length(bytes, n - 2) === -1) return n - 2;
  if (n >= 1 && zeroWidthUtf8Length(bytes, n - 1) === -1) return n - 1;
  return n;
}

/**
 * A binary chunk's bytes `[from, to)` as the scanner reads them, one character per byte: ASCII
 * stays, the bytes of a UTF-8 zero-width character become U+00AD (stripped, as in text), any
 * other byte becomes a boundary. `to` must be {@linkcode binaryEnd} of the chunk. Mapping
 * starts two bytes early: a zero-width character starts with a byte that never continues one,
 * so what lies at `from` and after is mapped as if mapping had started at 0.
 */
function mapBinary(bytes: Uint8Array, from: number, to: number): Uint8Array {
  const start = Math.max(0, from - 2);
  const mapped = new Uint8Array(to - start);
  for (let i = start; i < to; i++) {
    const byte = bytes[i]!;
    if (byte < 0x80) {
      mapped[i - start] = byte;
      continue;
    }
    const length = zeroWidthUtf8Length(bytes, i);
    if (length > 0) {
      mapped.fill(BINARY_ZERO_WIDTH, i - start, i - start + length);
      i += length - 1;
    } else {
      mapped[i - start] = BINARY_BOUNDARY;
    }
  }
  return mapped.subarray(from - start);
}

/**
 * Streams one luggage file through the detectors of {@linkcode findCredential} and
 * {@linkcode findTranscript} in bounded memory. Each chunk is decoded once and scanned once,
 * together with an overlap window carried from the previous chunk, so a token straddling a
 * chunk boundary is found; the whole file is scanned, however large.
 *
 * The first 8 KiB decide how the file is read. A file starting with a UTF-16 byte order mark
 * is UTF-16 text. Otherwise it is UTF-8 text unless those bytes hold a NUL or invalid UTF-8;
 * then it is binary, and is scanned for credentials only, byte by byte (a token is ASCII).
 * Scanning stops at the first finding.
 *
 * @example Usage
 * ```ts
 * import { TextScanner } from "@taskpack/cli";
 * import assert from "node:assert/strict";
 *
 * const token = "gh" + "p_" + "A".repeat(36);
 * const bytes = new TextEncoder().encode(`line one\nexport TOKEN=${token}\n`);
 * const scanner = new TextScanner();
 * for (let i = 0; i < bytes.length; i += 7) scanner.push(bytes.subarray(i, i + 7));
 * assert.deepEqual(scanner.finish(), {
 *   finding: { rule: "credential", kind: "github-token", index: 22, line: 2 },
 *   text: true,
 * });
 * ```
 */
export class TextScanner {
  #overlap: number;
  /** The first bytes, held until there are 8 KiB of them or the file ends. */
  #head: Uint8Array[] | null = [];
  #headLength = 0;
  #decoder: TextDecoder | null = null;
  #binary = false;
  /** Binary files: bytes at the end of a chunk that may start a zero-width character. */
  #carry: Uint8Array = new Uint8Array(0);
  /** Binary files: bytes fed so far, the run of token bytes they end with, and where the last
   * run long enough to hold a token ended (so the windows that see it are scanned). */
  #consumed = 0;
  #runCarry = 0;
  #longRunEnd = -Infinity;
  #text = true;
  #tail = "";
  #tailBase = 0;
  #tailStrippedBase = 0;
  #tailLines = 0;
  #atFileStart = true;
  #tracker = new TranscriptTracker();
  #finding: (Finding & { line: number }) | null = null;
  #finished = false;

  /**
   * Creates a scanner for one file.
   *
   * @param options `overlap`: how many characters of the text seen so far are scanned again
   * with the next chunk (default 1024; smaller values are raised to 768).
   */
  constructor(options: { overlap?: number } = {}) {
    const overlap = options.overlap ?? 1024;
    if (!Number.isFinite(overlap) || overlap < 0) {
      throw new RangeError(`Cannot scan: overlap must be a non-negative number, got ${overlap}`);
    }
    this.#overlap = Math.max(MIN_OVERLAP, Math.floor(overlap));
  }

  /**
   * Feeds the next bytes of the file.
   *
   * @param chunk The bytes, in file order. The scanner keeps no reference to them once it
   * has seen 8 KiB.
   */
  push(chunk: Uint8Array): void {
    if (this.#finished) throw new TypeError("Cannot push: the scanner has finished");
    if (chunk.length === 0) return;
    if (this.#head !== null) {
      this.#head.push(chunk.slice());
      this.#headLength += chunk.length;
      if (this.#headLength >= TEXT_PROBE_BYTES) this.#start(false);
      return;
    }
    if (this.#finding === null) this.#feed(chunk, false);
  }

  /**
   * Ends the file and returns what was found.
   *
   * @returns The first finding, if any, and whether the file looks like text.
   */
  finish(): ScanResult {
    if (!this.#finished) {
      if (this.#head !== null) this.#start(true);
      else if (this.#finding === null) this.#feed(new Uint8Array(0), true);
      this.#finished = true;
      this.#tail = "";
    }
    return { finding: this.#finding, text: this.#text };
  }

  /** Decides how to read the file from its first bytes, then scans them. */
  #start(final: boolean): void {
    const head = this.#head!;
    this.#head = null;
    const probe = new Uint8Array(Math.min(this.#headLength, TEXT_PROBE_BYTES));
    for (let offset = 0, i = 0; offset < probe.length; i++) {
      const part = head[i]!.subarray(0, probe.length - offset);
      probe.set(part, offset);
      offset += part.length;
    }
    if (probe[0] === 0xff && probe[1] === 0xfe) this.#decoder = new TextDecoder("utf-16le");
    else if (probe[0] === 0xfe && probe[1] === 0xff) this.#decoder = new TextDecoder("utf-16be");
    else {
      try {
        // Cut at 8 KiB, a character may be incomplete: only the end of the file says it is.
        new TextDecoder("utf-8", { fatal: true }).decode(probe, { stream: !final });
        this.#text = !probe.includes(0);
      } catch {
        this.#text = false;
      }
      this.#binary = !this.#text;
      this.#decoder = this.#binary ? new TextDecoder("latin1") : new TextDecoder("utf-8");
    }
    for (let i = 0; i < head.length; i++) {
      if (this.#finding === null) this.#feed(head[i]!, final && i === head.length - 1);
    }
    if (head.length === 0) this.#feed(new Uint8Array(0), final);
  }

  /** Decodes the next bytes and scans them. */
  #feed(bytes: Uint8Array, final: boolean): void {
    const decoder = this.#decoder!;
    if (!this.#binary) {
      const text = decoder.decode(bytes, { stream: !final });
      this.#scan(text, final);
      return;
    }
    // Binary: one character per byte. ASCII stays; the bytes of a UTF-8 zero-width character
    // become U+00AD (stripped, as in text); any other byte becomes a boundary.
    let input = bytes;
    const start = this.#consumed - this.#carry.length;
    this.#consumed += bytes.length;
    if (this.#carry.length > 0) {
      input = new Uint8Array(this.#carry.length + bytes.length);
      input.set(this.#carry);
      input.set(bytes, this.#carry.length);
      this.#carry = new Uint8Array(0);
    }
    const end = binaryEnd(input, final);
    const text = input.subarray(0, end);
    // A credential needs a long run of token bytes: a window (the carried tail and this chunk)
    // that meets none cannot hold one, so it is not decoded or matched, only kept up with.
    if (hasTokenRun(text, this.#runCarry)) this.#longRunEnd = start + end;
    const trailing = trailingRun(text);
    this.#runCarry = trailing === text.length
      ? Math.min(this.#runCarry + trailing, MIN_TOKEN_RUN)
      : trailing;
    if (start - this.#longRunEnd > this.#overlap + 2 * MIN_TOKEN_RUN) {
      if (!final) this.#keepUp(input, end);
      return;
    }
    if (end < input.length) this.#carry = input.slice(end);
    this.#scan(decoder.decode(mapBinary(input, 0, end)), final);
  }

  /**
   * Binary, and no token can lie in this window: moves the window on exactly as
   * {@linkcode #scan} would (the tail, its offset and its line count), without decoding or
   * matching. The stripped offset is left alone: only the transcript detectors, which binary
   * files skip, read it.
   */
  #keepUp(input: Uint8Array, end: number): void {
    if (end < input.length) this.#carry = input.slice(end);
    const tail = this.#tail;
    const total = tail.length + end;
    if (total === 0) return;
    const dropped = total - Math.min(this.#overlap, total);
    if (dropped > 0) {
      const fromTail = Math.min(dropped, tail.length);
      const fromInput = dropped - fromTail;
      let lines = 0;
      for (
        let at = tail.indexOf("\n");
        at !== -1 && at < fromTail;
        at = tail.indexOf("\n", at + 1)
      ) {
        lines++;
      }
      for (
        let at = input.indexOf(0x0a);
        at !== -1 && at < fromInput;
        at = input.indexOf(0x0a, at + 1)
      ) {
        lines++;
      }
      this.#tailLines += lines;
      this.#tailBase += dropped;
      this.#atFileStart = false;
    }
    const decoder = this.#decoder!;
    this.#tail = dropped >= tail.length
      ? decoder.decode(mapBinary(input, dropped - tail.length, end))
      : tail.slice(dropped) + decoder.decode(mapBinary(input, 0, end));
  }

  #scan(chunkText: string, final: boolean): void {
    const original = this.#tail + chunkText;
    if (original.length === 0) return;
    const stripped = stripZeroWidth(original);
    const zeroWidth = stripped !== original;
    const skip = this.#atFileStart ? 0 : Math.min(CONTEXT, this.#tail.length);
    const from = zeroWidth ? stripZeroWidth(original.slice(0, skip)).length : skip;
    const locate = (offset: number): Place => {
      let line = this.#tailLines + 1;
      for (
        let at = stripped.indexOf("\n");
        at !== -1 && at < offset;
        at = stripped.indexOf("\n", at + 1)
      ) {
        line++;
      }
      const index = this.#tailBase + (zeroWidth ? originalOffset(original, offset) : offset);
      return { index, line };
    };

    const credential = scanCredentials(stripped, from, final);
    if (credential !== null) {
      const place = locate(credential.index);
      this.#finding = { rule: "credential", kind: credential.kind, ...place };
      return;
    }
    if (this.#text) {
      const found = this.#tracker.scan(
        stripped,
        from,
        final,
        this.#tailStrippedBase,
        this.#atFileStart,
        locate,
      );
      if (found !== null) {
        this.#finding = { rule: "transcript", kind: found.kind, ...found.place };
        return;
      }
    }
    if (final) return;

    const keep = Math.min(this.#overlap, original.length);
    const dropped = original.length - keep;
    if (dropped > 0) {
      for (
        let at = original.indexOf("\n");
        at !== -1 && at < dropped;
        at = original.indexOf("\n", at + 1)
      ) {
        this.#tailLines++;
      }
      this.#tailBase += dropped;
      this.#tailStrippedBase += zeroWidth
        ? stripZeroWidth(original.slice(0, dropped)).length
        : dropped;
      this.#atFileStart = false;
    }
    this.#tail = original.slice(dropped);
  }
}

/**
 * Scans a whole file held in memory: {@linkcode TextScanner} over `bytes`.
 *
 * @param bytes The file's bytes.
 * @returns The first finding, if any, and whether the file looks like text.
 *
 * @example Usage
 * ```ts
 * import { scanBytes } from "@taskpack/cli";
 * import assert from "node:assert/strict";
 *
 * const chat = new TextEncoder().encode("notes\nHuman: hi\n\nAssistant: hello\n");
 * assert.deepEqual(scanBytes(chat), {
 *   finding: { rule: "transcript", kind: "role-lines", index: 6, line: 2 },
 *   text: true,
 * });
 * assert.deepEqual(scanBytes(new Uint8Array([0, 1, 2])), { finding: null, text: false });
 * ```
 */
export function scanBytes(bytes: Uint8Array): ScanResult {
  const scanner = new TextScanner();
  const step = 1 << 20;
  for (let i = 0; i < bytes.length; i += step) scanner.push(bytes.subarray(i, i + step));
  return scanner.finish();
}
