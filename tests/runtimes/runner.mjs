// Copyright 2026 the taskpack authors. MIT license.
// One runner for Deno, Node and Bun: loads the library (source or bundle) and the shared check
// script, runs the checks over the inputs, prints the result as one JSON line on stdout.
//
//   <runtime> tests/runtimes/runner.mjs <library module> <checks module> <inputs.json>
import { readFile } from "node:fs/promises";
import process from "node:process";
import { pathToFileURL } from "node:url";

const [library, checks, inputs] = process.argv.slice(2);
if (!library || !checks || !inputs) {
  process.stderr.write("usage: runner.mjs <library module> <checks module> <inputs.json>\n");
  process.exit(1);
}
const tp = await import(pathToFileURL(library).href);
const { runChecks } = await import(pathToFileURL(checks).href);
const result = await runChecks(tp, JSON.parse(await readFile(inputs, "utf8")));
process.stdout.write(JSON.stringify(result) + "\n");
