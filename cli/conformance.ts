// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack conformance <file> [--json]`: judges a file against C0-C10 (spec §6), strictly,
 * as written. Exit 0 when conformant, 2 when not (unreadable and hostile files included).
 *
 * @module
 */
import type { PortabilityWarning, ReadLimits, Report } from "../lib/format/mod.ts";
import { judgePack } from "../app/mod.ts";
import { EXIT, type Io } from "./io.ts";

/**
 * Judges one file and prints the report.
 *
 * @param path The file.
 * @param json Print the report as JSON instead of a table.
 * @param io Output.
 * @param limits Reader limits to override (`--limit`).
 * @returns The exit code.
 */
export async function runConformance(
  path: string,
  json: boolean,
  io: Io,
  limits: Partial<ReadLimits> = {},
): Promise<number> {
  const report = await judgePack({ limits, showProgress: !json }, { path });
  io.out(json ? JSON.stringify(report, null, 2) + "\n" : formatReport(path, report));
  return report.ok ? EXIT.ok : EXIT.refused;
}

/**
 * The report as a table a person reads.
 *
 * @param path The file judged.
 * @param report The report.
 * @returns The text.
 */
export function formatReport(path: string, report: Report): string {
  const verdict = report.ok ? "conformant" : "NOT conformant";
  const lines = [
    `${path} (${report.encoding}): ${verdict} to ${report.spec}, ${report.passed}/${report.total} checks`,
  ];
  for (const check of report.checks) {
    lines.push(`  ${check.ok ? "✓" : "✗"} ${check.id.padEnd(3)} ${check.requirement}`);
    if (!check.ok && check.detail) {
      for (const detail of check.detail.split("; ")) lines.push(`        ${detail}`);
    }
  }
  if (report.digest) lines.push(`  pack digest: sha256:${report.digest}`);
  lines.push(...formatPortability(report.warnings));
  return lines.join("\n") + "\n";
}

/**
 * Portability warnings as lines a person reads (none when there are none).
 *
 * @param warnings The warnings.
 * @returns The lines, indented under a heading.
 */
export function formatPortability(warnings: readonly PortabilityWarning[]): string[] {
  if (!warnings.length) return [];
  return [
    `  warnings: ${warnings.length} name(s) some systems or readers cannot hold (conformance is not affected; land --rename-unportable renames what a machine cannot hold)`,
    ...warnings.map((w) =>
      `    ! ${w.field ? w.name : `data/files/${w.name}`} (${w.systems}): ${w.reason}`
    ),
  ];
}
