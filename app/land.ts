// Copyright 2026 the taskpack authors. MIT license.
/**
 * `land`: a handoff into a NEW local passport (§3.1), with its lineage kept, required landing
 * checks first in the next steps (§4.4), sealed facts to re-verify, the sender's `how` quoted as
 * a suggestion and never run, and instruction-like sentences reported (§4.5); with `into`, a
 * receipt merged into the passport it answers (§4.4.1).
 *
 * Landing is all-or-nothing: every check runs before anything lands; luggage goes to a fresh
 * folder (never through an existing symlink, never over an existing file), staged out of sight
 * until then; on any failure no passport and no file is left behind.
 *
 * A signature beside the pack (`<pack>.sig`, or bytes that came with it) is checked against the
 * pack digest before anything is written: one that does not match is refused whatever the
 * settings; `requireSigned` refuses an unsigned pack or one from a key the trust list does not
 * name. The reply, the home's record and the compiled context say who signed it.
 *
 * Landing can be retried: the home remembers the digest of every pack it landed
 * (`landings.ts`), so the same pack again answers with the passport it already landed as, and
 * the same receipt again says it was merged. `again` lands a fresh copy when a person wants one.
 *
 * @module
 */
import { join } from "../shell/host/host_path.ts";
import type { Imperative } from "../lib/scan/mod.ts";
import {
  type HostNameRules,
  instructionsFound,
  land,
  type LandedPack,
  mergeReceipt,
  parseChainEntry,
  type PassportState,
  planLanding,
  receiptTarget,
} from "../lib/format/mod.ts";
import { zipEntryCount } from "../lib/zip/mod.ts";
import { openPackInput, type PackInput, packInputName } from "./pack_input.ts";
import { probeHostNames, usualHostNames } from "../shell/host/host_names.ts";
import { absolutePath } from "../shell/host/host_process.ts";
import { progressLine } from "../shell/host/progress.ts";
import { scanPool } from "../shell/workers/scan_pool.ts";
import { codecsForPack, MANY_SMALL_FILES } from "./codecs.ts";
import {
  ANSWERED_BY_VERIFIED,
  findLanding,
  landedPacks,
  type LandedRecord,
  sentPacks,
  withLanding,
} from "./landings.ts";
import { extractLuggage, type LuggageOut, luggageOut } from "./luggage_out.ts";
import { mintUniqueId, passportReply, requirePassport } from "./passports.ts";
import { OperationError } from "./refusal.ts";
import { checkPackSignature, signatureBeside, type SignatureSummary } from "./signatures.ts";
import type { Workplace } from "./workplace.ts";

/** What to land, and how. */
export interface LandRequest {
  /** The pack. */
  pack: PackInput;
  /** Merge a receipt into this passport (the one it answers) instead of landing a new one. */
  into?: string | undefined;
  /** Report what would happen; write nothing. */
  dryRun?: boolean | undefined;
  /** A new (or empty) folder for the luggage (default: beside the store). */
  filesOut?: string | undefined;
  /**
   * Keep the proof on facts proven on a machine with this one's name. A person's choice only
   * (§4.2): no door lets a model set it.
   */
  trustMachineFacts?: boolean | undefined;
  /** Land names this machine cannot hold under safe ones instead of refusing. */
  renameUnportable?: boolean | undefined;
  /** Land a fresh copy even when this pack landed here before. */
  again?: boolean | undefined;
  /**
   * The pack's detached signature (armored SSHSIG), for a pack that came as bytes; for a pack
   * given by path, the default is the file `<pack>.sig` beside it, when there is one.
   */
  signature?: string | Uint8Array | undefined;
  /** Refuse a pack that is unsigned, or signed by a key the trust list does not name. */
  requireSigned?: boolean | undefined;
  /** The trust list (`allowed_signers`), else taskpack's own, else git's. */
  allowedSigners?: string | undefined;
}

/**
 * What `land` did: the reply every door shows (`--json`, MCP's structured content). A handoff
 * gives the new passport (`passport_id`, `state`, `handoff_prompt`), a receipt what it answered;
 * `already_landed` marks a pack this home had landed before, answered with that passport.
 */
export type Landed = Record<string, unknown> & {
  ok: true;
  passport_id: string;
  /** Who signed the pack, as checked against the trust list. */
  signature: SignatureSummary;
  instructions_found: Imperative[];
  next_steps?: string[];
  already_landed?: true;
};

/**
 * `land`: every check runs before anything is written.
 *
 * @param work The workplace.
 * @param request The pack and the options.
 * @returns The reply.
 */
export async function landPack(work: Workplace, request: LandRequest): Promise<Landed> {
  const beside = "path" in request.pack ? `${request.pack.path}.sig` : null;
  const armored = request.signature ??
    ("path" in request.pack ? await signatureBeside(request.pack.path) : null);
  const source = await openPackInput(request.pack);
  // A new passport's thousands of small files are staged as each passes its checks, on another
  // core, while the rest is checked; they land only if the whole pack does.
  let out: LuggageOut | null = null;
  try {
    const early = !request.into && !request.dryRun &&
        (await zipEntryCount(source) ?? 0) >= MANY_SMALL_FILES
      ? await newLanding(work, request)
      : null;
    if (early) {
      out = await luggageOut(early.luggageDir, { showProgress: work.showProgress, early: true });
    }
    // Every check — integrity, names, refusals, the whole luggage — before anything lands.
    const progress = progressLine("checking", work.showProgress);
    const scans = scanPool();
    let landed: LandedPack;
    try {
      landed = await land(source, {
        ...await codecsForPack(source),
        limits: work.limits,
        host: await hostRules(work, request),
        renameUnportable: request.renameUnportable === true,
        onProgress: progress.update,
        scanner: scans.scanner,
        ...(out?.onChecked ? { onChecked: out.onChecked } : {}),
      });
    } finally {
      progress.done();
      scans.close();
    }
    // Before anything is written: who signed it, and whether this home takes it.
    const signature = await checkPackSignature(landed.digest, armored, {
      requireSigned: request.requireSigned === true || work.signing?.requireSigned === true,
      allowedSigners: request.allowedSigners ?? work.signing?.allowedSigners,
    }, {
      pack: packInputName(request.pack),
      signature: request.signature === undefined && beside ? beside : "its signature",
    }, new Date(work.now()));
    if (request.into) return await mergeInto(work, landed, request.into, request, signature);
    if (landed.object.kind === "receipt") {
      const target = receiptTarget(landed.object.lineage);
      throw new OperationError(
        "usage",
        "receipt-needs-into",
        `${
          packInputName(request.pack)
        } is a receipt answering ${target}; merge it into that passport: ` +
          `taskpack land ${packInputName(request.pack)} --into ${target}`,
        packInputName(request.pack),
      );
    }
    const before = request.again || landed.digest === null
      ? null
      : await findLanding(work.store, landed.digest);
    if (before) {
      await out?.abort();
      out = null;
      return {
        ok: true,
        ...(request.dryRun ? { dry_run: true } : {}),
        already_landed: true,
        ...passportReply(before),
        signature,
        instructions_found: instructionsFound(landed.object),
      } as Landed;
    }
    return await landNew(
      work,
      landed,
      request,
      early ?? await newLanding(work, request),
      out,
      signature,
    );
  } catch (error) {
    await out?.abort();
    throw error;
  } finally {
    await source.close?.();
  }
}

/** Where a new landing goes: the new passport's id and the luggage folder. */
interface NewLanding {
  newId: string;
  luggageDir: string;
}

/**
 * What the file system the luggage lands on can hold: probed where it lands (the `filesOut`
 * folder, else the store's), or, for a dry run, which writes nothing, this system's usual rules.
 */
async function hostRules(work: Workplace, request: LandRequest): Promise<HostNameRules> {
  if (request.dryRun) return usualHostNames();
  return await probeHostNames(absolutePath(request.filesOut ?? work.luggageRoot));
}

async function newLanding(work: Workplace, request: LandRequest): Promise<NewLanding> {
  const newId = await mintUniqueId(work.store, work.random);
  const luggageDir = absolutePath(request.filesOut ?? join(work.luggageRoot, `${newId}.files`));
  return { newId, luggageDir };
}

async function landNew(
  work: Workplace,
  landed: LandedPack,
  request: LandRequest,
  { newId, luggageDir }: NewLanding,
  staged: LuggageOut | null,
  signature: SignatureSummary,
): Promise<Landed> {
  const pack = landed.object;
  const plan = planLanding(pack, {
    newId,
    machine: work.machine,
    trustMachineFacts: request.trustMachineFacts === true,
    renamed: landed.renamed,
  });
  const imperatives = instructionsFound(pack);
  const reply: Landed = {
    ok: true,
    ...(request.dryRun ? { dry_run: true } : {}),
    passport_id: newId,
    from: pack.origin,
    signature,
    lineage: pack.lineage,
    repairs: landed.repairs,
    restored_facts: plan.restored,
    needs_reverify: plan.toReverify.length,
    landing_checks_required: plan.requiredChecks.length,
    open_asks: plan.openAsks.length,
    instructions_found: imperatives,
    // Listed once the luggage is written: 70,000 names are not held while it is.
    luggage: [] as string[],
    luggage_dir: landed.luggage.length ? luggageDir : null,
    renamed: landed.renamed,
  };
  if (request.dryRun) {
    reply.luggage = landed.luggage.map((file) => file.name);
    reply.next_steps = [...(plan.state.next_steps ?? [])];
    return reply;
  }
  let out: LuggageOut | null = null;
  if (!landed.luggage.length) await staged?.abort();
  else if (staged) await (out = staged).finish(landed.luggage, landed.renamed);
  else {
    out = await extractLuggage(
      landed.luggage,
      luggageDir,
      work.showProgress,
      landed.renamed,
    );
  }
  try {
    const time = work.now();
    const artifacts = [...(plan.state.artifacts ?? [])];
    if (landed.luggage.length) {
      artifacts.push(`luggage: ${landed.luggage.length} file(s) in ${luggageDir}`);
    }
    let state: PassportState = {
      ...plan.state,
      created_at: time,
      updated_at: time,
      harness: work.harness,
      artifacts,
    };
    if (landed.digest) {
      state = withLanding(state, {
        digest: landed.digest,
        kind: "handoff",
        at: time,
        signature,
      });
    }
    const saved = await work.store.create(state);
    Object.assign(reply, passportReply(saved, reply));
  } catch (error) {
    await out?.undo();
    throw error;
  }
  reply.luggage = landed.luggage.map((file) => file.name);
  return reply;
}

async function mergeInto(
  work: Workplace,
  landed: LandedPack,
  into: string,
  request: LandRequest,
  signature: SignatureSummary,
): Promise<Landed> {
  const target = await requirePassport(work, into);
  const imperatives = instructionsFound(landed.object);
  const digest = landed.digest;
  if (!request.again && digest && landedPacks(target).some((r) => r.digest === digest)) {
    return {
      ok: true,
      ...(request.dryRun ? { dry_run: true } : {}),
      already_landed: true,
      passport_id: into,
      from: landed.object.origin,
      signature,
      answered: [],
      adopted_asks: [],
      facts_added: [],
      instructions_found: imperatives,
      luggage: [],
      luggage_dir: null,
      renamed: [],
      state_version: target.version,
    };
  }
  const merged = mergeReceipt(target, landed.object);
  const answers = answeredPack(target, landed.object.lineage);
  const stamp = String(landed.object.packed_at ?? "").replace(/[^0-9]/g, "").slice(0, 14);
  // The sender's id is pack data: it names a folder only through its safe characters, so it
  // can never be a path ("x/../../..") that puts the luggage outside the store.
  const sender = String(landed.object.passport.id).replace(/[^A-Za-z0-9-]/g, "_").slice(0, 64);
  const luggageDir = absolutePath(
    request.filesOut ?? join(work.luggageRoot, `${into}.files`, `receipt-${sender}-${stamp}`),
  );
  const reply: Landed = {
    ok: true,
    ...(request.dryRun ? { dry_run: true } : {}),
    passport_id: into,
    from: landed.object.origin,
    signature,
    answers,
    repairs: landed.repairs,
    answered: merged.answered,
    adopted_asks: merged.adopted,
    facts_added: merged.factsAdded,
    // They describe the sender's machine: reported, never adopted (§4.4.1).
    reported_landing_checks: merged.reportedChecks,
    instructions_found: imperatives,
    luggage: landed.luggage.map((file) => file.name),
    luggage_dir: landed.luggage.length ? luggageDir : null,
    renamed: landed.renamed,
  };
  if (!request.dryRun) {
    const out = landed.luggage.length
      ? await extractLuggage(landed.luggage, luggageDir, work.showProgress, landed.renamed)
      : null;
    try {
      const time = work.now();
      const record: LandedRecord = {
        digest: digest ?? "",
        kind: "receipt",
        at: time,
        signature,
        answers: { version: answers.version, sent: answers.sent },
      };
      if (answers.digest) record.answers!.digest = answers.digest;
      const state = digest
        ? withLanding(withVerifiedAnswers(merged.state, merged.answered, signature), record)
        : withVerifiedAnswers(merged.state, merged.answered, signature);
      const saved = state === target
        ? target
        : await work.store.save({ ...state, updated_at: time }, target.version);
      reply.state_version = saved.version;
    } catch (error) {
      await out?.undo();
      throw error;
    }
  }
  return reply;
}

/**
 * The pack a receipt answers, from this home's outbox: the version of this passport named by
 * the entry before last in the receipt's chain (the pack the sender landed), and whether this
 * home recorded sending it. A receipt that answers a version this home never sent is reported,
 * not refused.
 */
function answeredPack(
  target: PassportState,
  lineage: unknown,
): { version: number; sent: boolean; digest?: string } {
  const chain = (lineage as { chain?: unknown } | null)?.chain;
  const entry = Array.isArray(chain) && chain.length >= 2
    ? parseChainEntry(chain[chain.length - 2])
    : null;
  const version = entry?.version ?? Number((lineage as { from_version?: unknown })?.from_version);
  const sent = sentPacks(target).filter((r) => r.version === version && r.kind === "handoff");
  const last = sent[sent.length - 1];
  return last ? { version, sent: true, digest: last.digest } : { version, sent: false };
}

/** The asks a receipt answered, with who signed it beside `answered_by` as written. */
function withVerifiedAnswers(
  state: PassportState,
  answered: readonly string[],
  signature: SignatureSummary,
): PassportState {
  if (!answered.length || !Array.isArray(state.asks)) return state;
  return {
    ...state,
    asks: state.asks.map((ask) =>
      answered.includes(ask?.id) && ask.answered_by !== undefined
        ? { ...ask, [ANSWERED_BY_VERIFIED]: signature }
        : ask
    ),
  };
}
