// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * taskpack: TaskPack 0.1 in TypeScript — a portable container for handing unfinished work
 * between AI agents, machines, people and vendors.
 *
 * This entry point is the pure core: bytes and values in, bytes and values out. It never
 * touches the file system, the clock, the host name or randomness (those are parameters), so
 * it runs the same in Deno, Node, Bun, browsers and edge functions. The CLI is `./cli`; run as a
 * program (`deno run -A jsr:@taskpack/cli <verb>`), this module starts it, and only then.
 *
 * - Build and pack: {@linkcode buildPackObject} -> {@linkcode preparePack} (the one
 *   chokepoint: sealing and refusals) -> {@linkcode encodeBag} / {@linkcode encodeFlat}.
 * - Judge strictly: {@linkcode judge} (C0-C10, never throws).
 * - Land leniently: {@linkcode land} -> {@linkcode planLanding}.
 * - Signed packs: {@linkcode verifyPackSignature} checks a `<pack>.sig` (an SSH signature over
 *   the pack digest, as `ssh-keygen -Y sign -n taskpack` makes it) against git's
 *   `allowed_signers`; {@linkcode signPackDigest} signs with an in-memory Ed25519 key.
 *
 * @example Pack, judge, land
 * ```ts
 * import {
 *   buildPackObject,
 *   encodeFlat,
 *   judge,
 *   land,
 *   planLanding,
 *   preparePack,
 * } from "@taskpack/cli";
 * import assert from "node:assert/strict";
 *
 * const state = {
 *   id: "TP-9CB7-J5MK",
 *   version: 2,
 *   title: "release plugin",
 *   goal: "ship the plugin tonight",
 *   facts: [{ claim: "port 8080 is free", scope: "machine", verified: true }],
 *   next_steps: ["publish to registry"],
 * };
 * const pack = buildPackObject(state, {
 *   packedAt: "2026-12-02T16:46:10Z",
 *   machine: "vm",
 *   actor: "alice",
 *   asks: [{ what: "cover image prompt", accept: "one prompt that covers 750x400" }],
 * });
 * const flat = new TextEncoder().encode(await encodeFlat(await preparePack(pack, [])));
 *
 * const report = await judge(flat);
 * assert.equal(report.ok, true);
 *
 * const landed = await land(flat);
 * const plan = planLanding(landed.object, { newId: "TP-2222-3333", machine: "laptop" });
 * assert.equal(plan.state.facts![0]!.verified, false); // sealed at pack time
 * assert.deepEqual(plan.state.lineage!.chain, ["TP-9CB7-J5MK@2"]);
 * ```
 *
 * @module
 */
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
} from "./lib/format/mod.ts";
export {
  type ReadErrorCode,
  RefusalError,
  type RefusalRule,
  TaskPackReadError,
} from "./lib/bytes/mod.ts";
export {
  blobSource,
  type ByteSource,
  bytesSource,
  chunkedStream,
  type Luggage,
  luggageFromBytes,
} from "./lib/bytes/mod.ts";
export { type Digests, portableDigests, type Sha256Hasher, sha256Hex } from "./lib/bytes/mod.ts";
export { luggageNameProblem, luggageSetProblem, nameClashKey } from "./lib/format/mod.ts";
export {
  type HostNamePlan,
  type HostNameRules,
  type LandedName,
  planHostNames,
  type PortabilityWarning,
  portabilityWarnings,
  POSIX_HOST,
  windowsProblem,
} from "./lib/format/mod.ts";
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
} from "./lib/scan/mod.ts";
export { isPortableScope, needsSealing, sealFact, sealPack } from "./lib/format/mod.ts";
export {
  assertPackable,
  luggageNameProblems,
  packObjectProblems,
  type Problem,
} from "./lib/format/mod.ts";
export {
  ID_ALPHABET,
  isPassportId,
  lineageForPack,
  lineageProblem,
  mintPassportId,
  parseChainEntry,
  receiptTarget,
} from "./lib/format/mod.ts";
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
} from "./lib/format/mod.ts";
export { attachmentEncoding, flatAttachment, flatText } from "./lib/format/mod.ts";
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
} from "./lib/format/mod.ts";
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
} from "./lib/format/mod.ts";
export { judge, type JudgeOptions, REQUIREMENTS } from "./lib/format/mod.ts";
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
} from "./lib/format/mod.ts";
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
} from "./lib/capsule/mod.ts";
export {
  type CapsuleFactScope,
  capsuleToPack,
  type CapsuleToPackOptions,
  packToCapsule,
  type PackToCapsuleOptions,
  type PackToCapsuleResult,
} from "./lib/capsule/mod.ts";
export {
  MemoryStore,
  type PassportStore,
  type PassportSummary,
  StoreConflictError,
  type StoreListing,
  summarise,
} from "./lib/home/mod.ts";
export {
  answerAsk,
  assignAskIds,
  type NewPassportOptions,
  newPassportState,
  recordSentAsks,
} from "./lib/home/mod.ts";
export { mergeReceipt, type MergeResult, ReceiptError } from "./lib/format/mod.ts";
export { compileContext, type ContextLimits, handoffPrompt } from "./lib/home/mod.ts";
export { packWarnings } from "./lib/format/mod.ts";
export { findImperatives, type Imperative } from "./lib/scan/mod.ts";
export {
  type FactState,
  factState,
  type LuggageRow,
  type PackFields,
  type PackSummary,
  summarisePack,
} from "./lib/home/mod.ts";
export {
  A2A_ARTIFACT_FOLDER,
  A2A_ARTIFACT_INDEX,
  A2A_EXTENSIONS_HEADER,
  type A2AAgentCapabilities,
  type A2AAgentCard,
  type A2AAgentExtension,
  type A2AArtifact,
  type A2APart,
  type A2ATaskIdentity,
  type ArtifactsAsLuggage,
  type ArtifactsFromLuggage,
  artifactsToLuggage,
  type ExtensionNegotiation,
  type LineageFromTask,
  lineageToTask,
  luggageToArtifacts,
  negotiateExtensions,
  TASKPACK_A2A_EXTENSION,
  TASKPACK_A2A_EXTENSION_URI,
  TASKPACK_MEDIA_TYPES,
  type TaskPackAgentExtension,
  type TaskPackExtensionParams,
  taskToLineage,
  type WithTaskPackExtension,
  withTaskPackExtension,
} from "./lib/a2a/mod.ts";
export type { ZipLimits } from "./lib/zip/mod.ts";
export {
  type AllowedSigner,
  type AllowedSigners,
  describePackSignature,
  ed25519PublicKey,
  findPrincipals,
  PACK_SIGNATURE_NAMESPACE,
  type PackSignature,
  packSignatureMessage,
  parseAllowedSigners,
  parsePublicKey,
  parseSshSignature,
  type SecurityKeySigning,
  SignatureError,
  type SignatureErrorCode,
  type SignerMatch,
  signPackDigest,
  sshFingerprint,
  type SshKeyType,
  type SshPublicKey,
  type SshSigHash,
  type SshSignature,
  type VerifyPackOptions,
  verifyPackSignature,
} from "./lib/sign/mod.ts";

// `deno run -A jsr:@taskpack/cli <verb>` runs the command line. Importing this module never does,
// nor does it bring the CLI into a library user's module graph: the CLI's name is put together
// at run time (so neither Deno's graph nor tsc nor a bundler follows it), and it is loaded only
// when this file is the program itself.
if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const { Deno: runtime } = globalThis as unknown as {
    Deno?: { args: string[]; exitCode: number };
  };
  const cli = import("./cli" + ".ts") as Promise<{ main: (args: string[]) => Promise<number> }>;
  cli.then(async ({ main }) => {
    if (runtime) runtime.exitCode = await main(runtime.args);
  });
}
