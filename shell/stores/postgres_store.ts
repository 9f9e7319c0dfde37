// Copyright 2026 the taskpack authors. MIT license.
/**
 * A passport store on PostgreSQL (`--store postgres://user@host:port/database`), through the
 * `pg` client from npm (it runs on Deno, Node and Bun). Any number of processes — several
 * `serve-home` behind one load balancer — can share the database: every write is one
 * conditional statement, so there is no lock to hold and nothing kept in a process's memory.
 *
 * Layout: one table per store (`taskpack_passports` unless `taskpack_table` or the `table`
 * option says otherwise), one row per passport:
 *
 * ```sql
 * id text PRIMARY KEY, version bigint, title text, updated_at text, state text, saved_at timestamptz
 * ```
 *
 * `state` is the passport's canonical JSON as text, exactly as the folder store writes it, so
 * unknown fields and key order come back as they went in; `title` and `updated_at` are copies
 * for listing without reading every passport. Only the current version of a passport is kept,
 * as in the folder and KV stores.
 *
 * - `create` and `importState` are `INSERT … ON CONFLICT (id) DO NOTHING`: an existing id is a
 *   {@linkcode StoreConflictError}.
 * - `save` is `UPDATE … WHERE id = $1 AND version = $2`: a stale version updates no row and is
 *   a {@linkcode StoreConflictError}, never an overwrite.
 *
 * The schema is created on first use, under an advisory lock so several homes starting at once
 * do not race, and recorded in the table `taskpack_schema` (one row: its version). A database
 * whose schema is newer than this code knows is refused.
 *
 * Connection settings (TLS, the password, pool size, timeouts) are read from the URL: see
 * `postgres_config.ts`. Every message names the database without its password.
 *
 * @module
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import pg from "pg";
import { parseJsonStrict } from "../../lib/bytes/mod.ts";
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
import { isPassportId, type PassportState } from "../../lib/format/mod.ts";
import { env as readEnv, homeFolder, platform } from "../host/host_process.ts";
import {
  parsePostgresUrl,
  passwordFromPassfile,
  type PostgresSettings,
  TABLE_NAME,
} from "./postgres_config.ts";

export {
  isPostgresUrl,
  PG_LEDGER_TABLE,
  pgLedgerTable,
  redactPostgresUrl,
} from "./postgres_config.ts";

/** The schema version this code writes and reads. */
export const PG_SCHEMA_VERSION = 1;

/** The table holding the schema version. */
const SCHEMA_TABLE = "taskpack_schema";
/** The advisory lock taken while the schema is created or migrated ("taskpack" in ASCII). */
const SCHEMA_LOCK = 0x7461736b7061636bn;

/** Options for {@linkcode PostgresStore}. */
export interface PostgresStoreOptions {
  /** The table of this store, overriding the URL's `taskpack_table`. */
  table?: string;
  /** The environment (`PGPASSWORD`, `PGPASSFILE`, `PGUSER`); default the process's. */
  env?: Record<string, string | undefined>;
}

/** The part of a `pg` query result this store reads. */
interface Result {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** The part of a `pg` pooled client this store uses. */
interface PoolClient {
  query(text: string, values?: unknown[]): Promise<Result>;
  release(error?: Error | boolean): void;
}

/** The part of a `pg` pool this store uses. */
interface Pool {
  query(text: string, values?: unknown[]): Promise<Result>;
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** A row of a passports table that cannot be read as a passport. */
export { PassportRecordError as PassportRowError };

/** The connection pool several stores (tables) of one database share. */
class Connection {
  readonly settings: PostgresSettings;
  readonly #env: Record<string, string | undefined>;
  #pool: Promise<Pool> | null = null;
  #schema: Promise<void> | null = null;
  readonly #tables = new Map<string, Promise<void>>();
  #password: string | undefined;

  constructor(settings: PostgresSettings, env: Record<string, string | undefined>) {
    this.settings = settings;
    this.#env = env;
  }

  /** Where the database is, for messages (never with a password). */
  get where(): string {
    return this.settings.shown;
  }

  /** Runs one statement, after the schema and `table` are ready. */
  async query(table: string, text: string, values: unknown[]): Promise<Result> {
    const pool = await this.#ready(table);
    try {
      return await pool.query(text, values);
    } catch (error) {
      throw this.explain(error);
    }
  }

  /** The pool, with the schema and the table created. */
  async #ready(table: string): Promise<Pool> {
    const pool = await this.#open();
    if (!this.#schema) {
      const schema = this.#migrate(pool, null);
      this.#schema = schema;
      schema.catch(() => {
        if (this.#schema === schema) this.#schema = null;
      });
    }
    await this.#schema;
    let made = this.#tables.get(table);
    if (!made) {
      made = this.#migrate(pool, table);
      this.#tables.set(table, made);
      made.catch(() => this.#tables.delete(table));
    }
    await made;
    return pool;
  }

  #open(): Promise<Pool> {
    if (!this.#pool) {
      const opening = this.#makePool();
      this.#pool = opening;
      opening.catch(() => {
        if (this.#pool === opening) this.#pool = null;
      });
    }
    return this.#pool;
  }

  async #makePool(): Promise<Pool> {
    const s = this.settings;
    this.#password = s.urlPassword ?? (this.#env.PGPASSWORD || undefined) ??
      await this.#passfilePassword();
    let ssl: Record<string, unknown> | false = false;
    if (s.sslmode !== "disable") {
      ssl = { rejectUnauthorized: s.sslmode !== "require" };
      if (s.sslrootcert !== undefined && s.sslmode !== "require") {
        try {
          ssl.ca = await readFile(s.sslrootcert, "utf8");
        } catch (error) {
          throw new Error(
            `Cannot use ${this.where}: cannot read the CA file ${s.sslrootcert} (${
              messageOf(error)
            })`,
          );
        }
      }
      if (s.sslmode === "verify-ca") ssl.checkServerIdentity = () => undefined;
      // verify-full: the certificate must name the host as written in the URL (a name or an
      // address), whatever name the runtime would have checked by itself.
      else if (s.sslmode === "verify-full") {
        ssl.checkServerIdentity = (_: string, cert: PeerCertificate) =>
          checkServerIdentity(s.host, cert);
      }
    }
    const pool = new pg.Pool({
      host: s.host,
      port: s.port,
      database: s.database,
      user: s.user,
      ...(this.#password === undefined ? {} : { password: this.#password }),
      ssl,
      max: s.poolMax,
      statement_timeout: s.statementTimeoutMs,
      // The client gives up a little after the server would have cancelled the statement.
      query_timeout: s.statementTimeoutMs + 5_000,
      connectionTimeoutMillis: s.connectTimeoutS * 1000,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
      application_name: s.applicationName,
    }) as unknown as Pool;
    // An idle connection the server drops (a restart) must not end the process; the next
    // query opens a new one.
    pool.on("error", () => {});
    return pool;
  }

  async #passfilePassword(): Promise<string | undefined> {
    const s = this.settings;
    const named = s.passfile ?? (this.#env.PGPASSFILE || undefined);
    const file = named ??
      (platform === "windows"
        ? join(this.#env.APPDATA ?? homeFolder(), "postgresql", "pgpass.conf")
        : join(homeFolder(), ".pgpass"));
    let text: string;
    try {
      if (platform !== "windows" && ((await stat(file)).mode & 0o077) !== 0) {
        throw new Error(
          `Cannot use the password file ${file}: others can read it (chmod 600 ${file})`,
        );
      }
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT" && named === undefined) return undefined;
      if ((error as { code?: string }).code === "ENOENT") {
        throw new Error(`Cannot use ${this.where}: the password file ${file} does not exist`);
      }
      throw new Error(`Cannot use ${this.where}: ${messageOf(error)}`);
    }
    return passwordFromPassfile(text, s);
  }

  /**
   * Creates the schema table (table null) or a store's table, under the advisory lock, and
   * refuses a schema newer than this code.
   */
  async #migrate(pool: Pool, table: string | null): Promise<void> {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw this.explain(error);
    }
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK.toString()]);
      if (table === null) {
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${SCHEMA_TABLE} (` +
            "one boolean PRIMARY KEY DEFAULT true CHECK (one), " +
            "version integer NOT NULL, " +
            "migrated_at timestamptz NOT NULL DEFAULT now())",
        );
        const found = await client.query(`SELECT version FROM ${SCHEMA_TABLE}`);
        const version = found.rows[0] ? Number(found.rows[0].version) : 0;
        if (version > PG_SCHEMA_VERSION) {
          throw new Error(
            `Cannot use ${this.where}: its taskpack schema is version ${version}, newer than ` +
              `the ${PG_SCHEMA_VERSION} this taskpack knows; upgrade taskpack`,
          );
        }
        if (version === 0) {
          await client.query(`INSERT INTO ${SCHEMA_TABLE} (version) VALUES ($1)`, [
            PG_SCHEMA_VERSION,
          ]);
        }
        // (Later versions migrate from `version` here, step by step.)
      } else {
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${table} (` +
            "id text PRIMARY KEY, " +
            "version bigint NOT NULL CHECK (version >= 1), " +
            "title text NOT NULL, " +
            "updated_at text NOT NULL, " +
            "state text NOT NULL, " +
            "saved_at timestamptz NOT NULL DEFAULT now())",
        );
      }
      await client.query("COMMIT");
    } catch (error) {
      broken = error as Error;
      await client.query("ROLLBACK").catch(() => {});
      if (error instanceof Error && error.message.startsWith("Cannot use ")) throw error;
      throw this.explain(error);
    } finally {
      client.release(broken !== undefined && !(broken.message.startsWith("Cannot use ")));
    }
  }

  /** One sentence for a failure of the database, naming host and port, never the password. */
  explain(error: unknown): Error {
    const s = this.settings;
    const at = `PostgreSQL at ${s.host}:${s.port}`;
    const e = error as { code?: string; message?: string };
    let message = messageOf(error).split("\n")[0]!;
    const code = e.code ?? "";
    let sentence: string;
    if (
      /^(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ETIMEDOUT|ENOENT)$/.test(code)
    ) {
      const why = code === "ECONNREFUSED"
        ? "the connection was refused"
        : code === "ENOENT"
        ? "there is no server socket in that folder"
        : code === "ENOTFOUND" || code === "EAI_AGAIN"
        ? "the host name does not resolve"
        : "the host cannot be reached";
      sentence = `Cannot reach ${at}: ${why} (is the database running?)`;
    } else if (code === "57P03") {
      // cannot_connect_now: starting up, shutting down, or in recovery
      sentence = `Cannot reach ${at}: ${message}; try again`;
    } else if (
      /timeout exceeded when trying to connect|Connection terminated due to connection timeout/i
        .test(message)
    ) {
      sentence = `Cannot reach ${at}: no answer within ${s.connectTimeoutS} s (connect_timeout)`;
    } else if (code === "28P01" || code === "28000") {
      sentence = `Cannot sign in to ${at} as ${s.user}: ${message}`;
    } else if (code === "3D000") {
      sentence = `Cannot use ${s.shown}: ${message}`;
    } else if (code === "57014" || /Query read timeout/i.test(message)) {
      sentence = `${at} did not finish a statement within ${s.statementTimeoutMs} ms ` +
        `(statement_timeout); try again`;
    } else if (
      /^57P0[12]$/.test(code) || code === "ECONNRESET" || code === "EPIPE" ||
      /Connection terminated|connection.*(closed|ended)|Client has encountered a connection error/i
        .test(message)
    ) {
      sentence = `Lost the connection to ${at} (${message}); try again`;
    } else if (
      /certificate|self[- ]signed|SSL|TLS|Hostname\/IP does not match/i.test(message)
    ) {
      sentence = `Cannot connect securely to ${at}: ${message}`;
    } else {
      sentence = `${at} failed: ${message}`;
    }
    if (this.#password) sentence = sentence.split(this.#password).join("***");
    message = sentence;
    return new Error(message, { cause: error });
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = null;
    this.#schema = null;
    this.#tables.clear();
    if (!pool) return;
    try {
      await (await pool).end();
    } catch {
      // never opened: nothing to close
    }
  }
}

/**
 * A {@linkcode PassportStore} in a PostgreSQL database. Connecting is lazy: nothing is touched
 * until the first call. Close it when done (`close()`); an idle pool does not keep the process
 * alive.
 *
 * @example Usage
 * ```ts ignore
 * import { PostgresStore } from "./postgres_store.ts";
 *
 * const store = new PostgresStore("postgres://team@db.internal:5432/home?sslmode=verify-full");
 * const created = await store.create({ id: "TP-AAAA-BBBB", version: 0, title: "t" });
 * await store.save({ ...created, goal: "g" }, 1); // version 2
 * await store.close();
 * ```
 */
export class PostgresStore implements PassportStore {
  /** The table of this store. */
  readonly table: string;
  readonly #connection: Connection;

  /**
   * A store in a PostgreSQL database.
   *
   * @param target A `postgres://` URL, or another PostgresStore whose pool to share.
   * @param options The table, the environment.
   * @throws {Error} One sentence when the URL cannot be used.
   */
  constructor(target: string | PostgresStore, options: PostgresStoreOptions = {}) {
    if (target instanceof PostgresStore) this.#connection = target.#connection;
    else {
      const env = options.env ?? {
        PGPASSWORD: readEnv("PGPASSWORD"),
        PGPASSFILE: readEnv("PGPASSFILE"),
        PGUSER: readEnv("PGUSER"),
        USER: readEnv("USER"),
        APPDATA: readEnv("APPDATA"),
      };
      this.#connection = new Connection(parsePostgresUrl(target, env), env);
    }
    const table = options.table ?? this.#connection.settings.table;
    if (!TABLE_NAME.test(table) || table === SCHEMA_TABLE) {
      throw new TypeError(
        `Cannot use the table "${table}": lower-case letters, digits and _, not ${SCHEMA_TABLE}`,
      );
    }
    this.table = table;
  }

  /** Where the store is, for messages: the URL without its password. */
  get where(): string {
    return this.#connection.where;
  }

  /**
   * Another store in the same database, in another table, sharing this one's pool.
   *
   * @param table Its table.
   * @returns The store.
   */
  withTable(table: string): PostgresStore {
    return new PostgresStore(this, { table });
  }

  /** Closes the pool, for every store sharing it; the next call opens a new one. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  #query(text: string, values: unknown[]): Promise<Result> {
    return this.#connection.query(this.table, text, values);
  }

  /** Lists the passports, sorted by id; rows that are not passports are reported. */
  async list(): Promise<StoreListing> {
    const { rows } = await this.#query(
      `SELECT id, version, title, updated_at FROM ${this.table} ORDER BY id COLLATE "C"`,
      [],
    );
    const listing: StoreListing = { passports: [], problems: [] };
    for (const row of rows) {
      const id = String(row.id);
      if (!isPassportId(id)) {
        listing.problems.push({
          entry: id,
          reason: "the id is not a passport id (TP-XXXX-XXXX)",
        });
        continue;
      }
      listing.passports.push({
        id,
        version: Number(row.version),
        title: String(row.title),
        updated_at: String(row.updated_at),
      });
    }
    return listing;
  }

  /**
   * The current state of a passport.
   *
   * @param id A passport id.
   * @returns The state, or null when the store holds no such passport.
   * @throws {PassportRowError} When the row exists but is not a readable passport.
   */
  async open(id: string): Promise<PassportState | null> {
    checkPassportId(id);
    const { rows } = await this.#query(
      `SELECT version, state FROM ${this.table} WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return null;
    let state: unknown;
    try {
      state = parseJsonStrict(String(row.state));
    } catch (error) {
      throw new PassportRecordError(this.where, id, messageOf(error));
    }
    const s = state as PassportState;
    if (typeof state !== "object" || state === null || Array.isArray(state)) {
      throw new PassportRecordError(this.where, id, "the state is not a JSON object");
    }
    if (s.id !== id) {
      throw new PassportRecordError(this.where, id, `the state names ${String(s.id)}`);
    }
    if (s.version !== Number(row.version)) {
      throw new PassportRecordError(
        this.where,
        id,
        `the state says version ${String(s.version)}, the row ${String(row.version)}`,
      );
    }
    return s;
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
    return await this.#insert(id, structuredClone(state));
  }

  /**
   * Saves a checkpoint over `expectedVersion`: one `UPDATE … WHERE version = expected`.
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
    const { title, updated_at } = summarise(saved);
    const result = await this.#query(
      `UPDATE ${this.table} SET version = $3, title = $4, updated_at = $5, state = $6, ` +
        `saved_at = now() WHERE id = $1 AND version = $2`,
      [id, expectedVersion, saved.version, title, updated_at, text],
    );
    if (result.rowCount !== 1) {
      throw new StoreConflictError(id, expectedVersion, await this.#versionOf(id));
    }
    return parseJsonStrict(text) as PassportState;
  }

  async #insert(id: string, saved: PassportState): Promise<PassportState> {
    const text = encodePassportState(saved);
    const { title, updated_at } = summarise(saved);
    const result = await this.#query(
      `INSERT INTO ${this.table} (id, version, title, updated_at, state) ` +
        `VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
      [id, saved.version, title, updated_at, text],
    );
    if (result.rowCount !== 1) {
      throw new StoreConflictError(id, 0, await this.#versionOf(id));
    }
    return parseJsonStrict(text) as PassportState;
  }

  async #versionOf(id: string): Promise<number | null> {
    const { rows } = await this.#query(`SELECT version FROM ${this.table} WHERE id = $1`, [id]);
    return rows[0] ? Number(rows[0].version) : null;
  }
}
