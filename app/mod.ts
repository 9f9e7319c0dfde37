// Copyright 2026 the taskpack authors. MIT license.
/**
 * The operations: one function for each thing taskpack does (new, list, open, checkpoint,
 * answer, pack, land, conformance, inspect, convert). Each takes a {@linkcode Workplace} — the
 * store, this machine, who acts, the clock, randomness, the limits — and typed values, and gives
 * back a typed reply or throws one {@linkcode OperationError}. The CLI, the MCP servers and the
 * HTTP home are adapters over these functions: a rule, a bound or a refusal lives here, once.
 *
 * @example Land a pack and open the passport it lands as
 * ```ts ignore
 * import { landPack, openPassport, openWorkplace } from "./mod.ts";
 *
 * const work = await openWorkplace({ store: "./passports" });
 * const landed = await landPack(work, { pack: { path: "handoff.taskpack" } });
 * const { compiled_context } = await openPassport(work, landed.passport_id);
 * ```
 *
 * @module
 */
export { OperationError, type Refusal, type RefusalKind, refusalOf, usage } from "./refusal.ts";
export {
  openWorkplace,
  type ReaderSettings,
  type Workplace,
  type WorkplaceOptions,
} from "./workplace.ts";
export { actorName, machineName, now, openStore, storeDir } from "./home.ts";
export {
  answerPassportAsk,
  checkpointPassport,
  createPassport,
  type Listing,
  listPassports,
  type NewPassport,
  openPassport,
  type PassportReply,
  passportReply,
  requirePassport,
} from "./passports.ts";
export { type Packed, packPassport, type PackRequest, recordSignature } from "./pack.ts";
export { type Landed, landPack, type LandRequest } from "./land.ts";
export type { PackInput } from "./pack_input.ts";
export { inspectPack, judgePack } from "./judge.ts";
export { type Converted, convertPack, targetEncoding } from "./convert.ts";
export {
  ANSWERED_BY_VERIFIED,
  LANDED_PACKS,
  type LandedRecord,
  SENT_PACKS,
  sentPacks,
  type SentRecord,
} from "./landings.ts";
export {
  checkPackSignature,
  describeSummary,
  type SignatureSummary,
  type SigningSettings,
  summaryOf,
} from "./signatures.ts";
export {
  type ClosableDeflater,
  codecsForPack,
  deflaterFor,
  digestsFor,
  digestsForPack,
  MANY_SMALL_FILES,
} from "./codecs.ts";
export { writePack } from "./convert.ts";
