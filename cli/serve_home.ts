// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack serve-home --store <store> [--host 127.0.0.1] [--port <n>]`: a folder or a `kv:`
 * store served over HTTP as a team's home (see `shell/http/home_server.ts` for the API), and
 * `--mint-token <id>` to give a passport that has none (or lost it) a new token.
 *
 * @module
 */
import { join } from "node:path";
import { isPassportId } from "../lib/format/mod.ts";
import type { PassportStore } from "../lib/home/mod.ts";
import { FolderStore } from "../shell/stores/folder_store.ts";
import { createHomeHandler, issueToken } from "../shell/http/home_server.ts";
import { KV_LEDGER_PREFIX, KvStore } from "../shell/stores/kv_store.ts";
import { openStore, storeDir } from "./home.ts";
import { EXIT, type Io, UsageError } from "./io.ts";

/** The flags `serve-home` reads. */
export interface ServeHomeFlags {
  /** The store to serve. */
  store?: string | undefined;
  /** The address to listen on. Default 127.0.0.1. */
  host?: string | undefined;
  /** The port. Default 8470; 0 picks a free one. */
  port?: string | undefined;
  /** Mint a new token for this passport instead of serving. */
  "mint-token"?: string | undefined;
  /** One JSON line instead of text. */
  json?: boolean | undefined;
}

/** The default port of `serve-home`. */
export const DEFAULT_HOME_PORT = 8470;

/**
 * Where a home keeps token hashes and claims for a store: `<folder>/.home/` beside a folder's
 * passports (listing ignores dot-folders), or the KV prefix `["taskpack", "home"]`.
 *
 * @param store The passports' store.
 * @param dir Its folder (for a folder store).
 * @returns The ledger.
 */
export function ledgerFor(store: PassportStore, dir: string): PassportStore {
  if (store instanceof FolderStore) return new FolderStore(join(dir, ".home"));
  if (store instanceof KvStore) return store.withPrefix(KV_LEDGER_PREFIX);
  throw new UsageError(
    "serve-home serves a folder or a kv: store, not another home (--store <dir> or kv:<path>)",
  );
}

/**
 * `serve-home`: serves until interrupted (SIGINT or SIGTERM), or with `--mint-token`, prints a
 * new token for one passport and ends.
 *
 * @param flags The flags.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runServeHome(flags: ServeHomeFlags, io: Io): Promise<number> {
  const spec = storeDir(flags.store);
  const { store, dir } = await openStore(flags.store);
  const ledger = ledgerFor(store, dir);
  try {
    const mint = flags["mint-token"];
    if (mint !== undefined) return await mintToken(store, ledger, mint, flags, io);
    const deno = (globalThis as { Deno?: { serve?: unknown } }).Deno;
    if (typeof deno?.serve !== "function") {
      throw new Error(
        "serve-home needs Deno; under Node, mount createHomeHandler (home.ts) in a server that speaks fetch",
      );
    }
    const host = flags.host ?? "127.0.0.1";
    const port = portOf(flags.port);
    if (!isLoopback(host)) {
      io.err(
        `taskpack: serving plain HTTP on ${host}: put TLS in front (a reverse proxy) before tokens cross a network\n`,
      );
    }
    const handler = createHomeHandler(store, { ledger });
    const stop = new AbortController();
    const server = listen(
      {
        hostname: host,
        port,
        signal: stop.signal,
        onListen: ({ hostname, port }) => {
          const shownHost = hostname.includes(":") ? `[${hostname}]` : hostname;
          const url = `http://${shownHost}:${port}`;
          io.out(
            flags.json
              ? JSON.stringify({ url, store: spec }) + "\n"
              : `taskpack home: serving ${spec} at ${url}/p (Ctrl-C to stop)\n`,
          );
        },
        onError: () =>
          new Response(JSON.stringify({ error: "The home failed" }) + "\n", { status: 500 }),
      },
      handler,
      host,
      port,
    );
    const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
    const onSignal = () => stop.abort();
    for (const signal of signals) Deno.addSignalListener(signal, onSignal);
    try {
      await server.finished;
    } finally {
      for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
    }
    return EXIT.ok;
  } finally {
    if (store instanceof KvStore) await store.close();
  }
}

async function mintToken(
  store: PassportStore,
  ledger: PassportStore,
  id: string,
  flags: ServeHomeFlags,
  io: Io,
): Promise<number> {
  if (!isPassportId(id)) {
    throw new UsageError(`--mint-token needs a passport id (TP-XXXX-XXXX), not "${id}"`);
  }
  if (!(await store.open(id))) {
    throw new Error(`There is no passport ${id} in ${storeDir(flags.store)}`);
  }
  const token = await issueToken(ledger, id);
  if (flags.json) io.out(JSON.stringify({ passport_id: id, token }) + "\n");
  else {
    io.out(
      `new token for ${id} (shown once; any earlier token no longer works):\n${token}\n`,
    );
  }
  return EXIT.ok;
}

function portOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_HOME_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(port) || port > 65535) {
    throw new UsageError(`--port needs a port number from 0 to 65535, got "${text}"`);
  }
  return port;
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/** `Deno.serve`, with the one mistake people make (a port already taken) said plainly. */
function listen(
  options: Deno.ServeTcpOptions,
  handler: Deno.ServeHandler,
  host: string,
  port: number,
): Deno.HttpServer {
  try {
    return Deno.serve(options, handler);
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new Error(
        `Cannot serve on ${host}:${port}: the port is already in use (choose another with --port)`,
      );
    }
    throw error;
  }
}
