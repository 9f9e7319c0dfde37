// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The one shape every detector reports in: the rule, the detector and the place, never the
 * matched text (reporting a secret would leak it a second time).
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
   * included), or, from `findTranscriptInValue`, the array index of the first message.
   */
  index: number;
  /**
   * `base64` when the credential was found by decoding a run of base64 (`index` is then where
   * the run starts); absent when it lies in the text as it is.
   */
  encoding?: "base64";
}

/**
 * What a message adds after saying where a finding is: " (in base64)" for one found by
 * decoding base64, else nothing.
 *
 * @param finding The finding.
 * @returns The note, with its leading space, or "".
 *
 * @example Usage
 * ```ts
 * import { encodingNote } from "./finding.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(encodingNote({ encoding: "base64" }), " (in base64)");
 * assertEquals(encodingNote({}), "");
 * ```
 */
export function encodingNote(finding: Pick<Finding, "encoding">): string {
  return finding.encoding === "base64" ? " (in base64)" : "";
}
