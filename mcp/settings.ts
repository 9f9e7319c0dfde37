// Copyright 2026 the taskpack authors. MIT license.
/**
 * What an MCP server of ours is fixed to for its whole life: the workplace every tool call runs
 * its operation in (the store, the machine, the actor, the reader's limits).
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { openWorkplace, storeDir, type Workplace } from "../app/mod.ts";
import type { RequestBounds } from "../shell/http/request_bounds.ts";

/** How `taskpack mcp` was started: each falls back like the CLI's own flags. */
export interface McpOptions {
  /** The passport store (`--store`), else `TASKPACK_STORE`, else the per-user default. */
  store?: string | undefined;
  /** This machine's name (`--machine`), else `TASKPACK_MACHINE`, else the host name. */
  machine?: string | undefined;
  /** Who acts (`--actor`), else `TASKPACK_ACTOR`, else the user name. */
  actor?: string | undefined;
  /**
   * Land only signed packs from keys the trust list names (`--require-signed`, else
   * `TASKPACK_REQUIRE_SIGNED=1`): the person's setting, never a model's argument.
   */
  requireSigned?: boolean | undefined;
  /** The trust list (`--allowed-signers`), else taskpack's own, else git's. */
  allowedSigners?: string | undefined;
  /** The key `taskpack_pack` signs with when asked (`--sign-key`); without one it never signs. */
  signKey?: string | undefined;
}

/** The workplace a server uses for its whole life. */
export interface McpSettings {
  /** Where every tool call runs its operation. */
  workplace: Workplace;
  /**
   * The receive policy for a pack that comes in a call (the home's inline packs): its size,
   * the inflated bounds relative to it, the work budget (`receiveInline`); absent where packs
   * are files on this machine.
   */
  bounds?: RequestBounds;
}

/**
 * Resolves the options once, the way the CLI would: the result is fixed for the server's life.
 *
 * @param options The flags `taskpack mcp` was given.
 * @param bounds The receive policy for packs that come inline.
 * @returns The settings every tool call uses.
 */
export async function resolveMcpSettings(
  options: McpOptions = {},
  bounds?: RequestBounds,
): Promise<McpSettings> {
  // A folder is pinned to an absolute path and made when the server starts (it serves that
  // store: its first listing is empty, not "there is no store"); other stores are kept as named.
  const named = storeDir(options.store);
  const folder = !/^[a-z][a-z0-9+.-]*:/i.test(named) || /^[a-z]:[\\/]/i.test(named);
  const store = folder ? resolve(named) : named;
  if (folder) await mkdir(store, { recursive: true, mode: 0o700 });
  const workplace = await openWorkplace({
    store,
    machine: options.machine,
    actor: options.actor,
    signing: {
      requireSigned: options.requireSigned,
      allowedSigners: options.allowedSigners && resolve(options.allowedSigners),
      key: options.signKey && resolve(options.signKey),
    },
  });
  return { workplace, ...(bounds ? { bounds } : {}) };
}
