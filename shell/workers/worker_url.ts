// Copyright 2026 the taskpack authors. MIT license.
/**
 * Where a worker module is: beside the code that starts it, as `.ts` when that code runs from
 * source and as `.js` when it runs from the npm build (which bundles each worker into a file
 * of its own, beside the chunks that start it).
 *
 * @module
 */

/** The worker modules, by name; the npm build bundles each of them. */
export const WORKERS = [
  "deflate_worker",
  "batch_deflate_worker",
  "batch_write_worker",
  "read_ahead_worker",
  "scan_worker",
] as const;

/**
 * The URL of worker module `name`, next to the module at `base`.
 *
 * @param name One of {@linkcode WORKERS}.
 * @param base The calling module's `import.meta.url`.
 * @returns The worker's URL.
 *
 * @example Usage
 * ```ts
 * import { workerUrl } from "./worker_url.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(workerUrl("scan_worker", "file:///p/shell/workers/scan_pool.ts").href, "file:///p/shell/workers/scan_worker.ts");
 * assert.equal(workerUrl("scan_worker", "file:///p/cli/chunk-X1.js").href, "file:///p/cli/scan_worker.js");
 * ```
 */
export function workerUrl(name: typeof WORKERS[number], base: string): URL {
  return new URL(`./${name}${new URL(base).pathname.endsWith(".ts") ? ".ts" : ".js"}`, base);
}
