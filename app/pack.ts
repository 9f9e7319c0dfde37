// Copyright 2026 the taskpack authors. MIT license.
/**
 * `pack`: a passport from the store into a pack file. The asks it sends are recorded in the
 * passport that stays home (§4.3) before the pack is written; a pack made from a landed passport
 * extends its lineage chain (§3.1); a receipt carries the passport's asks with their answers,
 * plus any new ones, back to the passport they answer (§4.4.1).
 *
 * @module
 */
import { basename, dirname } from "../shell/host/host_path.ts";
import {
  type Ask,
  buildPackObject,
  type LandingCheck,
  packWarnings,
  type PassportState,
  type PortabilityWarning,
  portabilityWarnings,
  preparePack,
  receiptTarget,
} from "../lib/format/mod.ts";
import { SMALL_DEFLATE } from "../lib/zip/mod.ts";
import { assignAskIds, recordSentAsks, StoreConflictError } from "../lib/home/mod.ts";
import { checkFolderOf, walkLuggage } from "../shell/host/files.ts";
import { mkdir, stat } from "../shell/host/host_fs.ts";
import { absolutePath } from "../shell/host/host_process.ts";
import { progressLine } from "../shell/host/progress.ts";
import { type ScanPool, scanPool } from "../shell/workers/scan_pool.ts";
import { type ClosableDeflater, deflaterFor, digestsFor, MANY_SMALL_FILES } from "./codecs.ts";
import { targetEncoding, writePack } from "./convert.ts";
import {
  SENT_PACKS,
  sentPacks,
  type SentRecord,
  withoutHomeRecords,
  withSent,
} from "./landings.ts";
import { type SignatureSummary, signPackFile } from "./signatures.ts";
import { requirePassport } from "./passports.ts";
import { OperationError, usage } from "./refusal.ts";
import type { Workplace } from "./workplace.ts";

/** What to pack. */
export interface PackRequest {
  /** The passport. */
  id: string;
  /** The file to write: `.taskpack` (bag) or `.taskpack.json` (flat). */
  out: string;
  /** Luggage: files or folders to carry. */
  files?: readonly string[] | undefined;
  /** Questions for the receiver, each with an `accept` rule. */
  asks?: readonly Partial<Ask>[] | undefined;
  /** Landing checks for the receiver. */
  checks?: readonly Partial<LandingCheck>[] | undefined;
  /** `handoff` (default) or `receipt`. */
  kind?: string | undefined;
  /** A note to the receiver. */
  note?: string | undefined;
  /** Flat form only: the largest attachment carried inline, in bytes. */
  maxInline?: number | undefined;
  /** Sign the pack once written (`<out>.sig`) with the user's own `ssh-keygen`. */
  sign?: boolean | undefined;
  /**
   * The key to sign with (`--key`), else the workplace's, else git's `user.signingKey`, else
   * `~/.ssh/id_ed25519`.
   */
  key?: string | undefined;
  /** Where the outbox says the pack went (default: the absolute path of `out`). */
  sentTo?: string | undefined;
}

/** What `pack` did. */
export interface Packed {
  /** Always true. */
  ok: true;
  /** The file written. */
  pack: string;
  /** Its encoding. */
  encoding: "bag" | "flat";
  /** `handoff` or `receipt`. */
  kind: "handoff" | "receipt";
  /** The passport packed. */
  passport_id: string;
  /** Its version at home after the asks were recorded. */
  state_version: number;
  /** The pack digest: sha256 of `tagmanifest-sha256.txt`, the same for both encodings. */
  digest: string;
  /** The lineage the pack carries. */
  lineage: unknown;
  /** For a receipt: the passport it answers. */
  answers?: string | null;
  /** How many asks it carries. */
  asks: number;
  /** The ask ids recorded at home. */
  asks_recorded: string[];
  /** How many landing checks it carries. */
  landing_checks: number;
  /** The luggage names. */
  luggage: string[];
  /** How many machine-scoped facts were sealed. */
  sealed_facts: number;
  /** Luggage names some systems cannot hold. */
  warnings: PortabilityWarning[];
  /** Who signed it (`unknown-key`: signing knows no trust list), or `unsigned`. */
  signed_by: SignatureSummary;
  /** The signature written beside it (`<out>.sig`), when signed. */
  signature?: string;
}

/**
 * `pack`: refusals happen before anything is written or recorded at home.
 *
 * @param work The workplace.
 * @param request What to pack, and where.
 * @returns What was written.
 */
export async function packPassport(work: Workplace, request: PackRequest): Promise<Packed> {
  const { out } = request;
  if (!out) throw usage("A pack needs a file to write (.taskpack, or .taskpack.json for flat)");
  const bag = targetEncoding(out) === "bag";
  // Before anything is recorded at home: a pack that cannot be written sends no asks. A folder
  // that does not exist yet is made once nothing can refuse the pack, as land makes its own.
  const folder = dirname(absolutePath(out));
  const missingFolder = !(await stat(folder).then(() => true, () => false));
  if (!missingFolder) checkFolderOf(out);
  if (request.kind !== undefined && request.kind !== "handoff" && request.kind !== "receipt") {
    throw usage(`The kind of a pack is handoff or receipt, not "${request.kind}"`);
  }
  const kind = request.kind === "receipt" ? "receipt" : "handoff";
  const home = await requirePassport(work, request.id);
  if (kind === "receipt" && !home.lineage) {
    throw new OperationError(
      "refused",
      "receipt-target",
      `${home.id} was never landed from a pack, so a receipt from it would answer no one; ` +
        `pack a handoff instead`,
      home.id,
    );
  }
  const fresh = assignAskIds(home, request.asks ?? []);
  const asks = kind === "receipt" ? [...(home.asks ?? []), ...fresh] : fresh;
  const files = request.files ?? [];
  const repeated = files.find((file, i) => files.indexOf(file) !== i);
  if (repeated !== undefined) {
    throw usage(`The luggage ${repeated} is given twice: name each file or folder once`, repeated);
  }
  // Thousands of small files are read ahead and deflated on another core, in the order they
  // are packed, starting while the walk goes on. Other small files are deflated as they are
  // read; large ones on the other cores (the same bytes, whichever way).
  const walked = walkLuggage(files, {
    onSkip: (path, reason) => work.note(`skipped ${path}: ${reason}`),
    readAhead: { from: MANY_SMALL_FILES, deflate: bag },
  });
  const luggage = walked.luggage;
  const packing = progressLine("packing", work.showProgress);
  const writing = progressLine("writing", work.showProgress);
  let deflater: ClosableDeflater | undefined;
  let scans: ScanPool | undefined;
  try {
    const object = buildPackObject(withoutHomeRecords(home), {
      kind,
      packedAt: work.now(),
      machine: work.machine,
      actor: work.actor,
      harness: work.harness,
      note: request.note ?? "",
      asks,
      landingChecks: [...(request.checks ?? [])],
    });
    for (const warning of packWarnings(home, luggage.map((f) => f.name), object.asks)) {
      work.note(`warning: ${warning}`);
    }
    // Told once, so the sender knows which receivers will need to rename.
    const unportable = portabilityWarnings(luggage.map((f) => f.name));
    for (const warning of unportable) {
      work.note(`warning: data/files/${warning.name} (${warning.systems}): ${warning.reason}`);
    }
    const luggageBytes = luggage.reduce((sum, file) => sum + file.size, 0);
    const digests = await digestsFor(luggageBytes);
    const smallFiles = walked.readingAhead
      ? 0
      : luggage.filter((f) => f.size <= SMALL_DEFLATE).length;
    deflater = await deflaterFor(luggageBytes, smallFiles);
    scans = scanPool();

    // Refusals happen here, before anything is written or recorded.
    const prepared = await preparePack(object, luggage, {
      digests,
      onProgress: packing.update,
      scanner: scans.scanner,
      ...(bag ? { deflater } : {}),
    });
    packing.done();
    // Scanning is over: its worker goes now, with the memory it holds (its heap is not
    // collected while it idles), before the writing needs more.
    scans.close();

    if (missingFolder) await mkdir(folder, { recursive: true });
    // The home remembers the questions it sent, so the answers have somewhere to go (§4.3).
    const sent = object.asks.filter((ask) => fresh.some((f) => f.id === ask.id));
    const recorded = recordSentAsks(home, sent, basename(out));
    const saved = recorded === home
      ? home
      : await work.store.save({ ...recorded, updated_at: work.now() }, home.version);

    const encoding = await writePack(prepared, out, {
      deflater,
      digests,
      maxInline: request.maxInline,
      onProgress: writing.update,
    });
    writing.done();
    // Signed once written; a failure to sign keeps the pack (unsigned) and says so after the
    // outbox records it.
    let signed: SignatureSummary & { signature?: string } = { status: "unsigned" };
    let signFailure: unknown = null;
    if (request.sign) {
      try {
        const made = await signPackFile(
          out,
          prepared.digest,
          request.key ?? work.signing?.key,
          work.signing?.allowedSigners,
        );
        signed = {
          status: made.status,
          ...(made.principal ? { principal: made.principal } : {}),
          key_type: made.key_type!,
          fingerprint: made.fingerprint!,
          signature: made.signature,
        };
      } catch (error) {
        signFailure = error;
      }
    }
    if (signed.status === "unsigned" && await stat(`${out}.sig`).then(() => true, () => false)) {
      work.note(
        `warning: ${out}.sig was made for an earlier pack, not this one: sign it again ` +
          `(taskpack sign ${out}) or remove it`,
      );
    }
    const { signature: sigPath, ...signedBy } = signed;
    const kept = await recordSent(work, saved, {
      digest: prepared.digest,
      kind,
      encoding,
      version: Number(object.lineage.from_version),
      at: work.now(),
      out: request.sentTo ?? absolutePath(out),
      signature: signedBy,
    });
    if (signFailure) throw signFailure;
    return {
      ok: true,
      pack: out,
      encoding,
      kind,
      passport_id: kept.id,
      state_version: kept.version,
      signed_by: signedBy,
      ...(sigPath ? { signature: sigPath } : {}),
      digest: prepared.digest,
      lineage: object.lineage,
      ...(kind === "receipt" ? { answers: receiptTarget(object.lineage) } : {}),
      asks: object.asks.length,
      asks_recorded: sent.map((ask) => ask.id),
      landing_checks: object.landing_checks.length,
      luggage: luggage.map((file) => file.name),
      sealed_facts: prepared.repairs.length,
      warnings: unportable,
    };
  } finally {
    packing.done();
    writing.done();
    deflater?.close();
    scans?.close();
    walked.close();
  }
}

/**
 * The outbox records a pack written: in the passport as saved, or, when another writer moved
 * it on meanwhile, in the newest version (a record adds to the passport, it changes nothing a
 * worker wrote).
 */
async function recordSent(
  work: Workplace,
  saved: PassportState,
  record: SentRecord,
): Promise<PassportState> {
  let current = saved;
  for (let attempt = 0;; attempt++) {
    try {
      return await work.store.save(
        { ...withSent(current, record), updated_at: work.now() },
        current.version,
      );
    } catch (error) {
      if (!(error instanceof StoreConflictError) || attempt >= 2) throw error;
      current = await requirePassport(work, current.id);
    }
  }
}

/**
 * A pack signed after it was made (`taskpack sign`): the outbox record of the pack with this
 * digest, in whichever passport of the store made it, now says who signed it.
 *
 * @param work The workplace.
 * @param digest The pack digest.
 * @param signature Who signed it.
 * @returns The passport whose outbox was updated, or null when no passport here made the pack.
 */
export async function recordSignature(
  work: Workplace,
  digest: string,
  signature: SignatureSummary,
): Promise<string | null> {
  const { passports } = await work.store.list();
  for (const summary of [...passports].sort((a, b) => b.updated_at.localeCompare(a.updated_at))) {
    const state = await work.store.open(summary.id);
    if (!state || !sentPacks(state).some((r) => r.digest === digest)) continue;
    const records = sentPacks(state).map((r) => r.digest === digest ? { ...r, signature } : r);
    await work.store.save(
      { ...state, [SENT_PACKS]: records, updated_at: work.now() },
      state.version,
    );
    return state.id;
  }
  return null;
}
