// Copyright 2026 the taskpack authors. MIT license.
// The README's story runs as written: every `$ ` command of "A handoff, there and back" is run in
// an empty folder, in order, by `sh` (so its shell variables work), with `taskpack` the CLI of
// this checkout, and what it prints must be what the README shows, with only the passport ids
// (new on every run), the digests (which hold the time of packing) and the folder masked.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { tempDir } from "./_helpers.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const ID = /TP-[0-9A-Z]{4}-[0-9A-Z]{4}/g;

/** One command of the story and what the README says it prints. */
interface Step {
  command: string;
  expected: string;
}

/** The story's steps: `$ ` lines (with `\` continuations), each followed by its output. */
function storySteps(readme: string): Step[] {
  const section = readme.split("## A handoff, there and back")[1]?.split("\n## ")[0];
  const block = section?.split("```sh\n")[1]?.split("```")[0];
  assert.ok(block, "the README has the story's shell block");
  const steps: Step[] = [];
  const lines = block.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith("$ ")) continue;
    let command = line.slice(2);
    while (command.endsWith("\\")) command = command.slice(0, -1) + " " + lines[++i]!.trim();
    const output: string[] = [];
    const more = (next: string | undefined) =>
      next !== undefined && next !== "" && !next.startsWith("$ ") && !next.startsWith("# ");
    while (more(lines[i + 1])) {
      output.push(lines[++i]!);
    }
    steps.push({ command, expected: output.join("\n") });
  }
  return steps;
}

/** The digests, shortened or not, as one mark. */
function maskDigests(text: string): string {
  return text.replace(/sha256:[0-9a-f]{8}[0-9a-f]*…?/g, "sha256:<digest>");
}

/**
 * `actual` with its passport ids written as the README's: ids are paired by position, line by
 * line, and a pairing once made holds for the rest of the story.
 */
function unifyIds(expected: string, actual: string, ids: Map<string, string>): string {
  const expectedLines = expected.split("\n");
  const actualLines = actual.split("\n");
  expectedLines.forEach((line, n) => {
    const mine = line.match(ID) ?? [];
    const theirs = actualLines[n]?.match(ID) ?? [];
    if (mine.length !== theirs.length) return;
    mine.forEach((id, k) => {
      if (!ids.has(id)) ids.set(id, theirs[k]!);
    });
  });
  const back = new Map([...ids].map(([readme, real]) => [real, readme]));
  return actual.replace(ID, (id) => back.get(id) ?? id);
}

Deno.test("the story's parser finds commands, continuations and outputs", () => {
  const readme = "## A handoff, there and back\n\n```sh\n$ a=1\n# note\n$ taskpack new \\\n" +
    "    --title x\ncreated TP-AAAA-BBBB (version 1): x\n\n$ taskpack list\nnothing\n```\n\n## Next\n";
  assert.deepEqual(storySteps(readme), [
    { command: "a=1", expected: "" },
    { command: "taskpack new  --title x", expected: "created TP-AAAA-BBBB (version 1): x" },
    { command: "taskpack list", expected: "nothing" },
  ]);
  const ids = new Map<string, string>();
  assert.equal(
    unifyIds("created TP-AAAA-BBBB", "created TP-1234-5678", ids),
    "created TP-AAAA-BBBB",
  );
  assert.equal(ids.get("TP-AAAA-BBBB"), "TP-1234-5678");
  // A different sentence around the id still differs after unifying.
  assert.notEqual(unifyIds("made TP-AAAA-BBBB", "created TP-1234-5678", ids), "made TP-AAAA-BBBB");
});

Deno.test({
  name: "the README's story runs as written and prints what the README shows",
  async fn() {
    const readme = await Deno.readTextFile(new URL("README.md", `file://${ROOT}`));
    const steps = storySteps(readme);
    assert.ok(steps.length >= 8, `the story has its commands (${steps.length})`);
    const cwd = await tempDir({ prefix: "taskpack-story-" });
    const taskpack = `taskpack() { "${Deno.execPath()}" run -A --config "${ROOT}deno.json" ` +
      `--lock="${ROOT}deno.lock" "${ROOT}cli.ts" "$@"; }`;
    const assignments: string[] = [];
    const ids = new Map<string, string>();
    for (const { command, expected } of steps) {
      if (/^\w+=/.test(command)) {
        assignments.push(command);
        continue;
      }
      // The ids this run minted stand where the README shows its own.
      const runnable = command.replace(ID, (id) => ids.get(id) ?? id);
      const { code, stdout } = await new Deno.Command("sh", {
        args: ["-c", [taskpack, ...assignments, `${runnable} 2>&1`].join("\n")],
        cwd,
        env: { NO_COLOR: "1", TASKPACK_STORE: `${cwd}/default-store` },
        stdout: "piped",
      }).output();
      const printed = new TextDecoder().decode(stdout).replace(/\n$/, "")
        .replaceAll(cwd, "/home/bob/story");
      const actual = maskDigests(unifyIds(expected, printed, ids));
      assert.equal(actual, maskDigests(expected), `$ ${command}`);
      assert.equal(code, 0, `$ ${command} exited ${code}`);
    }
  },
});
