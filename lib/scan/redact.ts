// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Redaction for what a report, a refusal or a repair prints: a word that looks like a
 * credential (the detectors of `credentials.ts`) is shown as {@linkcode REDACTED}, so no door
 * quotes a secret it was sent, even where a name, a key or a value is echoed.
 *
 * @module
 */
import { findCredential } from "./credentials.ts";

/** What stands in for a credential in printed text. */
export const REDACTED = "<redacted: looks like a credential>";

/**
 * The text with every word (a run without white space, less the punctuation around it) that
 * looks like a credential replaced by {@linkcode REDACTED}; when a credential spans words (a private key block), the whole text
 * is replaced. Text with no credential comes back as it is.
 *
 * @param text Text about to be printed.
 * @returns The text, safe to print.
 *
 * @example Usage
 * ```ts
 * import { REDACTED, redactCredentials } from "./redact.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const token = ["gh", "p_"].join("") + "a1B2".repeat(9);
 * assertEquals(
 *   redactCredentials(`${token}: an unknown wrapper field was ignored`),
 *   `${REDACTED}: an unknown wrapper field was ignored`,
 * );
 * assertEquals(redactCredentials("nothing to hide"), "nothing to hide");
 * ```
 */
export function redactCredentials(text: string): string {
  if (findCredential(text) === null) return text;
  const words = text.split(/(\s+)/);
  const redacted = words.map((word, index) => {
    if (index % 2 === 1 || word === "" || findCredential(word) === null) return word;
    // Punctuation around the word stays: "<token>:" shows as "<redacted>:".
    const [, before, core, after] = /^([("'[<]*)([\s\S]*?)([)"'\]>:;,.]*)$/.exec(word)!;
    return findCredential(core!) === null ? REDACTED : `${before}${REDACTED}${after}`;
  }).join("");
  return findCredential(redacted) === null ? redacted : REDACTED;
}

/**
 * A copy of a JSON value with every string and every key passed through
 * {@linkcode redactCredentials}: for a summary that shows what a pack carries. A key that is
 * itself a credential becomes {@linkcode REDACTED} with its position, so two stay apart.
 *
 * @param value A JSON value (objects, arrays, strings, numbers, booleans, null).
 * @returns The same shape, safe to print.
 *
 * @example Usage
 * ```ts
 * import { REDACTED, redactValue } from "./redact.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const token = ["gh", "p_"].join("") + "a1B2".repeat(9);
 * assertEquals(redactValue({ goal: "ship", facts: [`token ${token}`] }), {
 *   goal: "ship",
 *   facts: [`token ${REDACTED}`],
 * });
 * ```
 */
export function redactValue<T>(value: T): T {
  if (typeof value === "string") return redactCredentials(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactValue(item)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    Object.entries(value).forEach(([key, item], index) => {
      const shown = redactCredentials(key) === key ? key : `${REDACTED} (key ${index + 1})`;
      Object.defineProperty(out, shown, {
        value: redactValue(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    });
    return out as T;
  }
  return value;
}
