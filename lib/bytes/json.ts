// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Strict JSON reading and canonical JSON writing. For the core's own use: not in the library's
 * public API.
 *
 * `parseJsonStrict` validates the text with an iterative scanner (an explicit stack, no recursion)
 * that follows the RFC 8259 grammar exactly and adds the rules JSON.parse does not enforce: no
 * duplicate keys, no prototype-polluting keys, a nesting limit. Only text the scanner accepts is
 * handed to JSON.parse, which builds the value.
 *
 * @module
 */

import { TaskPackReadError } from "./errors.ts";

/** Options for {@linkcode parseJsonStrict}. */
export interface StrictJsonOptions {
  /** Most nesting levels of arrays and objects allowed; `[]` is one level. Default 256. */
  maxDepth?: number;
  /**
   * Longest object key allowed, in UTF-16 code units after decoding escapes (a longer one
   * fails with code `limit`). Default: no limit. V8 builds objects with many long keys slowly.
   */
  maxKeyLength?: number;
  /** A label for errors, such as `data/passport.json`. */
  where?: string;
  /**
   * Refuse a `\u` escape of a lone surrogate (code `json-lone-surrogate`), as I-JSON does
   * (RFC 7493 §2.1): readers in other languages read one in three different ways. Default false.
   */
  wellFormed?: boolean;
}

const DEFAULT_MAX_DEPTH = 256;
const MAX_QUOTED_KEY = 80;
const PATH_HEAD = 8;
const PATH_TAIL = 8;

/**
 * Keys that JSON readers read differently: `__proto__` is an ordinary member to JSON.parse and
 * serde_json, and sets the prototype to a reader that assigns members one by one. (`constructor`
 * and `prototype` are read alike by every JSON reader: they are allowed, and the format warns
 * about them, see `SHADOWING_KEYS`.)
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__"]);

/**
 * Member names every JSON reader reads alike but that shadow what a JavaScript object inherits:
 * allowed (the spec does not forbid them), and worth a warning.
 */
export const SHADOWING_KEYS: ReadonlySet<string> = new Set(["constructor", "prototype"]);

// Character codes.
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const OPEN_BRACKET = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_BRACKET = 0x5d;
const LOWER_B = 0x62;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_R = 0x72;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const BOM = 0xfeff;

/**
 * The longest run of string characters that need no attention: anything but `"`, `\` and the
 * control characters U+0000–U+001F. Sticky, so it matches exactly at `lastIndex`; V8 runs it as
 * native code, which skips long string bodies (base64 luggage) far faster than a JS loop.
 */
const PLAIN_RUN = /[\x20\x21\x23-\x5b\x5d-\uffff]*/y;

/** Objects with more keys than this switch from a linear duplicate check to a Set. */
const SMALL_OBJECT = 12;

/** One open array or object. Frames are pooled per depth and reused. */
interface Frame {
  /** True for an array, false for an object. */
  isArray: boolean;
  /** Index of the current element (arrays). */
  index: number;
  /** The current member's decoded key (objects), or undefined before it is read. */
  key: string | undefined;
  /** The decoded keys seen so far (objects). */
  readonly keyList: string[];
  /** The same keys as a Set, once there are more than {@linkcode SMALL_OBJECT}. */
  keySet: Set<string> | undefined;
}

/**
 * Parses JSON text after checking it strictly, so hostile text fails with a
 * {@linkcode TaskPackReadError} instead of surprising the caller.
 *
 * The text must be exactly one RFC 8259 JSON value surrounded by optional whitespace (a
 * leading byte order mark is refused; callers strip it), with no duplicate key in any object
 * (keys compared after decoding escapes), no key `__proto__` (`constructor` and `prototype` are
 * allowed: every JSON reader reads them alike),
 * and at most `maxDepth` nesting levels. Top-level scalars are accepted; callers check types.
 *
 * @param text The JSON text.
 * @param options The nesting limit and a label for errors.
 * @returns The parsed value.
 * @throws {TaskPackReadError} `json-syntax`, `json-duplicate-key`, `json-forbidden-key` or
 * `json-too-deep`, with the JSON path and label in `where` and the line and column in the
 * message; `wrong-type` when `text` is not a string.
 * @throws {RangeError} When `maxDepth` is not a non-negative safe integer.
 */
export function parseJsonStrict(text: string, options: StrictJsonOptions = {}): unknown {
  const label = options.where ?? "";
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0) {
    throw new RangeError(`Cannot parse JSON: maxDepth must be a non-negative integer`);
  }
  const maxKeyLength = options.maxKeyLength ?? Infinity;
  if (!(maxKeyLength >= 0)) {
    throw new RangeError(`Cannot parse JSON: maxKeyLength must be a non-negative number`);
  }
  if (typeof text !== "string") {
    throw new TaskPackReadError("wrong-type", label, "the JSON text is not a string");
  }
  scan(text, maxDepth, label, maxKeyLength, options.wellFormed === true);
  try {
    return JSON.parse(text);
  } catch {
    // Unreachable when the scanner is right; kept so a disagreement is still a read error.
    throw new TaskPackReadError("json-syntax", label, "the text is not valid JSON");
  }
}

/**
 * The canonical byte form of a JSON value used by both TaskPack encodings: two-space indent,
 * keys in insertion order, one trailing LF.
 *
 * @param value A JSON-serializable value.
 * @returns `JSON.stringify(value, null, 2) + "\n"`.
 * @throws {TypeError} When the value has no JSON form (such as `undefined`), or from
 * JSON.stringify itself (cycles, BigInt).
 */
export function canonicalJson(value: unknown): string {
  const text: string | undefined = JSON.stringify(value, null, 2);
  if (text === undefined) throw new TypeError("Cannot encode JSON: the value has no JSON form");
  return text + "\n";
}

/**
 * True for a non-null object that is not an array, as JSON objects are after parsing.
 *
 * @param value Any value.
 * @returns Whether `value` is a non-null, non-array object.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type ScanErrorCode =
  | "json-syntax"
  | "json-duplicate-key"
  | "json-forbidden-key"
  | "json-too-deep"
  | "json-lone-surrogate"
  | "limit";

/** Validates `text`, throwing on the first problem in reading order. */
function scan(
  text: string,
  maxDepth: number,
  label: string,
  maxKeyLength: number,
  wellFormed: boolean,
): void {
  const scanner = new Scanner(text, maxDepth, label, maxKeyLength);
  scanner.wellFormed = wellFormed;
  scanner.run();
}

/**
 * The iterative validator. State lives in fields; hot loops copy `pos` into a local and write
 * it back once, which keeps them in registers.
 */
class Scanner {
  readonly text: string;
  readonly length: number;
  readonly maxDepth: number;
  readonly label: string;
  /** Longest key allowed. */
  readonly maxKeyLength: number;
  /** Whether a `\u` escape of a lone surrogate is refused (I-JSON, RFC 7493 §2.1). */
  wellFormed = false;
  /** Where the next character to read is. */
  pos = 0;
  /** `stack[0..depth-1]` are the open containers; entries past `depth` are spare frames. */
  readonly stack: Frame[] = [];
  depth = 0;

  constructor(text: string, maxDepth: number, label: string, maxKeyLength = Infinity) {
    this.text = text;
    this.length = text.length;
    this.maxDepth = maxDepth;
    this.label = label;
    this.maxKeyLength = maxKeyLength;
  }

  run(): void {
    const text = this.text;
    const length = this.length;
    if (text.charCodeAt(0) === BOM) this.failValue(0, "the text starts with a byte order mark");
    this.skipWhitespace();
    if (this.pos >= length) this.failValue(this.pos, "the text holds no JSON value");

    for (;;) {
      // A value is expected at `pos` (whitespace already skipped).
      const pos = this.pos;
      const c = text.charCodeAt(pos);
      if (c === QUOTE) {
        this.readString(false);
      } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        if (this.openContainer(c === OPEN_BRACKET)) continue;
      } else if (c === MINUS || isDigit(c)) {
        this.readNumber();
      } else if (c === LOWER_T) {
        this.readLiteral("true");
      } else if (c === LOWER_F) {
        this.readLiteral("false");
      } else if (c === LOWER_N) {
        this.readLiteral("null");
      } else if (c === APOSTROPHE) {
        this.failValue(pos, "a string must use double quotes");
      } else if (pos >= length) {
        this.failValue(pos, "the text ends where a value was expected");
      } else {
        this.failValue(pos, `expected a value, not ${describe(text, pos)}`);
      }
      if (!this.afterValue()) return;
    }
  }

  /**
   * At `[` or `{`: opens the container. Returns true when a first value is now expected, false
   * when the container was empty and is already closed.
   */
  openContainer(isArray: boolean): boolean {
    const depth = this.depth;
    if (depth >= this.maxDepth) {
      this.fail("json-too-deep", this.pos, `nesting is deeper than ${this.maxDepth} levels`, true);
    }
    let frame = this.stack[depth];
    if (frame === undefined) {
      frame = { isArray, index: 0, key: undefined, keyList: [], keySet: undefined };
      this.stack.push(frame);
    } else {
      frame.isArray = isArray;
      frame.index = 0;
      frame.key = undefined;
      frame.keyList.length = 0;
      frame.keySet = undefined;
    }
    this.depth = depth + 1;
    this.pos++;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) === (isArray ? CLOSE_BRACKET : CLOSE_BRACE)) {
      this.pos++;
      this.depth = depth;
      return false;
    }
    if (!isArray) this.expectKey(frame, false);
    this.expectValueNext();
    return true;
  }

  /**
   * A value just ended: closes containers until one wants another member. Returns true when a
   * value is expected next, false when the text is done.
   */
  afterValue(): boolean {
    const text = this.text;
    for (;;) {
      this.skipWhitespace();
      const pos = this.pos;
      const frame = this.depth > 0 ? this.stack[this.depth - 1] : undefined;
      if (frame === undefined) {
        if (pos < this.length) {
          this.failBetween(pos, `unexpected ${describe(text, pos)} after the JSON value`);
        }
        return false;
      }
      const c = text.charCodeAt(pos);
      if (c === COMMA) {
        this.pos = pos + 1;
        this.skipWhitespace();
        if (frame.isArray) {
          frame.index++;
          const next = text.charCodeAt(this.pos);
          if (next === CLOSE_BRACKET) this.failBetween(this.pos, `a trailing comma before "]"`);
          if (next === COMMA) this.failValue(this.pos, "an array element is missing");
        } else {
          frame.key = undefined;
          this.expectKey(frame, true);
        }
        this.expectValueNext();
        return true;
      }
      if (c === (frame.isArray ? CLOSE_BRACKET : CLOSE_BRACE)) {
        this.pos = pos + 1;
        this.depth--;
        continue;
      }
      const expected = frame.isArray ? `"," or "]"` : `"," or "}"`;
      if (pos >= this.length) this.failBetween(pos, `the text ends where ${expected} was expected`);
      this.failBetween(pos, `expected ${expected}, not ${describe(text, pos)}`);
    }
  }

  /** Skips whitespace before a value and refuses the end of the text there. */
  expectValueNext(): void {
    this.skipWhitespace();
    if (this.pos >= this.length) {
      this.failValue(this.pos, "the text ends where a value was expected");
    }
  }

  skipWhitespace(): void {
    const text = this.text;
    const length = this.length;
    let pos = this.pos;
    while (pos < length) {
      const c = text.charCodeAt(pos);
      if (c !== SPACE && c !== LF && c !== CR && c !== TAB) break;
      pos++;
    }
    this.pos = pos;
  }

  /** Expects a key where the innermost object needs one (after `{` or `,`). */
  expectKey(frame: Frame, afterComma: boolean): void {
    const pos = this.pos;
    const c = this.text.charCodeAt(pos);
    if (c === QUOTE) return this.readKey(frame);
    if (afterComma && c === CLOSE_BRACE) this.failBetween(pos, `a trailing comma before "}"`);
    if (c === APOSTROPHE) this.failBetween(pos, "a key must use double quotes");
    this.failBetween(pos, `expected a key in double quotes, not ${describe(this.text, pos)}`);
  }

  /** At a `"` that starts a key in the innermost object: reads it, checks it, and the `:`. */
  readKey(frame: Frame): void {
    const keyStart = this.pos;
    const key = this.readString(true);
    if (key.length > this.maxKeyLength) {
      this.fail(
        "limit",
        keyStart,
        `${nameKey(key)} is longer than the limit of ${this.maxKeyLength} (raise maxJsonKeyLength)`,
        false,
      );
    }
    frame.key = key;
    if (key.length === 9 && FORBIDDEN_KEYS.has(key)) {
      this.fail("json-forbidden-key", keyStart, `${nameKey(key)} is not allowed`, true);
    }
    if (!addKey(frame, key)) {
      this.fail("json-duplicate-key", keyStart, `${nameKey(key)} appears twice`, true);
    }
    this.skipWhitespace();
    const pos = this.pos;
    if (this.text.charCodeAt(pos) !== COLON) {
      this.failValue(pos, `expected ":" after a key, not ${describe(this.text, pos)}`);
    }
    this.pos = pos + 1;
  }

  /**
   * Reads the string starting at the quote at `pos` and moves past it. Returns the decoded
   * content when `decode` is true (keys), otherwise an empty string.
   */
  readString(decode: boolean): string {
    const text = this.text;
    const length = this.length;
    const open = this.pos;
    let pos = open + 1;
    let escaped = false;
    for (;;) {
      // Short runs are cheaper in JS; long ones go to the native regex.
      let c = text.charCodeAt(pos);
      for (let budget = 32; budget > 0; budget--) {
        if (c < SPACE || c === QUOTE || c === BACKSLASH || c !== c) break;
        c = text.charCodeAt(++pos);
      }
      if (c >= SPACE && c !== QUOTE && c !== BACKSLASH) {
        PLAIN_RUN.lastIndex = pos;
        PLAIN_RUN.test(text);
        pos = PLAIN_RUN.lastIndex;
        c = text.charCodeAt(pos);
      }
      if (c === QUOTE) {
        this.pos = pos + 1;
        if (!decode) return "";
        if (!escaped) return text.slice(open + 1, pos);
        // The token is valid, so JSON.parse decodes it exactly as it will decode the whole
        // text: `\uXXXX` escapes become UTF-16 code units, so an escaped surrogate pair equals
        // the character written out and a lone escaped surrogate stays as it is. Natively,
        // without building a string per escape.
        return JSON.parse(text.slice(open, pos + 1));
      }
      if (pos >= length) this.failValue(open, "a string is not closed");
      if (c !== BACKSLASH) {
        this.failValue(pos, `a string contains the unescaped control character ${codePoint(c)}`);
      }
      pos = this.skipEscape(pos);
      escaped = true;
    }
  }

  /** Checks the escape sequence at the backslash at `at`; returns the position after it. */
  skipEscape(at: number): number {
    const text = this.text;
    switch (text.charCodeAt(at + 1)) {
      case QUOTE:
      case BACKSLASH:
      case SLASH:
      case LOWER_B:
      case LOWER_F:
      case LOWER_N:
      case LOWER_R:
      case LOWER_T:
        return at + 2;
      case LOWER_U:
        for (let k = at + 2; k < at + 6; k++) {
          if (!isHexDigit(text.charCodeAt(k))) {
            this.failValue(at, "a \\u escape needs four hex digits");
          }
        }
        if (this.wellFormed) return this.checkSurrogate(at);
        return at + 6;
      default:
        return this.failValue(at, "a string contains an invalid escape sequence");
    }
  }

  /**
   * At a valid `\uXXXX` escape at `at`: a high surrogate must be followed at once by an escaped
   * low one, and a low one must not stand alone. Returns the position after the escape (or the
   * pair).
   */
  checkSurrogate(at: number): number {
    const text = this.text;
    const unit = parseInt(text.slice(at + 2, at + 6), 16);
    if (unit < 0xd800 || unit > 0xdfff) return at + 6;
    if (
      unit <= 0xdbff && text.charCodeAt(at + 6) === BACKSLASH &&
      text.charCodeAt(at + 7) === LOWER_U
    ) {
      const next = text.slice(at + 8, at + 12);
      const low = /^[0-9a-fA-F]{4}$/.test(next) ? parseInt(next, 16) : -1;
      if (low >= 0xdc00 && low <= 0xdfff) return at + 12;
    }
    return this.fail(
      "json-lone-surrogate",
      at,
      `a string holds a lone surrogate escape (\\u${
        text.slice(at + 2, at + 6)
      }), which I-JSON forbids (RFC 7493 §2.1): readers disagree on what it means`,
      true,
    );
  }

  /** Reads a number starting at `pos` (a `-` or a digit) and moves past it. */
  readNumber(): void {
    const text = this.text;
    let pos = this.pos;
    if (text.charCodeAt(pos) === MINUS) pos++;
    let c = text.charCodeAt(pos);
    if (c === DIGIT_0) {
      pos++;
      if (isDigit(text.charCodeAt(pos))) this.failValue(pos - 1, "a number has a leading zero");
    } else if (c >= DIGIT_1 && c <= DIGIT_9) {
      do pos++; while (isDigit(text.charCodeAt(pos)));
    } else {
      this.failValue(pos, `a number needs a digit here, not ${describe(text, pos)}`);
    }
    c = text.charCodeAt(pos);
    if (c === DOT) {
      pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.failValue(pos, `a decimal point needs a digit after it, not ${describe(text, pos)}`);
      }
      do pos++; while (isDigit(text.charCodeAt(pos)));
      c = text.charCodeAt(pos);
    }
    if (c === LOWER_E || c === UPPER_E) {
      pos++;
      c = text.charCodeAt(pos);
      if (c === PLUS || c === MINUS) pos++;
      if (!isDigit(text.charCodeAt(pos))) {
        this.failValue(pos, `an exponent needs a digit, not ${describe(text, pos)}`);
      }
      do pos++; while (isDigit(text.charCodeAt(pos)));
    }
    this.pos = pos;
  }

  readLiteral(word: string): void {
    const pos = this.pos;
    if (!this.text.startsWith(word, pos)) this.failValue(pos, `expected the literal ${word}`);
    this.pos = pos + word.length;
  }

  fail(code: ScanErrorCode, at: number, detail: string, withSlot: boolean): never {
    const path = formatPath(this.stack, this.depth, withSlot);
    const where = this.label ? `${this.label} ${path}` : path;
    throw new TaskPackReadError(code, where, `${detail} at ${lineColumn(this.text, at)}`);
  }

  /** A syntax error at `at`, where a value was expected (the path names that value). */
  failValue(at: number, detail: string): never {
    return this.fail("json-syntax", at, detail, true);
  }

  /** A syntax error between members (the path names the container). */
  failBetween(at: number, detail: string): never {
    return this.fail("json-syntax", at, detail, false);
  }
}

/** Records `key` in the object `frame`; false when it is already there. */
function addKey(frame: Frame, key: string): boolean {
  const set = frame.keySet;
  if (set !== undefined) {
    if (set.has(key)) return false;
    set.add(key);
    return true;
  }
  const list = frame.keyList;
  for (let i = 0; i < list.length; i++) if (list[i] === key) return false;
  list.push(key);
  if (list.length > SMALL_OBJECT) frame.keySet = new Set(list);
  return true;
}

function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9;
}

function isHexDigit(c: number): boolean {
  const lower = c | 0x20; // Folds A-F onto a-f; leaves digits as they are.
  return (c >= DIGIT_0 && c <= DIGIT_9) || (lower >= 0x61 && lower <= LOWER_F);
}

/** `U+000A` style. */
function codePoint(c: number): string {
  return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Names the character at `pos` for a message, quoting only a single printable ASCII one. */
function describe(text: string, pos: number): string {
  if (pos >= text.length) return "the end of the text";
  const c = text.codePointAt(pos)!;
  if (c > SPACE && c < 0x7f) return `"${String.fromCharCode(c)}"`;
  return codePoint(c);
}

/**
 * Characters a message must not show as they are: controls, format characters (bidi
 * overrides, zero-width), surrogates, private-use and unassigned code points, and separators
 * other than the space.
 */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** A key for a message or path, quoted like a JSON string, unshowable characters escaped. */
function quoteKey(key: string): string {
  let out = '"';
  for (const ch of key) {
    if (ch === '"' || ch === "\\") out += "\\" + ch;
    else if (ch !== " " && UNSHOWABLE.test(ch)) {
      for (let i = 0; i < ch.length; i++) {
        out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
      }
    } else out += ch;
  }
  return out + '"';
}

/** `the key "a"`, or only the length of a key longer than 80 characters. */
function nameKey(key: string): string {
  if (key.length > MAX_QUOTED_KEY) return `a key of ${key.length} characters`;
  return `the key ${quoteKey(key)}`;
}

/** One path step for a key: `.name` for identifier-like keys, else `["…"]`. */
function keySegment(key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) && key.length <= MAX_QUOTED_KEY) return `.${key}`;
  if (key.length > MAX_QUOTED_KEY) return `[<key of ${key.length} characters>]`;
  return `[${quoteKey(key)}]`;
}

/**
 * The JSON path (`$.a.b[3]`) of the open containers; with `withSlot`, down to the element or
 * member being read in the innermost one. Very deep paths keep their first and last steps.
 */
function formatPath(stack: readonly Frame[], depth: number, withSlot: boolean): string {
  const steps = withSlot ? depth : depth - 1;
  const segment = (i: number): string => {
    const frame = stack[i]!;
    if (frame.isArray) return `[${frame.index}]`;
    return frame.key === undefined ? "" : keySegment(frame.key);
  };
  let path = "$";
  if (steps <= PATH_HEAD + PATH_TAIL) {
    for (let i = 0; i < steps; i++) path += segment(i);
    return path;
  }
  for (let i = 0; i < PATH_HEAD; i++) path += segment(i);
  path += "…";
  for (let i = steps - PATH_TAIL; i < steps; i++) path += segment(i);
  return path;
}

/**
 * `line L, column C` of a position, both from 1. Lines end at LF, CRLF or a lone CR; columns
 * count code points, so a surrogate pair is one column. Computed only when reporting an error.
 */
function lineColumn(text: string, at: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || (c === CR && text.charCodeAt(i + 1) !== LF)) {
      line++;
      lineStart = i + 1;
    }
  }
  let column = 1;
  for (let i = lineStart; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff && i + 1 < at) i++;
    }
    column++;
  }
  return `line ${line}, column ${column}`;
}
