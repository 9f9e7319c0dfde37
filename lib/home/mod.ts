// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The home a passport lives in: the store interface (and an in-memory store), the
 * passport record and its checks, the compiled context a receiving model reads, and the
 * summaries the CLI and the viewer show.
 *
 * It uses `format/` and `bytes/`; the stores that touch disks or networks are shells.
 *
 * @example Usage
 * ```ts
 * import { MemoryStore } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const store = new MemoryStore();
 * assertEquals((await store.list()).passports, []);
 * ```
 *
 * @module
 */

export { compileContext, type ContextLimits, handoffPrompt } from "./context.ts";
export {
  answerAsk,
  assignAskIds,
  type NewPassportOptions,
  newPassportState,
  recordSentAsks,
} from "./passport.ts";
export {
  MemoryStore,
  type PassportStore,
  type PassportSummary,
  StoreConflictError,
  type StoreListing,
  summarise,
} from "./store.ts";
export {
  checkExpectedVersion,
  checkImportVersion,
  checkPassportId,
  checkPassportState,
  encodePassportState,
  messageOf,
  PassportRecordError,
} from "./store_record.ts";
export {
  type FactState,
  factState,
  type LuggageRow,
  type PackFields,
  type PackSummary,
  summarisePack,
} from "./summary.ts";
