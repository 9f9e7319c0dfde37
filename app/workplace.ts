// Copyright 2026 the taskpack authors. MIT license.
/**
 * What every operation works in: the store, where landed luggage goes, this machine's name, who
 * acts, the clock, randomness, the reader's limits, and where side notes go. A door (the CLI,
 * an MCP server, the HTTP home) builds one and passes it in; the operations read nothing else
 * from the host.
 *
 * @module
 */
import type { ReadLimits } from "../lib/format/mod.ts";
import type { PassportStore } from "../lib/home/mod.ts";
import { env } from "../shell/host/host_process.ts";
import { actorName, machineName, now, openStore } from "./home.ts";
import type { SigningSettings } from "./signatures.ts";

/** The world one operation runs in. */
export interface Workplace {
  /** The passport store. */
  readonly store: PassportStore;
  /** The store as named: a folder's path, `kv:…`, or a home's URL. */
  readonly storeName: string;
  /** Where landed luggage goes: a folder store's own folder, else one of its own. */
  readonly luggageRoot: string;
  /** This machine's name. */
  readonly machine: string;
  /** Who acts; empty when unknown. */
  readonly actor: string;
  /** What this tool calls itself in a pack's `origin.harness`. */
  readonly harness: string;
  /** The time now, as a pack writes it (RFC 3339, UTC, whole seconds). */
  readonly now: () => string;
  /** Random bytes (ids, tokens). */
  readonly random: (n: number) => Uint8Array;
  /** The reader's limits for packs this door receives. */
  readonly limits: Partial<ReadLimits>;
  /** Where side notes go as they happen (a file skipped, a name some systems cannot hold). */
  readonly note: (line: string) => void;
  /** Whether a progress line may be drawn (on a terminal, for long work). */
  readonly showProgress: boolean;
  /**
   * How signatures are treated: required or not, the trust list, the key a server signs with.
   * The person's or the server's settings, never a model's.
   */
  readonly signing?: SigningSettings | undefined;
}

/** What the operations that only read a pack (judge, inspect, convert) need of a workplace. */
export type ReaderSettings = Pick<Workplace, "limits" | "showProgress">;

/** How a door names its workplace: each falls back like the CLI's flags. */
export interface WorkplaceOptions {
  /** The store (`--store`), else `TASKPACK_STORE`, else the per-user default. */
  store?: string | undefined;
  /** This machine's name (`--machine`), else `TASKPACK_MACHINE`, else the host name. */
  machine?: string | undefined;
  /** Who acts (`--actor`), else `TASKPACK_ACTOR`, else the user name. */
  actor?: string | undefined;
  /** The reader's limits (default: the reader's own). */
  limits?: Partial<ReadLimits> | undefined;
  /** Where side notes go (default: nowhere). */
  note?: ((line: string) => void) | undefined;
  /** Whether progress may be drawn (default: no). */
  showProgress?: boolean | undefined;
  /**
   * Signatures: `requireSigned` (else `TASKPACK_REQUIRE_SIGNED=1`), the trust list, the key a
   * server signs with.
   */
  signing?: SigningSettings | undefined;
}

/**
 * Opens the workplace a door names.
 *
 * @param options The store, machine, actor, limits and note sink.
 * @returns The workplace.
 */
export async function openWorkplace(options: WorkplaceOptions = {}): Promise<Workplace> {
  const { store, dir, name } = await openStore(options.store);
  return {
    store,
    storeName: name,
    luggageRoot: dir,
    machine: machineName(options.machine),
    actor: actorName(options.actor),
    harness: "taskpack-cli",
    now,
    random: (n) => crypto.getRandomValues(new Uint8Array(n)),
    limits: options.limits ?? {},
    note: options.note ?? (() => {}),
    showProgress: options.showProgress ?? false,
    signing: {
      ...options.signing,
      requireSigned: options.signing?.requireSigned === true || requiredByEnv(),
    },
  };
}

/** `TASKPACK_REQUIRE_SIGNED=1` (or `true`, `yes`): the user's standing choice to land only signed packs. */
function requiredByEnv(): boolean {
  return /^(1|true|yes)$/i.test(env("TASKPACK_REQUIRE_SIGNED") ?? "");
}
