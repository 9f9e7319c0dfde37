// Copyright 2026 the taskpack authors. MIT license.
/**
 * What the home verbs share: which store, which machine, which actor, what time it is. The
 * core never reads these; the CLI does, here, and passes them in.
 *
 * @module
 */
import { homedir, hostname, userInfo } from "node:os";
import process from "node:process";
import { formatPackedAt } from "../lib/pack.ts";
import { mintPassportId } from "../lib/lineage.ts";
import type { PassportStore } from "../lib/store.ts";
import { FolderStore, resolveStoreDir } from "../shell/folder_store.ts";

/** The store named by `--store`, else `TASKPACK_STORE`, else the per-user default. */
export function storeDir(flag: string | undefined): string {
  return resolveStoreDir(flag, process.env, homedir(), process.platform);
}

/** Opens the store named by `--store`, else `TASKPACK_STORE`, else the per-user default. */
export function openStore(flag: string | undefined): { store: PassportStore; dir: string } {
  const dir = storeDir(flag);
  return { store: new FolderStore(dir), dir };
}

/** This machine's name: `--machine`, else `TASKPACK_MACHINE`, else the host name. */
export function machineName(flag: string | undefined): string {
  return flag || process.env.TASKPACK_MACHINE || hostname();
}

/** Who is acting: `--actor`, else `TASKPACK_ACTOR`, else the user name. */
export function actorName(flag: string | undefined): string {
  if (flag) return flag;
  if (process.env.TASKPACK_ACTOR) return process.env.TASKPACK_ACTOR;
  try {
    return userInfo().username;
  } catch {
    return "";
  }
}

/** The time now, as a pack writes it. */
export function now(): string {
  return formatPackedAt(new Date());
}

/** Mints an id no passport in the store has. */
export async function mintUniqueId(store: PassportStore): Promise<string> {
  const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
  for (let i = 0; i < 100; i++) {
    const id = mintPassportId(random);
    if (!(await store.open(id))) return id;
  }
  throw new Error("Cannot mint a passport id: 100 draws collided with the store");
}
