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

import { countNewlines } from "../bytes/mod.ts";
import {
  type Base64Budget,
  MAX_BASE64_CHARS,
  scanBase64Credentials,
  scanCredentials,
} from "./credentials.ts";
import { type Place, TranscriptTracker } from "./transcripts.ts";
import { asRead, isZeroWidth, originalOffset, stripZeroWidth } from "./zero_width.ts";
import type { Finding } from "./finding.ts";

export type { Finding };

export { findCredential } from "./credentials.ts";
export { findTranscript, findTranscriptInValue } from "./transcripts.ts";

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
 * spaces do not matter (`How-To-Use`, `systemPrompt`), nor do invisible characters and
 * compatibility forms (`how\u200b_to_use`, fullwidth letters): names are compared as they
 * read (§4.5.1 "and friends").
 *
 * @param key The field name.
 * @returns True when the field is forbidden.
 *
 * @example Usage
 * ```ts
 * import { isInstructionKey } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isInstructionKey("how_to_use_this_file"), true);
 * assertEquals(isInstructionKey("Agent-Instructions"), true);
 * assertEquals(isInstructionKey("next_steps"), false);
 * assertEquals(isInstructionKey("note_to_reader"), false);
 * assertEquals(isInstructionKey("how\u200b_to_use_this_file"), true);
 * ```
 */
export function isInstructionKey(key: string): boolean {
  const normal = asRead(key)
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
const MIN_OVERLAP = 1024;
const TEXT_PROBE_BYTES = 8192;
/** A whole file larger than the probe is scanned in steps of this size. */
const WHOLE_STEP = 1 << 20;
/** Decodes a whole small file at once and says whether it is valid UTF-8 (it throws if not). */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
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
 * that holds no such run without decoding or matching it. The one exception, a private key
 * block with a short body, is known by its `-----BEGIN` ({@linkcode hasKeyHeader}).
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

const KEY_HEADER = "-----BEGIN";

/**
 * Whether `bytes`, after the text `before` (the end of what came before them), hold
 * `-----BEGIN`: a private key block may have a body too short for a token run (§4.1).
 */
function hasKeyHeader(bytes: Uint8Array, before: string): boolean {
  for (let at = bytes.indexOf(0x42, 5); at !== -1; at = bytes.indexOf(0x42, at + 1)) {
    let k = 0;
    while (k < KEY_HEADER.length && bytes[at - 5 + k] === KEY_HEADER.charCodeAt(k)) k++;
    if (k === KEY_HEADER.length) return true;
  }
  const joint = before.slice(-(KEY_HEADER.length - 1)) +
    String.fromCharCode(...bytes.subarray(0, KEY_HEADER.length - 1));
  return joint.includes(KEY_HEADER);
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
 * Something that scans one luggage file, chunk by chunk, as {@linkcode TextScanner} does. A
 * shell may scan on another thread: then `push` may return a promise (wait for it before the
 * next chunk: the scanner is behind) and `finish` does. `push` must not keep the chunk it is
 * given: the caller may reuse its buffer.
 */
export interface LuggageScanner {
  /**
   * Scans the next bytes of the file.
   *
   * @param bytes The bytes (valid only during the call).
   */
  push(bytes: Uint8Array): void | Promise<void>;
  /**
   * Ends the file.
   *
   * @returns The first finding, and whether the file looked like text.
   */
  finish(): ScanResult | Promise<ScanResult>;
  /**
   * Scans a whole file given at once, instead of `push` and `finish` (on a fresh scanner):
   * the same result, for less work. Optional.
   *
   * @param bytes The whole file (valid only during the call).
   * @returns The first finding, and whether the file looked like text.
   */
  scanWhole?(bytes: Uint8Array): ScanResult | Promise<ScanResult>;
}

/** The encodings a luggage file is read as text in. */
type TextEncoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

/**
 * Control bytes a text file may hold besides NUL: tab, line feed, vertical tab, form feed,
 * carriage return, DOS end of file (0x1A) and escape (0x1B, terminal colours in a log).
 */
function isTextControl(byte: number): boolean {
  return (byte >= 0x09 && byte <= 0x0d) || byte === 0x1a || byte === 0x1b;
}

/**
 * The encoding {@linkcode TextScanner} reads a file in, from its first 8 KiB; `null` for
 * binary, `undefined` when `head` holds fewer than 8 KiB and the file goes on. See
 * {@linkcode readsAsText}.
 */
function textEncoding(head: Uint8Array, final: boolean): TextEncoding | null | undefined {
  if (!final && head.length < TEXT_PROBE_BYTES) return undefined;
  const probe = head.subarray(0, TEXT_PROBE_BYTES);
  if (probe[0] === 0xff && probe[1] === 0xfe) return "utf-16le";
  if (probe[0] === 0xfe && probe[1] === 0xff) return "utf-16be";
  // NUL bytes: any number leading the file (text must follow), and a stray few after that.
  let lead = 0;
  while (lead < probe.length && probe[lead] === 0) lead++;
  if (lead > 0 && lead === probe.length) return null;
  let stray = 0;
  for (let at = probe.indexOf(0, lead); at !== -1; at = probe.indexOf(0, at + 1)) stray++;
  if (stray > probe.length >> 10) return null;
  try {
    // Cut at 8 KiB, a character may be incomplete: only the end of the file says it is.
    new TextDecoder("utf-8", { fatal: true })
      .decode(probe, { stream: !final || probe.length < head.length });
    return "utf-8";
  } catch {
    // Not UTF-8: text in a legacy single-byte code page, or binary.
  }
  for (let i = 0; i < probe.length; i++) {
    const byte = probe[i]!;
    if (byte < 0x20 && byte !== 0 && !isTextControl(byte)) return null;
  }
  return "windows-1252";
}

/**
 * How {@linkcode TextScanner} reads a file, decided from its first 8 KiB: as text (scanned for
 * credentials and transcripts) or as binary (credentials only). A file starting with a UTF-16
 * byte order mark is text. Otherwise NUL bytes may lead the file, and a stray few (one in
 * 1024) follow; past them, the file is UTF-8 text when those bytes are valid UTF-8, and text in
 * Windows-1252 (a legacy single-byte code page, which Latin-1 files read the same in) when they
 * hold no control byte but tab, line breaks, form feed, 0x1A and escape. Anything else is
 * binary: a chat saved as cp1252, or led by a NUL, is still read as the text it is.
 *
 * @param head The file's first bytes (only the first 8 KiB are looked at).
 * @param final Whether `head` is the whole file.
 * @returns `true` for text, `false` for binary, `null` when `head` holds fewer than 8 KiB and
 * the file goes on.
 *
 * @example Usage
 * ```ts
 * import { readsAsText } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(readsAsText(new TextEncoder().encode("plain notes\n"), true), true);
 * assertEquals(readsAsText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0]), true), false);
 * assertEquals(readsAsText(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]), true), true);
 * assertEquals(readsAsText(new TextEncoder().encode("the start of a long file"), false), null);
 * ```
 */
export function readsAsText(head: Uint8Array, final: boolean): boolean | null {
  const encoding = textEncoding(head, final);
  return encoding === undefined ? null : encoding !== null;
}

/** Makes the {@linkcode LuggageScanner} for one luggage file of `size` bytes. */
export type ScannerFactory = (size: number) => LuggageScanner;

/** No bytes (shared: an empty array cannot change, and one per file would cost a buffer each). */
const NO_BYTES = new Uint8Array(0);

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
 * import { assertEquals } from "@std/assert";
 *
 * const token = "gh" + "p_" + "A".repeat(36);
 * const bytes = new TextEncoder().encode(`line one\nexport TOKEN=${token}\n`);
 * const scanner = new TextScanner();
 * for (let i = 0; i < bytes.length; i += 7) scanner.push(bytes.subarray(i, i + 7));
 * assertEquals(scanner.finish(), {
 *   finding: { rule: "credential", kind: "github-token", index: 22, line: 2 },
 *   text: true,
 * });
 * ```
 */
export class TextScanner implements LuggageScanner {
  #overlap: number;
  /** The first bytes, held until there are 8 KiB of them or the file ends. */
  #head: Uint8Array[] | null = [];
  #headLength = 0;
  #decoder: TextDecoder | null = null;
  #binary = false;
  /** Binary files: bytes at the end of a chunk that may start a zero-width character. */
  #carry: Uint8Array = NO_BYTES;
  /** Binary files: bytes fed so far, the run of token bytes they end with, and where the last
   * run long enough to hold a token ended (so the windows that see it are scanned). */
  #consumed = 0;
  #runCarry = 0;
  #longRunEnd = -Infinity;
  #text = true;
  /**
   * The end of the text seen so far, zero-width characters removed (so that the overlap holds
   * as many characters a token can be made of, however many zero-width characters hide among
   * them), and where each of its characters was in the file: `#tailIndex[i]`, or
   * `#tailBase + i` when the tail is all of one piece (`#tailIndex` null).
   */
  #tail = "";
  #tailBase = 0;
  #tailIndex: number[] | null = null;
  /** Where the next text starts in the file (code units of text, bytes of binary). */
  #nextIndex = 0;
  #tailStrippedBase = 0;
  #tailLines = 0;
  #atFileStart = true;
  #tracker = new TranscriptTracker();
  #finding: (Finding & { line: number }) | null = null;
  #finished = false;
  /** What is left of this file's allowance for decoding base64. */
  #base64: Base64Budget = { chars: MAX_BASE64_CHARS };

  /**
   * Creates a scanner for one file.
   *
   * @param options `overlap`: how many characters of the text seen so far are scanned again
   * with the next chunk (default 1024, also the least: smaller values are raised to it).
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
      else if (this.#finding === null) this.#feed(NO_BYTES, true);
      this.#finished = true;
      this.#tail = "";
    }
    return { finding: this.#finding, text: this.#text };
  }

  /**
   * Scans a whole file given at once: what `push(bytes)` then `finish()` would find, without
   * copying the bytes, and (for text up to 8 KiB) decoding them once.
   *
   * @param bytes The whole file; the scanner keeps no reference to them.
   * @returns The first finding, if any, and whether the file looks like text.
   */
  scanWhole(bytes: Uint8Array): ScanResult {
    if (this.#finished || this.#headLength > 0) {
      throw new TypeError("Cannot scan a whole file: the scanner has been used");
    }
    const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) ||
      (bytes[0] === 0xfe && bytes[1] === 0xff);
    if (bytes.length > TEXT_PROBE_BYTES || utf16) {
      // In steps, as a stream would come: only the first is copied, and no string is huge.
      for (let i = 0; i < bytes.length; i += WHOLE_STEP) {
        this.push(bytes.subarray(i, i + WHOLE_STEP));
      }
      return this.finish();
    }
    // Up to 8 KiB and not UTF-16: the whole file is the probe (see readsAsText).
    const encoding = textEncoding(bytes, true);
    this.#head = null;
    if (encoding !== null && encoding !== undefined) {
      this.#scan(
        encoding === "utf-8" ? STRICT_UTF8.decode(bytes) : new TextDecoder(encoding).decode(bytes),
        true,
      );
    } else {
      this.#text = false;
      this.#binary = true;
      this.#decoder = new TextDecoder("latin1");
      this.#feed(bytes, true);
    }
    this.#finished = true;
    this.#tail = "";
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
    const encoding = textEncoding(probe, final) ?? null;
    this.#text = encoding !== null;
    this.#binary = !this.#text;
    this.#decoder = new TextDecoder(encoding ?? "latin1");
    for (let i = 0; i < head.length; i++) {
      if (this.#finding === null) this.#feed(head[i]!, final && i === head.length - 1);
    }
    if (head.length === 0) this.#feed(NO_BYTES, final);
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
      this.#carry = NO_BYTES;
    }
    const end = binaryEnd(input, final);
    const text = input.subarray(0, end);
    // A credential needs a long run of token bytes: a window (the carried tail and this chunk)
    // that meets none cannot hold one, so it is not decoded or matched, only kept up with.
    if (hasTokenRun(text, this.#runCarry) || hasKeyHeader(text, this.#tail)) {
      this.#longRunEnd = start + end;
    }
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
   * Binary, and no token can lie in this window: moves the window on as {@linkcode #scan}
   * would (the tail, its place and its line count), decoding only the bytes it keeps and
   * matching nothing. The stripped offset is left alone: only the transcript detectors, which
   * binary files skip, read it.
   */
  #keepUp(input: Uint8Array, end: number): void {
    if (end < input.length) this.#carry = input.slice(end);
    const take = Math.min(end, this.#overlap);
    if (take < end) {
      // Every character of the tail and the input before the last `take` bytes is dropped.
      const tail = this.#tail;
      for (let at = tail.indexOf("\n"); at !== -1; at = tail.indexOf("\n", at + 1)) {
        this.#tailLines++;
      }
      this.#tailLines += countNewlines(input, end - take);
      this.#tail = "";
      this.#tailIndex = null;
      this.#nextIndex += end - take;
      this.#atFileStart = false;
    }
    this.#advance(this.#decoder!.decode(mapBinary(input, end - take, end)));
  }

  /**
   * Moves the window on past `chunkText` (as decoded, zero-width characters and all): keeps the
   * last `overlap` characters of the tail and the chunk, zero-width characters removed, and
   * where each was.
   */
  #advance(chunkText: string, stripped: string = stripZeroWidth(chunkText)): void {
    const tail = this.#tail;
    const chunkStart = this.#nextIndex;
    this.#nextIndex += chunkText.length;
    const total = tail.length + stripped.length;
    const keep = Math.min(this.#overlap, total);
    const dropped = total - keep;
    if (dropped > 0) {
      const text = tail + stripped;
      for (
        let at = text.indexOf("\n");
        at !== -1 && at < dropped;
        at = text.indexOf("\n", at + 1)
      ) {
        this.#tailLines++;
      }
      this.#tailStrippedBase += dropped;
      this.#atFileStart = false;
    }
    if (keep === 0) {
      this.#tail = "";
      this.#tailIndex = null;
      this.#tailBase = this.#nextIndex;
      return;
    }
    const index = this.#indexer(tail, chunkText, stripped, chunkStart);
    const first = index(dropped);
    if (index(total - 1) - first === keep - 1) {
      // All of one piece: no zero-width character inside.
      this.#tailIndex = null;
      this.#tailBase = first;
    } else {
      const map: number[] = [];
      for (let p = dropped; p < tail.length; p++) map.push(index(p));
      let seen = 0;
      const skip = Math.max(0, dropped - tail.length);
      for (let i = 0; i < chunkText.length; i++) {
        if (isZeroWidth(chunkText.charCodeAt(i))) continue;
        if (seen++ >= skip) map.push(chunkStart + i);
      }
      this.#tailIndex = map;
    }
    this.#tail = (tail + stripped).slice(dropped);
  }

  /**
   * Where the character at `offset` of `tail + stripped` lies in the file, `stripped` being
   * `chunkText` without zero-width characters and `chunkStart` where `chunkText` starts.
   */
  #indexer(
    tail: string,
    chunkText: string,
    stripped: string,
    chunkStart: number,
  ): (offset: number) => number {
    const tailIndex = this.#tailIndex;
    const tailBase = this.#tailBase;
    const zeroWidth = stripped.length !== chunkText.length;
    return (offset) => {
      if (offset < tail.length) return tailIndex === null ? tailBase + offset : tailIndex[offset]!;
      const at = offset - tail.length;
      return chunkStart + (zeroWidth ? originalOffset(chunkText, at) : at);
    };
  }

  #scan(chunkText: string, final: boolean): void {
    const chunkStripped = stripZeroWidth(chunkText);
    const tail = this.#tail;
    const stripped = tail + chunkStripped;
    if (stripped.length === 0) {
      this.#nextIndex += chunkText.length;
      return;
    }
    const from = this.#atFileStart ? 0 : Math.min(CONTEXT, tail.length);
    const index = this.#indexer(tail, chunkText, chunkStripped, this.#nextIndex);
    const locate = (offset: number): Place => {
      let line = this.#tailLines + 1;
      for (
        let at = stripped.indexOf("\n");
        at !== -1 && at < offset;
        at = stripped.indexOf("\n", at + 1)
      ) {
        line++;
      }
      return { index: index(offset), line };
    };

    const credential = scanCredentials(stripped, from, final);
    if (credential !== null) {
      const place = locate(credential.index);
      this.#finding = { rule: "credential", kind: credential.kind, ...place };
      return;
    }
    const encoded = scanBase64Credentials(stripped, from, final, this.#base64);
    if (encoded !== null) {
      const place = locate(encoded.index);
      this.#finding = { rule: "credential", kind: encoded.kind, ...place, encoding: "base64" };
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
    this.#advance(chunkText, chunkStripped);
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
 * import { assertEquals } from "@std/assert";
 *
 * const chat = new TextEncoder().encode("notes\nHuman: hi\n\nAssistant: hello\n");
 * assertEquals(scanBytes(chat), {
 *   finding: { rule: "transcript", kind: "role-lines", index: 6, line: 2 },
 *   text: true,
 * });
 * assertEquals(scanBytes(new Uint8Array([1, 2, 3, 0, 4, 5])), { finding: null, text: false });
 * ```
 */
export function scanBytes(bytes: Uint8Array): ScanResult {
  return new TextScanner().scanWhole(bytes);
}
