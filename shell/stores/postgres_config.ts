// Copyright 2026 the taskpack authors. MIT license.
/**
 * How a `postgres://` (or `postgresql://`) store name becomes connection settings, and how such
 * a name is shown without its password. Kept apart from `postgres_store.ts` so the CLI can
 * recognise and redact a name without loading the database client.
 *
 * The name is a libpq-style URL:
 *
 * ```text
 * postgres://user[:password]@host[:port]/database?option=value&...
 * ```
 *
 * Options (all optional):
 *
 * - `host` — the host, overriding the URL's; a folder (starting with `/`) is where the server's
 *   Unix socket is (`postgres:///db?host=/run/postgresql`).
 * - `sslmode` — `disable` (the default), `require` (encrypted, the server not verified),
 *   `verify-ca` (the server's certificate must chain to the CA) or `verify-full` (and name the
 *   host).
 * - `sslrootcert` — a file of PEM CA certificates for `verify-ca` and `verify-full`; without it,
 *   or with `system`, the runtime's own trusted CAs.
 * - `passfile` — a password file in libpq's format (`host:port:database:user:password`, `*`
 *   matches anything); `PGPASSFILE` names one too, else `~/.pgpass`.
 * - `pool_max` — the most connections this process opens (default 10).
 * - `statement_timeout` — milliseconds one statement may run (default 30 000).
 * - `connect_timeout` — seconds to wait for a connection (default 10).
 * - `taskpack_table` — the table the passports live in (default `taskpack_passports`), so
 *   several stores can share one database.
 * - `application_name` — how the connections appear in `pg_stat_activity` (default
 *   `taskpack`).
 *
 * The password comes from the URL, else `PGPASSWORD`, else the password file. It is never part
 * of a message: {@linkcode redactPostgresUrl} shows a name with it replaced by `***`.
 *
 * @module
 */

/** Is this store name a PostgreSQL URL? */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** The default table of passports. */
export const PG_DEFAULT_TABLE = "taskpack_passports";
/** The table a home keeps its ledger (token hashes and claims) in, beside the default table. */
export const PG_LEDGER_TABLE = "taskpack_ledger";

/**
 * The ledger table of a home serving the passports' table `table`: `taskpack_ledger` beside the
 * default table, else `<table>_ledger`, so two homes serving two tables of one database never
 * share tokens.
 *
 * @param table The passports' table.
 * @returns The ledger's table.
 *
 * @example Usage
 * ```ts
 * import { pgLedgerTable } from "./postgres_config.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(pgLedgerTable("taskpack_passports"), "taskpack_ledger");
 * assert.equal(pgLedgerTable("team_b"), "team_b_ledger");
 * ```
 */
export function pgLedgerTable(table: string): string {
  return table === PG_DEFAULT_TABLE ? PG_LEDGER_TABLE : `${table}_ledger`;
}
/** The default pool size. */
export const PG_DEFAULT_POOL_MAX = 10;
/** The default statement timeout, in milliseconds. */
export const PG_DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** The default connect timeout, in seconds. */
export const PG_DEFAULT_CONNECT_TIMEOUT_S = 10;

/** The TLS modes this store speaks (libpq's names). */
export type SslMode = "disable" | "require" | "verify-ca" | "verify-full";

/** Connection settings parsed from a URL (no password: that is looked up when connecting). */
export interface PostgresSettings {
  /** The host name or address (or a socket folder, starting with `/`). */
  host: string;
  /** The port. */
  port: number;
  /** The database. */
  database: string;
  /** The user. */
  user: string;
  /** The password from the URL, if it held one. */
  urlPassword: string | undefined;
  /** TLS. */
  sslmode: SslMode;
  /** The CA file for verify-ca / verify-full, if any. */
  sslrootcert: string | undefined;
  /** A password file named in the URL, if any. */
  passfile: string | undefined;
  /** The most connections. */
  poolMax: number;
  /** Milliseconds a statement may run. */
  statementTimeoutMs: number;
  /** Seconds to wait for a connection. */
  connectTimeoutS: number;
  /** The passports' table. */
  table: string;
  /** The application name. */
  applicationName: string;
  /** The URL as it may be shown: without its password. */
  shown: string;
}

const KNOWN = new Set([
  "host",
  "sslmode",
  "sslrootcert",
  "passfile",
  "pool_max",
  "statement_timeout",
  "connect_timeout",
  "taskpack_table",
  "application_name",
]);

/**
 * A table name this store accepts: lower case, digits and `_`, not starting with a digit, at most
 * 56 characters (PostgreSQL's 63, less `_ledger`).
 */
export const TABLE_NAME = /^[a-z_][a-z0-9_]{0,55}$/;

/**
 * A PostgreSQL URL with its password (if any) replaced by `***`, for messages.
 *
 * @param spec The URL.
 * @returns The URL without the password.
 *
 * @example Usage
 * ```ts
 * import { redactPostgresUrl } from "./postgres_config.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   redactPostgresUrl("postgres://team:pw@db.example:5432/home"),
 *   "postgres://team:***@db.example:5432/home",
 * );
 * ```
 */
export function redactPostgresUrl(spec: string): string {
  return spec.replace(/^(postgres(?:ql)?:\/\/[^:@/?#]*):[^@/?#]*@/i, "$1:***@")
    .replace(/([?&]password=)[^&#]*/gi, "$1***");
}

/**
 * Parses a `postgres://` store name.
 *
 * @param spec The URL.
 * @param env The environment (`PGUSER`, `USER` for the default user).
 * @returns The settings.
 * @throws {Error} One sentence naming what is wrong, without the password.
 */
export function parsePostgresUrl(
  spec: string,
  env: Record<string, string | undefined> = {},
): PostgresSettings {
  const shown = redactPostgresUrl(spec);
  const bad = (what: string) => new Error(`Cannot use the store ${shown}: ${what}`);
  if (!isPostgresUrl(spec)) throw bad("it is not a postgres:// URL");
  let url: URL;
  // No host (`postgres:///db?host=/run/postgresql`): a placeholder, so the parser sees one.
  const noHost = /^postgres(ql)?:\/\/([^/?#@]*@)?(?=[/?#]|$)/i.exec(spec);
  const parseable = noHost ? `${noHost[0]}localhost${spec.slice(noHost[0].length)}` : spec;
  try {
    // The URL parser knows http's shape; the scheme does not change how the rest is read.
    url = new URL(parseable.replace(/^postgres(ql)?:/i, "http:"));
  } catch {
    throw bad("it is not a URL (postgres://user@host:port/database)");
  }
  const params = url.searchParams;
  if (params.has("password")) {
    throw bad("give the password in the URL's user part, PGPASSWORD or a password file");
  }
  for (const key of params.keys()) {
    if (!KNOWN.has(key)) {
      throw bad(`"${key}" is not an option this store knows (${[...KNOWN].join(", ")})`);
    }
  }
  // `host=` wins over the URL's host, as in libpq: a socket folder, or a name.
  const host = params.get("host") || url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = url.port ? Number(url.port) : 5432;
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  const user = decodeURIComponent(url.username) || env.PGUSER || env.USER || "postgres";
  if (!database || database.includes("/")) {
    throw bad("it names no database (postgres://user@host:port/database)");
  }
  const sslmode = (params.get("sslmode") ?? "disable") as SslMode;
  if (!["disable", "require", "verify-ca", "verify-full"].includes(sslmode)) {
    throw bad(
      `sslmode=${sslmode} is not supported: use disable, require, verify-ca or verify-full`,
    );
  }
  const rootcert = params.get("sslrootcert") ?? undefined;
  const whole = (key: string, fallback: number, min: number, max: number): number => {
    const raw = params.get(key);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      throw bad(`${key} must be a whole number from ${min} to ${max}, not "${raw}"`);
    }
    return value;
  };
  const table = params.get("taskpack_table") ?? PG_DEFAULT_TABLE;
  if (!TABLE_NAME.test(table)) {
    throw bad(`taskpack_table must be lower-case letters, digits and _, not "${table}"`);
  }
  return {
    host,
    port,
    database,
    user,
    urlPassword: url.password ? decodeURIComponent(url.password) : undefined,
    sslmode,
    sslrootcert: rootcert === "system" ? undefined : rootcert,
    passfile: params.get("passfile") ?? undefined,
    poolMax: whole("pool_max", PG_DEFAULT_POOL_MAX, 1, 1000),
    statementTimeoutMs: whole(
      "statement_timeout",
      PG_DEFAULT_STATEMENT_TIMEOUT_MS,
      1,
      24 * 3600 * 1000,
    ),
    connectTimeoutS: whole("connect_timeout", PG_DEFAULT_CONNECT_TIMEOUT_S, 1, 3600),
    table,
    applicationName: params.get("application_name") ?? "taskpack",
    shown,
  };
}

/**
 * The password for a connection from a libpq password file's text: the first line whose host,
 * port, database and user match (`*` matches anything; `\:` and `\\` are a literal `:` and `\`).
 *
 * @param text The file's text.
 * @param settings Where the connection goes.
 * @returns The password, or undefined when no line matches.
 */
export function passwordFromPassfile(
  text: string,
  settings: Pick<PostgresSettings, "host" | "port" | "database" | "user">,
): string | undefined {
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim() || line.startsWith("#")) continue;
    const fields: string[] = [];
    let field = "";
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (c === "\\" && i + 1 < line.length) field += line[++i];
      else if (c === ":" && fields.length < 4) {
        fields.push(field);
        field = "";
      } else field += c;
    }
    fields.push(field);
    if (fields.length !== 5) continue;
    const [host, port, database, user, password] = fields as [
      string,
      string,
      string,
      string,
      string,
    ];
    const wanted = [
      [host, settings.host.startsWith("/") ? "localhost" : settings.host],
      [port, String(settings.port)],
      [database, settings.database],
      [user, settings.user],
    ];
    if (wanted.every(([have, want]) => have === "*" || have === want)) return password;
  }
  return undefined;
}
