// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Times as the spec reads them: `packed_at` is an RFC 3339 `date-time` (§5.6 of RFC 3339),
 * checked field by field — a month of 13, a 30th of February or an hour of 99 is not a time,
 * while a lower-case `t` or `z` and any number of fractional digits are (RFC 3339 §5.6 allows
 * both).
 *
 * @module
 */

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Whether a value is an RFC 3339 `date-time` (RFC 3339 §5.6): `full-date "T" full-time`, with
 * each field in its range (month 01-12, day within its month and year, hour 00-23, minute
 * 00-59, second 00-60 for a leap second, offset hour 00-23 and minute 00-59). `T` and `Z` may be
 * lower case; the fraction may have any number of digits.
 *
 * @param value The candidate.
 * @returns True for an RFC 3339 time.
 *
 * @example Usage
 * ```ts
 * import { isRfc3339DateTime } from "./time.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isRfc3339DateTime("2026-12-02t16:46:10.123456789012z"), true);
 * assertEquals(isRfc3339DateTime("2026-13-02T16:46:10Z"), false);
 * assertEquals(isRfc3339DateTime("2026-12-02T99:46:10Z"), false);
 * ```
 */
export function isRfc3339DateTime(value: unknown): boolean {
  if (typeof value !== "string") return false;
  const match = DATE_TIME.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  if (month! < 1 || month! > 12) return false;
  if (day! < 1 || day! > daysIn(year!, month!)) return false;
  if (hour! > 23 || minute! > 59 || second! > 60) return false;
  if (match[7] !== undefined && (Number(match[7]) > 23 || Number(match[8]) > 59)) return false;
  return true;
}

/** Days in a month of the proleptic Gregorian calendar (RFC 3339 Appendix C's leap years). */
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
