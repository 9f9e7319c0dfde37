// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * What a `Host` header (HTTP/2's `:authority`) may be: `host[:port]` and nothing else. A value
 * with a path, a query, a fragment, credentials, an escape or a space (`/ ? # @ %`) is no legal
 * Host; a server that built its URL from one would route by what it carries. Every server
 * taskpack starts refuses one (400) before routing; `dns_rebinding.ts` then compares the name
 * with its allow-list.
 *
 * @module
 */
const HOST_SYNTAX = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+))(?::([0-9]{1,5}))?$/;

/**
 * The name in a `Host` value (lower case, an IPv6 address in brackets), or null when the value
 * is not `host[:port]`.
 *
 * @param value The header's value.
 * @returns The name, or null.
 *
 * @example Usage
 * ```ts
 * import { hostName } from "./host_header.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(hostName("LocalHost:8000"), "localhost");
 * assertEquals(hostName("127.0.0.1:8000/.well-known/agent-card.json?"), null);
 * ```
 */
export function hostName(value: string): string | null {
  const match = HOST_SYNTAX.exec(value);
  if (!match || (match[3] !== undefined && Number(match[3]) > 65535)) return null;
  return match[1] !== undefined ? `[${match[1].toLowerCase()}]` : match[2]!.toLowerCase();
}

/**
 * The `Host` a request names: its header, else the host of its URL (a request made in code).
 *
 * @param request The request.
 * @returns The value.
 */
export function hostOf(request: Request): string {
  return request.headers.get("host") ?? new URL(request.url).host;
}

/**
 * The 400 for a request whose `Host` is not `host[:port]`, or undefined to go on. Every server
 * taskpack starts asks this before routing, whatever its allow-list.
 *
 * @param request The request.
 * @returns The refusal, or undefined.
 */
export function hostSyntaxRefusal(request: Request): Response | undefined {
  const host = request.headers.get("host");
  if (host === null || hostName(host) !== null) return undefined;
  return Response.json(
    { error: "The Host header must be host[:port], with no path, query, credentials or spaces" },
    { status: 400, headers: { "cache-control": "no-store", connection: "close" } },
  );
}
