// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack pack <id> --out <file>`: packs a passport from the store. The asks it sends are
 * recorded in the passport that stays home (§4.3) before the pack is written; a pack made from a
 * landed passport extends its lineage chain (§3.1); `--kind receipt` carries the passport's asks
 * with their answers, plus any new ones, back to the passport they answer (§4.4.1).
 *
 * @module
 */
import { basename } from "../shell/host/host_path.ts";
import {
  type Ask,
  buildPackObject,
  type LandingCheck,
  packWarnings,
  portabilityWarnings,
  preparePack,
  receiptTarget,
} from "../lib/format/mod.ts";
import { SMALL_DEFLATE } from "../lib/zip/mod.ts";
import { assignAskIds, recordSentAsks } from "../lib/home/mod.ts";
import { checkFolderOf, walkLuggage } from "../shell/host/files.ts";
import { progressLine } from "../shell/host/progress.ts";
import { type ScanPool, scanPool } from "../shell/workers/scan_pool.ts";
import { type ClosableDeflater, deflaterFor, digestsFor, MANY_SMALL_FILES } from "./codecs.ts";
import { targetEncoding, writePack } from "./convert.ts";
import { actorName, machineName, now, openStore } from "./home.ts";
import { EXIT, type Io, readJsonFile, UsageError } from "./io.ts";
import { requirePassport } from "./passports.ts";

/** The options `pack` reads. */
export interface PackFlags {
  json: boolean;
  store?: string | undefined;
  machine?: string | undefined;
  actor?: string | undefined;
  out?: string | undefined;
  flat?: boolean | undefined;
  file?: string[] | undefined;
  ask?: string[] | undefined;
  check?: string[] | undefined;
  asks?: string | undefined;
  checks?: string | undefined;
  kind?: string | undefined;
  note?: string | undefined;
  maxInline?: number | undefined;
}

/**
 * Parses `--ask "what|accept|why"`.
 *
 * @param text The flag's value.
 * @returns The ask (without an id yet).
 */
export function parseAskFlag(text: string): Partial<Ask> {
  const [what = "", accept = "", ...why] = text.split("|");
  if (!what.trim() || !accept.trim()) {
    throw new UsageError(
      `--ask needs "what|accept[|why]": an ask without an accept rule cannot be judged (got "${text}")`,
    );
  }
  return { what: what.trim(), accept: accept.trim(), why: why.join("|").trim() };
}

/**
 * Parses `--check "check|how"`.
 *
 * @param text The flag's value.
 * @returns The landing check (required).
 */
export function parseCheckFlag(text: string): Partial<LandingCheck> {
  const [check = "", ...how] = text.split("|");
  if (!check.trim()) throw new UsageError(`--check needs "check[|how]" (got "${text}")`);
  return { check: check.trim(), how: how.join("|").trim(), required: true };
}

async function jsonList<T>(path: string | undefined, flag: string): Promise<T[]> {
  if (!path) return [];
  const value = await readJsonFile(path);
  if (!Array.isArray(value)) throw new UsageError(`${flag} ${path} must hold a JSON list`);
  return value as T[];
}

/**
 * Runs `pack`.
 *
 * @param id The passport to pack.
 * @param flags The options.
 * @param io Output.
 * @returns The exit code.
 */
export async function runPack(id: string | undefined, flags: PackFlags, io: Io): Promise<number> {
  const out = flags.out;
  if (!out) {
    throw new UsageError(
      "pack needs --out <file> (.taskpack, or .taskpack.json for the flat form)",
    );
  }
  if (flags.flat && targetEncoding(out) !== "flat") {
    throw new UsageError("--flat needs an --out name ending in .taskpack.json");
  }
  targetEncoding(out);
  // Before anything is recorded at home: a pack that cannot be written sends no asks.
  checkFolderOf(out);
  if (flags.kind !== undefined && flags.kind !== "handoff" && flags.kind !== "receipt") {
    throw new UsageError(`--kind is handoff or receipt, not "${flags.kind}"`);
  }
  const kind = flags.kind === "receipt" ? "receipt" : "handoff";
  const { store } = await openStore(flags.store);
  const home = await requirePassport(store, id);

  const fresh = assignAskIds(home, [
    ...(flags.ask ?? []).map(parseAskFlag),
    ...await jsonList<Partial<Ask>>(flags.asks, "--asks"),
  ]);
  const asks = kind === "receipt" ? [...(home.asks ?? []), ...fresh] : fresh;
  const landingChecks = [
    ...(flags.check ?? []).map(parseCheckFlag),
    ...await jsonList<Partial<LandingCheck>>(flags.checks, "--checks"),
  ];
  const machine = machineName(flags.machine);
  // Thousands of small files are read ahead and deflated on another core, in the order they
  // are packed, starting while the walk goes on. Other small files are deflated as they are
  // read; large ones on the other cores (the same bytes, whichever way).
  const bag = targetEncoding(out) === "bag";
  const walked = walkLuggage(flags.file ?? [], {
    onSkip: (path, reason) => io.err(`skipped ${path}: ${reason}\n`),
    readAhead: { from: MANY_SMALL_FILES, deflate: bag },
  });
  const luggage = walked.luggage;
  const packing = progressLine("packing", !flags.json);
  const writing = progressLine("writing", !flags.json);
  let deflater: ClosableDeflater | undefined;
  let scans: ScanPool | undefined;
  try {
    const object = buildPackObject(home, {
      kind,
      packedAt: now(),
      machine,
      actor: actorName(flags.actor),
      harness: "taskpack-cli",
      note: flags.note ?? "",
      asks,
      landingChecks,
    });
    for (const warning of packWarnings(home, luggage.map((f) => f.name), object.asks)) {
      io.err(`warning: ${warning}\n`);
    }
    // Told once, so the sender knows which receivers will need --rename-unportable.
    const unportable = portabilityWarnings(luggage.map((f) => f.name));
    for (const warning of unportable) {
      io.err(`warning: data/files/${warning.name} (${warning.systems}): ${warning.reason}\n`);
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

    // The home remembers the questions it sent, so the answers have somewhere to go (§4.3).
    const sent = object.asks.filter((ask) => fresh.some((f) => f.id === ask.id));
    const recorded = recordSentAsks(home, sent, basename(out));
    const saved = recorded === home
      ? home
      : await store.save({ ...recorded, updated_at: now() }, home.version);

    const encoding = await writePack(prepared, out, {
      deflater,
      digests,
      maxInline: flags.maxInline,
      onProgress: writing.update,
    });
    writing.done();
    const reply = {
      ok: true,
      pack: out,
      encoding,
      kind,
      passport_id: saved.id,
      state_version: saved.version,
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
    if (flags.json) {
      io.out(JSON.stringify(reply) + "\n");
    } else {
      io.out(
        `wrote ${out} (${kind}, ${encoding}) from ${saved.id}; pack digest sha256:${prepared.digest}\n`,
      );
      if (kind === "receipt") {
        io.out(
          `  it answers ${reply.answers}: land it there with  taskpack land <file> --into ${reply.answers}\n`,
        );
      }
      if (sent.length) {
        io.out(`  recorded ${sent.length} ask(s) at home: ${sent.map((a) => a.id).join(", ")}\n`);
      }
      if (prepared.repairs.length) {
        io.out(
          `  sealed ${prepared.repairs.length} machine-scoped fact(s): they travel as "re-verify"\n`,
        );
      }
      if (luggage.length) io.out(`  luggage: ${luggage.length} file(s)\n`);
    }
    return EXIT.ok;
  } finally {
    packing.done();
    writing.done();
    deflater?.close();
    scans?.close();
    walked.close();
  }
}
