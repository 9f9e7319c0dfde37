// Copyright 2026 the taskpack authors. MIT license.
/**
 * The judge's operations: `conformance` (C0–C10, strictly, as written) and `inspect` (what is
 * inside, as written). Both read a pack from a file on this machine or from bytes that came in a
 * request, under the workplace's limits, and write nothing.
 *
 * @module
 */
import { checkLuggage, decodePack, judge, type Report } from "../lib/format/mod.ts";
import { type PackSummary, summarisePack } from "../lib/home/mod.ts";
import { progressLine } from "../shell/host/progress.ts";
import { scanPool } from "../shell/workers/scan_pool.ts";
import { codecsForPack, digestsForPack } from "./codecs.ts";
import { openPackInput, type PackInput } from "./pack_input.ts";
import type { ReaderSettings } from "./workplace.ts";

/**
 * `conformance`: the judge's report. A pack that fails is a report with `ok: false`, not an
 * error; only a file that cannot be opened is refused.
 *
 * @param work The workplace (limits, progress).
 * @param pack The pack.
 * @returns The report.
 */
export async function judgePack(work: ReaderSettings, pack: PackInput): Promise<Report> {
  const source = await openPackInput(pack);
  const progress = progressLine("checking", work.showProgress);
  const scans = scanPool();
  try {
    return await judge(source, {
      ...await codecsForPack(source),
      limits: work.limits,
      onProgress: progress.update,
      scanner: scans.scanner,
    });
  } finally {
    progress.done();
    scans.close();
    await source.close?.();
  }
}

/**
 * `inspect`: what is inside, as written, with the verdict and what landing would refuse.
 *
 * @param work The workplace (limits).
 * @param pack The pack.
 * @returns The summary.
 */
export async function inspectPack(work: ReaderSettings, pack: PackInput): Promise<PackSummary> {
  const source = await openPackInput(pack);
  try {
    const digests = await digestsForPack(source);
    const decoded = await decodePack(source, { digests, limits: work.limits });
    const report = await judge(source, { digests, limits: work.limits });
    const verdicts = await checkLuggage(decoded, { digests });
    return summarisePack(decoded, report, verdicts);
  } finally {
    await source.close?.();
  }
}
