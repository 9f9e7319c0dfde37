// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack migrate --from <store> --to <store>`: copies every passport from one store to
 * another (folder, `kv:`, `http(s)://`), each at the version it has. A passport the destination
 * already holds is skipped and never overwritten; the source is never changed.
 *
 * @module
 */
import { type PassportStore, StoreConflictError } from "../lib/home/mod.ts";
import { redactPostgresUrl } from "../shell/stores/postgres_config.ts";
import { openStore, storeDir } from "../app/mod.ts";
import { EXIT, type Io, UsageError } from "./io.ts";

/** The flags `migrate` reads. */
export interface MigrateFlags {
  /** The store to copy from. */
  from?: string | undefined;
  /** The store to copy to. */
  to?: string | undefined;
  /** One JSON object instead of text. */
  json?: boolean | undefined;
}

/** What happened to one passport. */
interface Outcome {
  passport_id: string;
  state_version?: number;
  reason?: string;
}

/**
 * `migrate`: moved, skipped (the destination holds it already) and failed passports. Exit 0
 * unless one failed.
 *
 * @param flags The flags.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runMigrate(flags: MigrateFlags, io: Io): Promise<number> {
  if (!flags.from || !flags.to) throw new UsageError("migrate needs --from <store> --to <store>");
  const from = redactPostgresUrl(storeDir(flags.from));
  const to = redactPostgresUrl(storeDir(flags.to));
  if (from === to) throw new UsageError("migrate needs two different stores");
  const source = (await openStore(flags.from)).store;
  const destination = (await openStore(flags.to)).store;
  try {
    if (!destination.importState) {
      throw new Error(`Cannot migrate into ${to}: that store cannot keep versions`);
    }
    const moved: Outcome[] = [];
    const skipped: Outcome[] = [];
    const failed: Outcome[] = [];
    const listing = await source.list();
    for (const problem of listing.problems) {
      failed.push({
        passport_id: problem.entry,
        reason: `unreadable at the source: ${problem.reason}`,
      });
    }
    for (const { id } of listing.passports) {
      try {
        const state = await source.open(id);
        if (!state) {
          failed.push({ passport_id: id, reason: "it vanished from the source while migrating" });
          continue;
        }
        const saved = await destination.importState(state);
        moved.push({ passport_id: id, state_version: saved.version });
      } catch (error) {
        if (error instanceof StoreConflictError && error.expected === 0 && error.actual !== null) {
          skipped.push({
            passport_id: id,
            state_version: error.actual,
            reason: `the destination already holds it (version ${error.actual}); left as it is`,
          });
        } else {
          failed.push({ passport_id: id, reason: oneLine(error) });
        }
      }
    }
    if (flags.json) {
      io.out(JSON.stringify({ ok: failed.length === 0, from, to, moved, skipped, failed }) + "\n");
    } else {
      for (const m of moved) io.out(`moved ${m.passport_id} (version ${m.state_version})\n`);
      for (const s of skipped) io.out(`skipped ${s.passport_id}: ${s.reason}\n`);
      for (const f of failed) io.out(`FAILED ${f.passport_id}: ${f.reason}\n`);
      io.out(
        `${moved.length} moved, ${skipped.length} skipped, ${failed.length} failed, from ${from} to ${to}` +
          " (landed luggage folders are not moved)\n",
      );
    }
    return failed.length ? EXIT.usage : EXIT.ok;
  } finally {
    await close(source);
    await close(destination);
  }
}

/** Closes a store that holds a connection (KV, PostgreSQL). */
async function close(store: PassportStore): Promise<void> {
  await (store as { close?: () => Promise<void> }).close?.();
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0]!;
}
