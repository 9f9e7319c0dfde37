// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Zero-width characters (soft hyphen, zero-width space and joiners, word joiner, BOM): the
 * detectors ignore them, so a token or a role marker split by them is still found.
 *
 * @module
 */
const ZERO_WIDTH_ALL = /[\u00AD\u200B-\u200D\u2060\uFEFF]/g;

/** Whether a UTF-16 code unit is one of the zero-width characters the detectors ignore. */
export function isZeroWidth(code: number): boolean {
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

export function stripZeroWidth(text: string): string {
  return hasZeroWidth(text) ? text.replace(ZERO_WIDTH_ALL, "") : text;
}

/** Maps an offset in `stripZeroWidth(original)` back to an offset in `original`. */
export function originalOffset(original: string, stripped: number): number {
  let seen = 0;
  for (let i = 0; i < original.length; i++) {
    if (isZeroWidth(original.charCodeAt(i))) continue;
    if (seen === stripped) return i;
    seen++;
  }
  return original.length;
}

/**
 * Characters that render as nothing: every default-ignorable code point and format character
 * (zero-width space and joiners, soft hyphen, bidirectional controls, variation selectors, tag
 * characters, Hangul fillers…) and the Braille blank.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]/gu;

/**
 * `text` as a reader sees it: invisible characters removed, then compatibility forms folded
 * (NFKC: fullwidth `ｈｏｗ` is `how`, `ﬁ` is `fi`), then invisible characters removed again.
 * Used to compare names and to tell a blank value (TaskPack 0.1 §4.5.1 "and friends", C5).
 *
 * @param text The text.
 * @returns The text as it reads.
 *
 * @example Usage
 * ```ts
 * import { asRead } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(asRead("how\u200b_to_use"), "how_to_use");
 * assertEquals(asRead("\uff48\uff4f\uff57"), "how");
 * assertEquals(asRead("\u200b\u2060").trim(), "");
 * ```
 */
export function asRead(text: string): string {
  return text.replace(INVISIBLE, "").normalize("NFKC").replace(INVISIBLE, "");
}
