// Copyright 2026 the taskpack authors. MIT license.
/**
 * Writing landed luggage into a fresh folder. The files are staged in a new temporary folder
 * beside it (so no existing symlink or file is ever written through), each created exclusively
 * and verified (size and CRC) as it is read, and the folder is renamed into place only at the
 * end. On any failure the staging folder is removed.
 *
 * For thousands of small files, {@linkcode LuggageOut.onChecked} stages each one as soon as
 * it has passed its own checks, on another core, while `land` checks the rest: the folder
 * still appears only once the whole pack has passed (`finish`), and `abort` removes what was
 * staged when it has not.
 *
 * @module
 */
import { basename, dirname, join } from "../shell/host_path.ts";
import type { OnChecked, ReadLuggage } from "../lib/read.ts";
import { progressCounter } from "../lib/_progress.ts";
import { readAllBytes } from "../lib/_bytes.ts";
import { makeFolder, writeNewFile } from "../shell/files.ts";
import {
  createFile,
  lstat,
  makeTempFolder,
  mkdir,
  removeEmptyFolder,
  rename,
  rm,
} from "../shell/host_fs.ts";
import { progressLine } from "../shell/progress.ts";
import { batchWriter } from "../shell/batch_writer.ts";
import { UsageError } from "./io.ts";
import { MANY_SMALL_FILES } from "./codecs.ts";

/** Luggage up to this size is written whole, with up to this many files created at once. */
const SMALL_EXTRACT = 64 * 1024;
const EXTRACT_CONCURRENCY = 16;

/** A luggage folder being written; see the module's documentation. */
export interface LuggageOut {
  /**
   * Stages a small file that passed its own checks (pass it to `land`); absent when files are
   * not staged early.
   */
  readonly onChecked?: OnChecked;
  /**
   * Writes every file not staged yet, then renames the folder into place.
   *
   * @param luggage The verified luggage (the files `onChecked` was told of among them).
   */
  finish(luggage: readonly ReadLuggage[]): Promise<void>;
  /** Removes the staging folder once nothing more is being written into it. */
  abort(): Promise<void>;
}

/** Options for {@linkcode luggageOut}. */
export interface LuggageOutOptions {
  /** Whether a progress line may be drawn (on a terminal, for large luggage). */
  showProgress?: boolean;
  /** Stage small files as they pass their checks, on another core (for thousands of them). */
  early?: boolean;
}

/**
 * Starts writing luggage into `target`, a folder that must not exist yet.
 *
 * @param target The folder to create.
 * @param options Progress, and whether to stage files early.
 * @returns The luggage folder being written.
 * @throws {UsageError} When `target` exists.
 */
export async function luggageOut(
  target: string,
  options: LuggageOutOptions = {},
): Promise<LuggageOut> {
  try {
    await lstat(target);
    throw new UsageError(
      `${target} exists: luggage only lands in a new folder (choose another with --files-out)`,
    );
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  // The folders made for it are private, as the store makes its own (by default the luggage
  // goes inside the store), and removed again if it fails (a refused pack leaves nothing).
  const madeAbove = await missingFolders(dirname(target));
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  const staging = await makeTempFolder(join(dirname(target), `.${basename(target)}.landing-`));
  const made = new Set<string>([staging]);
  /** The folder of a file in the staging folder, made on first use. */
  const destination = (file: ReadLuggage): string => {
    // A checked luggage name has no empty, "." or ".." segment: joined as it is, it gives the
    // path `join` would, without normalising it again for each of thousands of files.
    const dest = `${staging}/${file.name}`;
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
  const staged = new Set<ReadLuggage>();

  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const settle = async (limit: number) => {
    while (inFlight.size > limit) await Promise.race(inFlight);
    if (failure) throw failure.error;
  };
  const progress = progressLine("writing", options.showProgress === true);
  let aborted = false;

  const out: LuggageOut = {
    async finish(luggage) {
      try {
        count = progressCounter(progress.update, luggage);
        count.bytes(written.bytes);
        for (let i = 0; i < written.files; i++) count.file();
        // Small files are read (and verified) in order, then created several at a time:
        // creating a file costs far more than writing 1 KiB into it, and creations overlap
        // well. Thousands of them are created by a worker, on another core.
        const small = luggage.filter((f) => f.size <= SMALL_EXTRACT && !staged.has(f)).length;
        if (!writer && small >= MANY_SMALL_FILES) writer = batchWriter({ onWritten });
        for (const file of luggage) {
          if (staged.has(file)) continue;
          const dest = destination(file);
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
        await rename(staging, target);
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
  };
  if (!writer) return out;
  const early = writer;
  return {
    ...out,
    onChecked(file, bytes) {
      if (bytes.length > SMALL_EXTRACT) return;
      staged.add(file);
      return early.write(destination(file), bytes);
    },
  };
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
 * Writes luggage into a fresh folder (see the module's documentation), all at once.
 *
 * @param luggage The verified luggage.
 * @param target The folder to create; it must not exist.
 * @param showProgress Whether a progress line may be drawn (on a terminal, for large luggage).
 */
export async function extractLuggage(
  luggage: readonly ReadLuggage[],
  target: string,
  showProgress = false,
): Promise<void> {
  const out = await luggageOut(target, { showProgress });
  await out.finish(luggage);
}
