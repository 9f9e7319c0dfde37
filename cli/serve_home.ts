// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack serve-home --store <store> [--host 127.0.0.1] [--port <n>]`: a folder or a `kv:`
 * store served over HTTP as a team's home (see `shell/http/home_server.ts` for the API), and
 * `--mint-token <id>` to give a passport that has none (or lost it) a new token.
 *
 * Beside the API, `/mcp` serves the home's whole toolset over MCP (Streamable HTTP): the store
 * tools with packs carried in the call (`mcp/remote_tools.ts`), the stateless judge tools, each
 * passport as a resource, the prompts.
 *
 * Who may come in:
 *
 * - with a team token (`--team-token-file <file>`, else `TASKPACK_TEAM_TOKEN`), listing and
 *   creating (`GET /p`, `POST /p`) and all of `/mcp` need it as a bearer token;
 * - without one, the home binds loopback only, unless `--open` is given, and then does not
 *   serve `/mcp` at all;
 * - every request's `Host` and `Origin` must name this home (loopback, the bound address, or an
 *   `--allow-host` name): DNS-rebinding protection.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { isPassportId } from "../lib/format/mod.ts";
import type { PassportStore } from "../lib/home/mod.ts";
import { FolderStore } from "../shell/stores/folder_store.ts";
import { createHomeHandler, hashToken, issueToken, teamDoor } from "../shell/http/home_server.ts";
import { allowedHostsFor, guardHosts, isLoopbackHost } from "../shell/http/dns_rebinding.ts";
import {
  boundsFromEnv,
  messageBytesFor,
  resolveBounds,
  ServerBudget,
  withinBudget,
} from "../shell/http/request_bounds.ts";
import { KV_LEDGER_PREFIX, KvStore } from "../shell/stores/kv_store.ts";
import { pgLedgerTable, redactPostgresUrl } from "../shell/stores/postgres_config.ts";
import type { PostgresStore } from "../shell/stores/postgres_store.ts";
import { openStore, refusalOf, storeDir } from "../app/mod.ts";
import { EXIT, type Io, UsageError } from "./io.ts";
import { needDenoServe, portFlag, serveUntilSignal } from "../shell/http/listen.ts";

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
  /** A file holding the team token (else `TASKPACK_TEAM_TOKEN`). */
  "team-token-file"?: string | undefined;
  /** Bind beyond loopback without a team token. */
  open?: boolean | undefined;
  /** More names `Host` and `Origin` may carry (a proxy's public name). */
  "allow-host"?: string[] | undefined;
  /** This machine's name, for the MCP tools. */
  machine?: string | undefined;
  /** Who acts, for the MCP tools. */
  actor?: string | undefined;
  /** Land only signed packs from listed keys over /mcp (the home's setting, not a model's). */
  "require-signed"?: boolean | undefined;
  /** The trust list for packs landed over /mcp. */
  "allowed-signers"?: string | undefined;
  /** The key taskpack_pack signs with when asked over /mcp. */
  "sign-key"?: string | undefined;
}

/** The environment variable that may hold the team token. */
export const TEAM_TOKEN_ENV = "TASKPACK_TEAM_TOKEN";

/** The shortest team token accepted. */
const MIN_TEAM_TOKEN = 16;

/** The default port of `serve-home`. */
export const DEFAULT_HOME_PORT = 8470;

/**
 * Where a home keeps token hashes and claims for a store: `<folder>/.home/` beside a folder's
 * passports (listing ignores dot-folders), the KV prefix `["taskpack", "home"]`, or the
 * PostgreSQL table `taskpack_ledger` (`<table>_ledger` beside another table), so every home on
 * that database shares it.
 *
 * @param store The passports' store.
 * @param dir Its folder (for a folder store).
 * @returns The ledger.
 */
export function ledgerFor(store: PassportStore, dir: string): PassportStore {
  if (store instanceof FolderStore) return new FolderStore(join(dir, ".home"));
  if (store instanceof KvStore) return store.withPrefix(KV_LEDGER_PREFIX);
  if (isPostgres(store)) return store.withTable(pgLedgerTable(store.table));
  throw new UsageError(
    "serve-home serves a folder or a kv: store (or a postgres:// database), not another home " +
      "(--store <dir>, kv:<path> or postgres://...)",
  );
}

/** A PostgreSQL store (recognised without loading its client for the other stores). */
function isPostgres(store: PassportStore): store is PostgresStore {
  return typeof (store as Partial<PostgresStore>).withTable === "function";
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
  const shown = redactPostgresUrl(spec);
  const { store, dir } = await openStore(flags.store);
  const ledger = ledgerFor(store, dir);
  try {
    const mint = flags["mint-token"];
    if (mint !== undefined) return await mintToken(store, ledger, mint, flags, io);
    needDenoServe(
      "serve-home needs Deno; under Node, mount createHomeHandler (home.ts) in a server that speaks fetch",
    );
    const host = flags.host ?? "127.0.0.1";
    const port = portFlag(flags.port, DEFAULT_HOME_PORT);
    const team = await teamToken(flags);
    if (!team && !isLoopbackHost(host) && !flags.open) {
      throw new UsageError(
        `serve-home without a team token binds loopback only: give --team-token-file <file> ` +
          `(or ${TEAM_TOKEN_ENV}), or --open to serve ${host} to anyone who can reach it`,
      );
    }
    if (!isLoopbackHost(host)) {
      io.err(
        `taskpack: serving plain HTTP on ${host}: put TLS in front (a reverse proxy) before tokens cross a network\n`,
      );
    }
    const teamHash = team ? hashToken(team) : undefined;
    // One receive policy, as the judge's: the TASKPACK_JUDGE_* bounds (sizes, deadline, work,
    // the whole server's budget) for every body and every pack this home takes.
    const given = boundsFromEnv((name) => process.env[name]);
    const bounds = resolveBounds(given);
    const budget = new ServerBudget(bounds);
    const { createStoreMcpEndpoint, MCP_PATH } = await import("../mcp/http.ts");
    const { resolveMcpSettings } = await import("../mcp/settings.ts");
    const { landInline, REMOTE_TOOLS } = await import("../mcp/remote_tools.ts");
    const { judgeTools } = await import("../mcp/direct_tools.ts");
    const { createJudgeHandler } = await import("../serve.ts");
    const settings = await resolveMcpSettings(
      {
        store: spec,
        machine: flags.machine,
        actor: flags.actor,
        requireSigned: flags["require-signed"],
        allowedSigners: flags["allowed-signers"],
        signKey: flags["sign-key"],
      },
      bounds,
    );
    const api = createHomeHandler(store, {
      ledger,
      bodyTimeoutMs: bounds.bodyTimeoutMs,
      // A passport's JSON: the home's own 20 MiB unless the operator set a bound for bodies.
      ...(given.maxBodyBytes !== undefined ? { maxBodyBytes: given.maxBodyBytes } : {}),
      ...(teamHash ? { teamTokenSha256: teamHash } : {}),
      // A pack posted to POST /p lands as it does through /mcp: the same operation, the same
      // receive policy, its signature checked (and required with --require-signed).
      landPack: async (bytes, signature) => {
        try {
          return await landInline(settings, bytes, signature === undefined ? {} : { signature });
        } catch (error) {
          const { sentence, reason } = refusalOf(error);
          const bound = (error as { refusal?: unknown }).refusal;
          throw Object.assign(new Error(sentence), {
            reason,
            ...(bound ? { refusal: bound } : {}),
          });
        }
      },
    });
    const mcp = createStoreMcpEndpoint(settings, {
      tools: REMOTE_TOOLS,
      direct: judgeTools(createJudgeHandler({ ...bounds, viewerHtml: "" })),
      transfer: "inline",
    }, {
      bounds,
      onerror: (error) => io.err(`taskpack home: mcp: ${error.message.split("\n")[0]}\n`),
    });
    // /mcp opens the whole store: the team token when there is one; without one, loopback only.
    const serveMcp = teamHash !== undefined || isLoopbackHost(host);
    const handler = guardHosts(async (request) => {
      if (new URL(request.url).pathname !== MCP_PATH) {
        // Every body the API reads is within the home's budget, before it is read.
        return request.body === null
          ? await api(request)
          : await withinBudget(budget, request, () => api(request));
      }
      if (!serveMcp) {
        return Response.json({
          error: "This home serves /mcp only with a team token (--team-token-file)",
        }, { status: 403 });
      }
      const door = teamDoor(request, teamHash);
      if (door) {
        await request.body?.cancel().catch(() => {});
        return door;
      }
      if (request.body === null) return await mcp.fetch(request);
      return await withinBudget(
        budget,
        request,
        () => mcp.fetch(request),
        messageBytesFor(bounds),
      );
    }, allowedHostsFor(host, flags["allow-host"] ?? []));
    await serveUntilSignal({
      host,
      port,
      onListen: (url) => {
        io.out(
          flags.json
            ? JSON.stringify({ url, store: shown }) + "\n"
            : `taskpack home: serving ${shown} at ${url}/p (Ctrl-C to stop)\n`,
        );
      },
      onError: () =>
        new Response(JSON.stringify({ error: "The home failed" }) + "\n", { status: 500 }),
    }, handler);
    return EXIT.ok;
  } finally {
    if (store instanceof KvStore || isPostgres(store)) await store.close();
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
    throw new Error(`There is no passport ${id} in ${redactPostgresUrl(storeDir(flags.store))}`);
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

/** The team token from --team-token-file or the environment, or undefined. */
async function teamToken(flags: ServeHomeFlags): Promise<string | undefined> {
  let token: string | undefined;
  const file = flags["team-token-file"];
  if (file !== undefined) {
    try {
      token = (await readFile(file, "utf8")).trim();
    } catch (error) {
      throw new Error(`Cannot read the team token file ${file}: ${(error as Error).message}`);
    }
  } else {
    token = process.env[TEAM_TOKEN_ENV]?.trim() || undefined;
  }
  if (token === undefined) return undefined;
  if (token.length < MIN_TEAM_TOKEN || !/^[!-~]+$/.test(token)) {
    throw new UsageError(
      `The team token must be at least ${MIN_TEAM_TOKEN} printable characters, no spaces`,
    );
  }
  return token;
}
