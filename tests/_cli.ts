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

/** A server the CLI started: the URL it printed, and how to stop it. */
export interface CliServer {
  /** The URL from the first line it printed (`--json`). */
  url: string;
  /** Stops it (SIGTERM) and waits until it has gone. */
  stop(): Promise<void>;
}

/**
 * Starts `taskpack <args>` (a server, with `--json`) in a clean environment and waits for the
 * first line it prints, the JSON object that names its URL.
 */
export async function startCliServer(
  args: string[],
  env: Record<string, string>,
): Promise<CliServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    env: { ...env, NO_COLOR: "1" },
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`taskpack ${args[0]} ended before it printed its URL`);
    line += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return {
    url: JSON.parse(line.split("\n")[0]!).url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}
