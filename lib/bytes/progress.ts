// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Progress of long passes over the luggage: the core counts, a shell draws.
 *
 * @module
 */

/**
 * How far a long pass over the luggage has come, for a shell to show (the core only counts).
 * Reported through the `onProgress` option of `preparePack`, `encodeBag`, `auditLuggage`,
 * `judge` and `land`: after every chunk read and every file finished, so a shell should
 * throttle what it draws.
 */
export interface Progress {
  /** Luggage bytes done so far. */
  readonly bytes: number;
  /** Luggage bytes in all. */
  readonly totalBytes: number;
  /** Luggage files done so far. */
  readonly files: number;
  /** Luggage files in all. */
  readonly totalFiles: number;
}

/**
 * Counts bytes and files for an `onProgress` callback; with none, counts nothing.
 *
 * @param onProgress The callback, if any.
 * @param files The luggage (its sizes make the totals).
 * @returns What to call as bytes and files are done.
 */
export function progressCounter(
  onProgress: ((progress: Progress) => void) | undefined,
  files: readonly { size: number }[],
): { bytes(count: number): void; file(): void } {
  if (!onProgress) return { bytes() {}, file() {} };
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  const totalFiles = files.length;
  let bytes = 0;
  let done = 0;
  const report = () => onProgress({ bytes, totalBytes, files: done, totalFiles });
  return {
    bytes(count: number) {
      bytes += count;
      report();
    },
    file() {
      done++;
      report();
    },
  };
}
