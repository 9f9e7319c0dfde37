// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The Resumable Handoff Capsule 1.0.0, validated exactly to its contract, and its
 * mapping to and from a pack (what maps losslessly, and what a capsule cannot hold).
 *
 * It uses `format/` and `bytes/`.
 *
 * @example Usage
 * ```ts
 * import { CAPSULE_CONTRACT, CapsuleError, validateCapsule } from "./mod.ts";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * assertEquals(CAPSULE_CONTRACT, "resumable-handoff-capsule/1.0.0");
 * assertThrows(() => validateCapsule({}), CapsuleError);
 * ```
 *
 * @module
 */

export {
  type Capsule,
  CAPSULE_CONTRACT,
  CAPSULE_DONE,
  CapsuleError,
  type CapsuleFact,
  type CapsuleResult,
  type CapsuleRule,
  capsuleWarnings,
  type CapsuleWork,
  parseCapsuleBytes,
  parseCapsuleText,
  validateCapsule,
} from "./capsule.ts";
export {
  type CapsuleFactScope,
  capsuleToPack,
  type CapsuleToPackOptions,
  packToCapsule,
  type PackToCapsuleOptions,
  type PackToCapsuleResult,
} from "./map.ts";
