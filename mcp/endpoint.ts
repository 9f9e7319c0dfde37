// Copyright 2026 the taskpack authors. MIT license.
/**
 * An MCP endpoint over Streamable HTTP on the official SDK's `createMcpHandler` (a web-standard
 * `Request` in, a `Response` out): each request gets a fresh server from a factory, so nothing
 * is held between requests, and the same factory serves the 2025 protocol (stateless) and the
 * 2026-07-28 one. It holds no store itself: the judge mounts it with its stateless tools, the
 * home and `taskpack mcp --http` with a store's (`mcp/http.ts`).
 *
 * Every message is received under the server's bounds before the SDK sees it: at most
 * `maxBodyBytes` of pack once base64-encoded (413 `{error, limit, max}`), and within
 * `bodyTimeoutMs` (408, the connection closed), as every other route that reads a body.
 *
 * @module
 */
import {
  createMcpHandler,
  type McpServer,
  type ServerNotifier,
} from "@modelcontextprotocol/server";
import {
  DEFAULT_REQUEST_BOUNDS,
  messageBytesFor,
  receiveBody,
  refusalResponse,
  type RequestBounds,
} from "../shell/http/request_bounds.ts";

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
  /**
   * The bounds a message is received under (default: the public judge's): its size is at most
   * what carries a pack of `maxBodyBytes` in base64, and it must arrive within `bodyTimeoutMs`.
   */
  bounds?: RequestBounds;
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
  const bounds = options.bounds ?? DEFAULT_REQUEST_BOUNDS;
  const maxBytes = messageBytesFor(bounds);
  const handler = createMcpHandler(() => build(changed), {
    maxRequestBodySize: maxBytes,
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  return {
    fetch: async (request) => {
      if (request.body === null) return await handler.fetch(request);
      const body = await receiveBody(request, bounds, maxBytes);
      if ("status" in body) return refusalResponse(body);
      const headers = new Headers(request.headers);
      headers.delete("content-length");
      return await handler.fetch(
        new Request(request.url, {
          method: request.method,
          headers,
          body: body as Uint8Array<ArrayBuffer>,
          signal: request.signal,
        }),
      );
    },
    notify: handler.notify,
    close: handler.close,
  };
}
