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
 * @module
 */
import { createJudgeHandler } from "../../serve.ts";
import { boundsFromEnv } from "./request_bounds.ts";

const handler = createJudgeHandler(boundsFromEnv((name) => Deno.env.get(name)));

/** Run by `deno serve -A shell/http/judge_server.ts`. */
export default { fetch: handler } satisfies Deno.ServeDefaultExport;
