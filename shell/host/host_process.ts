// Copyright 2026 the taskpack authors. MIT license.
/**
 * The process the CLI runs in: its arguments, environment, output and exit code, with Deno's
 * own calls where there is Deno and `node:process` elsewhere (Node, Bun). On Deno, loading its
 * Node layer costs about 0.05 s per process (see `host_fs.ts`).
 *
 * @module
 */
import { resolveFrom } from "./host_path.ts";

const deno = (globalThis as { Deno?: typeof Deno }).Deno;
const nodeProcess = deno ? undefined : (await import("node:process")).default;

/** Where text goes: standard output or standard error. */
export interface TextOut {
  /** Writes the text (UTF-8), all of it. */
  write(text: string): void;
  /** Whether it is a terminal (a person is watching). */
  readonly isTTY: boolean;
  /** The terminal's width in characters, when it is one and says. */
  readonly columns?: number | undefined;
}

const encoder = new TextEncoder();

// When the reader has gone (`taskpack inspect x | head -1`), what is left to say is dropped,
// as the standard tools do, and the command finishes its work: it never stops half-way, and
// no error about the pipe is printed.

function denoOut(file: typeof Deno.stdout): TextOut {
  let gone = false;
  return {
    write(text) {
      if (gone) return;
      const bytes = encoder.encode(text);
      let done = 0;
      try {
        while (done < bytes.length) done += file.writeSync(bytes.subarray(done));
      } catch (error) {
        if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
        gone = true;
      }
    },
    get isTTY() {
      return file.isTerminal();
    },
    get columns() {
      try {
        return file.isTerminal() ? Deno.consoleSize().columns : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

function nodeOut(
  stream: {
    write(text: string): unknown;
    on(event: "error", listener: (error: { code?: string }) => void): unknown;
    isTTY?: boolean;
    columns?: number;
  },
): TextOut {
  let gone = false;
  // Node reports a closed pipe as an event: without a listener it would end the process.
  stream.on("error", (error) => {
    if (error?.code !== "EPIPE") throw error;
    gone = true;
  });
  return {
    write: (text) => void (gone || stream.write(text)),
    get isTTY() {
      return stream.isTTY === true;
    },
    get columns() {
      return stream.columns;
    },
  };
}

/**
 * Standard output.
 *
 * @example Usage
 * ```ts
 * import { stdout } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.equal(typeof stdout.isTTY, "boolean");
 * ```
 */
export const stdout: TextOut = deno ? denoOut(deno.stdout) : nodeOut(nodeProcess!.stdout);

/**
 * Standard error.
 *
 * @example Usage
 * ```ts
 * import { stderr } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.equal(typeof stderr.isTTY, "boolean");
 * ```
 */
export const stderr: TextOut = deno ? denoOut(deno.stderr) : nodeOut(nodeProcess!.stderr);

/**
 * The arguments after the program's name.
 *
 * @returns The arguments.
 * @example Usage
 * ```ts
 * import { args } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.ok(Array.isArray(args()));
 * ```
 */
export function args(): string[] {
  return deno ? [...deno.args] : nodeProcess!.argv.slice(2);
}

/**
 * Ends the process with `code` once a command is done. On Deno it exits at once: its output is
 * written synchronously, and tearing down a heap that held thousands of files takes it tens of
 * milliseconds more. Elsewhere the code is set and the process ends when its output has
 * drained (an exit there could cut a pipe's last writes short).
 *
 * @param code The exit code.
 * @example Usage
 * ```ts ignore
 * import { endProcess } from "./host_process.ts";
 * endProcess(0);
 * ```
 */
export function endProcess(code: number): void {
  if (deno) deno.exit(code);
  else nodeProcess!.exitCode = code;
}

/**
 * An environment variable (undefined where it is not set or may not be read).
 *
 * @param name Its name.
 * @returns Its value.
 * @example Usage
 * ```ts
 * import { env } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.equal(env("TASKPACK_SURELY_UNSET_VARIABLE"), undefined);
 * ```
 */
export function env(name: string): string | undefined {
  if (!deno) return nodeProcess!.env[name];
  try {
    return deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * This process's id.
 *
 * @example Usage
 * ```ts
 * import { pid } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.ok(pid > 0);
 * ```
 */
export const pid: number = deno ? deno.pid : nodeProcess!.pid;

/**
 * The operating system, in Node's words: `linux`, `darwin`, `win32`, ...
 *
 * @example Usage
 * ```ts
 * import { platform } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.equal(typeof platform, "string");
 * ```
 */
export const platform: string = deno
  ? (deno.build.os === "windows" ? "win32" : deno.build.os)
  : nodeProcess!.platform;

/**
 * Whether a process with this id may be running on this machine: false only when it certainly
 * does not exist (one we may not signal exists).
 *
 * @param id The process id.
 * @returns False when there is no such process.
 * @example Usage
 * ```ts
 * import { isProcessRunning, pid } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.equal(await isProcessRunning(pid), true);
 * ```
 */
export async function isProcessRunning(id: number): Promise<boolean> {
  // Signal 0 asks without signalling; only node:process offers it, so it is loaded here, on the
  // rare path that needs it (a lock left by a process that may have died).
  const process = nodeProcess ?? (await import("node:process")).default;
  try {
    process.kill(id, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code !== "ESRCH";
  }
}

/**
 * A path made absolute against the current folder. (On Deno, `node:path`'s `resolve` of a
 * relative path loads the Node layer to ask for the current folder; this asks Deno.)
 *
 * @param path A path.
 * @returns The absolute, normalised path.
 * @example Usage
 * ```ts
 * import { absolutePath } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.equal(absolutePath("/a/b/../c"), "/a/c");
 * ```
 */
export function absolutePath(path: string): string {
  return resolveFrom(deno ? deno.cwd() : nodeProcess!.cwd(), path);
}

// On Deno the home folder and the user's name come from the environment where it has them (as
// Node's os.homedir() does for the home), the name else from /etc/passwd on Linux; node:os is
// loaded only where neither says (it asks the system's account database).
const account = deno && deno.build.os !== "windows"
  ? { home: env("HOME"), user: env("USER") || env("LOGNAME") || passwdName() }
  : undefined;
const nodeOs = account?.home && account.user ? undefined : await import("node:os");

/** This user's name in /etc/passwd, on Linux under Deno. */
function passwdName(): string | undefined {
  if (deno?.build.os !== "linux") return undefined;
  try {
    const uid = String(deno.uid());
    for (const line of deno.readTextFileSync("/etc/passwd").split("\n")) {
      const fields = line.split(":");
      if (fields[2] === uid && fields[0]) return fields[0];
    }
  } catch {
    // Unreadable: node:os asks the system instead.
  }
  return undefined;
}

/**
 * This machine's host name.
 *
 * @returns The host name.
 * @example Usage
 * ```ts
 * import { hostName } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.ok(hostName().length > 0);
 * ```
 */
export function hostName(): string {
  return deno ? deno.hostname() : nodeOs!.hostname();
}

/**
 * The user's home folder: `HOME` where it is set, else what the system says.
 *
 * @returns The folder.
 * @example Usage
 * ```ts
 * import { homeFolder } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.ok(homeFolder().length > 0);
 * ```
 */
export function homeFolder(): string {
  return nodeOs ? nodeOs.homedir() : account!.home!;
}

/**
 * The user's name: on Deno `USER` or `LOGNAME` where set, else the system's account name (as on
 * Node); empty when there is none.
 *
 * @returns The name.
 * @example Usage
 * ```ts
 * import { userName } from "./host_process.ts";
 * import assert from "node:assert/strict";
 * assert.equal(typeof userName(), "string");
 * ```
 */
export function userName(): string {
  if (!nodeOs) return account!.user!;
  try {
    return nodeOs.userInfo().username;
  } catch {
    return "";
  }
}
