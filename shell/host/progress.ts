// Copyright 2026 the taskpack authors. MIT license.
/**
 * Progress a person can see: one line on standard error, redrawn at most ten times a second
 * and erased at the end, for passes over large luggage (over 64 MiB or 2,000 files) — and
 * nothing at all when standard error is not a terminal or the output is JSON. The core only
 * counts (`onProgress`); this draws.
 *
 * @module
 */
import { stderr } from "./host_process.ts";
import type { Progress } from "../../lib/format/mod.ts";
import { formatBytes } from "../../lib/bytes/mod.ts";

/** Luggage this large (bytes or files) gets a progress line. */
const LARGE_BYTES = 64 * 1024 * 1024;
const LARGE_FILES = 2000;
/** Fewest milliseconds between two redraws. */
const REDRAW_MS = 100;
/** No line before this many milliseconds, and no time left before a second. */
const FIRST_DRAW_MS = 250;
const FIRST_ESTIMATE_MS = 1000;

/** Where the line goes: a terminal's standard error, or nowhere. */
export interface ProgressTarget {
  /** Whether it is a terminal. */
  readonly isTTY?: boolean | undefined;
  /** Writes text. */
  write(text: string): unknown;
  /** Its width in columns, if known. */
  readonly columns?: number | undefined;
}

/** A progress line for one pass; {@linkcode ProgressLine.done} erases it. */
export interface ProgressLine {
  /** The callback to pass as `onProgress`. */
  readonly update: (progress: Progress) => void;
  /** Erases the line (if one was drawn). */
  done(): void;
}

function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.ceil(seconds % 60)} s`;
}

/**
 * A progress line labelled `label` (`"packing"`, `"checking"`...), drawn only when `enabled`
 * (the caller passes false for `--json`), the target is a terminal and the pass is large.
 *
 * @param label What is being done.
 * @param enabled False to draw nothing whatever happens.
 * @param target Where to draw (default: standard error).
 * @param now The clock, in milliseconds (for tests).
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import { progressLine } from "./progress.ts";
 * import assert from "node:assert/strict";
 *
 * let text = "";
 * let clock = 0;
 * const line = progressLine("packing", true, { isTTY: true, write: (t) => (text += t) }, () => clock);
 * line.update({ bytes: 0, totalBytes: 1 << 30, files: 0, totalFiles: 1 });
 * assert.equal(text, "");
 * clock = 1000;
 * line.update({ bytes: 1 << 29, totalBytes: 1 << 30, files: 0, totalFiles: 1 });
 * assert.match(text, /packing 512\.0 MiB of 1\.0 GiB \(50%\), 0 of 1 files, 512\.0 MiB\/s, 1 s left/);
 * line.done();
 * assert.ok(text.endsWith("\r\u001b[K"));
 * ```
 */
export function progressLine(
  label: string,
  enabled: boolean,
  target: ProgressTarget = stderr,
  now: () => number = () => performance.now(),
): ProgressLine {
  const draw = enabled && target.isTTY === true;
  const started = now();
  let last = -Infinity;
  let drawn = false;
  return {
    update(progress: Progress): void {
      if (!draw) return;
      if (progress.totalBytes < LARGE_BYTES && progress.totalFiles < LARGE_FILES) return;
      const time = now();
      // Nothing for a pass that ends at once; then at most one redraw per REDRAW_MS.
      if (time - started < FIRST_DRAW_MS || time - last < REDRAW_MS) return;
      last = time;
      const seconds = (time - started) / 1000;
      const rate = seconds > 0 ? progress.bytes / seconds : 0;
      const left = rate > 0 && time - started >= FIRST_ESTIMATE_MS
        ? (progress.totalBytes - progress.bytes) / rate
        : Infinity;
      const percent = progress.totalBytes > 0
        ? Math.floor((100 * progress.bytes) / progress.totalBytes)
        : Math.floor((100 * progress.files) / Math.max(1, progress.totalFiles));
      let text = `${label} ${formatBytes(progress.bytes)} of ${formatBytes(progress.totalBytes)}` +
        ` (${percent}%), ${progress.files.toLocaleString("en")} of ` +
        `${progress.totalFiles.toLocaleString("en")} files, ${formatBytes(rate)}/s` +
        (Number.isFinite(left) ? `, ${formatSeconds(left)} left` : "");
      const width = target.columns ?? 0;
      if (width > 10 && text.length >= width) text = text.slice(0, width - 1);
      target.write(`\r${text}\u001b[K`);
      drawn = true;
    },
    done(): void {
      if (drawn) target.write("\r\u001b[K");
      drawn = false;
    },
  };
}
