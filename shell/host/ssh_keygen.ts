// Copyright 2026 the taskpack authors. MIT license.
/**
 * Signing with the user's own OpenSSH: `ssh-keygen -Y sign -n taskpack -f <key>` with the
 * message on its standard input, so ssh-agent, passphrases and security keys work as they do
 * for git, and no private key is ever read by this process. Also where the key and the trust
 * list are, by the same rules as git:
 *
 * - the key: `--key <file>`, else git's `user.signingKey` when `gpg.format` is `ssh`, else
 *   `~/.ssh/id_ed25519`;
 * - the trust list: `--allowed-signers <file>`, else taskpack's own
 *   ({@linkcode defaultAllowedSignersFile}), else git's `gpg.ssh.allowedSignersFile`.
 *
 * @module
 */
import { env, homeFolder, platform } from "./host_process.ts";
import { createFile, makeTempFolder, readTextFile, rm, stat } from "./host_fs.ts";
import { join } from "./host_path.ts";

const deno = (globalThis as { Deno?: typeof Deno }).Deno;

/** What a program said and how it ended. */
interface ProgramResult {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

/** Runs a program (no shell), feeding `stdin`; null when the program is not installed. */
async function runProgram(
  program: string,
  args: readonly string[],
  stdin?: Uint8Array,
  onStderr?: (text: string) => void,
): Promise<ProgramResult | null> {
  const decoder = new TextDecoder();
  let stderr = "";
  const heard = (chunk: Uint8Array) => {
    const text = decoder.decode(chunk, { stream: true });
    stderr += text;
    onStderr?.(text);
  };
  if (deno) {
    let child: Deno.ChildProcess;
    try {
      child = new deno.Command(program, {
        args: [...args],
        stdin: stdin ? "piped" : "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      if (error instanceof deno.errors.NotFound) return null;
      throw error;
    }
    const writing = (async () => {
      if (!stdin) return;
      const writer = child.stdin.getWriter();
      try {
        await writer.write(stdin);
        await writer.close();
      } catch {
        // The program stopped reading (it failed early): what it says explains why.
      }
    })();
    const stdoutChunks: Uint8Array[] = [];
    const reading = (async () => {
      for await (const chunk of child.stdout) stdoutChunks.push(chunk);
    })();
    const listening = (async () => {
      for await (const chunk of child.stderr) heard(chunk);
    })();
    const [status] = await Promise.all([child.status, writing, reading, listening]);
    return { code: status.code, stdout: concat(stdoutChunks), stderr };
  }
  const { spawn } = await import("node:child_process");
  return await new Promise((resolve, reject) => {
    const child = spawn(program, [...args], { stdio: [stdin ? "pipe" : "ignore", "pipe", "pipe"] });
    const stdoutChunks: Uint8Array[] = [];
    child.stdout!.on("data", (chunk: Uint8Array) => stdoutChunks.push(chunk));
    child.stderr!.on("data", (chunk: Uint8Array) => heard(chunk));
    child.on("error", (error: { code?: string }) => {
      if (error.code === "ENOENT") resolve(null);
      else reject(error);
    });
    child.on("close", (code: number | null) => {
      resolve({ code: code ?? 1, stdout: concat(stdoutChunks), stderr });
    });
    if (stdin) {
      child.stdin!.on("error", () => {});
      child.stdin!.end(stdin);
    }
  });
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Signing could not be done; the message says what and where, in one sentence. */
export class SigningError extends Error {
  /** @param message What went wrong. */
  constructor(message: string) {
    super(message);
    this.name = "SigningError";
  }
}

/** A key to sign with, and where that choice came from. */
export interface SigningKey {
  /** The key file (private, or public with the private half in ssh-agent), or a key line. */
  readonly key: string;
  /** Where it was found: `--key`, `git config user.signingKey`, or `default`. */
  readonly from: string;
}

/** A `git config --get` value, or undefined (unset, or no git). */
async function gitConfig(name: string): Promise<string | undefined> {
  const result = await runProgram("git", ["config", "--get", name]).catch(() => null);
  if (!result || result.code !== 0) return undefined;
  const value = new TextDecoder().decode(result.stdout).trim();
  return value === "" ? undefined : value;
}

/** `~/x` against the home folder, as git and OpenSSH read it. */
function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homeFolder(), path.slice(2)) : path;
}

/**
 * The key to sign with: `flag` (`--key`), else git's `user.signingKey` when `gpg.format` is
 * `ssh`, else `~/.ssh/id_ed25519`.
 *
 * @param flag The `--key` option, when given.
 * @returns The key and where it came from.
 * @example Usage
 * ```ts
 * import { findSigningKey } from "./ssh_keygen.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(await findSigningKey("/keys/id_ed25519"), { key: "/keys/id_ed25519", from: "--key" });
 * ```
 */
export async function findSigningKey(flag?: string): Promise<SigningKey> {
  if (flag !== undefined) return { key: expandHome(flag), from: "--key" };
  if ((await gitConfig("gpg.format")) === "ssh") {
    const key = await gitConfig("user.signingKey");
    if (key !== undefined) {
      return {
        key: isKeyLiteral(key) ? key : expandHome(key),
        from: "git config user.signingKey",
      };
    }
  }
  return { key: join(homeFolder(), ".ssh", "id_ed25519"), from: "default" };
}

/** A key for a message: its path, or for a key line its type and the end of its base64. */
export function keyName(key: string): string {
  if (!isKeyLiteral(key)) return key;
  const [type, base64] = key.replace(/^key::/, "").split(/\s+/);
  return `the ${type} key ...${(base64 ?? "").slice(-12)}`;
}

/** git's `user.signingKey` may be the key itself: `key::ssh-ed25519 AAAA...` or `ssh-...`. */
function isKeyLiteral(value: string): boolean {
  return value.startsWith("key::") || /^(ssh-|ecdsa-|sk-)\S+ \S/.test(value);
}

/**
 * Signs `message` with the user's own `ssh-keygen -Y sign -n <namespace>`, the message on its
 * standard input. A key given as a key line (git's `key::ssh-ed25519 AAAA...`) is written to a
 * temporary public key file and signed with through ssh-agent (`-U`), as git does.
 *
 * @param message The message (for a pack: `packSignatureMessage(digest)`).
 * @param key The key file, or a key line.
 * @param options The namespace (default `taskpack`), and where to pass what `ssh-keygen` says
 *   while it works, as it comes (a prompt to touch a security key).
 * @returns The armored signature.
 * @throws {SigningError} When `ssh-keygen` is missing, or could not sign (its own words).
 * @example Usage
 * ```ts ignore
 * import { sshKeygenSign } from "./ssh_keygen.ts";
 * const sig = await sshKeygenSign(new TextEncoder().encode("hello\n"), "/home/ann/.ssh/id_ed25519");
 * ```
 */
export async function sshKeygenSign(
  message: Uint8Array,
  key: string,
  options: { namespace?: string; onMessage?: (text: string) => void } = {},
): Promise<string> {
  const namespace = options.namespace ?? "taskpack";
  let temp: string | undefined;
  let keyArgs = ["-f", key];
  if (isKeyLiteral(key)) {
    temp = await makeTempFolder(join(env("TMPDIR") || env("TEMP") || "/tmp", "taskpack-key-"));
    const file = join(temp, "key.pub");
    await createFile(file, new TextEncoder().encode(key.replace(/^key::/, "") + "\n"));
    keyArgs = ["-U", "-f", file];
  } else {
    try {
      await stat(key);
    } catch {
      throw new SigningError(
        `There is no key at ${key}: make one with ssh-keygen -t ed25519, or name one with --key`,
      );
    }
  }
  try {
    const result = await runProgram(
      "ssh-keygen",
      ["-Y", "sign", "-n", namespace, ...keyArgs],
      message,
      options.onMessage,
    );
    if (result === null) {
      throw new SigningError("ssh-keygen was not found: install OpenSSH to sign packs");
    }
    const armored = new TextDecoder().decode(result.stdout);
    if (result.code !== 0 || !armored.startsWith("-----BEGIN SSH SIGNATURE-----")) {
      const said = result.stderr.trim().split("\n").filter((l) => l.trim()).pop() ??
        `exit code ${result.code}`;
      throw new SigningError(`ssh-keygen could not sign with ${keyName(key)}: ${said}`);
    }
    return armored;
  } finally {
    if (temp) await rm(temp, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * taskpack's own trust list, by the same rules as its other per-user files:
 *
 * - Linux and other Unix: `$XDG_CONFIG_HOME/taskpack/allowed_signers` when `XDG_CONFIG_HOME` is
 *   an absolute path, else `~/.config/taskpack/allowed_signers`;
 * - macOS: `~/Library/Application Support/taskpack/allowed_signers`;
 * - Windows: `%APPDATA%\taskpack\allowed_signers`.
 *
 * @param vars The environment (`XDG_CONFIG_HOME`, `APPDATA`).
 * @param home The user's home folder.
 * @param os `process.platform`'s name for the system.
 * @returns The path.
 * @example Usage
 * ```ts
 * import { defaultAllowedSignersFile } from "./ssh_keygen.ts";
 * import assert from "node:assert/strict";
 * assert.equal(
 *   defaultAllowedSignersFile({}, "/home/ann", "linux"),
 *   "/home/ann/.config/taskpack/allowed_signers",
 * );
 * ```
 */
export function defaultAllowedSignersFile(
  vars: Record<string, string | undefined>,
  home: string,
  os: string,
): string {
  if (os === "win32") {
    const appData = vars.APPDATA || `${home}\\AppData\\Roaming`;
    return `${appData}\\taskpack\\allowed_signers`;
  }
  if (os === "darwin") return `${home}/Library/Application Support/taskpack/allowed_signers`;
  const xdg = vars.XDG_CONFIG_HOME;
  const base = xdg && xdg.startsWith("/") ? xdg : `${home}/.config`;
  return `${base}/taskpack/allowed_signers`;
}

/** A trust list found, its text, and where that choice came from. */
export interface AllowedSignersFile {
  /** Its path. */
  readonly path: string;
  /** Its text. */
  readonly text: string;
  /** `--allowed-signers`, `taskpack`'s own file, or `git config gpg.ssh.allowedSignersFile`. */
  readonly from: string;
}

/**
 * The trust list: `flag` (`--allowed-signers`, which must exist), else taskpack's own file when
 * it exists, else git's `gpg.ssh.allowedSignersFile`; null when there is none.
 *
 * @param flag The `--allowed-signers` option, when given.
 * @returns The file read, or null.
 * @example Usage
 * ```ts
 * import { findAllowedSigners } from "./ssh_keygen.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/signers`, "# nobody\n");
 * assert.equal((await findAllowedSigners(`${dir}/signers`))?.from, "--allowed-signers");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function findAllowedSigners(flag?: string): Promise<AllowedSignersFile | null> {
  if (flag !== undefined) {
    const path = expandHome(flag);
    return { path, text: await readTextFile(path), from: "--allowed-signers" };
  }
  const own = defaultAllowedSignersFile(
    { XDG_CONFIG_HOME: env("XDG_CONFIG_HOME"), APPDATA: env("APPDATA") },
    homeFolder(),
    platform,
  );
  const text = await readTextFile(own).catch((error) => {
    if ((error as { code?: string })?.code === "ENOENT") return null;
    throw error;
  });
  if (text !== null) return { path: own, text, from: "taskpack's own list" };
  const git = await gitConfig("gpg.ssh.allowedSignersFile");
  if (git === undefined) return null;
  const path = expandHome(git);
  return { path, text: await readTextFile(path), from: "git config gpg.ssh.allowedSignersFile" };
}
