// Copyright 2026 the taskpack authors. MIT license.
/**
 * Command-line options, read as `node:util`'s `parseArgs` reads them in strict mode with
 * positionals allowed (a test holds the two to the same results on generated command lines).
 * The CLI has its own because on Deno `node:util` loads part of the Node layer, about 0.02 s
 * of every command.
 *
 * Accepted: `--name value`, `--name=value`, `-n value`, `-nvalue`, grouped short options (`-hj`,
 * `-hovalue`), `--` (everything after it is positional) and `-` (a positional). Refused with one sentence:
 * an unknown option, a value given to a flag, a value missing, and a value that starts with a
 * dash given as the next argument (write `--name=-value`).
 *
 * @module
 */

/** One option: a flag (`boolean`) or one that takes a value (`string`). */
export interface OptionSpec {
  type: "boolean" | "string";
  /** A one-letter alias, used as `-x`. */
  short?: string;
  /** Whether it may be given several times (its values are then a list). */
  multiple?: boolean;
}

/** The value an option has once read: a list for `multiple`, a string or `true`. */
export type OptionValue<S extends OptionSpec> = S["type"] extends "boolean"
  ? (S["multiple"] extends true ? boolean[] : boolean)
  : (S["multiple"] extends true ? string[] : string);

/** The values of the options given, by name, and the positional arguments, in order. */
export interface ParsedArgs<T extends Readonly<Record<string, OptionSpec>>> {
  values: { [K in keyof T]?: OptionValue<T[K]> };
  positionals: string[];
}

/**
 * Reads a command line.
 *
 * @param args The arguments (without the program's name).
 * @param options The options there are, by long name.
 * @returns The values given and the positionals.
 * @throws {TypeError} For an unknown option, a flag given a value, or a value missing; the
 * message says which.
 * @example Usage
 * ```ts
 * import { parseCommandLine } from "./args.ts";
 * import assert from "node:assert/strict";
 * const options = {
 *   out: { type: "string", short: "o" },
 *   json: { type: "boolean" },
 *   file: { type: "string", multiple: true },
 * } as const;
 * const parsed = parseCommandLine(["pack", "-o", "x.taskpack", "--file=a", "--file", "b"], options);
 * assert.deepEqual(parsed.positionals, ["pack"]);
 * assert.equal(parsed.values.out, "x.taskpack");
 * assert.deepEqual(parsed.values.file, ["a", "b"]);
 * assert.throws(() => parseCommandLine(["--jsn"], options), /Unknown option '--jsn'/);
 * ```
 */
export function parseCommandLine<const T extends Readonly<Record<string, OptionSpec>>>(
  args: readonly string[],
  options: T,
): ParsedArgs<T> {
  const values: Record<string, string | boolean | (string | boolean)[]> = Object.create(null);
  const positionals: string[] = [];
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(options)) {
    if (spec.short) byShort.set(spec.short, name);
  }
  const store = (name: string, value: string | boolean) => {
    if (options[name]!.multiple) {
      const list = values[name];
      values[name] = Array.isArray(list) ? [...list, value] : [value];
    } else {
      values[name] = value;
    }
  };
  /** The value of a string option, from `inline` (`--x=v`, `-xv`) or the next argument. */
  const take = (name: string, shown: string, inline: string | undefined, at: number): number => {
    if (inline !== undefined) {
      store(name, inline);
      return at;
    }
    const next = args[at + 1];
    if (next === undefined) {
      throw new TypeError(`Option '${shown} <value>' argument missing`);
    }
    if (next.length > 1 && next.startsWith("-")) {
      throw new TypeError(
        `Option '${shown} <value>' argument is ambiguous: did you forget its value? ` +
          `To give a value that starts with a dash, write '${
            shown.startsWith("--") ? `${shown}=-XYZ` : `--${name}=-XYZ`
          }'`,
      );
    }
    store(name, next);
    return at + 1;
  };
  const unknown = (shown: string) =>
    new TypeError(
      `Unknown option '${shown}'. To give a positional argument that starts with a '-', ` +
        `place it at the end of the command after '--', as in '-- "${shown}"'`,
    );

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      const name = equals < 0 ? arg.slice(2) : arg.slice(2, equals);
      const inline = equals < 0 ? undefined : arg.slice(equals + 1);
      const spec = Object.hasOwn(options, name) ? options[name] : undefined;
      if (!spec) throw unknown(`--${name}`);
      if (spec.type === "boolean") {
        if (inline !== undefined) {
          throw new TypeError(`Option '--${name}' does not take an argument`);
        }
        store(name, true);
      } else {
        i = take(name, `--${name}`, inline, i);
      }
      continue;
    }
    if (arg.startsWith("-") && arg !== "-") {
      // One short option with its value (`-ofile`), or a group of short flags (`-hj`).
      for (let k = 1; k < arg.length; k++) {
        const letter = arg[k]!;
        const name = byShort.get(letter);
        if (letter === "-") {
          throw new TypeError(`Cannot read '${arg}': a dash cannot follow short options`);
        }
        if (name === undefined) throw unknown(`-${letter}`);
        if (options[name]!.type === "boolean") {
          store(name, true);
          continue;
        }
        // It takes the rest of the group as its value, else the next argument.
        i = take(
          name,
          `-${letter}, --${name}`,
          k + 1 < arg.length ? arg.slice(k + 1) : undefined,
          i,
        );
        break;
      }
      continue;
    }
    positionals.push(arg);
  }
  return { values: values as ParsedArgs<T>["values"], positionals };
}
