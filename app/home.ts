// Copyright 2026 the taskpack authors. MIT license.
/**
 * Where a door finds its store, machine, actor and clock: flags first, then the environment,
 * then the host. The core never reads these; the doors do, here, and pass them in.
 *
 * @module
 */
import {
  env,
  homeFolder,
  hostName,
  platform,
  stderr,
  userName,
} from "../shell/host/host_process.ts";
import type { PassportStore } from "../lib/home/mod.ts";
import { defaultStoreDir, FolderStore, resolveStoreDir } from "../shell/stores/folder_store.ts";
import { dirname, join } from "../shell/host/host_path.ts";
import { portableDigests, sha256Hex } from "../lib/bytes/mod.ts";
import type { KvStore } from "../shell/stores/kv_store.ts";
import { isPostgresUrl, redactPostgresUrl } from "../shell/stores/postgres_config.ts";
import type { PostgresStore } from "../shell/stores/postgres_store.ts";

/** The environment variables the home folders depend on. */
function homeEnv(): Record<string, string | undefined> {
  return {
    TASKPACK_STORE: env("TASKPACK_STORE"),
    XDG_DATA_HOME: env("XDG_DATA_HOME"),
    XDG_CONFIG_HOME: env("XDG_CONFIG_HOME"),
    APPDATA: env("APPDATA"),
  };
}

/** The store named by `--store`, else `TASKPACK_STORE`, else the per-user default. */
export function storeDir(flag: string | undefined): string {
  return resolveStoreDir(flag, homeEnv(), homeFolder(), platform);
}

/**
 * Opens the store named by `--store`, else `TASKPACK_STORE`, else the per-user default:
 * `kv:<path-or-url>` is Deno KV, `postgres://` or `postgresql://` PostgreSQL, `http://` or
 * `https://` a home, anything else a folder. `dir` is where landed luggage goes: the folder
 * itself, or for the others a folder of their own under the per-user data folder
 * (`.../taskpack/luggage/<store>`). `name` is the store as given (a PostgreSQL URL without its
 * password).
 */
export async function openStore(
  flag: string | undefined,
): Promise<{ store: PassportStore; dir: string; name: string }> {
  const name = storeDir(flag);
  if (isPostgresUrl(name)) {
    // One pool per database in a process (the MCP server runs many verbs in one).
    const { PostgresStore } = await import("../shell/stores/postgres_store.ts");
    let store = postgresStores.get(name);
    if (!store) postgresStores.set(name, store = new PostgresStore(name));
    const shown = redactPostgresUrl(name);
    return { store, dir: luggageDir(shown), name: shown };
  }
  if (/^(kv:|https?:\/\/)/i.test(name)) {
    return { store: await openOtherStore(name), dir: luggageDir(name), name };
  }
  // A URL of a kind no store serves is a mistake, never a folder named "s3:".
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(name);
  if (scheme) {
    throw new Error(
      `taskpack has no store for ${scheme[1]}:// URLs (--store ${name}): use a folder, ` +
        "kv:<path-or-url>, postgres://user@host:port/db or an http(s):// home",
    );
  }
  return { store: new FolderStore(name), dir: name, name };
}

const kvStores = new Map<string, KvStore>();
const postgresStores = new Map<string, PostgresStore>();

// The other back ends are loaded only when named: a folder store never pays for them.
async function openOtherStore(spec: string): Promise<PassportStore> {
  if (/^kv:/i.test(spec)) {
    const { KvStore, kvUnavailable } = await import("../shell/stores/kv_store.ts");
    const why = kvUnavailable();
    if (why) throw new Error(why);
    if (spec.length === 3) throw new Error("kv: needs a path or a URL: --store kv:<path-or-url>");
    // One connection per database in a process (the MCP server runs many verbs in one).
    let store = kvStores.get(spec);
    if (!store) kvStores.set(spec, store = new KvStore(spec.slice(3)));
    return store;
  }
  const { defaultTokenDir, HttpStore } = await import("../shell/stores/http_store.ts");
  const actor = actorName(undefined);
  return new HttpStore(spec, {
    ...(env("TASKPACK_TOKEN") ? { token: env("TASKPACK_TOKEN")! } : {}),
    tokenDir: defaultTokenDir(homeEnv(), homeFolder(), platform),
    onToken: (id, token, file) =>
      stderr.write(
        `taskpack: the token for ${id} (shown once, kept in ${file}): ${token}\n` +
          `taskpack: whoever else works on ${id} needs it (TASKPACK_TOKEN)\n`,
      ),
    onClaim: (id, claim) => {
      if (claim.holder === actor) return;
      stderr.write(
        `taskpack: note: ${id} is claimed by ${claim.holder} until ${claim.until}; ` +
          `saved anyway (a claim never blocks a save)\n`,
      );
    },
  });
}

/** Where luggage landed from a kv: or http(s): store goes: `<data>/taskpack/luggage/<store>`. */
function luggageDir(spec: string): string {
  const base = dirname(defaultStoreDir(homeEnv(), homeFolder(), platform));
  const name = spec.replace(/^[a-z]+:(\/\/)?/i, "").replace(/[^A-Za-z0-9.-]+/g, "_").slice(-40)
    .replace(/^[._-]+/, "");
  const hash = sha256Hex(portableDigests, new TextEncoder().encode(spec)).slice(0, 10);
  return join(base, "luggage", `${name}-${hash}`);
}

/** This machine's name: `--machine`, else `TASKPACK_MACHINE`, else the host name. */
export function machineName(flag: string | undefined): string {
  return flag || env("TASKPACK_MACHINE") || hostName();
}

/** Who is acting: `--actor`, else `TASKPACK_ACTOR`, else the user name. */
export function actorName(flag: string | undefined): string {
  if (flag) return flag;
  const actor = env("TASKPACK_ACTOR");
  if (actor) return actor;
  return userName();
}

/** The time now, as a pack writes it. */
export function now(): string {
  // A pack's `packed_at` form: RFC 3339, UTC, whole seconds.
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}
