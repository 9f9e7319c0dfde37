// Copyright 2026 the taskpack authors. MIT license.
// Runs the CLI as a user would: a subprocess, in a folder of its own.

const CLI = new URL("../cli.ts", import.meta.url).pathname;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  // deno-lint-ignore no-explicit-any -- the CLI's JSON is checked field by field
  json: () => any;
}

/** Runs `taskpack <args>` in `cwd` and captures everything it says. */
export async function cli(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CliResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  return { code: output.code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** A list of every file under a folder with its bytes, to prove nothing changed. */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(path: string, rel: string): Promise<void> {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(path));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      const full = `${path}/${entry.name}`;
      if (entry.isDirectory) await walk(full, `${rel}${entry.name}/`);
      else if (entry.isSymlink) out.set(`${rel}${entry.name}`, `-> ${await Deno.readLink(full)}`);
      else out.set(`${rel}${entry.name}`, new TextDecoder().decode(await Deno.readFile(full)));
    }
  }
  await walk(dir, "");
  return out;
}
