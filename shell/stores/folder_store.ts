// Copyright 2026 the taskpack authors. MIT license.
/**
 * The embedded passport store: a folder of passports, one human-readable, diff-friendly JSON
 * file each (`TP-XXXX-XXXX.json`, canonical two-space JSON with a final LF). No server, no
 * database; several processes may share one folder. Uses `node:` modules so it runs unchanged
 * on Deno, Node and Bun.
 *
 * How a checkpoint is written (`create` and `save`):
 *
 * 1. Take the passport's lock: `.<id>.lock`, created with O_EXCL and holding the pid, host,
 *    time and a random token. A busy lock is retried with a short, jittered backoff up to
 *    `lockTimeoutMs`. A lock is stale when its holder's pid is dead on this host, or when it is
 *    older than `staleLockMs`; a stale lock is renamed away (atomic: of several breakers only
 *    one rename takes that file) and checked to be the very lock that was judged stale before
 *    it is removed.
 * 2. Under the lock, read the stored version and compare it with the expected one; a mismatch
 *    is a {@linkcode StoreConflictError} and nothing is written.
 * 3. Write the new state to a temporary dot-file in the same folder, fsync it, check the lock
 *    is still ours, rename it over `<id>.json`, and fsync the folder where the platform allows.
 *    A writer killed at any point leaves either the old file or the new one, never a mix.
 * 4. Release the lock (in `finally`, and only if it still holds our token).
 *
 * Every name that starts with a dot (locks, temporary files, `.git`) is ignored by listing.
 * Temporary files and broken-lock leftovers of killed writers are removed opportunistically
 * once they are older than `staleLockMs`.
 *
 * @module
 */
import { join, posixJoin, windowsJoin } from "../host/host_path.ts";
import {
  type FileHandle,
  link,
  mkdir,
  open,
  readdir,
  readFile,
  readTextFile,
  rename,
  rm,
  stat,
  unlink,
} from "../host/host_fs.ts";
import { hostName, isProcessRunning, pid, platform } from "../host/host_process.ts";
import { isPlainObject, parseJsonStrict } from "../../lib/bytes/mod.ts";
import {
  checkExpectedVersion,
  checkImportVersion,
  checkPassportId,
  checkPassportState,
  encodePassportState,
  messageOf,
  type PassportStore,
  StoreConflictError,
  type StoreListing,
  summarise,
} from "../../lib/home/mod.ts";
import { isPassportId, type PassportState } from "../../lib/format/mod.ts";

export type { PassportStore, PassportSummary, StoreListing } from "../../lib/home/mod.ts";

/** Options for {@linkcode FolderStore}. */
export interface FolderStoreOptions {
  /** How long a write waits for a busy passport before giving up. Default 10 000 ms. */
  lockTimeoutMs?: number;
  /**
   * A lock older than this is broken even if its holder looks alive; temporary files older
   * than this are cleaned up. Default 30 000 ms.
   */
  staleLockMs?: number;
}

/** A write gave up waiting for another process that holds the passport's lock. */
export class StoreLockTimeoutError extends Error {
  /** The passport. */
  readonly id: string;
  /** The lock file. */
  readonly lockPath: string;

  /**
   * Creates the error.
   *
   * @param id The passport.
   * @param lockPath The lock file.
   * @param waitedMs How long the writer waited.
   * @param holder Who holds the lock, as far as the lock file says.
   */
  constructor(id: string, lockPath: string, waitedMs: number, holder: string) {
    super(
      `Cannot save ${id}: the passport is locked by ${holder} and stayed locked for ` +
        `${
          Math.round(waitedMs)
        } ms; try again, or if no taskpack process is running, delete ${lockPath}`,
    );
    this.name = "StoreLockTimeoutError";
    this.id = id;
    this.lockPath = lockPath;
  }
}

/** A passport file that exists but cannot be read as a passport. */
export class PassportFileError extends Error {
  /** The file. */
  readonly path: string;
  /** What is wrong with it. */
  readonly reason: string;

  /**
   * Creates the error.
   *
   * @param path The file.
   * @param reason What is wrong with it.
   */
  constructor(path: string, reason: string) {
    super(`Cannot read passport file ${path}: ${reason}`);
    this.name = "PassportFileError";
    this.path = path;
    this.reason = reason;
  }
}

const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
const DEFAULT_STALE_LOCK_MS = 30_000;
/**
 * A lock file with no readable content is a writer between creating and filling it (a few
 * microseconds), or a writer killed right there: after this long it is judged stale.
 */
const UNFILLED_LOCK_MS = 1_000;
const FIRST_BACKOFF_MS = 1;
const MAX_BACKOFF_MS = 50;
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;
const TEMP_SUFFIX = ".tmp";
const BROKEN_SUFFIX = ".broken";
const RENAME_RETRIES = 10;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** What a lock file says (as far as it could be read). */
interface LockInfo {
  pid: number | null;
  host: string | null;
  time: number | null;
  token: string | null;
  /** The raw text, to recognise the same lock again. */
  raw: string;
}

/** What the reader found at a passport's path. */
type Stored =
  | { kind: "missing" }
  | { kind: "state"; state: PassportState };

/**
 * A {@linkcode PassportStore} in a folder: one `TP-XXXX-XXXX.json` file per passport. The
 * folder is created on the first write, never by reading.
 *
 * @example Usage
 * ```ts
 * import { FolderStore } from "./folder_store.ts";
 * import { StoreConflictError } from "../../lib/home/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const store = new FolderStore(`${dir}/passports`);
 * const created = await store.create({ id: "TP-AAAA-BBBB", version: 0, title: "t" });
 * assert.equal(created.version, 1);
 * const saved = await store.save({ ...created, goal: "g" }, 1);
 * assert.equal(saved.version, 2);
 * await assert.rejects(store.save({ ...created, goal: "stale" }, 1), StoreConflictError);
 * assert.equal((await store.list()).passports[0]!.version, 2);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class FolderStore implements PassportStore {
  /** The folder. */
  readonly dir: string;
  readonly #lockTimeoutMs: number;
  readonly #staleLockMs: number;
  readonly #host: string;

  /**
   * A store in `dir`. Nothing is touched until the first call.
   *
   * @param dir The folder of passports (created on the first write).
   * @param options Lock timeouts.
   */
  constructor(dir: string, options: FolderStoreOptions = {}) {
    if (typeof dir !== "string" || dir === "") {
      throw new TypeError("Cannot open the passport store: the folder name is empty");
    }
    this.dir = dir;
    this.#lockTimeoutMs = nonNegative(
      options.lockTimeoutMs,
      DEFAULT_LOCK_TIMEOUT_MS,
      "lockTimeoutMs",
    );
    this.#staleLockMs = nonNegative(options.staleLockMs, DEFAULT_STALE_LOCK_MS, "staleLockMs");
    this.#host = hostName();
  }

  /**
   * The file that holds a passport.
   *
   * @param id A passport id (`TP-XXXX-XXXX`).
   * @returns `<dir>/<id>.json`.
   * @throws {TypeError} When `id` is not a passport id (so no other path is ever touched).
   */
  pathOf(id: string): string {
    return join(this.dir, `${checkPassportId(id)}.json`);
  }

  /** Lists the passports, sorted by id; stray and broken entries are reported, not thrown. */
  async list(): Promise<StoreListing> {
    let entries: string[];
    try {
      entries = await readdir(this.dir);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return { passports: [], problems: [] };
      throw new Error(`Cannot list the passport store ${this.dir}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    const listing: StoreListing = { passports: [], problems: [] };
    for (const entry of entries.sort()) {
      if (entry.startsWith(".")) {
        await this.#cleanLeftover(entry);
        continue;
      }
      // Luggage landed with a passport lives beside it, in `<id>.files/`.
      if (entry.endsWith(".files") && isPassportId(entry.slice(0, -".files".length))) continue;
      if (!entry.endsWith(".json")) {
        listing.problems.push({
          entry,
          reason: "not a passport file (passport files are named TP-XXXX-XXXX.json)",
        });
        continue;
      }
      const id = entry.slice(0, -".json".length);
      if (!isPassportId(id)) {
        listing.problems.push({ entry, reason: "the name is not a passport id (TP-XXXX-XXXX)" });
        continue;
      }
      try {
        const stored = await this.#read(id);
        if (stored.kind === "state") listing.passports.push(summarise(stored.state));
      } catch (error) {
        listing.problems.push({
          entry,
          reason: error instanceof PassportFileError ? error.reason : messageOf(error),
        });
      }
    }
    listing.passports.sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return listing;
  }

  /**
   * The current state of a passport.
   *
   * @param id A passport id.
   * @returns The state, or null when the store holds no such passport.
   * @throws {TypeError} When `id` is not a passport id.
   * @throws {PassportFileError} When the file exists but is not a readable passport.
   */
  async open(id: string): Promise<PassportState | null> {
    const stored = await this.#read(checkPassportId(id));
    return stored.kind === "state" ? stored.state : null;
  }

  /**
   * Saves a new passport as version 1.
   *
   * @param state The passport; its `version` is ignored.
   * @returns The saved state (a copy), version 1.
   * @throws {StoreConflictError} When a passport with that id exists.
   */
  async create(state: PassportState): Promise<PassportState> {
    const id = checkPassportState(state);
    return await this.#insert(id, { ...structuredClone(state), version: 1 });
  }

  /**
   * Saves a checkpoint over `expectedVersion`.
   *
   * @param state The passport.
   * @param expectedVersion The version that was read.
   * @returns The saved state (a copy), version `expectedVersion + 1`.
   * @throws {StoreConflictError} When the store holds another version, or no such passport.
   */
  async save(state: PassportState, expectedVersion: number): Promise<PassportState> {
    const id = checkPassportState(state);
    checkExpectedVersion(id, expectedVersion);
    const saved = { ...structuredClone(state), version: expectedVersion + 1 };
    const text = encodePassportState(saved);
    // No folder means no passport: a conflict, and nothing is created.
    const noFolder = () => new StoreConflictError(id, expectedVersion, null);
    return await this.#withLock(id, noFolder, async (token) => {
      const stored = await this.#read(id);
      const actual = stored.kind === "state" ? stored.state.version : null;
      if (actual !== expectedVersion) throw new StoreConflictError(id, expectedVersion, actual);
      await this.#commit(id, text, token);
      return saved;
    });
  }

  /**
   * Saves a passport at the version it carries, only when the store holds no passport with
   * that id (how `taskpack migrate` keeps versions).
   *
   * @param state The passport; its `version` (a whole number, at least 1) is kept.
   * @returns The saved state (a copy).
   * @throws {StoreConflictError} When a passport with that id exists.
   */
  async importState(state: PassportState): Promise<PassportState> {
    const id = checkPassportState(state);
    checkImportVersion(id, state.version);
    return await this.#insert(id, structuredClone(state));
  }

  /** Writes a passport the store must not hold yet (the folder is made if it is missing). */
  async #insert(id: string, saved: PassportState): Promise<PassportState> {
    const text = encodePassportState(saved);
    await mkdir(this.dir, { recursive: true, mode: FOLDER_MODE });
    return await this.#withLock(id, null, async (token) => {
      const stored = await this.#read(id);
      if (stored.kind === "state") throw new StoreConflictError(id, 0, stored.state.version);
      await this.#commit(id, text, token);
      return saved;
    });
  }

  /** Reads and checks one passport file. */
  async #read(id: string): Promise<Stored> {
    const path = join(this.dir, `${id}.json`);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch (error) {
      const code = codeOf(error);
      if (code === "ENOENT") return { kind: "missing" };
      if (code === "EISDIR") throw new PassportFileError(path, "it is a folder, not a file");
      throw new PassportFileError(path, messageOf(error));
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new PassportFileError(path, "it is not UTF-8 text");
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let value: unknown;
    try {
      value = parseJsonStrict(text, { where: `${id}.json` });
    } catch (error) {
      throw new PassportFileError(path, messageOf(error).replace(/^Cannot read taskpack: /, ""));
    }
    if (!isPlainObject(value)) throw new PassportFileError(path, "it is not a JSON object");
    if (value.id !== id) {
      throw new PassportFileError(
        path,
        typeof value.id === "string"
          ? `its id is ${JSON.stringify(value.id).slice(0, 40)}, not ${id} as its name says`
          : "it has no string id",
      );
    }
    const version = value.version;
    if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
      throw new PassportFileError(path, "its version is not a whole number of at least 1");
    }
    return { kind: "state", state: value as PassportState };
  }

  /** Writes `text` as `<id>.json`: temporary file, fsync, lock check, rename, folder fsync. */
  async #commit(id: string, text: string, token: string): Promise<void> {
    const target = join(this.dir, `${id}.json`);
    const temp = join(this.dir, `.${id}.json.${pid}-${randomHex(6)}${TEMP_SUFFIX}`);
    let renamed = false;
    try {
      const handle = await open(temp, "wx", FILE_MODE);
      try {
        await handle.write(new TextEncoder().encode(text));
        await handle.sync();
      } finally {
        await handle.close();
      }
      // A holder that stalled past `staleLockMs` may have lost its lock to another writer:
      // committing now could overwrite that writer's checkpoint, so refuse instead.
      const lock = await this.#readLock(id);
      if (lock?.token !== token) {
        throw new Error(
          `Cannot save ${id}: this writer took longer than ${this.#staleLockMs} ms and its lock ` +
            `was broken by another process; nothing was written, reopen the passport and try again`,
        );
      }
      await renameWithRetry(temp, target);
      renamed = true;
      await syncFolder(this.dir);
    } finally {
      if (!renamed) await rm(temp, { force: true }).catch(() => {});
    }
  }

  /**
   * Runs `body` while holding the passport's lock. A missing folder is created, or when
   * `noFolder` is given, that error is thrown instead.
   */
  async #withLock<T>(
    id: string,
    noFolder: (() => Error) | null,
    body: (token: string) => Promise<T>,
  ): Promise<T> {
    const { token, brokeStale } = await this.#acquire(id, noFolder);
    try {
      // A broken lock means a writer died: its temporary file may be lying about.
      if (brokeStale) await this.#cleanLeftoversOf(id);
      return await body(token);
    } finally {
      await this.#release(id, token);
    }
  }

  #lockPath(id: string): string {
    return join(this.dir, `.${id}.lock`);
  }

  /** Takes the lock, breaking a stale one; returns our token and whether a lock was broken. */
  async #acquire(
    id: string,
    noFolder: (() => Error) | null,
  ): Promise<{ token: string; brokeStale: boolean }> {
    const lockPath = this.#lockPath(id);
    const token = randomHex(16);
    const started = Date.now();
    let backoff = FIRST_BACKOFF_MS;
    let holder = "another process";
    let brokeStale = false;
    for (;;) {
      let handle: FileHandle | null = null;
      try {
        handle = await open(lockPath, "wx", FILE_MODE);
      } catch (error) {
        const code = codeOf(error);
        if (code === "ENOENT") {
          // No folder: there is no passport either. `save` reports that as a conflict.
          if (noFolder) throw noFolder();
          await mkdir(this.dir, { recursive: true, mode: FOLDER_MODE });
          continue;
        }
        if (code !== "EEXIST") {
          throw new Error(`Cannot lock ${id} in ${this.dir}: ${messageOf(error)}`, {
            cause: error,
          });
        }
      }
      if (handle) {
        const content = JSON.stringify({
          pid: pid,
          host: this.#host,
          time: new Date().toISOString(),
          token,
        }) + "\n";
        try {
          await handle.write(new TextEncoder().encode(content));
        } catch (error) {
          await handle.close().catch(() => {});
          await unlink(lockPath).catch(() => {});
          throw new Error(`Cannot lock ${id} in ${this.dir}: ${messageOf(error)}`, {
            cause: error,
          });
        }
        await handle.close();
        return { token, brokeStale };
      }
      const lock = await this.#readLock(id);
      if (lock) {
        holder = describeHolder(lock);
        if (await this.#isStale(lock, lockPath)) {
          await this.#breakLock(lockPath, lock);
          brokeStale = true;
          continue; // retry at once: the lock is gone, or someone else took a fresh one
        }
      }
      const waited = Date.now() - started;
      if (waited >= this.#lockTimeoutMs) {
        throw new StoreLockTimeoutError(id, lockPath, waited, holder);
      }
      const pause = Math.min(backoff, this.#lockTimeoutMs - waited);
      await sleep(pause / 2 + Math.random() * pause);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /** Reads a lock file; null when there is none. Unparsable content yields nulls, not errors. */
  async #readLock(id: string): Promise<LockInfo | null> {
    let raw: string;
    try {
      raw = await readTextFile(this.#lockPath(id));
    } catch (error) {
      if (codeOf(error) === "ENOENT") return null;
      throw new Error(`Cannot read the lock of ${id} in ${this.dir}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    return parseLock(raw);
  }

  /**
   * Stale: the holder's pid is dead on this host, or the lock is older than `staleLockMs`. A
   * lock without readable content (its writer died between creating and filling it) is judged
   * by its file time, and is stale after a short grace.
   */
  async #isStale(lock: LockInfo, lockPath: string): Promise<boolean> {
    if (lock.host === this.#host && lock.pid !== null && !(await isProcessRunning(lock.pid))) {
      return true;
    }
    if (lock.time !== null) return Date.now() - lock.time > this.#staleLockMs;
    let mtime: number;
    try {
      mtime = (await stat(lockPath)).mtimeMs;
    } catch {
      return false; // gone already; the next attempt will see
    }
    const limit = lock.token === null
      ? Math.min(UNFILLED_LOCK_MS, this.#staleLockMs)
      : this.#staleLockMs;
    return Date.now() - mtime > limit;
  }

  /**
   * Breaks a stale lock: renames it to a unique name (only one breaker's rename can take a given
   * file), then checks the file it took is the lock it judged stale. If a live lock was taken
   * instead (a new holder slipped in between), it is put back without overwriting anything.
   */
  async #breakLock(lockPath: string, judged: LockInfo): Promise<void> {
    const aside = `${lockPath}.${randomHex(6)}${BROKEN_SUFFIX}`;
    try {
      await rename(lockPath, aside);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return; // another breaker, or the holder, was first
      throw new Error(`Cannot break the stale lock ${lockPath}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    let taken: string | null = null;
    try {
      taken = await readTextFile(aside);
    } catch {
      // unreadable: treat as the judged one only if the judged one was unreadable too
    }
    if (taken === judged.raw || (taken !== null && sameToken(parseLock(taken), judged))) {
      await unlink(aside).catch(() => {});
      return;
    }
    // Not the lock we judged: give it back (link never overwrites), or if a newer lock is already
    // there, leave the taken one aside; its holder notices before committing and gives up.
    try {
      await link(aside, lockPath);
    } catch {
      // EEXIST, or a file system without hard links: nothing to restore into safely
    }
    await unlink(aside).catch(() => {});
  }

  /** Removes the lock if it is still ours; never throws (the write itself already happened). */
  async #release(id: string, token: string): Promise<void> {
    try {
      const lock = await this.#readLock(id);
      if (lock?.token === token) await unlink(this.#lockPath(id));
    } catch {
      // A lock left behind is judged stale later (dead pid or age); do not fail a saved write.
    }
  }

  /** Under the lock: removes this passport's old temporary files and broken-lock leftovers. */
  async #cleanLeftoversOf(id: string): Promise<void> {
    let entries: string[];
    try {
      entries = await readdir(this.dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith(`.${id}.`)) await this.#cleanLeftover(entry);
    }
  }

  /** Removes one temporary file or broken-lock leftover if it is older than `staleLockMs`. */
  async #cleanLeftover(entry: string): Promise<void> {
    if (!isLeftoverName(entry)) return;
    const path = join(this.dir, entry);
    try {
      const info = await stat(path);
      if (info.isFile && Date.now() - info.mtimeMs > this.#staleLockMs) await unlink(path);
    } catch {
      // gone, or not ours to remove: listing goes on
    }
  }
}

/**
 * The per-user default folder of passports.
 *
 * - Linux and other Unix: `$XDG_DATA_HOME/taskpack/passports` when `XDG_DATA_HOME` is an
 *   absolute path, else `~/.local/share/taskpack/passports`.
 * - macOS: `~/Library/Application Support/taskpack/passports`.
 * - Windows: `%APPDATA%\taskpack\passports` (else `~\AppData\Roaming\taskpack\passports`).
 *
 * @param env The environment.
 * @param home The user's home folder.
 * @param platform `process.platform` (`linux`, `darwin`, `win32`) or `Deno.build.os`
 * (`windows` too).
 * @returns The folder.
 *
 * @example Usage
 * ```ts
 * import { defaultStoreDir } from "./folder_store.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(defaultStoreDir({}, "/home/ann", "linux"), "/home/ann/.local/share/taskpack/passports");
 * ```
 */
export function defaultStoreDir(
  env: Record<string, string | undefined>,
  home: string,
  platform: string,
): string {
  if (platform === "win32" || platform === "windows") {
    const appData = env.APPDATA || windowsJoin(home, "AppData", "Roaming");
    return windowsJoin(appData, "taskpack", "passports");
  }
  if (platform === "darwin") {
    return posixJoin(home, "Library", "Application Support", "taskpack", "passports");
  }
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && xdg.startsWith("/") ? xdg : posixJoin(home, ".local", "share");
  return posixJoin(base, "taskpack", "passports");
}

/**
 * The folder of passports to use: the `--store` flag, else `TASKPACK_STORE`, else
 * {@linkcode defaultStoreDir}. Empty values count as not given.
 *
 * @param flag The value of `--store`, if given.
 * @param env The environment.
 * @param home The user's home folder.
 * @param platform `process.platform` or `Deno.build.os`.
 * @returns The folder.
 *
 * @example Usage
 * ```ts
 * import { resolveStoreDir } from "./folder_store.ts";
 * import assert from "node:assert/strict";
 *
 * const env = { TASKPACK_STORE: "/srv/passports" };
 * assert.equal(resolveStoreDir("./mine", env, "/home/ann", "linux"), "./mine");
 * assert.equal(resolveStoreDir(undefined, env, "/home/ann", "linux"), "/srv/passports");
 * ```
 */
export function resolveStoreDir(
  flag: string | undefined,
  env: Record<string, string | undefined>,
  home: string,
  platform: string,
): string {
  if (flag) return flag;
  if (env.TASKPACK_STORE) return env.TASKPACK_STORE;
  return defaultStoreDir(env, home, platform);
}

function parseLock(raw: string): LockInfo {
  const info: LockInfo = { pid: null, host: null, time: null, token: null, raw };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return info;
  }
  if (!isPlainObject(value)) return info;
  if (typeof value.pid === "number" && Number.isSafeInteger(value.pid) && value.pid > 0) {
    info.pid = value.pid;
  }
  if (typeof value.host === "string") info.host = value.host;
  if (typeof value.time === "string") {
    const time = Date.parse(value.time);
    if (Number.isFinite(time)) info.time = time;
  }
  if (typeof value.token === "string" && value.token !== "") info.token = value.token;
  return info;
}

function sameToken(a: LockInfo, b: LockInfo): boolean {
  return a.token !== null && a.token === b.token;
}

function describeHolder(lock: LockInfo): string {
  if (lock.pid === null) return "another process";
  const since = lock.time === null ? "" : ` since ${new Date(lock.time).toISOString()}`;
  return `pid ${lock.pid} on ${lock.host ?? "an unknown host"}${since}`;
}

function isLeftoverName(entry: string): boolean {
  return /^\.TP-[^.]+\.(json\..+\.tmp|lock\..+\.broken)$/.test(entry);
}

/** Renames, retrying briefly where Windows refuses while another process reads the target. */
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0;; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (error) {
      const code = codeOf(error);
      const transient = code === "EPERM" || code === "EACCES" || code === "EBUSY";
      if (!transient || platform !== "win32" || attempt >= RENAME_RETRIES) throw error;
      await sleep(10 * (attempt + 1));
    }
  }
}

/** Flushes the folder entry of a rename; skipped where folders cannot be opened (Windows). */
async function syncFolder(dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(dir, "r");
  } catch {
    return;
  }
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a folder; the rename itself is still atomic.
  } finally {
    await handle.close();
  }
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value >= 0)) {
    throw new RangeError(`Cannot open the passport store: ${name} must be a number of at least 0`);
  }
  return value;
}

function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
