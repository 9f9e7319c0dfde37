// Copyright 2026 the taskpack authors. MIT license.
/**
 * `deno task serve`: the HTTP judge with its bounds taken from `TASKPACK_JUDGE_*` environment
 * variables (see `BOUND_ENV` in `request_bounds.ts`). This is the one place the judge reads the
 * environment; importing `serve.ts` as a library never does.
 *
 * ```sh
 * TASKPACK_JUDGE_MAX_BODY_BYTES=16MiB TASKPACK_JUDGE_MAX_WORK_MS=5000 deno task serve
 * ```
 *
 * Every request must carry a loopback name in `Host` (and `Origin`, when a browser sends one),
 * or a name listed in `TASKPACK_ALLOWED_HOSTS`: DNS-rebinding protection.
 *
 * @module
 */
import { createJudgeHandler } from "../../serve.ts";
import { boundsFromEnv } from "./request_bounds.ts";
import { allowedHostsFor, parseHostList } from "./dns_rebinding.ts";

const handler = createJudgeHandler({
  ...boundsFromEnv((name) => Deno.env.get(name)),
  // DNS-rebinding protection: Host and Origin must be a loopback name, or one named in
  // TASKPACK_ALLOWED_HOSTS (comma-separated; the public name when a proxy forwards to it).
  allowedHosts: allowedHostsFor("localhost", parseHostList(Deno.env.get("TASKPACK_ALLOWED_HOSTS"))),
});

/** Run by `deno serve -A shell/http/judge_server.ts`. */
export default { fetch: handler } satisfies Deno.ServeDefaultExport;
