// Copyright 2026 the taskpack authors. MIT license.
/**
 * What an MCP server of ours is fixed to for its whole life: the store, the machine, the actor,
 * and the CLI's `main` that runs every tool call (handed in, so this package never imports the
 * CLI that starts it).
 *
 * @module
 */
import { resolve } from "node:path";
import { actorName, machineName, storeDir } from "../cli/home.ts";
import type { Io } from "../cli/io.ts";

/**
 * The CLI entry point, `main` from `cli.ts`: the one code path every tool goes through. The
 * caller passes it in, so this package never imports the CLI that starts it.
 */
export type CliMain = (args: string[], io: Io) => Promise<number>;

/** How `taskpack mcp` was started: each falls back like the CLI's own flags. */
export interface McpOptions {
  /** The passport store (`--store`), else `TASKPACK_STORE`, else the per-user default. */
  store?: string | undefined;
  /** This machine's name (`--machine`), else `TASKPACK_MACHINE`, else the host name. */
  machine?: string | undefined;
  /** Who acts (`--actor`), else `TASKPACK_ACTOR`, else the user name. */
  actor?: string | undefined;
}

/** The store, machine and actor a server uses for its whole life, and the CLI it drives. */
export interface McpSettings {
  /** The passport store: a folder (made absolute), or a `kv:`, `postgres://` or `http(s)://` store as named. */
  store: string;
  /** This machine's name. */
  machine: string;
  /** Who acts; empty when unknown. */
  actor: string;
  /** The CLI's `main`, which runs every tool call. */
  run: CliMain;
}

/**
 * Resolves the options once, the way the CLI would: the result is fixed for the server's life.
 *
 * @param run The CLI's `main`.
 * @param options The flags `taskpack mcp` was given.
 * @returns The settings every tool call uses.
 */
export function resolveMcpSettings(run: CliMain, options: McpOptions = {}): McpSettings {
  return {
    store: absoluteStore(storeDir(options.store)),
    machine: machineName(options.machine),
    actor: actorName(options.actor),
    run,
  };
}

/** A folder store is pinned to an absolute path; other kinds of store are kept as named. */
function absoluteStore(spec: string): string {
  return /^(kv:|https?:\/\/|postgres(ql)?:\/\/)/i.test(spec) ? spec : resolve(spec);
}
