// Copyright 2026 the taskpack authors. MIT license.
/**
 * Writing landed luggage into a fresh folder, or an existing empty one (as `git clone` does).
 * The files are staged in a new temporary folder beside it (so no existing symlink or file is
 * ever written through), each created exclusively and verified (size and CRC) as it is read,
 * under the name the host can hold (`planHostNames`), and moved into place only at the end:
 * the staging folder renamed to a new target, its entries renamed into an empty one. On any
 * failure the staging folder is removed and an existing target is left as it was.
 *
 * For thousands of small files, {@linkcode LuggageOut.onChecked} stages each one as soon as
 * it has passed its own checks, on another core, while `land` checks the rest: the folder
 * still appears only once the whole pack has passed (`finish`), and `abort` removes what was
 * staged when it has not.
 *
 * @module
 */
import { basename, dirname, join } from "../shell/host/host_path.ts";
import type { LandedName, ReadLuggage } from "../lib/format/mod.ts";
import { progressCounter, readAllBytes } from "../lib/bytes/mod.ts";
import { makeFolder, writeNewFile } from "../shell/host/files.ts";
import {
  createFile,
  lstat,
  makeTempFolder,
  mkdir,
  readdir,
  removeEmptyFolder,
  rename,
  rm,
} from "../shell/host/host_fs.ts";
import { progressLine } from "../shell/host/progress.ts";
import { batchWriter } from "../shell/workers/batch_writer.ts";
import { usage } from "./refusal.ts";
import { MANY_SMALL_FILES } from "./codecs.ts";

/** Luggage up to this size is written whole, with up to this many files created at once. */
const SMALL_EXTRACT = 64 * 1024;
const EXTRACT_CONCURRENCY = 16;

/** A luggage folder being written; see the module's documentation. */
export interface LuggageOut {
  /**
   * Stages a small file that passed its own checks, under the name it lands under (pass it to
   * `land`); absent when files are not staged early.
   */
  readonly onChecked?: (
    file: ReadLuggage,
    bytes: Uint8Array,
    landedName?: string,
  ) => Promise<void> | void;
  /**
   * Writes every file not staged yet, then moves them into place.
   *
   * @param luggage The verified luggage (the files `onChecked` was told of among them).
   * @param renamed Names a file lands under instead of its own (see `LandedPack.renamed`).
   */
  finish(luggage: readonly ReadLuggage[], renamed?: readonly LandedName[]): Promise<void>;
  /** Removes the staging folder once nothing more is being written into it. */
  abort(): Promise<void>;
  /**
   * Takes back a finished landing (when what follows it fails): a folder it made is removed,
   * an existing one is emptied of what it put there.
   */
  undo(): Promise<void>;
}

/** Options for {@linkcode luggageOut}. */
export interface LuggageOutOptions {
  /** Whether a progress line may be drawn (on a terminal, for large luggage). */
  showProgress?: boolean;
  /** Stage small files as they pass their checks, on another core (for thousands of them). */
  early?: boolean;
}

/**
 * Starts writing luggage into `target`: a folder that does not exist yet, or an empty one.
 *
 * @param target The folder.
 * @param options Progress, and whether to stage files early.
 * @returns The luggage folder being written.
 * @throws {OperationError} When `target` exists and is not an empty folder.
 */
export async function luggageOut(
  target: string,
  options: LuggageOutOptions = {},
): Promise<LuggageOut> {
  const existing = await existingEmptyFolder(target);
  // The folders made for it are private, as the store makes its own (by default the luggage
  // goes inside the store), and removed again if it fails (a refused pack leaves nothing).
  const madeAbove = await missingFolders(dirname(target));
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  const staging = await makeTempFolder(join(dirname(target), `.${basename(target)}.landing-`));
  const made = new Set<string>([staging]);
  /** A file's path in the staging folder, its folder made on first use. */
  const destination = (name: string): string => {
    // A checked luggage name has no empty, "." or ".." segment: joined as it is, it gives the
    // path `join` would, without normalising it again for each of thousands of files.
    const dest = `${staging}/${name}`;
    const folder = dest.slice(0, dest.lastIndexOf("/"));
    if (!made.has(folder)) {
      makeFolder(folder);
      made.add(folder);
    }
    return dest;
  };

  // What the worker has written, counted from the start: the progress line shows it once the
  // writing itself begins.
  let count: ReturnType<typeof progressCounter> | null = null;
  const written = { files: 0, bytes: 0 };
  const onWritten = (files: number, bytes: number) => {
    written.files += files;
    written.bytes += bytes;
    if (!count) return;
    count.bytes(bytes);
    for (let i = 0; i < files; i++) count.file();
  };
  // Started now for early staging, else by `finish` when there are thousands of small files.
  let writer = options.early ? batchWriter({ onWritten }) : null;
  // Files are staged in the order they are checked, which is the luggage's own: a list of them
  // is gone through beside the luggage (a set of 70,000 would be megabytes of table).
  const staged: ReadLuggage[] = [];
  /** The luggage not staged yet, in order. */
  function* unstaged(luggage: readonly ReadLuggage[]): Generator<ReadLuggage> {
    let next = 0;
    for (const file of luggage) {
      if (file === staged[next]) next++;
      else yield file;
    }
  }

  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const settle = async (limit: number) => {
    while (inFlight.size > limit) await Promise.race(inFlight);
    if (failure) throw failure.error;
  };
  const progress = progressLine("writing", options.showProgress === true);
  let aborted = false;

  /** What was moved into an existing target, to undo. */
  const moved: string[] = [];
  const out: LuggageOut = {
    async finish(luggage, renamed = []) {
      const names = new Map(renamed.map((r) => [r.original, r.landed]));
      try {
        count = progressCounter(progress.update, luggage);
        count.bytes(written.bytes);
        for (let i = 0; i < written.files; i++) count.file();
        // Small files are read (and verified) in order, then created several at a time:
        // creating a file costs far more than writing 1 KiB into it, and creations overlap
        // well. Thousands of them are created by a worker, on another core.
        let small = 0;
        for (const file of unstaged(luggage)) if (file.size <= SMALL_EXTRACT) small++;
        if (!writer && small >= MANY_SMALL_FILES) writer = batchWriter({ onWritten });
        for (const file of unstaged(luggage)) {
          const dest = destination(names.get(file.name) ?? file.name);
          if (file.size > SMALL_EXTRACT) {
            await writeNewFile(dest, file.open(), count.bytes, file.size);
            count.file();
            continue;
          }
          const bytes = await (file.read?.() ?? readAllBytes(file.open(), file.size));
          if (writer) {
            await writer.write(dest, bytes);
            continue;
          }
          const counter = count;
          const write: Promise<void> = createFile(dest, bytes).then(
            () => {
              inFlight.delete(write);
              counter.bytes(bytes.length);
              counter.file();
            },
            (error) => {
              inFlight.delete(write);
              failure ??= { error };
            },
          );
          inFlight.add(write);
          await settle(EXTRACT_CONCURRENCY - 1);
        }
        await settle(0);
        await writer?.finish();
        progress.done();
        if (existing) await moveInto(staging, target, moved);
        else await rename(staging, target);
      } catch (error) {
        await out.abort();
        throw error;
      } finally {
        writer?.close();
      }
    },
    async abort() {
      if (aborted) return;
      aborted = true;
      progress.done();
      // Nothing may still be writing into the staging folder when it is removed.
      await Promise.allSettled(inFlight);
      await writer?.settle();
      writer?.close();
      await rm(staging, { recursive: true, force: true });
      for (const folder of madeAbove) {
        // Only while empty: something else may have been put there since.
        await removeEmptyFolder(folder).catch(() => {});
      }
    },
    async undo() {
      if (!existing) {
        await rm(target, { recursive: true, force: true });
        return;
      }
      for (const entry of moved) await rm(join(target, entry), { recursive: true, force: true });
    },
  };
  if (!writer) return out;
  const early = writer;
  return {
    ...out,
    onChecked(file, bytes, landedName = file.name) {
      if (bytes.length > SMALL_EXTRACT) return;
      staged.push(file);
      return early.write(destination(landedName), bytes);
    },
  };
}

/**
 * Whether `target` is an existing empty folder (true) or does not exist (false).
 *
 * @throws {OperationError} When it exists and is anything else: a file, a symlink, a folder with
 * something in it.
 */
async function existingEmptyFolder(target: string): Promise<boolean> {
  let info;
  try {
    info = await lstat(target);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return false;
    throw error;
  }
  if (info.isDirectory && (await readdir(target)).length === 0) return true;
  throw usage(
    `${target} exists${
      info.isDirectory ? " and is not empty" : ""
    }: luggage lands only in a new or empty folder (choose another with --files-out)`,
  );
}

/**
 * Moves the staged entries into the existing target, which must still be empty (something may
 * have been put there since it was checked); each name moved is recorded in `moved`.
 */
async function moveInto(staging: string, target: string, moved: string[]): Promise<void> {
  if ((await readdir(target)).length !== 0) {
    throw usage(`${target} is no longer empty: nothing was landed in it`);
  }
  try {
    for (const entry of await readdir(staging)) {
      await rename(join(staging, entry), join(target, entry));
      moved.push(entry);
    }
    await rm(staging, { recursive: true, force: true });
  } catch (error) {
    // Put back what was moved, so the target is left as it was and the staging is removed.
    for (const entry of moved.splice(0)) {
      await rename(join(target, entry), join(staging, entry)).catch(() => {});
    }
    throw error;
  }
}

/** The folders `mkdir -p` would create for `folder`, deepest first. */
async function missingFolders(folder: string): Promise<string[]> {
  const missing: string[] = [];
  for (let at = folder; dirname(at) !== at; at = dirname(at)) {
    try {
      await lstat(at);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
      missing.push(at);
    }
  }
  return missing;
}

/**
 * Writes luggage into a new or empty folder (see the module's documentation), all at once.
 *
 * @param luggage The verified luggage.
 * @param target The folder: it must not exist, or be empty.
 * @param showProgress Whether a progress line may be drawn (on a terminal, for large luggage).
 * @param renamed Names files land under instead of their own.
 * @returns The landing, which `undo` takes back.
 */
export async function extractLuggage(
  luggage: readonly ReadLuggage[],
  target: string,
  showProgress = false,
  renamed: readonly LandedName[] = [],
): Promise<LuggageOut> {
  const out = await luggageOut(target, { showProgress });
  await out.finish(luggage, renamed);
  return out;
}
