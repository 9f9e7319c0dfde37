// Copyright 2026 the taskpack authors. MIT license.
/**
 * `deno task test`'s test run, with a check that it leaves nothing behind: runs `deno test -A`
 * with the given arguments and its own empty `TMPDIR` (which the tests, the CLI they start as
 * subprocesses and Chromium all honour), then fails if anything is left in that folder, naming
 * what. The folder is removed either way, so a failing run does not litter `/tmp` either.
 *
 * ```sh
 * deno run -A tools/test_clean_tmp.ts --doc --parallel
 * deno run -A tools/test_clean_tmp.ts tests/zip_test.ts
 * ```
 *
 * @module
 */

/** Runs the tests in a private temporary folder; resolves to the exit code. */
export async function testInCleanTmp(args: readonly string[]): Promise<number> {
  const tmp = await Deno.makeTempDir({ prefix: "taskpack-test-run-" });
  // Like /tmp itself: the PostgreSQL the tests start runs as an unprivileged user, whose
  // folders live in here too.
  await Deno.chmod(tmp, 0o1777);
  try {
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: ["test", "-A", ...args],
      env: { TMPDIR: tmp },
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    const left: string[] = [];
    for await (const entry of Deno.readDir(tmp)) left.push(entry.name);
    if (left.length === 0) return code;
    left.sort();
    const shown = left.slice(0, 20).join(", ") + (left.length > 20 ? ", …" : "");
    console.error(
      `the tests left ${left.length} entr${left.length === 1 ? "y" : "ies"} in their ` +
        `temporary folder (TMPDIR): ${shown}; make them with tempDir()/tempFile() from ` +
        `tests/_helpers.ts, which removes them`,
    );
    return code === 0 ? 1 : code;
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await testInCleanTmp(Deno.args));
