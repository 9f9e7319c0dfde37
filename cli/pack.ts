// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack pack <id> --out <file>`: the command line over `packPassport` (`app/pack.ts`):
 * `--ask` and `--check` flags and `--asks`/`--checks` JSON files in, text or `--json` out.
 *
 * @module
 */
import type { Ask, LandingCheck } from "../lib/format/mod.ts";
import { packPassport, targetEncoding } from "../app/mod.ts";
import { EXIT, type Io, readJsonFile, UsageError } from "./io.ts";
import { workplaceFor } from "./passports.ts";

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
  /** `--sign`: sign the pack once written. */
  sign?: boolean | undefined;
  /** `--key`: the key to sign with. */
  key?: string | undefined;
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
  if (flags.key !== undefined && !flags.sign) {
    throw new UsageError("--key names the key to sign with: add --sign");
  }
  const reply = await packPassport(await workplaceFor(flags, io), {
    id: id ?? "",
    out,
    files: flags.file,
    asks: [
      ...(flags.ask ?? []).map(parseAskFlag),
      ...await jsonList<Partial<Ask>>(flags.asks, "--asks"),
    ],
    checks: [
      ...(flags.check ?? []).map(parseCheckFlag),
      ...await jsonList<Partial<LandingCheck>>(flags.checks, "--checks"),
    ],
    kind: flags.kind,
    note: flags.note,
    maxInline: flags.maxInline,
    sign: flags.sign,
    key: flags.key,
  });
  if (flags.json) {
    io.out(JSON.stringify(reply) + "\n");
    return EXIT.ok;
  }
  io.out(
    `wrote ${out} (${reply.kind}, ${reply.encoding}) from ${reply.passport_id}; pack digest sha256:${reply.digest}\n`,
  );
  if (reply.signature) {
    const by = reply.signed_by;
    io.out(
      `  signed -> ${reply.signature} (${
        by.principal ? `${by.principal}, ` : ""
      }${by.key_type} ${by.fingerprint})\n`,
    );
  }
  if (reply.kind === "receipt") {
    io.out(
      `  it answers ${reply.answers}: land it there with  taskpack land <file> --into ${reply.answers}\n`,
    );
  }
  if (reply.asks_recorded.length) {
    io.out(
      `  recorded ${reply.asks_recorded.length} ask(s) at home: ${
        reply.asks_recorded.join(", ")
      }\n`,
    );
  }
  if (reply.sealed_facts) {
    io.out(
      `  sealed ${reply.sealed_facts} machine-scoped fact(s): they travel as "re-verify"\n`,
    );
  }
  if (reply.luggage.length) io.out(`  luggage: ${reply.luggage.length} file(s)\n`);
  return EXIT.ok;
}
