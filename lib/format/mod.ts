// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * TaskPack 0.1 itself: the model, the rules of each spec section, and the two encodings.
 * Packing seals facts and refuses what must not travel; reading decodes either encoding
 * strictly; the judge (`judge`) reports C0-C10 as written; landing checks first and writes
 * nothing itself (it hands back the plan a shell carries out).
 *
 * It uses `bytes/`, `zip/` and `scan/`; nothing here does I/O.
 *
 * @example Usage
 * ```ts
 * import { isPassportId, luggageNameProblem } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isPassportId("TP-7K3M-9QXD"), true);
 * assertEquals(luggageNameProblem("notes/plan.md"), null);
 * assertEquals(typeof luggageNameProblem("../escape"), "string");
 * ```
 *
 * @module
 */

export {
  BAGIT_TXT,
  deriveTagFiles,
  LUGGAGE_PREFIX,
  type ManifestLine,
  parseManifest,
  parsePayloadOxum,
  PASSPORT_PATH,
  type PayloadDigest,
  TAG_FILES,
  type TagFiles,
} from "./bag.ts";
export { judge, type JudgeOptions, REQUIREMENTS } from "./conformance.ts";
export { attachmentEncoding, flatAttachment, flatText } from "./flat.ts";
export {
  type HostNamePlan,
  type HostNameRules,
  type LandedName,
  planHostNames,
  type PortabilityWarning,
  portabilityWarnings,
  POSIX_HOST,
  windowsProblem,
} from "./host_names.ts";
export {
  checkLuggage,
  instructionsFound,
  land,
  type LandedPack,
  type LandingPlan,
  type LandOptions,
  luggageRefusal,
  type LuggageVerdict,
  planLanding,
  type PlanOptions,
} from "./land.ts";
export {
  ID_ALPHABET,
  isPassportId,
  lineageForPack,
  lineageProblem,
  mintPassportId,
  parseChainEntry,
  receiptTarget,
} from "./lineage.ts";
export {
  type Ask,
  type CheckId,
  type CheckResult,
  type Decision,
  type Fact,
  FLAT_VERSION,
  type FlatAttachment,
  type FlatPack,
  type LandingCheck,
  type Lineage,
  MAX_INLINE_ATTACHMENT_BYTES,
  NOTE_TO_READER,
  type Origin,
  PACK_SPEC,
  type PackKind,
  type PackObject,
  PASSPORT_SPEC,
  type PassportState,
  type Repair,
  type Report,
  TASKPACK_SPEC,
} from "./model.ts";
export { luggageNameProblem, luggageSetProblem, nameClashKey } from "./names.ts";
export {
  buildPackObject,
  type BuildPackOptions,
  type Deflater,
  encodeBag,
  encodeBagInto,
  type EncodeBagOptions,
  encodeFlat,
  type EncodeFlatOptions,
  formatPackedAt,
  type Inflater,
  type InflateSteps,
  type PreparedLuggage,
  type PreparedPack,
  type PrepareOptions,
  preparePack,
  zipTime,
} from "./pack.ts";
export {
  auditEach,
  auditLuggage,
  type AuditOptions,
  type DecodedPack,
  decodePack,
  DEFAULT_READ_LIMITS,
  detectEncoding,
  type Deviation,
  type LuggageAudit,
  type OnChecked,
  type Progress,
  type ReadLimits,
  type ReadLuggage,
  type ReadOptions,
} from "./read.ts";
export { mergeReceipt, type MergeResult, ReceiptError } from "./receipt.ts";
export { assertPackable, luggageNameProblems, packObjectProblems, type Problem } from "./refuse.ts";
export { isPortableScope, needsSealing, sealFact, sealPack } from "./seal.ts";
export { packWarnings } from "./warnings.ts";
