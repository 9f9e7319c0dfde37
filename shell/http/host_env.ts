// Copyright 2026 the taskpack authors. MIT license.
/**
 * `TASKPACK_ALLOWED_HOSTS` for `serve.ts`'s default export (`deno serve serve.ts`, a platform
 * that runs `{ fetch }`), read only where the runtime lets it be read without asking: Deno with
 * the permission already granted, Node or Bun. Anywhere else the judge answers loopback names
 * only. Reading one variable is all this does; the judge itself stays a pure function of the
 * request.
 *
 * @module
 */

/** The variable that lists more names `Host` and `Origin` may carry, comma-separated. */
export const ALLOWED_HOSTS_ENV = "TASKPACK_ALLOWED_HOSTS";

/**
 * The value of `TASKPACK_ALLOWED_HOSTS`, or undefined when unset or not readable without a
 * prompt.
 *
 * @returns The value.
 */
export function allowedHostsFromEnv(): string | undefined {
  const runtime = globalThis as {
    Deno?: typeof Deno;
    process?: { env?: Record<string, string | undefined> };
  };
  try {
    if (runtime.Deno) {
      const { state } = runtime.Deno.permissions.querySync({
        name: "env",
        variable: ALLOWED_HOSTS_ENV,
      });
      return state === "granted" ? runtime.Deno.env.get(ALLOWED_HOSTS_ENV) : undefined;
    }
    return runtime.process?.env?.[ALLOWED_HOSTS_ENV];
  } catch {
    return undefined;
  }
}
