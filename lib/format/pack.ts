// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The one chokepoint every pack goes through (TaskPack 0.1 §4.1, §4.2, §4.3, §4.5).
 *
 * {@linkcode preparePack} seals the facts, refuses what must not travel (credentials and
 * transcripts in the pack object and in the whole of every luggage file, asks without
 * `accept` or `what`, instruction fields, unsafe luggage names), and hashes the luggage in one
 * streaming pass. The encoders {@linkcode encodeBag} and {@linkcode encodeFlat} accept only
 * what it returned, so no path writes a pack that skipped those rules.
 *
 * @module
 */
import {
  canonicalJson,
  concatBytes,
  type Digests,
  isPlainObject,
  type Luggage,
  luggageChunks,
  portableDigests,
  type Progress,
  progressCounter,
  readAllBytes,
  RefusalError,
  sha256Hex,
  utf8,
} from "../bytes/mod.ts";
import { deriveTagFiles, LUGGAGE_PREFIX, PASSPORT_PATH, payloadOf, type TagFiles } from "./bag.ts";
import {
  type Deflater,
  looksCompressible,
  platformDeflater,
  writeZip,
  type WriteZipOptions,
  writeZipTo,
  type ZipWriteEntry,
} from "../zip/mod.ts";
import { flatAttachment, flatText } from "./flat.ts";
import { lineageForPack } from "./lineage.ts";
import {
  type Ask,
  type LandingCheck,
  MAX_INLINE_ATTACHMENT_BYTES,
  PACK_SPEC,
  type PackKind,
  type PackObject,
  type PassportState,
  type Repair,
} from "./model.ts";
import { luggageSetProblem, namesOf } from "./names.ts";
import {
  type LuggageScanner,
  type ScannerFactory,
  type ScanResult,
  TextScanner,
} from "../scan/mod.ts";
import { assertPackable, luggageFindingRefusal, luggageNameProblems } from "./refuse.ts";
import { sealPack } from "./seal.ts";
import { writableProblem } from "./shape.ts";
import { type PreparedLuggage, PreparedStore } from "./prepared.ts";

export type { Deflater, Inflater, InflateSteps } from "../zip/mod.ts";
export type { PreparedLuggage } from "./prepared.ts";

/** Luggage up to this size is held in memory and deflated whole; larger luggage streams. */
const SMALL_LUGGAGE = 64 * 1024;

/** Options for {@linkcode buildPackObject}. */
export interface BuildPackOptions {
  /** `handoff` (default) or `receipt`. */
  kind?: PackKind;
  /** When the pack is made: a `Date` or an ISO string (the core never reads the clock). */
  packedAt: Date | string;
  /** The sender's machine name (the core never reads the host name). */
  machine: string;
  /** Who packs it. */
  actor?: string;
  /** The harness that packs it (default: the passport's `harness`, else empty). */
  harness?: string;
  /** One line for the receiver. */
  note?: string;
  /** Asks to send; each needs `what` and `accept` (§4.3). */
  asks?: readonly Partial<Ask>[];
  /** Landing checks for the receiver (§4.4). */
  landingChecks?: readonly Partial<LandingCheck>[];
}

/**
 * Builds the pack object for a passport (§3): lineage extended from the passport's own
 * (§3.1), `org` facts annotated with the source actor (§4.2), asks and landing checks
 * normalised. Nothing is sealed or refused here: that is
 * {@linkcode preparePack}'s job, and every encoder requires it.
 *
 * @param state The passport state to send.
 * @param options Kind, time, origin, note, asks, landing checks.
 * @returns The pack object.
 *
 * @example Usage
 * ```ts
 * import { buildPackObject } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const pack = buildPackObject(
 *   { id: "TP-9CB7-J5MK", version: 2, title: "release plugin" },
 *   {
 *     packedAt: new Date("2026-12-02T16:46:10.250Z"),
 *     machine: "vm",
 *     actor: "alice",
 *     asks: [{ what: "cover image prompt", accept: "one prompt for 750x400" }],
 *   },
 * );
 * assertEquals(pack.packed_at, "2026-12-02T16:46:10Z");
 * assertEquals(pack.lineage.chain, ["TP-9CB7-J5MK@2"]);
 * assertEquals(pack.asks[0]!.id, "a1");
 *
 * // §4.2: an org fact travels annotated with the actor who sent it.
 * const org = buildPackObject(
 *   { id: "TP-9CB7-J5MK", version: 2, facts: [{ claim: "ids are kebab-case", scope: "org" }] },
 *   { packedAt: "2026-12-02T16:46:10Z", machine: "vm", actor: "alice" },
 * );
 * assertEquals(org.passport.facts![0]!.source_actor, "alice");
 * ```
 */
export function buildPackObject(state: PassportState, options: BuildPackOptions): PackObject {
  if (!isPlainObject(state) || typeof state.id !== "string" || state.id === "") {
    throw new TypeError("Cannot build pack: the passport state has no id");
  }
  const harness = options.harness ?? (typeof state.harness === "string" ? state.harness : "");
  const actor = options.actor ?? "";
  return {
    spec: PACK_SPEC,
    kind: options.kind === "receipt" ? "receipt" : "handoff",
    packed_at: formatPackedAt(options.packedAt),
    origin: { actor, machine: options.machine, harness },
    lineage: lineageForPack({ ...state, version: Number(state.version) || 0 }),
    note: options.note ?? "",
    passport: annotateOrgFacts(state, actor || "unknown"),
    asks: (options.asks ?? []).map(normaliseAsk),
    landing_checks: (options.landingChecks ?? []).map(normaliseCheck),
  };
}

/**
 * §4.2: an `org` fact keeps `verified` across a machine, "annotated with the source actor".
 * Each one without a `source_actor` gets the actor packing it; one that has it (from an earlier
 * hop) keeps it, since the source is where the fact came from. The same state when none changes.
 */
function annotateOrgFacts(state: PassportState, actor: string): PassportState {
  if (!Array.isArray(state.facts)) return state;
  let changed = false;
  const facts = state.facts.map((fact) => {
    if (!isPlainObject(fact) || fact.scope !== "org") return fact;
    if (typeof fact.source_actor === "string" && fact.source_actor !== "") return fact;
    changed = true;
    return { ...fact, source_actor: actor };
  });
  return changed ? { ...state, facts } : state;
}

/**
 * Formats a pack time as `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds).
 *
 * @param at A `Date` or a string `Date` can parse.
 * @returns The formatted time.
 *
 * @example Usage
 * ```ts
 * import { formatPackedAt } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatPackedAt("2026-08-16T05:11:04.999+02:00"), "2026-08-16T03:11:04Z");
 * ```
 */
export function formatPackedAt(at: Date | string): string {
  const date = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) {
    throw new RangeError(`Cannot build pack: "${at}" is not a time`);
  }
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A pack that passed the chokepoint, ready for either encoding. */
export interface PreparedPack {
  /** The sealed pack object. */
  readonly object: PackObject;
  /** `data/passport.json`: the canonical JSON of {@linkcode PreparedPack.object}. */
  readonly passportJson: Uint8Array;
  /**
   * Luggage in pack order. Made when first read: the encoders read the luggage by position,
   * without an object per file.
   */
  readonly luggage: readonly PreparedLuggage[];
  /** The derived tag files. */
  readonly tags: TagFiles;
  /** The pack digest: sha256 of `tagmanifest-sha256.txt`, the same for both encodings. */
  readonly digest: string;
  /** The facts sealing changed (empty for a pack that was already sealed). */
  readonly repairs: readonly Repair[];
}

/** Options for {@linkcode preparePack}. */
export interface PrepareOptions {
  /** Hash implementations (default: portable). */
  digests?: Digests;
  /**
   * A deflater to start on the small luggage files while the rest is read (so that another
   * core compresses while this one hashes and scans). Pass the same one to
   * {@linkcode encodeBag}, which then uses what it made. Default: none (`encodeBag` deflates).
   * A file whose source deflated it already ({@linkcode Luggage.deflated}) is not deflated again.
   */
  deflater?: Deflater;
  /** Told how far hashing and scanning the luggage has come (see {@linkcode Progress}). */
  onProgress?: (progress: Progress) => void;
  /** Makes the scanner for each luggage file (default: a `TextScanner` on this thread). */
  scanner?: ScannerFactory;
}

const prepared = new WeakMap<PreparedPack, PreparedStore>();
/**
 * The chokepoint: seals, refuses, hashes. Every pack, in either encoding, is made from its
 * result.
 *
 * @param pack The pack object (from {@linkcode buildPackObject}, or read from a file).
 * @param luggage The luggage, in pack order.
 * @param options Digests.
 * @returns The prepared pack.
 * @throws {RefusalError} When the pack must not be produced; the message names the rule and
 * where (a field path, or a luggage file and line), never the secret itself.
 * @throws {TypeError} When the object is not a pack object the judge could pass C2 for: no id,
 * an object where text is wanted, a `required` that is not a boolean, a lone surrogate.
 *
 * @example Usage
 * ```ts
 * import { buildPackObject, luggageFromBytes, preparePack } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * const state = {
 *   id: "TP-9CB7-J5MK",
 *   version: 2,
 *   facts: [{ claim: "port 8080 is free", scope: "machine", verified: true }],
 * };
 * const pack = buildPackObject(state, { packedAt: "2026-12-02T16:46:10Z", machine: "vm" });
 * const ready = await preparePack(pack, [luggageFromBytes("brief.txt", "Release brief\n")]);
 * assertEquals(ready.object.passport.facts![0]!.verified, false);
 * assertEquals(ready.luggage[0]!.size, 14);
 * assertMatch(ready.digest, /^[0-9a-f]{64}$/);
 * ```
 */
export async function preparePack(
  pack: PackObject,
  luggage: readonly Luggage[],
  options: PrepareOptions = {},
): Promise<PreparedPack> {
  const digests = options.digests ?? portableDigests;
  checkShape(pack);
  const { pack: sealed, repairs } = sealPack(pack);
  assertPackable(sealed);
  const [named] = luggageNameProblems(namesOf(luggage));
  if (named) throw new RefusalError(named.rule, named.where, named.detail);
  const clash = luggageSetProblem(luggage.map((file) => file.name));
  if (clash) {
    throw new RefusalError("luggage-name", `${LUGGAGE_PREFIX}${clash.name}`, clash.problem);
  }

  const progress = progressCounter(options.onProgress, luggage);
  const store = new PreparedStore(Object.freeze([...luggage]), options.deflater ?? null);
  for (let index = 0; index < store.count; index++) {
    const file = store.sources[index]!;
    const scanner = options.scanner?.(file.size) ?? new TextScanner();
    await prepareLuggage(file, digests, scanner, progress.bytes, store, index);
    progress.file();
    const bytes = store.bytes(index);
    if (options.deflater && bytes && bytes.length > 0) {
      // What the source deflated as it read (on another core) saves the deflater the work.
      const made = file.read && file.deflated ? await file.deflated() : null;
      store.setDeflated(index, made ?? options.deflater.deflate(bytes));
    }
  }

  const passportJson = utf8(canonicalJson(sealed));
  const passport = { sha256: sha256Hex(digests, passportJson), size: passportJson.length };
  const payload = payloadOf(
    passport,
    store.sources,
    (i) => store.sha256(i),
    (i, out, at) => store.sha256Into(i, out, at),
  );
  const tags = deriveTagFiles(sealed, payload, digests);
  let files: readonly PreparedLuggage[] | undefined;
  const result: PreparedPack = Object.freeze({
    object: sealed,
    passportJson,
    get luggage() {
      return files ??= Object.freeze(
        Array.from({ length: store.count }, (_, index) => store.file(index)),
      );
    },
    tags,
    digest: tags.digest,
    repairs: Object.freeze(repairs),
  });
  prepared.set(result, store);
  return result;
}

/** Options for {@linkcode encodeBag}. */
export interface EncodeBagOptions {
  /** Hash implementations (default: portable). */
  digests?: Digests;
  /**
   * The DEFLATE implementation (default: the platform's `CompressionStream`). The archive is
   * reproducible for a given deflater; its entries and the pack digest do not depend on it.
   */
  deflater?: Deflater;
  /** Told how far writing the luggage has come (see {@linkcode Progress}). */
  onProgress?: (progress: Progress) => void;
}

/**
 * Writes a prepared pack as a `.taskpack` (ZIP + BagIt), streaming. Canonical: entries in a
 * fixed order (tag files, `data/passport.json`, luggage in pack order), every timestamp taken
 * from `packed_at`, small entries deflated only when that makes them smaller, large ones
 * stored when a sample shows they do not compress. The same pack gives the same bytes on
 * every run of a runtime.
 *
 * @param pack The result of {@linkcode preparePack}.
 * @param options Digests.
 * @returns The archive bytes as a stream.
 *
 * @example Usage
 * ```ts
 * import { buildPackObject, encodeBag, preparePack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const pack = buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, {
 *   packedAt: "2026-12-02T16:46:10Z",
 *   machine: "vm",
 * });
 * const ready = await preparePack(pack, []);
 * const first = new Uint8Array(await new Response(encodeBag(ready)).arrayBuffer());
 * const again = new Uint8Array(await new Response(encodeBag(ready)).arrayBuffer());
 * assertEquals(first.subarray(0, 4), new Uint8Array([0x50, 0x4b, 0x03, 0x04]));
 * assertEquals(first, again);
 * ```
 */
export function encodeBag(
  pack: PreparedPack,
  options: EncodeBagOptions = {},
): ReadableStream<Uint8Array> {
  const { entries, settings } = bagEntries(pack, options);
  return writeZip(entries, settings);
}

/**
 * Writes a prepared pack as a `.taskpack` into `sink`, chunk by chunk: the same bytes as
 * {@linkcode encodeBag}. Each chunk is only valid during the call that hands it over (use or
 * copy it before returning), which lets large stored luggage go from its source to the sink
 * through one reused buffer — the way a shell writing a file should call it.
 *
 * @param pack The result of {@linkcode preparePack}.
 * @param sink Receives the archive's bytes in order; awaited before the next chunk.
 * @param options Digests, deflater, progress.
 *
 * @example Usage
 * ```ts
 * import { buildPackObject, encodeBag, encodeBagInto, preparePack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const pack = buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, {
 *   packedAt: "2026-12-02T16:46:10Z",
 *   machine: "vm",
 * });
 * const ready = await preparePack(pack, []);
 * const parts: Uint8Array<ArrayBuffer>[] = [];
 * await encodeBagInto(ready, (chunk) => void parts.push(chunk.slice()));
 * const streamed = new Uint8Array(await new Response(encodeBag(ready)).arrayBuffer());
 * assertEquals(new Uint8Array(await new Blob(parts).arrayBuffer()), streamed);
 * ```
 */
export async function encodeBagInto(
  pack: PreparedPack,
  sink: (chunk: Uint8Array) => void | Promise<void>,
  options: EncodeBagOptions = {},
): Promise<void> {
  const { entries, settings } = bagEntries(pack, options);
  await writeZipTo(entries, sink, settings);
}

/**
 * The entries of a bag, in canonical order, each made as the writer comes to it (a list of
 * 70,000 would be held to the end), and the writer's settings.
 */
function bagEntries(
  pack: PreparedPack,
  options: EncodeBagOptions,
): { entries: Iterable<ZipWriteEntry>; settings: WriteZipOptions } {
  const store = preparedStore(pack);
  const deflater = options.deflater ?? platformDeflater;
  const tags: ZipWriteEntry[] = [
    { name: "bagit.txt", bytes: pack.tags.bagit },
    { name: "bag-info.txt", bytes: pack.tags.bagInfo },
    { name: "manifest-sha256.txt", bytes: pack.tags.manifest },
    { name: "tagmanifest-sha256.txt", bytes: pack.tags.tagManifest },
    { name: PASSPORT_PATH, bytes: pack.passportJson },
  ];
  const entries: Iterable<ZipWriteEntry> = {
    *[Symbol.iterator]() {
      yield* tags;
      for (let index = 0; index < store.count; index++) {
        yield luggageEntry(store, index, deflater);
      }
    },
  };
  const progress = progressCounter(options.onProgress, store.sources);
  return {
    entries,
    settings: {
      modified: zipTime(pack.object.packed_at),
      digests: options.digests ?? portableDigests,
      deflater,
      ...(options.onProgress
        ? {
          onProgress: (index: number, bytes: number, done: boolean) => {
            if (index < tags.length) return;
            if (bytes > 0) progress.bytes(bytes);
            if (done) progress.file();
          },
        }
        : {}),
    },
  };
}

/** A luggage file's entry: its bytes (and what was deflated of them early), or a stream. */
function luggageEntry(store: PreparedStore, index: number, deflater: Deflater): ZipWriteEntry {
  const name = LUGGAGE_PREFIX + store.name(index);
  const bytes = store.bytes(index);
  if (!bytes) {
    return {
      name,
      size: store.size(index),
      crc32: store.crc32(index),
      compress: store.compress(index),
      open: () => store.open(index),
    };
  }
  const made = store.deflatedFor(index, deflater);
  return made ? { name, bytes, deflated: made } : { name, bytes };
}

/** Options for {@linkcode encodeFlat}. */
export interface EncodeFlatOptions {
  /**
   * The largest attachment to inline. A pack with a bigger one travels as `.taskpack`
   * (spec §2.2); pass `Infinity` to lift the limit.
   * @default {1048576}
   */
  maxAttachmentBytes?: number;
}

/**
 * Writes a prepared pack as a `.taskpack.json` (the flat form).
 *
 * @param pack The result of {@linkcode preparePack}.
 * @param options The inline size limit.
 * @returns The flat text.
 * @throws {RefusalError} With rule `flat-too-large` when an attachment is over the limit.
 *
 * @example Usage
 * ```ts
 * import { buildPackObject, encodeFlat, luggageFromBytes, preparePack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const pack = buildPackObject({ id: "TP-9CB7-J5MK", version: 1 }, {
 *   packedAt: "2026-12-02T16:46:10Z",
 *   machine: "vm",
 * });
 * const ready = await preparePack(pack, [luggageFromBytes("n.md", "nested note\n")]);
 * const flat = JSON.parse(await encodeFlat(ready));
 * assertEquals(flat.attachments[0].data, "nested note\n");
 * assertEquals(flat.passport.passport.id, "TP-9CB7-J5MK");
 * ```
 */
export async function encodeFlat(
  pack: PreparedPack,
  options: EncodeFlatOptions = {},
): Promise<string> {
  const store = preparedStore(pack);
  const limit = options.maxAttachmentBytes ?? MAX_INLINE_ATTACHMENT_BYTES;
  for (let index = 0; index < store.count; index++) {
    const size = store.size(index);
    if (size <= limit) continue;
    throw new RefusalError(
      "flat-too-large",
      LUGGAGE_PREFIX + store.name(index),
      `the attachment is ${size} bytes, over the ${limit}-byte inline limit of the flat ` +
        "form; send the .taskpack (zip) form, or lift the limit explicitly",
    );
  }
  const attachments = [];
  for (let index = 0; index < store.count; index++) {
    const bytes = store.bytes(index) ?? await readAllBytes(store.open(index), store.size(index));
    attachments.push(flatAttachment(store.name(index), bytes, store.sha256(index)));
  }
  return flatText(pack.object, attachments);
}

/**
 * The ZIP timestamp for a pack: `packed_at`, or 1980-01-01 when it is missing or unreadable
 * (the earliest time a ZIP can hold), so the archive never depends on the clock.
 *
 * @param packedAt The pack's `packed_at`.
 * @returns The time to write into every header.
 */
export function zipTime(packedAt: unknown): Date {
  const earliest = Date.UTC(1980, 0, 1);
  const parsed = typeof packedAt === "string" ? Date.parse(packedAt) : Number.NaN;
  return new Date(Number.isNaN(parsed) || parsed < earliest ? earliest : parsed);
}

async function prepareLuggage(
  file: Luggage,
  digests: Digests,
  scanner: LuggageScanner,
  onBytes: (count: number) => void,
  store: PreparedStore,
  index: number,
): Promise<void> {
  const where = LUGGAGE_PREFIX + file.name;
  if (file.read && file.size <= SMALL_LUGGAGE) {
    return checked(file, await file.read(), digests, scanner, onBytes, store, index);
  }
  const hasher = digests.sha256();
  const sample: Uint8Array[] = [];
  let sampled = 0;
  let crc = 0;
  let size = 0;
  // Each chunk is looked at once (hash, CRC, scan, a copy of the sample): it may be read into
  // a buffer used again for the next one.
  for await (const value of luggageChunks(file)) {
    hasher.update(value);
    crc = digests.crc32(value, crc);
    const behind = scanner.push(value);
    if (behind) await behind;
    size += value.length;
    onBytes(value.length);
    if (sampled < SMALL_LUGGAGE) {
      const piece = value.subarray(0, SMALL_LUGGAGE - sampled);
      sample.push(piece.slice());
      sampled += piece.length;
    }
  }
  checkSize(size, file, where);
  refuse((await scanner.finish()).finding, where);
  const head = concatBytes(sample);
  const small = size <= SMALL_LUGGAGE;
  const compress = small || await looksCompressible(head);
  const found = { size, sha256: hasher.digestHex(), crc32: crc >>> 0, compress };
  store.add(index, found, small ? head : null);
}

/**
 * Small luggage its source read whole: hashed, checked and scanned in one go (no stream, no
 * copies: thousands of small files spend most of their time on per-chunk bookkeeping otherwise).
 */
async function checked(
  file: Luggage,
  read: Uint8Array,
  digests: Digests,
  scanner: LuggageScanner,
  onBytes: (count: number) => void,
  store: PreparedStore,
  index: number,
): Promise<void> {
  const where = LUGGAGE_PREFIX + file.name;
  checkSize(read.length, file, where);
  // Bytes of our own: the source's array could otherwise be changed after this check.
  const bytes = file.readsOwnBytes === true ? read : store.copy(read);
  const hasher = digests.sha256();
  hasher.update(bytes);
  if (scanner.scanWhole) {
    refuse((await scanner.scanWhole(bytes)).finding, where);
  } else {
    const behind = scanner.push(bytes);
    if (behind) await behind;
    refuse((await scanner.finish()).finding, where);
  }
  onBytes(bytes.length);
  const crc = digests.crc32(bytes, 0) >>> 0;
  const found = { size: bytes.length, sha256: hasher.digestHex(), crc32: crc, compress: true };
  store.add(index, found, bytes);
}

/** Throws when a luggage file held another size than it declared (it changed meanwhile). */
function checkSize(size: number, file: Luggage, where: string): void {
  if (size !== file.size) {
    throw new TypeError(
      `Cannot pack: ${where} is ${size} bytes, not the ${file.size} declared (did it change?)`,
    );
  }
}

/** Throws the refusal for what the scanner found in a luggage file, if anything. */
function refuse(finding: ScanResult["finding"], where: string): void {
  if (finding) throw luggageFindingRefusal(finding, where, "pack");
}

function checkShape(pack: PackObject): void {
  if (!isPlainObject(pack)) throw new TypeError("Cannot pack: the pack object is not an object");
  if (pack.spec !== PACK_SPEC) throw new TypeError(`Cannot pack: spec is not "${PACK_SPEC}"`);
  if (pack.kind !== "handoff" && pack.kind !== "receipt") {
    throw new TypeError('Cannot pack: kind is not "handoff" or "receipt"');
  }
  if (!isPlainObject(pack.passport) || typeof pack.passport.id !== "string" || !pack.passport.id) {
    throw new TypeError("Cannot pack: the passport state has no id");
  }
  // What the judge fails C2 for, the writer does not write (one reading for values).
  const value = writableProblem(pack);
  if (value) throw new TypeError(`Cannot pack: ${value.detail} (${value.where})`);
}

/** The store behind a prepared pack; throws for anything preparePack did not make. */
function preparedStore(pack: PreparedPack): PreparedStore {
  const store = prepared.get(pack);
  if (!store) {
    throw new TypeError(
      "Cannot encode pack: pass the result of preparePack(), the only way to a pack",
    );
  }
  return store;
}

function normaliseAsk(ask: Partial<Ask>, index: number): Ask {
  const status = ask.status === "answered" || ask.status === "dropped" ? ask.status : "open";
  const out: Ask = {
    id: text(ask.id) || `a${index + 1}`,
    to: text(ask.to) || "peer",
    what: text(ask.what),
    why: text(ask.why),
    accept: text(ask.accept),
    status,
    answer: ask.answer ?? null,
  };
  if (ask.answered_by !== undefined) out.answered_by = text(ask.answered_by);
  if (ask.answered_at !== undefined) out.answered_at = text(ask.answered_at);
  return out;
}

function normaliseCheck(check: Partial<LandingCheck>, index: number): LandingCheck {
  const id = text(check.id) || `c${index + 1}`;
  const what = text(check.check);
  if (!what) throw new TypeError(`Cannot build pack: landing check ${id} has no check text`);
  return { id, check: what, how: text(check.how), required: check.required !== false };
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : value == null ? "" : String(value).trim();
}
