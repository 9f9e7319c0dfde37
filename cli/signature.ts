// Copyright 2026 the taskpack authors. MIT license.
/**
 * What `sign` and `verify` share: a pack's digest, read from its file and checked (every file
 * must match the digest, or no signature can vouch for it), and where its signature lies.
 *
 * @module
 */
import { TaskPackReadError } from "../lib/bytes/mod.ts";
import { judge, type ReadLimits } from "../lib/format/mod.ts";
import { openFileSource } from "../shell/host/files.ts";
import { progressLine } from "../shell/host/progress.ts";
import { scanPool } from "../shell/workers/scan_pool.ts";
import { codecsForPack } from "../app/mod.ts";

/** A pack's digest, and whether the pack is conformant besides. */
export interface PackDigest {
  /** The pack digest: 64 hex digits, the same for the bag and the flat file. */
  readonly digest: string;
  /** `bag` or `flat`. */
  readonly encoding: string;
  /** Whether the judge found it conformant (C0-C10). */
  readonly conformant: boolean;
}

/**
 * Reads a pack and its digest, judging it as `conformance` does.
 *
 * @param path The pack.
 * @param options Reader limits; whether a person watches (progress on stderr).
 * @returns The digest and the verdict.
 * @throws {TaskPackReadError} `integrity` when the file cannot be read, or a file in it does
 *   not match its digest: then no signature can vouch for it.
 */
export async function readPackDigest(
  path: string,
  options: { limits?: Partial<ReadLimits>; quiet?: boolean } = {},
): Promise<PackDigest> {
  const source = await openFileSource(path);
  const progress = progressLine("checking", !options.quiet);
  const scans = scanPool();
  try {
    const report = await judge(source, {
      ...await codecsForPack(source),
      limits: options.limits ?? {},
      onProgress: progress.update,
      scanner: scans.scanner,
    });
    const intact = report.checks.find((check) => check.id === "C1");
    if (report.digest === null || !intact?.ok) {
      const why = intact && !intact.ok ? `: ${intact.detail.split("; ")[0]}` : "";
      throw new TaskPackReadError(
        "integrity",
        path,
        `the pack cannot be read whole, so no signature can vouch for it${why}`,
      );
    }
    return { digest: report.digest, encoding: report.encoding, conformant: report.ok };
  } finally {
    progress.done();
    scans.close();
    await source.close();
  }
}

/**
 * Where a pack's detached signature lies: beside it, with `.sig` added.
 *
 * @param pack The pack's path.
 * @returns The signature's path.
 */
export function signaturePathOf(pack: string): string {
  return `${pack}.sig`;
}
