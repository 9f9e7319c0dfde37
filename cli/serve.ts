// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack serve [--host 127.0.0.1] [--port 8000]`: the HTTP judge (`POST /conformance`,
 * `/inspect`, `/convert`), the viewer at `GET /`, A2A and MCP, as `deno task serve` runs it
 * (see `serve.ts` for the routes and `shell/http/judge_server.ts` for the `TASKPACK_JUDGE_*`
 * bounds and `TASKPACK_ALLOWED_HOSTS`). Serves until SIGINT or SIGTERM; a port already taken
 * is said in one sentence.
 *
 * @module
 */
import process from "node:process";
import { judgeHandlerFromEnv } from "../shell/http/judge_server.ts";
import { EXIT, type Io } from "./io.ts";
import { needDenoServe, portFlag, serveUntilSignal } from "../shell/http/listen.ts";

/** The flags `serve` reads. */
export interface ServeFlags {
  /** The address to listen on. Default 127.0.0.1. */
  host?: string | undefined;
  /** The port. Default 8000; 0 picks a free one. */
  port?: string | undefined;
  /** One JSON line (`{"url": ...}`) instead of text when listening. */
  json?: boolean | undefined;
}

/** The default port of `serve` (the same as `deno serve`'s). */
export const DEFAULT_JUDGE_PORT = 8000;

/**
 * `serve`: serves the judge until interrupted.
 *
 * @param flags The flags.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runServe(flags: ServeFlags, io: Io): Promise<number> {
  needDenoServe(
    "serve needs Deno; under Node or Bun, mount createJudgeHandler (serve.ts) in a server that speaks fetch",
  );
  const host = flags.host ?? "127.0.0.1";
  const port = portFlag(flags.port, DEFAULT_JUDGE_PORT);
  const handler = judgeHandlerFromEnv(host, (name) => process.env[name]);
  await serveUntilSignal({
    host,
    port,
    onListen: (url) => {
      io.out(
        flags.json
          ? JSON.stringify({ url }) + "\n"
          : `taskpack judge: serving the judge and the viewer at ${url}/ (Ctrl-C to stop)\n`,
      );
    },
  }, handler);
  return EXIT.ok;
}
