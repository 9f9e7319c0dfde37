// Copyright 2026 the taskpack authors. MIT license.
// The CLI's option reader against node:util's parseArgs (strict, positionals allowed), on
// generated command lines: the same values and positionals, or both refuse.
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import fc from "npm:fast-check@4.11.0";
import { type OptionSpec, parseCommandLine } from "../cli/args.ts";

const OPTIONS: Record<string, OptionSpec> = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  out: { type: "string", short: "o" },
  file: { type: "string", multiple: true },
  flat: { type: "boolean", multiple: true },
  store: { type: "string" },
};

const TOKENS = [
  "--json",
  "--help",
  "-h",
  "--out",
  "-o",
  "--file",
  "--flat",
  "--store",
  "--",
  "-",
  "--x",
  "-x",
  "-ho",
  "-hx",
  "-oh",
  "-hh",
  "--json=1",
  "--json=",
  "--out=",
  "--out=-v",
  "--file=a",
  "--store=s",
  "-ofile",
  "-h-",
  "pack",
  "a.taskpack",
  "-v",
  "--=x",
  "---",
  "--o",
  "x=y",
  "",
  "-o=",
  "--help=no",
  "-ohfile",
  "--out=--",
];

type Outcome = { ok: true; values: Record<string, unknown>; positionals: string[] } | {
  ok: false;
};

function ours(args: string[]): Outcome {
  try {
    const { values, positionals } = parseCommandLine(args, OPTIONS);
    return { ok: true, values: { ...values }, positionals };
  } catch (error) {
    assert.ok(error instanceof TypeError, `not a TypeError: ${error}`);
    assert.ok((error as Error).message.length > 0);
    return { ok: false };
  }
}

function node(args: string[]): Outcome {
  try {
    const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true });
    return { ok: true, values: { ...values }, positionals };
  } catch {
    return { ok: false };
  }
}

Deno.test("options are read as node:util parseArgs reads them, on generated command lines", () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.constantFrom(...TOKENS), fc.string({ maxLength: 4 })), {
        maxLength: 8,
      }),
      (args) => {
        // One deliberate difference: node reads a dash inside a group of short options as the
        // end of options (`-h-` is `-h --`); we refuse it (tested below).
        fc.pre(!args.some((arg) => /^-[^-].*-/.test(arg) && !/^-o/.test(arg)));
        assert.deepEqual(ours(args), node(args), JSON.stringify(args));
      },
    ),
    { numRuns: 5000 },
  );
});

Deno.test("options: each refusal names what is wrong", () => {
  const cases: [string[], RegExp][] = [
    [["--nope"], /Unknown option '--nope'/],
    [["-x"], /Unknown option '-x'/],
    [["--json=yes"], /'--json' does not take an argument/],
    [["--out"], /'--out <value>' argument missing/],
    [["-o"], /'-o, --out <value>' argument missing/],
    [["--out", "--json"], /'--out <value>' argument is ambiguous.*--out=-XYZ/],
    [["-h-"], /Cannot read '-h-': a dash cannot follow short options/],
  ];
  for (const [args, message] of cases) {
    assert.throws(() => parseCommandLine(args, OPTIONS), message, JSON.stringify(args));
  }
});

Deno.test("options: values, lists, groups and the end of options", () => {
  const { values, positionals } = parseCommandLine(
    ["land", "-hofile", "--file", "a", "--file=b", "--", "--json", "-"],
    OPTIONS,
  );
  assert.deepEqual({ ...values }, { help: true, out: "file", file: ["a", "b"] });
  assert.deepEqual(positionals, ["land", "--json", "-"]);
  assert.equal(Object.getPrototypeOf(values), null);
});
