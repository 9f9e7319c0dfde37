// Copyright 2026 the taskpack authors. MIT license.
/**
 * DNS-rebinding protection for every HTTP server taskpack starts (the judge under
 * `deno task serve`, `serve-home`, `taskpack mcp --http`), as the MCP transport spec asks: a
 * request whose `Host` is not one of the server's own names, or whose `Origin` (when a browser
 * sends one) is not, is answered 403 before anything else runs. A web page on another site
 * that rebinds its own name to 127.0.0.1 so reaches nothing.
 *
 * The allowed names are the loopback names, the address the server binds when it is a
 * specific one, and any the operator adds (`--allow-host`, `TASKPACK_ALLOWED_HOSTS`), such as
 * the name a reverse proxy forwards.
 *
 * Before that, a `Host` (HTTP/2's `:authority`) must be `host[:port]` and nothing else: a value
 * carrying a path, a query, a fragment, credentials, an escape or a space (`/ ? # @ %`) is no
 * legal Host, and is answered 400 before any routing ({@linkcode hostSyntaxRefusal}), since a
 * server that builds its URL from it would otherwise route by what it carries. The allow-list
 * then compares names, never a URL parsed from the header.
 *
 * @module
 */
import { localhostAllowedHostnames, originValidationResponse } from "@modelcontextprotocol/server";
import { hostName, hostOf, hostSyntaxRefusal } from "./host_header.ts";

export { hostName, hostSyntaxRefusal };

/** The names a request may carry in `Host` and `Origin`. */
export type AllowedHosts = readonly string[];

/**
 * Whether an address is a loopback one (`localhost`, 127.0.0.0/8, `::1`).
 *
 * @param host A host name or address.
 * @returns True for loopback.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * The names a server bound to `bindHost` answers to: the loopback names, the bound address
 * unless it is a wildcard (`0.0.0.0`, `::`), and the extra names given.
 *
 * @param bindHost The address the server listens on.
 * @param extra More names (no port), e.g. the public name a proxy forwards.
 * @returns The allow-list, IPv6 addresses in brackets.
 */
export function allowedHostsFor(bindHost: string, extra: readonly string[] = []): string[] {
  const names = new Set(localhostAllowedHostnames());
  const add = (name: string) => {
    const trimmed = name.trim().toLowerCase();
    if (!trimmed) return;
    names.add(trimmed.includes(":") && !trimmed.startsWith("[") ? `[${trimmed}]` : trimmed);
  };
  if (bindHost !== "0.0.0.0" && bindHost !== "::" && bindHost !== "[::]") add(bindHost);
  for (const name of extra) add(name);
  return [...names];
}

/**
 * Splits a comma-separated list of names (`TASKPACK_ALLOWED_HOSTS`, `--allow-host a,b`).
 *
 * @param text The list, or undefined.
 * @returns The names.
 */
export function parseHostList(text: string | readonly string[] | undefined): string[] {
  const parts = typeof text === "string" ? [text] : [...(text ?? [])];
  return parts.flatMap((part) => part.split(",")).map((s) => s.trim()).filter(Boolean);
}

/**
 * The 403 for a request whose `Host` or `Origin` is not allowed, or undefined to go on.
 *
 * @param request The request.
 * @param allowed The allowed names (see {@linkcode allowedHostsFor}).
 * @returns The refusal, or undefined.
 */
export function rebindingRefusal(request: Request, allowed: AllowedHosts): Response | undefined {
  const syntax = hostSyntaxRefusal(request);
  if (syntax) return syntax;
  const name = hostName(hostOf(request));
  if (name === null || !allowed.includes(name)) {
    return Response.json({
      jsonrpc: "2.0",
      error: { code: -32000, message: `Invalid Host: ${name ?? "(none)"}` },
      id: null,
    }, { status: 403 });
  }
  return originValidationResponse(request, [...allowed]);
}

/**
 * Wraps a `fetch` handler so every request passes the `Host` and `Origin` check first.
 *
 * @param handler The handler.
 * @param allowed The allowed names.
 * @returns The guarded handler.
 */
export function guardHosts(
  handler: (request: Request) => Promise<Response>,
  allowed: AllowedHosts,
): (request: Request) => Promise<Response> {
  return (request) => Promise.resolve(rebindingRefusal(request, allowed) ?? handler(request));
}
