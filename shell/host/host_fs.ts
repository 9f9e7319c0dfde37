// Copyright 2026 the taskpack authors. MIT license.
/**
 * The asynchronous file calls the shells make, with Deno's own calls where there is Deno and
 * `node:fs/promises` elsewhere (Node, Bun). On Deno, loading its Node layer (`node:fs`,
 * `node:process`, `node:crypto`, `node:zlib`, which share one set-up) costs about 0.05 s per
 * process, a third of a small command; with these, a command that needs nothing else from that
 * layer never loads it.
 *
 * Errors carry what a `node:fs` error carries and what the CLI's messages read: a `code`
 * (`ENOENT`, `EEXIST`, ...) and the `path`.
 *
 * @module
 */

const deno = (globalThis as { Deno?: typeof Deno }).Deno;
const nodeFs = deno ? undefined : await import("node:fs/promises");

/** What `stat` and `lstat` say about a path. */
export interface PathInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
  size: number;
  /** Last modification, in milliseconds since the epoch (0 where the system does not say). */
  mtimeMs: number;
}

/** A file opened by {@linkcode open}. */
export interface FileHandle {
  /** Writes all of `bytes` at the current position. */
  write(bytes: Uint8Array): Promise<void>;
  /** Flushes the file (or folder) to the disk. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

const DENO_CODES: Record<string, string> = {
  NotFound: "ENOENT",
  PermissionDenied: "EACCES",
  AlreadyExists: "EEXIST",
  IsADirectory: "EISDIR",
  NotADirectory: "ENOTDIR",
  DirectoryNotEmpty: "ENOTEMPTY",
};

/**
 * Gives an error the `code` and `path` a `node:fs` error has (Deno's name them differently or
 * not at all), for the CLI's messages.
 *
 * @param error What was thrown.
 * @param path The path the call was about.
 * @returns The same error, with `code` and `path` set where they were missing.
 * @example Usage
 * ```ts
 * import { withPath } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const error = withPath(Object.assign(new Error("gone"), { name: "NotFound" }), "/x");
 * assert.equal((error as { code: string }).code, "ENOENT");
 * assert.equal((error as { path: string }).path, "/x");
 * ```
 */
export function withPath(error: unknown, path: string): unknown {
  if (error && typeof error === "object") {
    const e = error as { code?: string; path?: string; name?: string };
    if (e.code === undefined) {
      const code = DENO_CODES[e.name ?? ""];
      if (code) e.code = code;
    }
    if (e.path === undefined) e.path = path;
  }
  return error;
}

async function attempt<T>(path: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw withPath(error, path);
  }
}

/**
 * Reads a whole file.
 *
 * @param path The file.
 * @returns Its bytes.
 * @example Usage
 * ```ts
 * import { readFile } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(readFile("/no/such/file"), { code: "ENOENT" });
 * ```
 */
export function readFile(path: string): Promise<Uint8Array> {
  if (deno) return attempt(path, () => deno.readFile(path));
  return nodeFs!.readFile(path).then((b) => new Uint8Array(b.buffer, b.byteOffset, b.length));
}

/**
 * Reads a whole file as UTF-8 text.
 *
 * @param path The file.
 * @returns Its text.
 * @example Usage
 * ```ts
 * import { readTextFile } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(readTextFile("/no/such/file"), { code: "ENOENT" });
 * ```
 */
export function readTextFile(path: string): Promise<string> {
  if (deno) return attempt(path, () => deno.readTextFile(path));
  return nodeFs!.readFile(path, "utf8");
}

/**
 * Creates a new file holding `bytes`; fails with `EEXIST` if there is one (never writes through
 * a symbolic link at `path`).
 *
 * @param path The file to create; its folder must exist.
 * @param bytes The content.
 * @example Usage
 * ```ts
 * import { readFile, rm, createFile } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/a.txt`;
 * await createFile(path, new Uint8Array([1, 2]));
 * assert.deepEqual(await readFile(path), new Uint8Array([1, 2]));
 * await assert.rejects(createFile(path, new Uint8Array(0)), { code: "EEXIST" });
 * await rm(dir, { recursive: true });
 * ```
 */
export function createFile(path: string, bytes: Uint8Array): Promise<void> {
  if (deno) return attempt(path, () => deno.writeFile(path, bytes, { createNew: true }));
  return nodeFs!.writeFile(path, bytes, { flag: "wx" });
}

/**
 * Creates a folder (and, with `recursive`, its missing parents; an existing folder is then no
 * error).
 *
 * @param path The folder.
 * @param options `recursive`, and the `mode` of what is created.
 * @example Usage
 * ```ts
 * import { mkdir, rm, stat } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/a/b`;
 * await mkdir(path, { recursive: true });
 * assert.ok((await stat(path)).isDirectory);
 * await rm(dir, { recursive: true });
 * ```
 */
export async function mkdir(
  path: string,
  options: { recursive?: boolean; mode?: number } = {},
): Promise<void> {
  if (deno) return await attempt(path, () => deno.mkdir(path, options));
  await nodeFs!.mkdir(path, options);
}

/**
 * Creates a new folder with a unique name that starts with `prefix`.
 *
 * @param prefix A path: the new folder is `prefix` followed by a few random characters.
 * @returns The folder's path.
 * @example Usage
 * ```ts
 * import { makeTempFolder, rm, stat } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const base = await Deno.makeTempDir();
 * const made = await makeTempFolder(`${base}/.work-`);
 * assert.ok(made.startsWith(`${base}/.work-`));
 * assert.ok((await stat(made)).isDirectory);
 * await rm(base, { recursive: true });
 * ```
 */
export function makeTempFolder(prefix: string): Promise<string> {
  if (deno) {
    const slash = Math.max(prefix.lastIndexOf("/"), prefix.lastIndexOf("\\"));
    const dir = slash < 0 ? "." : prefix.slice(0, slash) || "/";
    return attempt(dir, () => deno.makeTempDir({ dir, prefix: prefix.slice(slash + 1) }));
  }
  return nodeFs!.mkdtemp(prefix);
}

/**
 * Renames a file or folder, replacing a file at `to`.
 *
 * @param from The current path.
 * @param to The new path.
 * @example Usage
 * ```ts
 * import { createFile, readFile, rename, rm } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * await createFile(`${dir}/a`, new Uint8Array([7]));
 * await rename(`${dir}/a`, `${dir}/b`);
 * assert.deepEqual(await readFile(`${dir}/b`), new Uint8Array([7]));
 * await rm(dir, { recursive: true });
 * ```
 */
export function rename(from: string, to: string): Promise<void> {
  if (deno) return attempt(from, () => deno.rename(from, to));
  return nodeFs!.rename(from, to);
}

/**
 * Removes a file or folder: a folder and what it holds with `recursive`; nothing there is no
 * error with `force`.
 *
 * @param path What to remove.
 * @param options `recursive` and `force`, as `rm -rf` has them.
 * @example Usage
 * ```ts
 * import { rm } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * await rm("/no/such/path", { force: true });
 * await assert.rejects(rm("/no/such/path"), { code: "ENOENT" });
 * ```
 */
export async function rm(
  path: string,
  options: { recursive?: boolean; force?: boolean } = {},
): Promise<void> {
  if (!deno) return await nodeFs!.rm(path, options);
  try {
    await deno.remove(path, { recursive: options.recursive ?? false });
  } catch (error) {
    if (options.force && error instanceof deno.errors.NotFound) return;
    throw withPath(error, path);
  }
}

/**
 * Removes a folder only if it is empty (`rmdir`): a folder that holds anything is left, with an
 * error.
 *
 * @param path The folder.
 * @example Usage
 * ```ts
 * import { removeEmptyFolder } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.txt`, "a");
 * await assert.rejects(removeEmptyFolder(dir));
 * await Deno.remove(`${dir}/a.txt`);
 * await removeEmptyFolder(dir);
 * await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
 * ```
 */
export function removeEmptyFolder(path: string): Promise<void> {
  if (deno) return attempt(path, () => deno.remove(path));
  return nodeFs!.rmdir(path);
}

/**
 * Removes a file.
 *
 * @param path The file.
 * @example Usage
 * ```ts
 * import { unlink } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(unlink("/no/such/file"), { code: "ENOENT" });
 * ```
 */
export function unlink(path: string): Promise<void> {
  if (deno) return attempt(path, () => deno.remove(path));
  return nodeFs!.unlink(path);
}

/**
 * Makes `to` a hard link to `from`; fails with `EEXIST` if `to` exists.
 *
 * @param from The existing file.
 * @param to The new name.
 * @example Usage
 * ```ts
 * import { link, readFile, createFile } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * await createFile(`${dir}/a`, new Uint8Array([1]));
 * await link(`${dir}/a`, `${dir}/b`);
 * assert.deepEqual(await readFile(`${dir}/b`), new Uint8Array([1]));
 * await assert.rejects(link(`${dir}/a`, `${dir}/b`), { code: "EEXIST" });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function link(from: string, to: string): Promise<void> {
  if (deno) return attempt(to, () => deno.link(from, to));
  return nodeFs!.link(from, to);
}

function denoInfo(info: Deno.FileInfo): PathInfo {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? 0,
  };
}

function nodeInfo(info: import("node:fs").Stats): PathInfo {
  return {
    isFile: info.isFile(),
    isDirectory: info.isDirectory(),
    isSymlink: info.isSymbolicLink(),
    size: info.size,
    mtimeMs: info.mtimeMs,
  };
}

/**
 * What a path is, following symbolic links.
 *
 * @param path The path.
 * @returns Its kind, size and modification time.
 * @example Usage
 * ```ts
 * import { stat } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * assert.ok((await stat(".")).isDirectory);
 * ```
 */
export async function stat(path: string): Promise<PathInfo> {
  if (deno) return denoInfo(await attempt(path, () => deno.stat(path)));
  return nodeInfo(await nodeFs!.stat(path));
}

/**
 * What a path is, not following a symbolic link at it.
 *
 * @param path The path.
 * @returns Its kind, size and modification time.
 * @example Usage
 * ```ts
 * import { lstat } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * await assert.rejects(lstat("/no/such/path"), { code: "ENOENT" });
 * ```
 */
export async function lstat(path: string): Promise<PathInfo> {
  if (deno) return denoInfo(await attempt(path, () => deno.lstat(path)));
  return nodeInfo(await nodeFs!.lstat(path));
}

/**
 * The names in a folder, in no particular order.
 *
 * @param path The folder.
 * @returns The names of its entries.
 * @example Usage
 * ```ts
 * import { readdir, createFile } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * await createFile(`${dir}/a`, new Uint8Array(0));
 * assert.deepEqual(await readdir(dir), ["a"]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readdir(path: string): Promise<string[]> {
  if (!deno) return await nodeFs!.readdir(path);
  const names: string[] = [];
  try {
    for await (const entry of deno.readDir(path)) names.push(entry.name);
  } catch (error) {
    throw withPath(error, path);
  }
  return names;
}

/**
 * Opens a file: `"wx"` creates a new one for writing (failing with `EEXIST` if there is one),
 * `"r"` opens a file or folder for reading (a folder only to be synced).
 *
 * @param path The file.
 * @param flags `"wx"` or `"r"`.
 * @param mode The permissions of a file created.
 * @returns The open file.
 * @example Usage
 * ```ts
 * import { open, readFile } from "./host_fs.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/a`;
 * const file = await open(path, "wx");
 * await file.write(new Uint8Array([1, 2, 3]));
 * await file.sync();
 * await file.close();
 * assert.deepEqual(await readFile(path), new Uint8Array([1, 2, 3]));
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function open(path: string, flags: "wx" | "r", mode?: number): Promise<FileHandle> {
  if (deno) {
    const file = await attempt(
      path,
      () =>
        deno.open(
          path,
          flags === "wx"
            ? { write: true, createNew: true, ...(mode === undefined ? {} : { mode }) }
            : { read: true },
        ),
    );
    return {
      async write(bytes) {
        let done = 0;
        while (done < bytes.length) done += await file.write(bytes.subarray(done));
      },
      sync: () => file.sync(),
      close: () => Promise.resolve(file.close()),
    };
  }
  const handle = await nodeFs!.open(path, flags, mode);
  return {
    async write(bytes) {
      let done = 0;
      while (done < bytes.length) {
        done += (await handle.write(bytes, done, bytes.length - done)).bytesWritten;
      }
    },
    sync: () => handle.sync(),
    close: () => handle.close(),
  };
}
