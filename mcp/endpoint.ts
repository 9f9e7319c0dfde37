// Copyright 2026 the taskpack authors. MIT license.
/**
 * An MCP endpoint over Streamable HTTP on the official SDK's `createMcpHandler` (a web-standard
 * `Request` in, a `Response` out): each request gets a fresh server from a factory, so nothing
 * is held between requests, and the same factory serves the 2025 protocol (stateless) and the
 * 2026-07-28 one. It holds no store itself: the judge mounts it with its stateless tools, the
 * home and `taskpack mcp --http` with a store's (`mcp/http.ts`).
 *
 * @module
 */
import {
  createMcpHandler,
  type McpServer,
  type ServerNotifier,
} from "@modelcontextprotocol/server";

/** The path MCP is served at. */
export const MCP_PATH = "/mcp";

/** An MCP endpoint: its `fetch` face, and who to tell when the passport list changed. */
export interface McpEndpoint {
  /** Serves one HTTP request to `/mcp`. */
  fetch: (request: Request) => Promise<Response>;
  /** Publishes change notifications to open `subscriptions/listen` streams. */
  notify: ServerNotifier;
  /** Ends the streams in flight. */
  close: () => Promise<void>;
}

/** Options for {@linkcode createMcpEndpoint}. */
export interface McpEndpointOptions {
  /** The largest request body, in bytes (default 4 MiB). */
  maxRequestBodySize?: number;
  /** Told of errors outside any one response. */
  onerror?: (error: Error) => void;
}

/**
 * Creates an MCP endpoint from a server factory.
 *
 * @param build Builds a server for one request; `changed` tells open streams that the list of
 *   resources changed.
 * @param options Body bound, error sink.
 * @returns The endpoint.
 */
export function createMcpEndpoint(
  build: (changed: () => void) => McpServer,
  options: McpEndpointOptions = {},
): McpEndpoint {
  const changed = () => handler.notify.resourcesChanged();
  const handler = createMcpHandler(() => build(changed), {
    ...(options.maxRequestBodySize ? { maxRequestBodySize: options.maxRequestBodySize } : {}),
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  return {
    fetch: (request) => handler.fetch(request),
    notify: handler.notify,
    close: handler.close,
  };
}
