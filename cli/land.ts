// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack land <file>`: the command line over `landPack` (`app/land.ts`): a handoff into a
 * NEW passport, or with `--into <id>` a receipt merged into the passport it answers; text or
 * `--json` out. `--trust-machine-facts` is here and nowhere a model can reach: restoring a ✓ is
 * the choice of the person landing it (§4.2).
 *
 * @module
 */
import type { Imperative } from "../lib/scan/mod.ts";
import type { LandedName, ReadLimits } from "../lib/format/mod.ts";
import { describeSummary, type Landed, landPack } from "../app/mod.ts";
import { readFile } from "../shell/host/host_fs.ts";
import { EXIT, type Io } from "./io.ts";
import { workplaceFor } from "./passports.ts";

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
  /** Land a fresh copy of a pack this store landed before. */
  again?: boolean | undefined;
  /** Reader limits to override (`--limit`). */
  limits?: Partial<ReadLimits> | undefined;
  /** Refuse a pack that is unsigned or signed by a key the trust list does not name. */
  "require-signed"?: boolean | undefined;
  /** The trust list (else taskpack's own, else git's). */
  "allowed-signers"?: string | undefined;
  /** The signature (default: `<pack>.sig` beside it). */
  sig?: string | undefined;
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
  const reply = await landPack(await workplaceFor(flags, io, flags.limits ?? {}), {
    pack: { path },
    into: flags.into,
    dryRun: flags["dry-run"],
    filesOut: flags["files-out"],
    trustMachineFacts: flags["trust-machine-facts"],
    renameUnportable: flags["rename-unportable"],
    again: flags.again,
    requireSigned: flags["require-signed"],
    allowedSigners: flags["allowed-signers"],
    ...(flags.sig === undefined ? {} : { signature: await readFile(flags.sig) }),
  });
  if (flags.json) {
    io.out(JSON.stringify(reply) + "\n");
    return EXIT.ok;
  }
  if (reply.already_landed) {
    io.out(
      flags.into
        ? `already merged: this receipt was merged into ${reply.passport_id} before (version ${
          String(reply.state_version)
        }); nothing changed\n`
        : `already landed as ${reply.passport_id} (version ${
          String(reply.state_version)
        }); nothing changed (land it --again for a fresh copy)\n`,
    );
    signer(reply, io);
    return EXIT.ok;
  }
  if (flags.into) printMerge(reply, flags, io);
  else report(reply, flags, io);
  return EXIT.ok;
}

function sender(reply: Landed): string {
  const from = reply.from as Record<string, unknown> | undefined;
  return `${String(from?.actor || "?")}@${String(from?.machine || "?")}`;
}

function printMerge(reply: Landed, flags: LandFlags, io: Io): void {
  const verb = flags["dry-run"] ? "would merge" : "merged";
  io.out(`${verb} the receipt from ${sender(reply)} into ${reply.passport_id}\n`);
  signer(reply, io);
  const answers = reply.answers as { version: number; sent: boolean } | undefined;
  if (answers && !answers.sent) {
    io.out(
      `  note: it answers version ${answers.version} of ${reply.passport_id}, which this home has no record of sending\n`,
    );
  }
  const answered = reply.answered as string[];
  const adopted = reply.adopted_asks as string[];
  const facts = reply.facts_added as string[];
  io.out(`  answered: ${answered.join(", ") || "none"}\n`);
  if (adopted.length) io.out(`  new asks aimed at you (open): ${adopted.join(", ")}\n`);
  if (facts.length) io.out(`  facts added: ${facts.length} (machine-scoped ones sealed)\n`);
  for (const check of reply.reported_landing_checks as { check: string }[]) {
    io.out(`  the sender's landing check (reported, not adopted): ${check.check}\n`);
  }
  printRenamed(reply.renamed as LandedName[], io);
  printImperatives(reply.instructions_found, io);
}

function report(reply: Landed, flags: LandFlags, io: Io): void {
  const steps = reply.next_steps ??
    ((reply.state as { next_steps?: string[] } | undefined)?.next_steps ?? []);
  io.out(
    `${flags["dry-run"] ? "would land" : "landed"} a handoff from ${sender(reply)} as ${
      String(reply.passport_id)
    }\n`,
  );
  signer(reply, io);
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
  printImperatives(reply.instructions_found, io);
}

/** Who signed the pack, when it was signed (an unsigned pack, the usual case, says nothing). */
function signer(reply: Landed, io: Io): void {
  if (reply.signature.status !== "unsigned") io.out(`  ${describeSummary(reply.signature)}\n`);
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
