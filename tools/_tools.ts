// Copyright 2026 the taskpack authors. MIT license.
/**
 * Shared helpers for the build and runtime-matrix tasks: running commands, `deno bundle`, and
 * the pinned tools they need (Bun, playwright-core and TypeScript from the npm registry,
 * Chromium from Debian), each installed on first use into a cache folder outside the
 * repository: `$TASKPACK_TOOLS_DIR`, else `$XDG_CACHE_HOME/taskpack-tools`, else
 * `~/.cache/taskpack-tools`.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The repository's root folder. */
export const ROOT: string = dirname(dirname(fileURLToPath(import.meta.url)));

/** The tools fetched from the npm registry, pinned. */
export const PINNED = {
  bun: "1.4.5",
  "playwright-core": "1.65.1",
  typescript: "6.0.3",
} as const;

/** Where Debian puts Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** The flags Chromium runs with: headless, and quiet on the network. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** What a finished command said. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options for {@linkcode run}. */
export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Replace the environment instead of adding to it. */
  clearEnv?: boolean;
  /** Pass output through to this process's terminal instead of capturing it. */
  inherit?: boolean;
  /** Kill the command after this many milliseconds. */
  timeoutMs?: number;
}

/**
 * Runs a command to completion.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param options Folder, environment, output handling.
 * @returns Exit code and captured output.
 */
export async function run(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const output = await new Deno.Command(command, {
    args: [...args],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    clearEnv: options.clearEnv ?? false,
    ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
    stdin: "null",
    stdout: options.inherit ? "inherit" : "piped",
    stderr: options.inherit ? "inherit" : "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: options.inherit ? "" : decoder.decode(output.stdout),
    stderr: options.inherit ? "" : decoder.decode(output.stderr),
  };
}

/**
 * Runs a command and throws when it fails.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param options Folder, environment, output handling.
 * @returns Its output.
 */
export async function runOk(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `Cannot run ${command} ${
        args.join(" ")
      }: exit ${result.code}\n${result.stderr}${result.stdout}`
        .trimEnd(),
    );
  }
  return result;
}

/** What a bundle of the library leaves out: the CLI, which `mod.ts` loads only as a program. */
export const LIBRARY_EXTERNAL = "./cli.ts";

/**
 * Bundles one entry point with `deno bundle` (esbuild inside Deno).
 *
 * @param entry The entry file, relative to the repository.
 * @param output The output file (absolute); with `split`, the output folder.
 * @param options Platform, format, minification; `split` puts each dynamic import in a chunk
 * of its own, loaded only when that import runs.
 */
export async function bundle(
  entry: string,
  output: string,
  options: {
    platform: "browser" | "deno";
    format: "esm" | "iife";
    minify?: boolean;
    split?: boolean;
  },
): Promise<void> {
  await mkdir(options.split ? output : dirname(output), { recursive: true });
  await runOk(Deno.execPath(), [
    "bundle",
    "--quiet",
    `--platform=${options.platform}`,
    `--format=${options.format}`,
    ...(options.minify ? ["--minify"] : []),
    ...(options.split ? ["--code-splitting", "--outdir", output] : ["--output", output]),
    // The library starts the CLI only when run as a program: its bundles leave the CLI out.
    ...(entry === "cli.ts" ? [] : [`--external=${LIBRARY_EXTERNAL}`]),
    join(ROOT, entry),
  ], { cwd: ROOT });
}

/**
 * The size of bytes after gzip at level 9.
 *
 * @param bytes The bytes.
 * @returns The compressed size.
 */
export function gzipSize(bytes: Uint8Array): number {
  return gzipSync(bytes, { level: 9 }).length;
}

/**
 * Formats a byte count for people: `36.2 KiB (37,043 bytes)`.
 *
 * @param n The byte count.
 * @returns The text.
 */
export function formatSize(n: number): string {
  return `${(n / 1024).toFixed(1)} KiB (${n.toLocaleString("en-US")} bytes)`;
}

/** The cache folder for the pinned tools. */
export function toolsDir(): string {
  const explicit = Deno.env.get("TASKPACK_TOOLS_DIR");
  if (explicit) return explicit;
  const cache = Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(cache, "taskpack-tools");
}

/**
 * Installs a pinned npm tool into its own folder of the cache (once) and returns that folder:
 * the package is at `<folder>/node_modules/<name>`, its programs in `<folder>/node_modules/.bin`.
 *
 * @param name The package.
 * @param log Told when an install starts.
 * @returns The folder.
 */
export async function npmTool(
  name: keyof typeof PINNED,
  log: (line: string) => void = () => {},
): Promise<string> {
  const version = PINNED[name];
  const folder = join(toolsDir(), `${name}@${version}`);
  const manifest = join(folder, "node_modules", name, "package.json");
  if (existsSync(manifest)) {
    const installed = JSON.parse(await readFile(manifest, "utf8")).version;
    if (installed === version) return folder;
  }
  log(`installing ${name}@${version} from the npm registry into ${folder}`);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, "package.json"), '{ "private": true }\n');
  await runOk("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--save-exact",
    "--loglevel=error",
    `${name}@${version}`,
  ], { cwd: folder });
  return folder;
}

/**
 * The Bun executable, installed from the npm registry (pinned) when missing.
 *
 * @param log Told when an install starts.
 * @returns Its path.
 */
export async function ensureBun(log: (line: string) => void = () => {}): Promise<string> {
  const folder = await npmTool("bun", log);
  const bun = join(folder, "node_modules", ".bin", "bun");
  const version = await run(bun, ["--version"]).catch(() => null);
  if (version?.code !== 0 || version.stdout.trim() !== PINNED.bun) {
    // npm may have skipped the package's install script, which puts the binary in place.
    await runOk("node", ["install.js"], { cwd: join(folder, "node_modules", "bun") });
    const again = await runOk(bun, ["--version"]);
    if (again.stdout.trim() !== PINNED.bun) {
      throw new Error(`Cannot use Bun: expected ${PINNED.bun}, got ${again.stdout.trim()}`);
    }
  }
  return bun;
}

/**
 * Debian's Chromium, installed with apt when missing (as root, or through passwordless sudo).
 *
 * @param log Told when an install starts.
 * @returns Its path.
 */
export async function ensureChromium(log: (line: string) => void = () => {}): Promise<string> {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  log("installing chromium from Debian (apt-get)");
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  const asRoot = Deno.uid() === 0;
  if (!asRoot && (await run("sudo", ["-n", "true"]).catch(() => null))?.code !== 0) {
    throw new Error(
      "Cannot install Chromium: not root and no passwordless sudo; run `apt-get install chromium`",
    );
  }
  const apt = (args: string[]) =>
    asRoot ? runOk("apt-get", args, { env }) : runOk("sudo", ["-n", "apt-get", ...args], { env });
  await apt(["update", "-qq"]);
  await apt(["install", "-y", "-qq", "chromium"]);
  if (!existsSync(CHROMIUM)) throw new Error(`Cannot find Chromium at ${CHROMIUM} after install`);
  return CHROMIUM;
}

/**
 * The version of deno.json, which every build carries.
 *
 * @returns The version.
 */
export async function packageVersion(): Promise<string> {
  return JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8")).version;
}

/**
 * A PATH on which every program of `path` can be found but `program`: a fresh folder of links,
 * one to each program, the first of each name as PATH would find it. Dropping the folders that
 * hold `program` is not enough: where it shares `/usr/bin` with `sh` and `node` (as
 * `npm install -g deno` leaves it on Debian), they would be gone too.
 *
 * @param program The program to leave out (`deno`; `deno.exe` is left out with it).
 * @param folder An empty folder to hold the links.
 * @param path The PATH to start from.
 * @returns The new PATH: `folder` alone.
 */
export async function pathWithout(program: string, folder: string, path: string): Promise<string> {
  const { readdir, stat, symlink } = await import("node:fs/promises");
  const { delimiter } = await import("node:path");
  const linked = new Set([program, `${program}.exe`]);
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (linked.has(name)) continue;
      const target = join(dir, name);
      const info = await stat(target).catch(() => null);
      if (!info?.isFile() || (info.mode & 0o111) === 0) continue;
      linked.add(name);
      await symlink(target, join(folder, name));
    }
  }
  return folder;
}
