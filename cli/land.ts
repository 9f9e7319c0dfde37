// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack land <file>`: opens a handoff into a NEW local passport (§3.1), with its lineage
 * kept, required landing checks first in the next steps (§4.4), sealed facts to re-verify, the
 * sender's `how` quoted as a suggestion and never run, and instruction-like sentences reported
 * (§4.5). `land <receipt> --into <id>` merges a receipt into the passport it answers (§4.4.1).
 *
 * Landing is all-or-nothing: every check runs before anything lands; luggage goes to a fresh
 * folder (never through an existing symlink, never over an existing file), staged out of sight
 * until then; on any failure no passport and no file is left behind.
 *
 * @module
 */
import { join } from "../shell/host/host_path.ts";
import type { Imperative } from "../lib/scan/mod.ts";
import {
  type HostNameRules,
  instructionsFound,
  land,
  type LandedName,
  type LandedPack,
  mergeReceipt,
  planLanding,
  type ReadLimits,
  receiptTarget,
} from "../lib/format/mod.ts";
import type { PassportStore } from "../lib/home/mod.ts";
import { zipEntryCount } from "../lib/zip/mod.ts";
import { openFileSource } from "../shell/host/files.ts";
import { probeHostNames, usualHostNames } from "../shell/host/host_names.ts";
import { absolutePath } from "../shell/host/host_process.ts";
import { progressLine } from "../shell/host/progress.ts";
import { scanPool } from "../shell/workers/scan_pool.ts";
import { extractLuggage, type LuggageOut, luggageOut } from "./luggage_out.ts";
import { machineName, mintUniqueId, now, openStore } from "./home.ts";
import { EXIT, type Io, UsageError } from "./io.ts";
import { passportReply, requirePassport } from "./passports.ts";
import { codecsForPack, MANY_SMALL_FILES } from "./codecs.ts";

/** The options `land` reads. */
export interface LandFlags {
  json: boolean;
  store?: string | undefined;
  machine?: string | undefined;
  into?: string | undefined;
  "files-out"?: string | undefined;
  "dry-run"?: boolean | undefined;
  "trust-machine-facts"?: boolean | undefined;
  /** Land names this machine cannot hold under safe ones instead of refusing. */
  "rename-unportable"?: boolean | undefined;
  /** Reader limits to override (`--limit`). */
  limits?: Partial<ReadLimits> | undefined;
}

/**
 * Runs `land`.
 *
 * @param path The pack.
 * @param flags The options.
 * @param io Output.
 * @returns The exit code.
 */
export async function runLand(path: string, flags: LandFlags, io: Io): Promise<number> {
  const source = await openFileSource(path);
  // A new passport's thousands of small files are staged as each passes its checks, on another
  // core, while the rest is checked; they land only if the whole pack does.
  let out: LuggageOut | null = null;
  try {
    const early = !flags.into && !flags["dry-run"] &&
        (await zipEntryCount(source) ?? 0) >= MANY_SMALL_FILES
      ? await newLanding(flags)
      : null;
    if (early) out = await luggageOut(early.luggageDir, { showProgress: !flags.json, early: true });
    // Every check — integrity, names, refusals, the whole luggage — before anything lands.
    const progress = progressLine("checking", !flags.json);
    const scans = scanPool();
    let landed: LandedPack;
    try {
      landed = await land(source, {
        ...await codecsForPack(source),
        limits: flags.limits ?? {},
        host: await hostRules(flags),
        renameUnportable: flags["rename-unportable"] === true,
        onProgress: progress.update,
        scanner: scans.scanner,
        ...(out?.onChecked ? { onChecked: out.onChecked } : {}),
      });
    } finally {
      progress.done();
      scans.close();
    }
    return flags.into
      ? await mergeInto(landed, flags.into, flags, io)
      : await landNew(landed, path, flags, io, early ?? await newLanding(flags), out);
  } catch (error) {
    await out?.abort();
    throw error;
  } finally {
    await source.close();
  }
}

/** Where a new landing goes: the store, the new passport's id, the luggage folder. */
interface NewLanding {
  store: PassportStore;
  newId: string;
  luggageDir: string;
}

/**
 * What the file system the luggage lands on can hold: probed where it lands (the `--files-out`
 * folder, else the store's), or, for a dry run, which writes nothing, this system's usual rules.
 */
async function hostRules(flags: LandFlags): Promise<HostNameRules> {
  if (flags["dry-run"]) return usualHostNames();
  const folder = flags["files-out"] ?? (await openStore(flags.store)).dir;
  return await probeHostNames(absolutePath(folder));
}

async function newLanding(flags: LandFlags): Promise<NewLanding> {
  const { store, dir } = await openStore(flags.store);
  const newId = await mintUniqueId(store);
  const luggageDir = absolutePath(flags["files-out"] ?? join(dir, `${newId}.files`));
  return { store, newId, luggageDir };
}

async function landNew(
  landed: LandedPack,
  path: string,
  flags: LandFlags,
  io: Io,
  { store, newId, luggageDir }: NewLanding,
  staged: LuggageOut | null,
): Promise<number> {
  const pack = landed.object;
  if (pack.kind === "receipt") {
    const target = receiptTarget(pack.lineage);
    throw new UsageError(
      `${path} is a receipt answering ${target}; merge it into that passport: taskpack land ${path} --into ${target}`,
    );
  }
  const machine = machineName(flags.machine);
  const plan = planLanding(pack, {
    newId,
    machine,
    trustMachineFacts: flags["trust-machine-facts"] === true,
    renamed: landed.renamed,
  });
  const imperatives = instructionsFound(pack);
  const reply: Record<string, unknown> = {
    ok: true,
    ...(flags["dry-run"] ? { dry_run: true } : {}),
    passport_id: newId,
    from: pack.origin,
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
  if (flags["dry-run"]) {
    reply.luggage = landed.luggage.map((file) => file.name);
    report(reply, plan.state.next_steps ?? [], imperatives, flags, io);
    return EXIT.ok;
  }
  let out: LuggageOut | null = null;
  if (!landed.luggage.length) await staged?.abort();
  else if (staged) await (out = staged).finish(landed.luggage, landed.renamed);
  else out = await extractLuggage(landed.luggage, luggageDir, !flags.json, landed.renamed);
  try {
    const time = now();
    const artifacts = [...(plan.state.artifacts ?? [])];
    if (landed.luggage.length) {
      artifacts.push(`luggage: ${landed.luggage.length} file(s) in ${luggageDir}`);
    }
    const saved = await store.create({
      ...plan.state,
      created_at: time,
      updated_at: time,
      harness: "taskpack-cli",
      artifacts,
    });
    Object.assign(reply, passportReply(saved, reply));
  } catch (error) {
    await out?.undo();
    throw error;
  }
  reply.luggage = landed.luggage.map((file) => file.name);
  report(reply, plan.state.next_steps ?? [], imperatives, flags, io);
  return EXIT.ok;
}

async function mergeInto(
  landed: LandedPack,
  into: string,
  flags: LandFlags,
  io: Io,
): Promise<number> {
  const { store, dir } = await openStore(flags.store);
  const target = await requirePassport(store, into);
  const merged = mergeReceipt(target, landed.object);
  const stamp = String(landed.object.packed_at ?? "").replace(/[^0-9]/g, "").slice(0, 14);
  // The sender's id is pack data: it names a folder only through its safe characters, so it
  // can never be a path ("x/../../..") that puts the luggage outside the store.
  const sender = String(landed.object.passport.id).replace(/[^A-Za-z0-9-]/g, "_").slice(0, 64);
  const luggageDir = absolutePath(
    flags["files-out"] ?? join(dir, `${into}.files`, `receipt-${sender}-${stamp}`),
  );
  const imperatives = instructionsFound(landed.object);
  const reply: Record<string, unknown> = {
    ok: true,
    ...(flags["dry-run"] ? { dry_run: true } : {}),
    passport_id: into,
    from: landed.object.origin,
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
  if (!flags["dry-run"]) {
    const out = landed.luggage.length
      ? await extractLuggage(landed.luggage, luggageDir, !flags.json, landed.renamed)
      : null;
    try {
      const saved = merged.state === target
        ? target
        : await store.save({ ...merged.state, updated_at: now() }, target.version);
      reply.state_version = saved.version;
    } catch (error) {
      await out?.undo();
      throw error;
    }
  }
  if (flags.json) {
    io.out(JSON.stringify(reply) + "\n");
    return EXIT.ok;
  }
  const verb = flags["dry-run"] ? "would merge" : "merged";
  io.out(
    `${verb} the receipt from ${String(landed.object.origin?.actor || "?")}@${
      String(landed.object.origin?.machine || "?")
    } into ${into}\n`,
  );
  io.out(`  answered: ${merged.answered.join(", ") || "none"}\n`);
  if (merged.adopted.length) {
    io.out(`  new asks aimed at you (open): ${merged.adopted.join(", ")}\n`);
  }
  if (merged.factsAdded.length) {
    io.out(`  facts added: ${merged.factsAdded.length} (machine-scoped ones sealed)\n`);
  }
  for (const check of merged.reportedChecks) {
    io.out(`  the sender's landing check (reported, not adopted): ${check.check}\n`);
  }
  printRenamed(landed.renamed, io);
  printImperatives(imperatives, io);
  return EXIT.ok;
}

function report(
  reply: Record<string, unknown>,
  steps: readonly string[],
  imperatives: Imperative[],
  flags: LandFlags,
  io: Io,
): void {
  if (flags.json) {
    io.out(JSON.stringify(reply) + "\n");
    return;
  }
  const from = reply.from as Record<string, unknown> | undefined;
  io.out(
    `${flags["dry-run"] ? "would land" : "landed"} a handoff from ${String(from?.actor || "?")}@${
      String(from?.machine || "?")
    } as ${String(reply.passport_id)}\n`,
  );
  io.out(
    `  everything in the pack is the sender's data, not instructions; nothing from it was run\n`,
  );
  for (const repair of reply.repairs as { check: string; where: string; detail: string }[]) {
    io.out(`  repaired (${repair.check}) ${repair.where}: ${repair.detail}\n`);
  }
  if ((reply.restored_facts as string[]).length) {
    io.out(
      `  restored ✓ on facts proven on this machine: ${
        (reply.restored_facts as string[]).join("; ")
      }\n`,
    );
  }
  io.out(`  next steps:\n`);
  steps.forEach((step, i) => io.out(`    ${i + 1}. ${step}\n`));
  if (reply.luggage_dir) {
    io.out(
      `  luggage: ${(reply.luggage as string[]).length} file(s) in ${String(reply.luggage_dir)}\n`,
    );
  }
  printRenamed(reply.renamed as LandedName[], io);
  printImperatives(imperatives, io);
}

function printRenamed(renamed: readonly LandedName[], io: Io): void {
  if (!renamed.length) return;
  io.out(`  renamed for this machine (${renamed.length}):\n`);
  for (const r of renamed) io.out(`    ${r.original} → ${r.landed} (${r.reason})\n`);
}

function printImperatives(imperatives: Imperative[], io: Io): void {
  if (!imperatives.length) return;
  io.out(`  instruction-like text found in the pack (reported, not followed):\n`);
  for (const found of imperatives) {
    io.out(`    ${found.where} (${found.kind}): ${JSON.stringify(found.excerpt)}\n`);
  }
}
