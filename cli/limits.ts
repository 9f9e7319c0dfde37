// Copyright 2026 the taskpack authors. MIT license.
/**
 * `--limit <name>=<value>` (repeatable): raises or lowers one of the reader's limits for
 * `conformance`, `inspect`, `convert` and `land`. Every refusal over a limit names the limit it
 * hit (`raise maxTotalSize`), and that name is what `--limit` takes: `--limit maxTotalSize=200GiB`.
 * Names may also be written in kebab case (`max-total-size`). Values are whole numbers, with an
 * optional binary suffix `KiB`, `MiB` or `GiB` (also `K`, `M`, `G`).
 *
 * @module
 */
import { DEFAULT_READ_LIMITS, type ReadLimits } from "../lib/format/mod.ts";
import { UsageError } from "./io.ts";

/** The limit names, as refusals name them. */
export const LIMIT_NAMES: readonly (keyof ReadLimits)[] = Object.keys(
  DEFAULT_READ_LIMITS,
) as (keyof ReadLimits)[];

const SUFFIX: Readonly<Record<string, number>> = {
  "": 1,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
};

/**
 * Parses the values of `--limit` into reader limits.
 *
 * @param values Each `<name>=<value>` given, or undefined when none was.
 * @returns The limits to override (empty when none was given).
 * @throws {UsageError} For an unknown name or a value that is not a byte count.
 */
export function parseLimitFlags(values: readonly string[] | undefined): Partial<ReadLimits> {
  const limits: Partial<ReadLimits> = {};
  for (const value of values ?? []) {
    const match = /^([A-Za-z-]+)=([0-9]+)([A-Za-z]*)$/.exec(value.trim());
    const name = match
      ? LIMIT_NAMES.find((known) => known === match[1] || kebab(known) === match[1]!.toLowerCase())
      : undefined;
    if (!match || name === undefined) {
      throw new UsageError(
        `--limit needs <name>=<value>, with a name among ${LIMIT_NAMES.join(", ")}; got "${value}"`,
      );
    }
    const unit = SUFFIX[match[3]!.toLowerCase()];
    const number = Number(match[2]) * (unit ?? NaN);
    if (!Number.isSafeInteger(number)) {
      throw new UsageError(
        `--limit ${name} needs a whole number (KiB, MiB, GiB allowed), got "${value}"`,
      );
    }
    limits[name] = number;
  }
  return limits;
}

/** The defaults, one line each, for `--help` and the docs. */
export function describeLimits(): string {
  return LIMIT_NAMES.map((name) => `  ${name.padEnd(18)} ${DEFAULT_READ_LIMITS[name]}`).join("\n");
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}
