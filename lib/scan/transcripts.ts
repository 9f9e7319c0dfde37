// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The chat transcript detector (TaskPack 0.1 §4.1, `C8`): role-marked lines, chat templates and
 * message arrays, in text or in parsed JSON. Re-exported by {@linkcode ./patterns.ts}.
 *
 * @module
 */
import type { Finding } from "./finding.ts";
import { originalOffset, stripZeroWidth } from "./zero_width.ts";
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

/**
 * Markers allowed before a role at the start of a line: blanks, `>`, `#`, `*`, `-`, and NUL,
 * which shows as nothing (a file led by one is still a chat).
 */
function isLineMarker(code: number): boolean {
  return isBlank(code) || code === 0x3e || code === 0x23 || code === 0x2a || code === 0x2d ||
    code === 0x00;
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
export interface Place {
  index: number;
  line: number;
}

/**
 * Transcript evidence gathered over one text or one stream. Counters remember the absolute
 * position of what they counted last, so text scanned twice (the overlap window) is not
 * counted twice.
 */
export class TranscriptTracker {
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
 * import { assertEquals } from "@std/assert";
 *
 * const chat = "User: is the build green?\nAssistant: yes, on my machine.\n";
 * assertEquals(findTranscript(chat), { rule: "transcript", kind: "role-lines", index: 0 });
 * assertEquals(findTranscript("The user asked the assistant to retry.\nuser: alice\n"), null);
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
 * import { assertEquals } from "@std/assert";
 *
 * const pack = {
 *   passport: {
 *     history: [
 *       { role: "user", content: "fix the build" },
 *       { role: "assistant", content: "done" },
 *     ],
 *   },
 * };
 * assertEquals(findTranscriptInValue(pack), {
 *   path: "passport.history",
 *   finding: { rule: "transcript", kind: "message-array", index: 0 },
 * });
 * assertEquals(findTranscriptInValue({ role: "user", content: "one message" }), null);
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
