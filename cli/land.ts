// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack land <file>`: opens a handoff into a NEW local passport (§3.1), with its lineage
 * kept, required landing checks first in the next steps (§4.4), sealed facts to re-verify, the
 * sender's `how` quoted as a suggestion and never run, and instruction-like sentences reported
 * (§4.5). `land <receipt> --into <id>` merges a receipt into the passport it answers (§4.4.1).
 *
 * Landing is all-or-nothing: every check runs before anything is written; luggage goes to a
 * fresh folder (never through an existing symlink, never over an existing file); on any
 * failure no passport and no file is left behind.
 *
 * @module
 */
import { basename, dirname, join } from "../shell/host_path.ts";
import { findImperatives, type Imperative } from "../lib/imperatives.ts";
import { land, type LandedPack, planLanding } from "../lib/land.ts";
import type { ReadLimits, ReadLuggage } from "../lib/read.ts";
import { progressCounter } from "../lib/_progress.ts";
import { mergeReceipt } from "../lib/receipt.ts";
import { receiptTarget } from "../lib/lineage.ts";
import { makeFolder, openFileSource, writeNewFile } from "../shell/files.ts";
import { createFile, lstat, makeTempFolder, mkdir, rename, rm } from "../shell/host_fs.ts";
import { absolutePath } from "../shell/host_process.ts";
import { readAllBytes } from "../lib/_bytes.ts";
import { progressLine } from "../shell/progress.ts";
import { scanPool } from "../shell/scan_pool.ts";
import { batchWriter } from "../shell/batch_writer.ts";
import { machineName, mintUniqueId, now, openStore } from "./home.ts";
import { EXIT, type Io, UsageError } from "./io.ts";
import { passportReply, requirePassport } from "./passports.ts";
import { digestsForPack, inflaterFor, MANY_SMALL_FILES } from "./codecs.ts";

/** The options `land` reads. */
export interface LandFlags {
  json: boolean;
  store?: string | undefined;
  machine?: string | undefined;
  into?: string | undefined;
  "files-out"?: string | undefined;
  "dry-run"?: boolean | undefined;
  "trust-machine-facts"?: boolean | undefined;
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
  try {
    // Every check — integrity, names, refusals, the whole luggage — before anything is written.
    const progress = progressLine("checking", !flags.json);
    const scans = scanPool();
    let landed: LandedPack;
    try {
      landed = await land(source, {
        digests: await digestsForPack(source),
        limits: flags.limits ?? {},
        onProgress: progress.update,
        scanner: scans.scanner,
        ...await inflaterFor(source.size),
      });
    } finally {
      progress.done();
      scans.close();
    }
    return flags.into
      ? await mergeInto(landed, flags.into, flags, io)
      : await landNew(landed, path, flags, io);
  } finally {
    await source.close();
  }
}

async function landNew(
  landed: LandedPack,
  path: string,
  flags: LandFlags,
  io: Io,
): Promise<number> {
  const pack = landed.object;
  if (pack.kind === "receipt") {
    const target = receiptTarget(pack.lineage);
    throw new UsageError(
      `${path} is a receipt answering ${target}; merge it into that passport: taskpack land ${path} --into ${target}`,
    );
  }
  const { store, dir } = await openStore(flags.store);
  const machine = machineName(flags.machine);
  const newId = await mintUniqueId(store);
  const plan = planLanding(pack, {
    newId,
    machine,
    trustMachineFacts: flags["trust-machine-facts"] === true,
  });
  const imperatives = findImperatives(pack);
  const luggageDir = absolutePath(flags["files-out"] ?? join(dir, `${newId}.files`));
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
    luggage: landed.luggage.map((file) => file.name),
    luggage_dir: landed.luggage.length ? luggageDir : null,
  };
  if (flags["dry-run"]) {
    report(reply, plan.state.next_steps ?? [], imperatives, flags, io);
    return EXIT.ok;
  }
  if (landed.luggage.length) await extractLuggage(landed.luggage, luggageDir, !flags.json);
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
    if (landed.luggage.length) await rm(luggageDir, { recursive: true, force: true });
    throw error;
  }
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
  const imperatives = findImperatives(landed.object);
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
  };
  if (!flags["dry-run"]) {
    if (landed.luggage.length) await extractLuggage(landed.luggage, luggageDir, !flags.json);
    try {
      const saved = merged.state === target
        ? target
        : await store.save({ ...merged.state, updated_at: now() }, target.version);
      reply.state_version = saved.version;
    } catch (error) {
      if (landed.luggage.length) await rm(luggageDir, { recursive: true, force: true });
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
  printImperatives(imperatives, io);
}

function printImperatives(imperatives: Imperative[], io: Io): void {
  if (!imperatives.length) return;
  io.out(`  instruction-like text found in the pack (reported, not followed):\n`);
  for (const found of imperatives) {
    io.out(`    ${found.where} (${found.kind}): ${JSON.stringify(found.excerpt)}\n`);
  }
}

/** Luggage up to this size is extracted whole, with up to this many files created at once. */
const SMALL_EXTRACT = 64 * 1024;
const EXTRACT_CONCURRENCY = 16;

/**
 * Writes luggage into a fresh folder: staged in a new temporary folder beside it (so no existing
 * symlink or file is ever written through), each file created exclusively and verified (size
 * and CRC) as it streams, then renamed into place. On any failure the staging folder is removed.
 *
 * @param luggage The verified luggage.
 * @param target The folder to create; it must not exist.
 * @param showProgress Whether a progress line may be drawn (on a terminal, for large luggage).
 */
export async function extractLuggage(
  luggage: readonly ReadLuggage[],
  target: string,
  showProgress = false,
): Promise<void> {
  try {
    await lstat(target);
    throw new UsageError(
      `${target} exists: luggage only lands in a new folder (choose another with --files-out)`,
    );
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  await mkdir(dirname(target), { recursive: true });
  const staging = await makeTempFolder(join(dirname(target), `.${basename(target)}.landing-`));
  const progress = progressLine("writing", showProgress);
  const count = progressCounter(progress.update, luggage);
  // Small files are read (and verified) in order, then created several at a time: creating a
  // file costs far more than writing 1 KiB into it, and creations overlap well. Thousands of
  // them are created by a worker, on another core.
  const small = luggage.filter((file) => file.size <= SMALL_EXTRACT).length;
  const writer = small >= MANY_SMALL_FILES
    ? batchWriter({
      onWritten(files, bytes) {
        count.bytes(bytes);
        for (let i = 0; i < files; i++) count.file();
      },
    })
    : null;
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const settle = async (limit: number) => {
    while (inFlight.size > limit) await Promise.race(inFlight);
    if (failure) throw failure.error;
  };
  try {
    const made = new Set<string>([staging]);
    for (const file of luggage) {
      const dest = join(staging, ...file.name.split("/"));
      const folder = dirname(dest);
      if (!made.has(folder)) {
        makeFolder(folder);
        made.add(folder);
      }
      if (file.size <= SMALL_EXTRACT) {
        const bytes = await (file.read?.() ?? readAllBytes(file.open(), file.size));
        if (writer) {
          await writer.write(dest, bytes);
          continue;
        }
        const write: Promise<void> = createFile(dest, bytes).then(
          () => {
            inFlight.delete(write);
            count.bytes(bytes.length);
            count.file();
          },
          (error) => {
            inFlight.delete(write);
            failure ??= { error };
          },
        );
        inFlight.add(write);
        await settle(EXTRACT_CONCURRENCY - 1);
      } else {
        await writeNewFile(dest, file.open(), count.bytes, file.size);
        count.file();
      }
    }
    await settle(0);
    await writer?.finish();
    progress.done();
    await rename(staging, target);
  } catch (error) {
    progress.done();
    // Nothing may still be writing into the staging folder when it is removed.
    await Promise.allSettled(inFlight);
    await writer?.settle();
    await rm(staging, { recursive: true, force: true });
    throw error;
  } finally {
    writer?.close();
  }
}
