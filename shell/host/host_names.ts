// Copyright 2026 the taskpack authors. MIT license.
/**
 * What the file system a pack lands on can hold, found by asking it: a probe file is created
 * in a fresh folder there, looked up under another letter case and another Unicode form, and
 * removed. The answer is the landing host's rules on names (`lib/format/host_names.ts`).
 *
 * @module
 */
import type { HostNameRules } from "../../lib/format/mod.ts";
import { dirname, join } from "./host_path.ts";
import { createFile, lstat, makeTempFolder, rm } from "./host_fs.ts";
import { platform } from "./host_process.ts";

/** The file calls a probe makes; tests pass their own to play another file system. */
export interface ProbeFs {
  /** Creates a fresh folder whose name starts with `prefix`. */
  makeTempFolder(prefix: string): Promise<string>;
  /** Creates a new file. */
  createFile(path: string, bytes: Uint8Array): Promise<void>;
  /** Resolves when the path exists; rejects with code `ENOENT` when it does not. */
  lstat(path: string): Promise<unknown>;
  /** Removes a folder and what it holds. */
  rm(path: string, options: { recursive: true; force: true }): Promise<void>;
}

const HOST_FS: ProbeFs = { makeTempFolder, createFile, lstat, rm };

/**
 * The rules a system's own disks usually follow, for when the folder cannot be probed (a dry
 * run writes nothing; a read-only folder takes no probe file): Windows folds case, macOS folds
 * case and normalises Unicode, other systems do neither.
 *
 * @param os `process.platform` (`win32`, `darwin`, `linux`, …).
 * @returns The usual rules.
 * @example Usage
 * ```ts
 * import { usualHostNames } from "./host_names.ts";
 * import { assertEquals } from "@std/assert";
 * assertEquals(usualHostNames("linux"), { windows: false, foldsCase: false, normalises: false });
 * assertEquals(usualHostNames("darwin").normalises, true);
 * ```
 */
export function usualHostNames(os: string = platform): HostNameRules {
  return {
    windows: os === "win32",
    foldsCase: os === "win32" || os === "darwin",
    normalises: os === "darwin",
  };
}

/**
 * Asks the file system that holds `folder` (or would: its nearest existing parent is probed)
 * whether it folds case and normalises Unicode, by creating a probe file in a fresh folder
 * there and removing it again. Falls back to {@linkcode usualHostNames} when nothing can be
 * created there.
 *
 * @param folder Where luggage is about to land.
 * @param options The system's name (Windows' rules follow it) and the file calls to use.
 * @returns The host's rules on names.
 * @example Usage
 * ```ts
 * import { probeHostNames } from "./host_names.ts";
 * import { assertEquals } from "@std/assert";
 * const dir = await Deno.makeTempDir();
 * const rules = await probeHostNames(`${dir}/not/yet`, { os: "linux" });
 * assertEquals(rules.windows, false);
 * assertEquals([...Deno.readDirSync(dir)], []);
 * await Deno.remove(dir);
 * ```
 */
export async function probeHostNames(
  folder: string,
  options: { os?: string; fs?: ProbeFs } = {},
): Promise<HostNameRules> {
  const os = options.os ?? platform;
  const fs = options.fs ?? HOST_FS;
  const usual = usualHostNames(os);
  let at = folder;
  for (;;) {
    try {
      await fs.lstat(at);
      break;
    } catch {
      if (dirname(at) === at) return usual;
      at = dirname(at);
    }
  }
  let probe: string;
  try {
    probe = await fs.makeTempFolder(join(at, ".taskpack-probe-"));
  } catch {
    return usual;
  }
  try {
    // "Aé" with é composed (NFC); looked up as "aé" (case) and "Ae" + combining acute (NFD).
    await fs.createFile(join(probe, "A\u00e9"), new Uint8Array(0));
    return {
      windows: usual.windows,
      foldsCase: await exists(fs, join(probe, "a\u00e9")),
      normalises: await exists(fs, join(probe, "Ae\u0301")),
    };
  } catch {
    return usual;
  } finally {
    await fs.rm(probe, { recursive: true, force: true }).catch(() => {});
  }
}

async function exists(fs: ProbeFs, path: string): Promise<boolean> {
  try {
    await fs.lstat(path);
    return true;
  } catch {
    return false;
  }
}
