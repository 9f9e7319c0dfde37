// Copyright 2026 the taskpack authors. MIT license.
/**
 * The HTTP judge with its bounds taken from `TASKPACK_JUDGE_*` environment variables (see
 * `BOUND_ENV` in `request_bounds.ts`), as `taskpack serve` (and so `deno task serve`) runs it;
 * `deno serve -A shell/http/judge_server.ts` serves it too. This is the one place the judge's
 * settings come from the environment (beside `TASKPACK_ALLOWED_HOSTS`, which `serve.ts`'s default
 * export reads through `host_env.ts`); `createJudgeHandler` never reads it.
 *
 * ```sh
 * TASKPACK_JUDGE_MAX_BODY_BYTES=16MiB TASKPACK_JUDGE_MAX_WORK_MS=5000 taskpack serve --port 8080
 * ```
 *
 * Every request must carry a loopback name in `Host` (and `Origin`, when a browser sends one),
 * or a name listed in `TASKPACK_ALLOWED_HOSTS`: DNS-rebinding protection.
 *
 * @module
 */
import { createJudgeHandler, type JudgeHandler } from "../../serve.ts";
import { boundsFromEnv } from "./request_bounds.ts";
import { allowedHostsFor, parseHostList } from "./dns_rebinding.ts";

/**
 * The judge as `deno task serve` and `taskpack serve` run it: its bounds from the
 * `TASKPACK_JUDGE_*` variables and, for DNS-rebinding protection, the names `Host` and `Origin`
 * may carry: loopback, the bound address, and those in `TASKPACK_ALLOWED_HOSTS`
 * (comma-separated; the public name when a proxy forwards to it).
 *
 * @param bindHost The address the server listens on.
 * @param env Reads one environment variable.
 * @returns The request handler.
 */
export function judgeHandlerFromEnv(
  bindHost: string,
  env: (name: string) => string | undefined,
): JudgeHandler {
  return createJudgeHandler({
    ...boundsFromEnv(env),
    allowedHosts: allowedHostsFor(bindHost, parseHostList(env("TASKPACK_ALLOWED_HOSTS"))),
  });
}

/** Run by `deno serve -A shell/http/judge_server.ts`. */
export default {
  fetch: judgeHandlerFromEnv("localhost", (name) => Deno.env.get(name)),
} satisfies Deno.ServeDefaultExport;
