// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * What must never travel in a pack: credentials, chat transcripts, instructions hidden in
 * zero-width text, and the imperative sentences a landing reports. Scanners take text or
 * streamed bytes and return findings that name where, never the secret itself.
 *
 * It uses only `bytes/`.
 *
 * @example Usage
 * ```ts
 * import { findCredential, scanBytes } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(findCredential("a plain sentence"), null);
 * assertEquals(scanBytes(new TextEncoder().encode("notes\n")).finding, null);
 * ```
 *
 * @module
 */

export { findImperatives, type Imperative } from "./imperatives.ts";
export { encodingNote } from "./finding.ts";
export { asRead } from "./zero_width.ts";
export { redactCredentials, REDACTED, redactValue } from "./redact.ts";
export {
  findCredential,
  type Finding,
  findTranscript,
  findTranscriptInValue,
  isInstructionKey,
  type LuggageScanner,
  readsAsText,
  scanBytes,
  type ScannerFactory,
  type ScanResult,
  TextScanner,
} from "./patterns.ts";
