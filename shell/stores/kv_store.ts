// Copyright 2026 the taskpack authors. MIT license.
/**
 * A passport store on Deno KV (`--store kv:<path-or-url>`): a local SQLite file on any machine,
 * the same API against a remote KV Connect endpoint, or the replicated store of Deno Deploy. KV's
 * atomic compare-and-set is exactly a versioned checkpoint, so there is no lock to take.
 *
 * Layout (the prefix is `["taskpack", "passports"]` unless another is given):
 *
 * - `[...prefix, "head", <id>]` — the version record: `{ layout: 1, version, nonce, chunks,
 *   bytes, summary }`. `summary` is `{ title, updated_at }` for listing without reading the
 *   passport (null when those two are too long to keep in the record).
 * - `[...prefix, "chunk", <id>, <version>, <nonce>, <n>]` — the passport's canonical JSON
 *   (UTF-8), cut into pieces of at most {@linkcode KV_CHUNK_BYTES} (one KV value is at most
 *   64 KiB). `nonce` is random per write, so two writers racing for the same version never
 *   write the same keys, and a chunk, once written, never changes.
 *
 * A checkpoint commits the version record in one atomic operation checked against the
 * versionstamp of the record that was read (`kv.atomic().check(...)`): a stale write is a
 * {@linkcode StoreConflictError}, never an overwrite. A passport whose pieces fit one atomic
 * operation (KV allows 1000 mutations and 800 KiB of keys and values; here up to 12 pieces,
 * 756 KiB of JSON) is written in that same operation, together with the deletion of the
 * previous version's pieces. A larger one writes its pieces first, under its own nonce, then
 * commits the record: readers follow the record only, so they see the old passport or the new
 * one, never a mix. The pieces of a writer that lost the race are deleted by that writer, and anything a
 * killed writer left is deleted by the next checkpoint (every piece under a version older than
 * the record's is garbage, whoever wrote it). The largest passport is {@linkcode KV_MAX_BYTES}
 * (16 MiB) unless `maxBytes` says otherwise.
 *
 * Several processes may share one local KV file: a call that finds it busy ("database is
 * locked") waits and tries again, for up to 30 s.
 *
 * Needs Deno with KV enabled (`--unstable-kv`, or `"unstable": ["kv"]` in deno.json). Any object
 * shaped like `Deno.Kv` works too, such as the one `openKv` of the npm package `@deno/kv`
 * returns under Node.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { isPlainObject, parseJsonStrict } from "../../lib/bytes/mod.ts";
import {
  checkExpectedVersion,
  checkImportVersion,
  checkPassportId,
  checkPassportState,
  encodePassportState,
  messageOf,
  PassportRecordError,
  type PassportStore,
  StoreConflictError,
  type StoreListing,
  summarise,
} from "../../lib/home/mod.ts";

export { PassportRecordError };
import { isPassportId, type PassportState } from "../../lib/format/mod.ts";

/** One part of a KV key (as `Deno.KvKeyPart`). */
export type KvKeyPart = Uint8Array | string | number | bigint | boolean | symbol;
/** A KV key (as `Deno.KvKey`). */
export type KvKey = readonly KvKeyPart[];

/** An entry read from KV (as `Deno.KvEntryMaybe`). */
export interface KvEntryLike {
  /** The key. */
  readonly key: KvKey;
  /** The value, or null when there is none. */
  readonly value: unknown;
  /** The version of the value, or null when there is none. */
  readonly versionstamp: string | null;
}

/** What to list (as `Deno.KvListSelector`). */
export type KvSelector =
  | { prefix: KvKey }
  | { prefix: KvKey; start: KvKey }
  | { prefix: KvKey; end: KvKey }
  | { start: KvKey; end: KvKey };

/** An atomic operation (as `Deno.AtomicOperation`). */
export interface KvAtomicLike {
  /** Adds checks: the operation commits only if every key still has that versionstamp. */
  check(...checks: { key: KvKey; versionstamp: string | null }[]): KvAtomicLike;
  /** Adds a write. */
  set(key: KvKey, value: unknown): KvAtomicLike;
  /** Adds a deletion. */
  delete(key: KvKey): KvAtomicLike;
  /** Commits; `ok` is false when a check failed. */
  commit(): Promise<{ ok: boolean }>;
}

/** The part of `Deno.Kv` this store uses. */
export interface KvLike {
  /** Reads one key. */
  get(key: KvKey): Promise<KvEntryLike>;
  /** Lists keys in order, fetching them in batches. */
  list(selector: KvSelector, options?: { batchSize?: number }): AsyncIterable<KvEntryLike>;
  /** Starts an atomic operation. */
  atomic(): KvAtomicLike;
  /** Closes the database. */
  close(): void;
}

/** Options for {@linkcode KvStore}. */
export interface KvStoreOptions {
  /** The keys of this store start with this. Default `["taskpack", "passports"]`. */
  prefix?: readonly string[];
  /** The largest passport (its canonical JSON, in bytes). Default {@linkcode KV_MAX_BYTES}. */
  maxBytes?: number;
}

/** The size of one piece of a passport: one KV value holds at most 64 KiB. */
export const KV_CHUNK_BYTES = 63 * 1024;
/** The largest passport by default: 16 MiB of canonical JSON. */
export const KV_MAX_BYTES = 16 * 1024 * 1024;
/** The default key prefix of a {@linkcode KvStore}. */
export const KV_DEFAULT_PREFIX: readonly string[] = ["taskpack", "passports"];

/** Where a home served from a KV store keeps its ledger (token hashes and claims). */
export const KV_LEDGER_PREFIX: readonly string[] = ["taskpack", "home"];

/** KV's limits on one atomic operation. */
const ATOMIC_BYTES = 819_200;
const ATOMIC_MUTATIONS = 1_000;
/** Room left in every atomic operation for encodings this store does not measure exactly. */
const ATOMIC_MARGIN = 8_192;
/** `title` + `updated_at` longer than this (UTF-16 units) are not kept in the record. */
const SUMMARY_CHARS = 8_192;
const READ_ATTEMPTS = 20;
/** How long a call waits while another connection holds a local KV file. */
const BUSY_TIMEOUT_MS = 30_000;
const LIST_BATCH = 256;
const DELETE_BATCH = 500;
const encoder = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The version record of a passport. */
interface Head {
  layout: 1;
  version: number;
  nonce: string;
  chunks: number;
  bytes: number;
  summary: { title: string; updated_at: string } | null;
}

/**
 * Why `kv:` stores cannot be used in this runtime, or null when they can.
 *
 * @returns One sentence, or null.
 *
 * @example Usage
 * ```ts ignore
 * import { kvUnavailable } from "./kv_store.ts";
 *
 * const why = kvUnavailable(); // null under `deno run --unstable-kv`
 * ```
 */
export function kvUnavailable(): string | null {
  const deno = (globalThis as { Deno?: { openKv?: unknown } }).Deno;
  if (deno === undefined) {
    return "kv: stores need Deno (Deno KV); under Node or Bun, use a folder or an http(s):// home";
  }
  if (typeof deno.openKv !== "function") {
    return 'kv: stores need Deno KV: run deno with --unstable-kv, or add "unstable": ["kv"] to deno.json';
  }
  return null;
}

/** The connection several stores (prefixes) may share. */
class Connection {
  readonly where: string;
  readonly #target: string | KvLike;
  #kv: Promise<KvLike> | null = null;
  #closed = false;

  constructor(target: string | KvLike) {
    this.#target = target;
    this.where = typeof target === "string" ? `kv:${target}` : "the KV database";
  }

  kv(): Promise<KvLike> {
    if (this.#closed) return Promise.reject(new Error(`Cannot use ${this.where}: it is closed`));
    if (!this.#kv) {
      const opening = this.#open();
      this.#kv = opening;
      // A failed open is not remembered: the next call tries again.
      opening.catch(() => {
        if (this.#kv === opening) this.#kv = null;
      });
    }
    return this.#kv;
  }

  async #open(): Promise<KvLike> {
    const target = this.#target;
    if (typeof target !== "string") return target;
    const why = kvUnavailable();
    if (why) throw new Error(why);
    const openKv = (globalThis as unknown as { Deno: { openKv(path?: string): Promise<KvLike> } })
      .Deno.openKv;
    if (!/^https?:\/\//i.test(target) && target !== ":memory:" && target !== "") {
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    }
    try {
      return await openKv(target === "" ? undefined : target);
    } catch (error) {
      throw new Error(`Cannot open ${this.where}: ${messageOf(error)}`, { cause: error });
    }
  }

  /** Closes the database; one opened by path opens again when next used. */
  async close(): Promise<void> {
    const opened = this.#kv;
    this.#kv = null;
    if (typeof this.#target !== "string") this.#closed = true;
    if (!opened) return;
    try {
      (await opened).close();
    } catch {
      // never opened, or closed already: nothing to close
    }
  }
}

/**
 * A {@linkcode PassportStore} on Deno KV. Opening is lazy: nothing is touched until the first
 * call. Close it when done (`close()`), or let the process end.
 *
 * @example Usage
 * ```ts
 * import { KvStore } from "./kv_store.ts";
 * import { StoreConflictError } from "../../lib/home/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const store = new KvStore(":memory:");
 * const created = await store.create({ id: "TP-AAAA-BBBB", version: 0, title: "t" });
 * const saved = await store.save({ ...created, goal: "g" }, 1);
 * assert.equal(saved.version, 2);
 * await assert.rejects(store.save({ ...created, goal: "stale" }, 1), StoreConflictError);
 * await store.close();
 * ```
 */
export class KvStore implements PassportStore {
  /** The key prefix. */
  readonly prefix: readonly string[];
  readonly #connection: Connection;
  readonly #maxBytes: number;

  /**
   * A store in a KV database.
   *
   * @param target A path or URL for `Deno.openKv` (`":memory:"` for a throwaway one), an open
   * `Deno.Kv` (or anything shaped like it), or another KvStore whose connection to share.
   * @param options The key prefix and the largest passport.
   */
  constructor(target: string | KvLike | KvStore, options: KvStoreOptions = {}) {
    this.#connection = target instanceof KvStore ? target.#connection : new Connection(target);
    const prefix = options.prefix ?? KV_DEFAULT_PREFIX;
    if (!Array.isArray(prefix) || prefix.some((part) => typeof part !== "string")) {
      throw new TypeError("Cannot open the KV store: the prefix must be a list of strings");
    }
    this.prefix = [...prefix];
    const maxBytes = options.maxBytes ?? KV_MAX_BYTES;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      throw new RangeError("Cannot open the KV store: maxBytes must be a whole number above 0");
    }
    this.#maxBytes = maxBytes;
  }

  /** Where the store is, for messages: `kv:<path-or-url>`. */
  get where(): string {
    return this.#connection.where;
  }

  /**
   * Another store in the same database, under another prefix, sharing this one's connection.
   *
   * @param prefix Its key prefix.
   * @returns The store.
   */
  withPrefix(prefix: readonly string[]): KvStore {
    return new KvStore(this, { prefix, maxBytes: this.#maxBytes });
  }

  /**
   * Closes the database, for every store sharing this connection. A store opened by path or URL
   * opens it again when next used; one given an open database cannot.
   */
  close(): Promise<void> {
    return this.#connection.close();
  }

  /** Lists the passports, sorted by id, paging through the records; broken ones are reported. */
  async list(): Promise<StoreListing> {
    const kv = await this.#connection.kv();
    const listing: StoreListing = { passports: [], problems: [] };
    const headPrefix = [...this.prefix, "head"];
    for (const entry of await listAll(kv, { prefix: headPrefix }, LIST_BATCH)) {
      const id = entry.key[headPrefix.length];
      if (entry.key.length !== headPrefix.length + 1 || !isPassportId(id)) {
        listing.problems.push({
          entry: entry.key.slice(headPrefix.length).map(String).join("/"),
          reason: "the key is not a passport id (TP-XXXX-XXXX)",
        });
        continue;
      }
      const head = parseHead(entry.value);
      if (typeof head === "string") {
        listing.problems.push({ entry: id, reason: head });
        continue;
      }
      if (head.summary) {
        listing.passports.push({ id, version: head.version, ...head.summary });
        continue;
      }
      try {
        const state = await this.open(id);
        if (state) listing.passports.push(summarise(state));
      } catch (error) {
        listing.problems.push({
          entry: id,
          reason: error instanceof PassportRecordError ? error.reason : messageOf(error),
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
   * @throws {PassportRecordError} When the record exists but is not a readable passport.
   */
  async open(id: string): Promise<PassportState | null> {
    checkPassportId(id);
    const kv = await this.#connection.kv();
    let previous: string | null = null;
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const entry = await patiently(() => kv.get(this.#headKey(id)));
      if (entry.value === null || entry.value === undefined) return null;
      const head = parseHead(entry.value);
      if (typeof head === "string") throw new PassportRecordError(this.where, id, head);
      const bytes = await patiently(() => this.#readChunks(kv, id, head));
      if (bytes) return this.#decode(id, head, bytes);
      // A newer checkpoint removed these pieces while they were read: read the new record. The
      // same record twice with pieces missing is damage, not a race.
      if (entry.versionstamp === previous) {
        throw new PassportRecordError(
          this.where,
          id,
          `pieces of version ${head.version} are missing`,
        );
      }
      previous = entry.versionstamp;
    }
    throw new Error(
      `Cannot read ${id} in ${this.where}: it changed on every one of ` +
        `${READ_ATTEMPTS} attempts; try again`,
    );
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
    return await this.#write({ ...structuredClone(state), version: 1 }, id, 0);
  }

  /**
   * Saves a passport at the version it carries, only when the store holds no passport with
   * that id: how `taskpack migrate` moves passports without losing their versions.
   *
   * @param state The passport; its `version` (a whole number, at least 1) is kept.
   * @returns The saved state (a copy).
   * @throws {StoreConflictError} When a passport with that id exists.
   */
  async importState(state: PassportState): Promise<PassportState> {
    const id = checkPassportState(state);
    checkImportVersion(id, state.version);
    return await this.#write(structuredClone(state), id, 0);
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
    return await this.#write(saved, id, expectedVersion);
  }

  /**
   * Writes `saved` if the stored version is `expected` (0: no passport at all), atomically
   * against the record that was read.
   */
  async #write(saved: PassportState, id: string, expected: number): Promise<PassportState> {
    const bytes = encoder.encode(encodePassportState(saved));
    if (bytes.length > this.#maxBytes) {
      throw new RangeError(
        `Cannot save ${id}: the passport is ${bytes.length} bytes, more than the ${this.#maxBytes} this store holds`,
      );
    }
    const kv = await this.#connection.kv();
    const headKey = this.#headKey(id);
    const read = await patiently(() => kv.get(headKey));
    const old = read.value === null || read.value === undefined ? null : parseHead(read.value);
    if (typeof old === "string") {
      throw new PassportRecordError(this.where, id, `${old}; nothing was written over it`);
    }
    const actual = old?.version ?? null;
    if (expected === 0 ? old !== null : actual !== expected) {
      throw new StoreConflictError(id, expected, actual);
    }

    const nonce = randomHex(8);
    const head: Head = {
      layout: 1,
      version: saved.version,
      nonce,
      chunks: Math.ceil(bytes.length / KV_CHUNK_BYTES),
      bytes: bytes.length,
      summary: summaryOf(saved),
    };
    const pieces: { key: KvKey; value: Uint8Array }[] = [];
    for (let n = 0; n < head.chunks; n++) {
      const value = bytes.subarray(n * KV_CHUNK_BYTES, (n + 1) * KV_CHUNK_BYTES);
      pieces.push({ key: this.#chunkKey(id, head.version, nonce, n), value });
    }
    const oldPieces = old ? this.#chunkKeys(id, old) : [];

    // The record, and the pieces if they fit beside it.
    const budget = ATOMIC_BYTES - ATOMIC_MARGIN - keySize(headKey) - headSize(head);
    const piecesSize = pieces.reduce((sum, p) => sum + keySize(p.key) + p.value.length, 0);
    const inline = piecesSize <= budget && pieces.length + 1 <= ATOMIC_MUTATIONS;
    if (!inline) await this.#stage(kv, pieces);

    let room = budget;
    let mutations = ATOMIC_MUTATIONS - 1;
    if (inline) {
      room -= piecesSize;
      mutations -= pieces.length;
    }
    const deleted: KvKey[] = [];
    const leftOver: KvKey[] = [];
    for (const key of oldPieces) {
      if (mutations > 0 && keySize(key) <= room) {
        deleted.push(key);
        room -= keySize(key);
        mutations--;
      } else leftOver.push(key);
    }
    const commit = () => {
      const op = kv.atomic().check({ key: headKey, versionstamp: read.versionstamp });
      if (inline) { for (const piece of pieces) op.set(piece.key, piece.value); }
      op.set(headKey, head);
      for (const key of deleted) op.delete(key);
      return op.commit();
    };
    let ok: boolean;
    try {
      ok = (await patiently(commit)).ok;
    } catch (error) {
      if (!inline) await this.#deleteKeys(kv, pieces.map((p) => p.key)).catch(() => {});
      throw new Error(`Cannot save ${id} in ${this.where}: ${messageOf(error)}`, { cause: error });
    }
    if (!ok) {
      const now = await patiently(() => kv.get(headKey));
      const current = now.value === null || now.value === undefined ? null : parseHead(now.value);
      if (typeof current === "string") throw new PassportRecordError(this.where, id, current);
      // A retried commit whose first attempt did land (the nonce is ours) is a success.
      ok = current?.nonce === nonce && current.version === head.version;
      if (!ok) {
        // Another writer committed first: our pieces (if staged) will never be read.
        if (!inline) await this.#deleteKeys(kv, pieces.map((p) => p.key)).catch(() => {});
        throw new StoreConflictError(id, expected, current?.version ?? null);
      }
    }
    // Committed. What is left is garbage nobody can read any more; a failure here is harmless
    // (the next checkpoint collects it).
    try {
      await this.#deleteKeys(kv, leftOver);
      await this.#collect(kv, id, head.version);
    } catch {
      // left for the next checkpoint
    }
    return structuredClone(saved);
  }

  /** Writes the pieces of a large passport, as many per atomic operation as KV allows. */
  async #stage(kv: KvLike, pieces: { key: KvKey; value: Uint8Array }[]): Promise<void> {
    const budget = ATOMIC_BYTES - ATOMIC_MARGIN;
    let batch: typeof pieces = [];
    let size = 0;
    const flush = async () => {
      if (!batch.length) return;
      const result = await patiently(() => {
        const op = kv.atomic();
        for (const piece of batch) op.set(piece.key, piece.value);
        return op.commit();
      });
      if (!result.ok) throw new Error("a KV write of passport pieces failed");
      batch = [];
      size = 0;
    };
    try {
      for (const piece of pieces) {
        const pieceSize = keySize(piece.key) + piece.value.length;
        if (size + pieceSize > budget || batch.length >= ATOMIC_MUTATIONS) await flush();
        batch.push(piece);
        size += pieceSize;
      }
      await flush();
    } catch (error) {
      await this.#deleteKeys(kv, pieces.map((p) => p.key)).catch(() => {});
      throw error;
    }
  }

  /** Deletes every piece under a version older than `version`: nothing can read them. */
  async #collect(kv: KvLike, id: string, version: number): Promise<void> {
    const base = [...this.prefix, "chunk", id];
    const garbage = await listAll(kv, { start: base, end: [...base, version] }, LIST_BATCH);
    await this.#deleteKeys(kv, garbage.map((entry) => entry.key));
  }

  async #deleteKeys(kv: KvLike, keys: KvKey[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      await patiently(() => {
        const op = kv.atomic();
        for (const key of keys.slice(i, i + DELETE_BATCH)) op.delete(key);
        return op.commit();
      });
    }
  }

  /** The bytes of the version a record names, or null when some piece is gone. */
  async #readChunks(kv: KvLike, id: string, head: Head): Promise<Uint8Array | null> {
    const bytes = new Uint8Array(head.bytes);
    let offset = 0;
    let n = 0;
    const prefix = [...this.prefix, "chunk", id, head.version, head.nonce];
    for await (
      const entry of kv.list({ prefix }, { batchSize: Math.min(Math.max(head.chunks, 1), 16) })
    ) {
      const value = entry.value;
      if (entry.key[prefix.length] !== n || !(value instanceof Uint8Array)) return null;
      if (offset + value.length > bytes.length) return null;
      bytes.set(value, offset);
      offset += value.length;
      n++;
    }
    return n === head.chunks && offset === head.bytes ? bytes : null;
  }

  #decode(id: string, head: Head, bytes: Uint8Array): PassportState {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new PassportRecordError(this.where, id, "it is not UTF-8 text");
    }
    let value: unknown;
    try {
      value = parseJsonStrict(text, { where: id });
    } catch (error) {
      throw new PassportRecordError(
        this.where,
        id,
        messageOf(error).replace(/^Cannot read taskpack: /, ""),
      );
    }
    if (!isPlainObject(value)) throw new PassportRecordError(this.where, id, "not a JSON object");
    if (value.id !== id) {
      throw new PassportRecordError(this.where, id, "its id is not the one its key names");
    }
    if (value.version !== head.version) {
      throw new PassportRecordError(
        this.where,
        id,
        `its version is not ${head.version} as its record says`,
      );
    }
    return value as PassportState;
  }

  #headKey(id: string): KvKey {
    return [...this.prefix, "head", id];
  }

  #chunkKey(id: string, version: number, nonce: string, n: number): KvKey {
    return [...this.prefix, "chunk", id, version, nonce, n];
  }

  #chunkKeys(id: string, head: Head): KvKey[] {
    return Array.from(
      { length: head.chunks },
      (_, n) => this.#chunkKey(id, head.version, head.nonce, n),
    );
  }
}

/**
 * Runs a KV call, and runs it again while SQLite answers that another connection holds the
 * database ("database is locked"): several processes may share one local KV file.
 */
async function patiently<T>(task: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let pause = 2;
  for (;;) {
    try {
      return await task();
    } catch (error) {
      if (!/database is locked|busy/i.test(messageOf(error))) throw error;
      if (Date.now() - started > BUSY_TIMEOUT_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause / 2 + Math.random() * pause));
      pause = Math.min(pause * 2, 100);
    }
  }
}

/** Every entry a selector names, fetched in batches (again from the start when busy). */
function listAll(kv: KvLike, selector: KvSelector, batchSize: number): Promise<KvEntryLike[]> {
  return patiently(async () => {
    const entries: KvEntryLike[] = [];
    for await (const entry of kv.list(selector, { batchSize })) entries.push(entry);
    return entries;
  });
}

/** A version record, or why the value is not one. */
function parseHead(value: unknown): Head | string {
  if (!isPlainObject(value) || value.layout !== 1) {
    return "not a passport record of this store (layout 1)";
  }
  const { version, nonce, chunks, bytes, summary } = value;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    return "its version is not a whole number of at least 1";
  }
  if (
    typeof nonce !== "string" || typeof chunks !== "number" || !Number.isSafeInteger(chunks) ||
    chunks < 0 || typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes < 0
  ) {
    return "its record is damaged (nonce, chunks, bytes)";
  }
  const validSummary = summary === null ||
    (isPlainObject(summary) && typeof summary.title === "string" &&
      typeof summary.updated_at === "string");
  if (!validSummary) return "its record is damaged (summary)";
  return value as unknown as Head;
}

function summaryOf(state: PassportState): Head["summary"] {
  const { title, updated_at } = summarise(state);
  return title.length + updated_at.length <= SUMMARY_CHARS ? { title, updated_at } : null;
}

/** An upper bound of a key's encoded size. */
function keySize(key: KvKey): number {
  let size = 0;
  for (const part of key) {
    if (typeof part === "string") size += encoder.encode(part).length * 2 + 2;
    else if (part instanceof Uint8Array) size += part.length * 2 + 2;
    else size += 24;
  }
  return size;
}

/** An upper bound of a record's encoded size (V8 writes strings as one or two bytes a unit). */
function headSize(head: Head): number {
  return JSON.stringify(head).length * 2 + 64;
}

function randomHex(bytes: number): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
