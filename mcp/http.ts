// Copyright 2026 the taskpack authors. MIT license.
/**
 * MCP over Streamable HTTP, on the official SDK's `createMcpHandler` (a web-standard `Request`
 * in, a `Response` out): each request gets a fresh server from a factory, so nothing is held
 * between requests, and the same factory serves the 2025 protocol (stateless) and the
 * 2026-07-28 one.
 *
 * - {@linkcode createStoreMcpEndpoint}: the endpoint for one store (the home, `mcp --http`);
 * - {@linkcode runMcpHttp}: `taskpack mcp --http [--host 127.0.0.1] [--port N]`, one store at
 *   `/mcp`, bound to loopback by default, behind the `Host`/`Origin` check of
 *   `shell/http/dns_rebinding.ts`.
 *
 * @module
 */
import process from "node:process";
import denoConfig from "../deno.json" with { type: "json" };
import { needDenoServe, portFlag, serveUntilSignal } from "../shell/http/listen.ts";
import { allowedHostsFor, guardHosts, isLoopbackHost } from "../shell/http/dns_rebinding.ts";
import {
  createMcpEndpoint,
  MCP_PATH,
  type McpEndpoint,
  type McpEndpointOptions,
} from "./endpoint.ts";
import { createTaskpackServer, type ServerParts } from "./server.ts";
import { type McpOptions, type McpSettings, resolveMcpSettings } from "./settings.ts";
import {
  boundsFromEnv,
  messageBytesFor,
  resolveBounds,
  ServerBudget,
  withinBudget,
} from "../shell/http/request_bounds.ts";

export { createMcpEndpoint, MCP_PATH, type McpEndpoint, type McpEndpointOptions };

/**
 * An MCP endpoint serving one store (tools, passport resources, prompts).
 *
 * @param settings The workplace its tools run in.
 * @param parts Which tools (default: the local ones), how packs travel.
 * @param options Body bound, error sink.
 * @returns The endpoint.
 */
export function createStoreMcpEndpoint(
  settings: McpSettings,
  parts: ServerParts = {},
  options: McpEndpointOptions = {},
): McpEndpoint {
  return createMcpEndpoint(
    (changed) => createTaskpackServer(settings, { ...parts, onListChanged: changed }),
    options,
  );
}

/** How `taskpack mcp --http` was started. */
export interface McpHttpOptions extends McpOptions {
  /** The address to listen on (default 127.0.0.1). */
  host?: string | undefined;
  /** The port (default 8471; 0 picks a free one). */
  port?: string | undefined;
  /** More names the `Host` and `Origin` headers may carry. */
  allowHosts?: readonly string[] | undefined;
}

/** The default port of `taskpack mcp --http`. */
export const DEFAULT_MCP_PORT = 8471;

/**
 * Runs `taskpack mcp --http`: serves the store at `/mcp` until SIGINT or SIGTERM. The URL goes
 * to `io.out` (one line, `{"url": ...}` with `json`), logs to `io.err`.
 *
 * @param options The store, machine, actor, host and port.
 * @param io Where the URL (`out`) and the logs (`err`) go.
 * @param json Print the URL as one JSON line.
 * @returns The exit code (0).
 */
export async function runMcpHttp(
  options: McpHttpOptions,
  io: { out(text: string): void; err(text: string): void },
  json = false,
): Promise<number> {
  needDenoServe("taskpack mcp --http needs Deno; under Node, use stdio (taskpack mcp)");
  const host = options.host ?? "127.0.0.1";
  const port = portFlag(options.port, DEFAULT_MCP_PORT);
  if (!isLoopbackHost(host)) {
    io.err(
      `taskpack mcp: serving ${host} without authentication: anyone who can reach it can use ` +
        `this store; put TLS and authentication in front\n`,
    );
  }
  // The receive policy of every server: the TASKPACK_JUDGE_* bounds on each message (its size,
  // its deadline) and on the whole server (bytes in flight, calls at once).
  const bounds = resolveBounds(boundsFromEnv((name) => process.env[name]));
  const budget = new ServerBudget(bounds);
  const settings = await resolveMcpSettings(options, bounds);
  const endpoint = createStoreMcpEndpoint(settings, {}, {
    bounds,
    onerror: (error) => io.err(`taskpack mcp: ${error.message.split("\n")[0]}\n`),
  });
  const allowed = allowedHostsFor(host, options.allowHosts ?? []);
  const handler = guardHosts(
    (request) => {
      if (new URL(request.url).pathname !== MCP_PATH) {
        return Promise.resolve(
          Response.json({ error: `Nothing here: MCP is at ${MCP_PATH}` }, { status: 404 }),
        );
      }
      if (request.body === null) return endpoint.fetch(request);
      return withinBudget(budget, request, () => endpoint.fetch(request), messageBytesFor(bounds));
    },
    allowed,
  );
  try {
    await serveUntilSignal({
      host,
      port,
      onListen: (base) => {
        const url = `${base}${MCP_PATH}`;
        const { storeName, machine } = settings.workplace;
        io.out(json ? JSON.stringify({ url, store: storeName }) + "\n" : `${url}\n`);
        io.err(
          `taskpack mcp ${denoConfig.version}: serving ${storeName} as machine ` +
            `${machine} at ${url} (Ctrl-C to stop)\n`,
        );
      },
    }, handler);
  } finally {
    await endpoint.close();
  }
  return 0;
}
