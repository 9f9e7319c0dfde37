// Copyright 2026 the taskpack authors. MIT license.
/**
 * What the servers the command line starts (`serve`, `serve-home`, `mcp --http`) share: reading
 * `--port`, and serving on one address until SIGINT or SIGTERM, with a port already taken said
 * plainly. Both need Deno's server.
 *
 * @module
 */

/**
 * Throws `message` unless the runtime has Deno's HTTP server.
 *
 * @param message What to say under another runtime.
 */
export function needDenoServe(message: string): void {
  const deno = (globalThis as { Deno?: { serve?: unknown } }).Deno;
  if (typeof deno?.serve !== "function") throw new Error(message);
}

/**
 * The port `--port` names: a number from 0 (any free port) to 65535.
 *
 * @param text The flag's value, if given.
 * @param fallback The port when it is not.
 * @returns The port.
 * @throws {RangeError} For anything else.
 */
export function portFlag(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new RangeError(`--port needs a port number from 0 to 65535, got "${text}"`);
  }
  return port;
}

/** What {@linkcode serveUntilSignal} serves, and where. */
export interface ServeOptions {
  /** The address to listen on. */
  host: string;
  /** The port (0: any free one). */
  port: number;
  /** Told where the server listens, as `http://<host>:<port>` (IPv6 in brackets). */
  onListen: (base: string) => void;
  /** Answers a request the handler failed on. */
  onError?: (error: unknown) => Response | Promise<Response>;
}

/**
 * Serves `handler` until SIGINT (or SIGTERM, off Windows) stops it.
 *
 * @param options Where to listen, and who is told.
 * @param handler The requests' handler.
 * @throws {Error} When the port is already taken, saying so.
 */
export async function serveUntilSignal(
  options: ServeOptions,
  handler: Deno.ServeHandler,
): Promise<void> {
  const { host, port } = options;
  const stop = new AbortController();
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: host,
      port,
      signal: stop.signal,
      onListen: ({ hostname, port }) => {
        options.onListen(`http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`);
      },
      ...(options.onError ? { onError: options.onError } : {}),
    }, handler);
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new Error(`port ${port} on ${host} is in use; pick another with --port`);
    }
    throw error;
  }
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const onSignal = () => stop.abort();
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  try {
    await server.finished;
  } finally {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  }
}
