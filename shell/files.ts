// Copyright 2026 the taskpack authors. MIT license.
/**
 * The file system side of the CLI (a shell around the pure core): random-access sources over
 * files, luggage read from paths (folders keep their shape), and atomic writes. Uses `node:`
 * modules so it runs unchanged on Deno, Node and Bun.
 *
 * @module
 */
import { lstat, mkdtemp, open, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { ByteSource, Luggage } from "../lib/source.ts";

const CHUNK = 1 << 20;

/** A {@linkcode ByteSource} over an open file; close it when done. */
export interface FileSource extends ByteSource {
  /** Closes the file. */
  close(): Promise<void>;
}

/**
 * Opens a file for random-access reading.
 *
 * @param path The file.
 * @returns A source; call `close()` when done.
 */
export async function openFileSource(path: string): Promise<FileSource> {
  const handle = await open(path, "r");
  const { size } = await handle.stat();
  return {
    size,
    async read(offset: number, length: number): Promise<Uint8Array> {
      if (offset < 0 || length < 0 || offset + length > size) {
        throw new RangeError(`Cannot read ${path}: ${offset}+${length} is out of range`);
      }
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(out, done, length - done, offset + done);
        if (bytesRead === 0) {
          throw new RangeError(`Cannot read ${path}: the file shrank while reading`);
        }
        done += bytesRead;
      }
      return out;
    },
    close: () => handle.close(),
  };
}

/**
 * A stream over a file's bytes, read in 1 MiB chunks (opened on the first read).
 *
 * @param path The file.
 * @returns The stream.
 */
export function fileStream(path: string): ReadableStream<Uint8Array> {
  let handle: Awaited<ReturnType<typeof open>> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      handle ??= await open(path, "r");
      const buffer = new Uint8Array(CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) {
        await handle.close();
        handle = null;
        controller.close();
      } else {
        controller.enqueue(bytesRead === CHUNK ? buffer : buffer.subarray(0, bytesRead));
      }
    },
    async cancel() {
      await handle?.close();
      handle = null;
    },
  }, { highWaterMark: 0 });
}

/**
 * Luggage from paths given on a command line. A file becomes `data/files/<its name>`; a folder
 * is walked in sorted order and keeps its shape (`data/files/<folder>/<sub>/<file>`). Symbolic
 * links inside a folder are skipped (and reported through `onSkip`), never followed.
 *
 * @param paths Files and folders.
 * @param onSkip Told about every entry that was skipped, and why.
 * @returns The luggage, in order.
 */
export async function luggageFromPaths(
  paths: readonly string[],
  onSkip: (path: string, reason: string) => void = () => {},
): Promise<Luggage[]> {
  const out: Luggage[] = [];
  const walk = async (absolute: string, name: string, top: boolean): Promise<void> => {
    const info = top ? await stat(absolute) : await lstat(absolute);
    if (info.isSymbolicLink()) return onSkip(absolute, "a symbolic link (not followed)");
    if (info.isFile()) {
      out.push({ name, size: info.size, open: () => fileStream(absolute) });
      return;
    }
    if (!info.isDirectory()) return onSkip(absolute, "not a regular file or folder");
    const entries = (await readdir(absolute)).sort();
    for (const entry of entries) await walk(join(absolute, entry), `${name}/${entry}`, false);
  };
  for (const path of paths) {
    const absolute = resolve(path);
    await walk(absolute, basename(absolute), true);
  }
  return out;
}

/**
 * Writes bytes or a stream to `path` atomically: into a temporary file beside it, flushed,
 * then renamed over the target. On any failure the temporary file is removed and the target
 * is left as it was.
 *
 * @param path The target file.
 * @param data The content.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | ReadableStream<Uint8Array>,
): Promise<void> {
  const folder = await mkdtemp(join(dirname(resolve(path)), ".taskpack-tmp-"));
  const temp = join(folder, "out");
  try {
    const handle = await open(temp, "wx");
    try {
      if (data instanceof ReadableStream) {
        const reader = data.getReader();
        while (true) {
          const { done, value } = await reader.read();
          if (done) break;
          await writeAll(handle, value);
        }
      } else {
        await writeAll(handle, typeof data === "string" ? new TextEncoder().encode(data) : data);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function writeAll(
  handle: Awaited<ReturnType<typeof open>>,
  bytes: Uint8Array,
): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    done += bytesWritten;
  }
}
