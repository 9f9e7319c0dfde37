// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Entry bodies for the ZIP reader (`reader.ts`): stored or deflated, read whole
 * when small or streamed in bounded pieces, and always checked against the entry's declared
 * size and CRC-32, and, for DEFLATE data, against where the data ends, with the same verdict on
 * every runtime. The structure (end records, central directory, local headers, names) has been
 * checked before any of this runs.
 *
 * @module
 */
import { type ByteSource, type Digests, TaskPackReadError } from "../bytes/mod.ts";
import { coreInflater, type Inflater, type InflateSteps } from "./deflate.ts";

/** One entry of an archive, as its central directory describes it (and its local header agrees). */
export interface ZipEntry {
  /** The name: relative, `/`-separated, with a trailing `/` for a directory entry. */
  readonly name: string;
  /** True for a directory entry (name ends in `/`, no data). */
  readonly isDirectory: boolean;
  /** 0 (stored) or 8 (deflated). */
  readonly method: 0 | 8;
  /** Bytes the body takes in the archive. */
  readonly compressedSize: number;
  /** Bytes the body inflates to. */
  readonly size: number;
  /** CRC-32 of the inflated body. */
  readonly crc32: number;
  /** Position in the central directory, from 0. */
  readonly index: number;
}

/** How much of a body is read from the source at a time. */
const BODY_READ = 1 << 20;
/** Most bytes one byte of deflate data can inflate to (258 bytes per 2-bit match). */
const DEFLATE_MAX_RATIO = 1032;
/** Inflated bytes tolerated past the declared size before the inflater is stopped. */
const INFLATE_SLACK = 1 << 20;
/**
 * Compressed bytes handed to the inflater at a time. The platform's inflater turns each piece
 * into one output buffer, so a piece bounds what one step allocates: 1 KiB inflates to at most
 * about 1 MiB. (64 KiB pieces let a deflate bomb allocate 64 MiB per step, faster than the
 * collector frees it: RSS grew past 2 GiB while inflating 3 GiB of zeros.) Smaller pieces cost
 * no measurable throughput.
 */
const INFLATE_MAX_INPUT = 1 << 10;
/**
 * The same for a shell's streaming inflater, which hands its output on in pieces of its own
 * (so one write does not become one buffer): 16 KiB inflate to at most about 16 MiB.
 */
const SHELL_INFLATE_MAX_INPUT = 16 << 10;
const INFLATE_MIN_INPUT = 1 << 10;

/** A failure of the source itself (I/O), carried through unchanged. */
export class SourceFailure {
  constructor(readonly error: unknown) {}
}

/** What reading an entry's body needs besides its {@linkcode ZipEntry}. */
export interface EntryRecord {
  entry: ZipEntry;
  /** Where its data starts (known once the local header has been read). */
  dataOffset: number;
  /** How errors name the entry. */
  where: string;
}

/** Reads exactly `target.length` bytes at `offset` into `target`, or fails. */
export async function readExactInto(
  source: ReadIntoSource,
  offset: number,
  target: Uint8Array,
): Promise<void> {
  try {
    await source.readInto(offset, target);
  } catch (error) {
    throw new SourceFailure(error);
  }
}

/** Reads exactly `length` bytes at `offset`, or fails. */
export async function readExact(
  source: ByteSource,
  offset: number,
  length: number,
): Promise<Uint8Array> {
  if (length === 0) return new Uint8Array(0);
  let bytes: Uint8Array;
  try {
    bytes = await source.read(offset, length);
  } catch (error) {
    throw new SourceFailure(error);
  }
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    throw new TaskPackReadError(
      "zip-structure",
      `offset ${offset}`,
      `the source returned ${bytes?.length} bytes where ${length} were asked for`,
    );
  }
  return bytes;
}

/** Streams one entry's body, inflating and verifying it. */
/**
 * A source that can also read into a buffer the caller gives (a file): an optional capability
 * the reader uses for stored entries, so that a reader bringing its own buffer (BYOB) gets the
 * bytes straight into it.
 */
export interface ReadIntoSource extends ByteSource {
  /** Reads `target.length` bytes at `offset` into `target`. */
  readInto(offset: number, target: Uint8Array): Promise<void>;
}

/**
 * Whether `source` can read into a buffer the caller gives.
 *
 * @param source The source.
 * @returns True when it has `readInto`.
 */
export function canReadInto(source: ByteSource): source is ReadIntoSource {
  return typeof (source as Partial<ReadIntoSource>).readInto === "function";
}

/**
 * A stored entry's body as a byte stream: read in BODY_READ pieces, into the reader's own
 * buffer when it brings one, its size and CRC-32 checked at the end.
 */
function storedBody(
  source: ReadIntoSource,
  record: EntryRecord,
  digests: Digests,
): ReadableStream<Uint8Array> {
  const { entry } = record;
  const end = record.dataOffset + entry.size;
  let position = record.dataOffset;
  let crc = 0;
  return new ReadableStream({
    type: "bytes",
    async pull(controller: ReadableByteStreamController) {
      const request = controller.byobRequest;
      if (position >= end) {
        checkEnd(record, entry.size, crc);
        controller.close();
        request?.respond(0);
        return;
      }
      const length = Math.min(BODY_READ, end - position, request?.view?.byteLength ?? BODY_READ);
      const target = request?.view
        ? new Uint8Array(request.view.buffer, request.view.byteOffset, length)
        : new Uint8Array(length);
      await source.readInto(position, target);
      position += length;
      crc = digests.crc32(target, crc);
      if (request?.view) request.respond(length);
      else controller.enqueue(target);
    },
  }) as ReadableStream<Uint8Array>;
}

/**
 * A deflated entry's body as a byte stream, inflated by a shell's step-by-step engine straight
 * into the reader's own buffer when it brings one, from compressed bytes read into one buffer
 * used again for each read: nothing is allocated per chunk, whatever the entry's size. As
 * strict as the other ways: bytes after the end of the DEFLATE data, data cut short, and
 * output past the declared size all fail, and the size and CRC-32 are checked at the end.
 */
function inflatedBody(
  source: ReadIntoSource,
  record: EntryRecord,
  digests: Digests,
  engine: InflateSteps,
): ReadableStream<Uint8Array> {
  const { entry, where } = record;
  const end = record.dataOffset + entry.compressedSize;
  let position = record.dataOffset;
  const input = new Uint8Array(Math.max(1, Math.min(BODY_READ, entry.compressedSize)));
  let inStart = 0;
  let inEnd = 0;
  let produced = 0;
  let crc = 0;
  let ended = false;
  let closed = false;
  const close = () => {
    if (!closed) engine.close();
    closed = true;
  };
  /** Inflates into `target`: at least one byte, unless the stream ends first. */
  const inflateInto = async (target: Uint8Array): Promise<number> => {
    while (true) {
      if (inStart === inEnd && position < end) {
        const length = Math.min(input.length, end - position);
        await source.readInto(position, input.subarray(0, length));
        position += length;
        inStart = 0;
        inEnd = length;
      }
      const last = position >= end;
      let step: { read: number; written: number; ended: boolean };
      try {
        step = engine.step(input.subarray(inStart, inEnd), target, last);
      } catch {
        throw deflateCorrupt(where);
      }
      inStart += step.read;
      if (step.ended) {
        ended = true;
        if (inStart < inEnd || position < end) throw deflateTrailing(where);
      }
      if (step.written > 0 || ended) return step.written;
      // Nothing came out: the engine wants more input, and there is none left (or it is stuck).
      if ((inStart === inEnd && last) || (step.read === 0 && inStart < inEnd)) {
        throw deflateCorrupt(where);
      }
    }
  };
  return new ReadableStream({
    type: "bytes",
    async pull(controller: ReadableByteStreamController) {
      const request = controller.byobRequest;
      try {
        if (!ended) {
          // Room for one byte past the declared size, so that inflating past it shows.
          const room = Math.min(BODY_READ, entry.size - produced + 1);
          const view = request?.view;
          const target = view
            ? new Uint8Array(view.buffer, view.byteOffset, Math.min(view.byteLength, room))
            : new Uint8Array(room);
          const written = await inflateInto(target);
          produced += written;
          if (produced > entry.size) throw inflatesPastSize(record);
          if (written > 0) {
            crc = digests.crc32(target.subarray(0, written), crc);
            if (view) request!.respond(written);
            else controller.enqueue(target.subarray(0, written));
            return;
          }
        }
        close();
        checkEnd(record, produced, crc);
        controller.close();
        request?.respond(0);
      } catch (error) {
        close();
        throw error;
      }
    },
    cancel() {
      close();
    },
  }) as ReadableStream<Uint8Array>;
}

/** Deflated entries within these sizes may be inflated in one call by an {@linkcode Inflater}. */
const ONE_SHOT_COMPRESSED = 256 * 1024;
const ONE_SHOT_SIZE = 4 << 20;

/** Inflates a small entry in one call, checking its end, size and CRC-32 as streaming does. */
async function inflateWhole(
  source: ByteSource,
  record: EntryRecord,
  digests: Digests,
  inflater: Inflater,
): Promise<Uint8Array> {
  const { entry, where } = record;
  let data: Uint8Array;
  try {
    data = await readExact(source, record.dataOffset, entry.compressedSize);
  } catch (error) {
    throw error instanceof SourceFailure ? error.error : error;
  }
  const result = inflater.inflate(data, entry.size);
  if ("problem" in result) {
    if (result.problem === "trailing") throw deflateTrailing(where);
    if (result.problem === "too-large") throw inflatesPastSize(record);
    throw deflateCorrupt(where);
  }
  return checkWhole(result.bytes, record, digests);
}

/** Reads a small stored entry in one call, checking its CRC-32. */
async function storedWhole(
  source: ByteSource,
  record: EntryRecord,
  digests: Digests,
): Promise<Uint8Array> {
  let data: Uint8Array;
  try {
    data = await readExact(source, record.dataOffset, record.entry.size);
  } catch (error) {
    throw error instanceof SourceFailure ? error.error : error;
  }
  return checkWhole(data, record, digests);
}

function checkWhole(bytes: Uint8Array, record: EntryRecord, digests: Digests): Uint8Array {
  if (bytes.length > record.entry.size) throw inflatesPastSize(record);
  checkEnd(record, bytes.length, digests.crc32(bytes, 0));
  return bytes;
}

/** At the end of a body: it must hold the size and the CRC-32 its entry declares. */
function checkEnd(record: EntryRecord, produced: number, crc: number): void {
  const { entry, where } = record;
  if (produced !== entry.size) {
    throw new TaskPackReadError(
      "zip-size",
      where,
      `the entry holds ${produced} bytes but declares ${entry.size}`,
    );
  }
  if (crc !== entry.crc32) {
    throw new TaskPackReadError("zip-crc", where, "the CRC-32 does not match the entry's data");
  }
}

function inflatesPastSize(record: EntryRecord): TaskPackReadError {
  return new TaskPackReadError(
    "zip-size",
    record.where,
    `the entry inflates to more than the ${record.entry.size} bytes it declares`,
  );
}

/**
 * The whole body of a small entry, read (and inflated) in one call rather than streamed, or
 * null when the entry is not small. Deflated ones go to the shell's one-shot inflater, else to
 * the core's.
 */
export function wholeBody(
  source: ByteSource,
  record: EntryRecord,
  digests: Digests,
  inflater: Inflater = coreInflater,
): Promise<Uint8Array> | null {
  const { entry } = record;
  if (entry.method === 0 && entry.size <= ONE_SHOT_COMPRESSED) {
    return storedWhole(source, record, digests);
  }
  if (oneShot(record)) return inflateWhole(source, record, digests, inflater);
  return null;
}

/** Whether an entry is deflated and small enough to be inflated in one call. */
function oneShot({ entry }: EntryRecord): boolean {
  return entry.method === 8 && entry.compressedSize <= ONE_SHOT_COMPRESSED &&
    entry.size <= ONE_SHOT_SIZE;
}

/** A stream of one chunk: the whole body. */
function wholeStream(read: () => Promise<Uint8Array>): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return controller.close();
      done = true;
      const bytes = await read();
      if (bytes.length > 0) controller.enqueue(bytes);
      else controller.close();
    },
  }, { highWaterMark: 0 });
}

export function openBody(
  source: ByteSource,
  record: EntryRecord,
  digests: Digests,
  inflater?: Inflater,
): ReadableStream<Uint8Array> {
  const { entry, where } = record;
  if (oneShot(record)) {
    return wholeStream(() => inflateWhole(source, record, digests, inflater ?? coreInflater));
  }
  if (entry.method === 0 && canReadInto(source)) return storedBody(source, record, digests);
  if (entry.method === 8 && inflater?.inflateSteps && canReadInto(source)) {
    return inflatedBody(source, record, digests, inflater.inflateSteps());
  }
  const start = record.dataOffset;
  const end = start + entry.compressedSize;
  let produced = 0;
  let crc = 0;
  let sourceError: { error: unknown } | null = null;

  // Compressed bytes, read from the source in BODY_READ pieces and handed on in pieces sized so
  // that one piece can never inflate far past what the entry has left to declare.
  let position = start;
  let buffer: Uint8Array = new Uint8Array(0);
  let bufferOffset = 0;
  const maxInput = inflater?.inflateStream ? SHELL_INFLATE_MAX_INPUT : INFLATE_MAX_INPUT;
  const piece = (): number => {
    if (entry.method === 0) return BODY_READ;
    const remaining = Math.max(0, entry.size - produced);
    const room = Math.ceil((remaining + INFLATE_SLACK) / DEFLATE_MAX_RATIO);
    return Math.min(maxInput, Math.max(INFLATE_MIN_INPUT, room));
  };
  const compressed = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (bufferOffset >= buffer.length) {
        if (position >= end) {
          controller.close();
          return;
        }
        const length = Math.min(BODY_READ, end - position);
        try {
          buffer = await readExact(source, position, length);
        } catch (error) {
          sourceError = { error: error instanceof SourceFailure ? error.error : error };
          throw sourceError.error;
        }
        bufferOffset = 0;
        position += length;
      }
      const take = Math.min(piece(), buffer.length - bufferOffset);
      controller.enqueue(buffer.subarray(bufferOffset, bufferOffset + take));
      bufferOffset += take;
    },
  }, { highWaterMark: 0 });

  const inflated = entry.method !== 8
    ? compressed
    : inflater?.inflateStream
    ? compressed.pipeThrough(inflater.inflateStream())
    : inflateToExactEnd(compressed, () => checkDeflateEnd(source, start, end, where));
  const reader = inflated.getReader();
  let finished = false;

  const fail = (error: unknown): never => {
    finished = true;
    reader.cancel(error).catch(() => {});
    if (sourceError !== null) throw sourceError.error;
    if (error instanceof TaskPackReadError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    if (/whole buffer|trailing|junk/i.test(detail)) throw deflateTrailing(where);
    // The platform's own wording differs between runtimes; the report must not.
    throw deflateCorrupt(where);
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return;
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        return fail(error);
      }
      if (result.done) {
        finished = true;
        checkEnd(record, produced, crc);
        controller.close();
        return;
      }
      const chunk = result.value;
      produced += chunk.length;
      if (produced > entry.size) fail(inflatesPastSize(record));
      crc = digests.crc32(chunk, crc);
      controller.enqueue(chunk);
    },
    cancel(reason) {
      finished = true;
      return reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

function deflateTrailing(where: string): TaskPackReadError {
  return new TaskPackReadError(
    "zip-size",
    where,
    "the compressed data continues past the end of the deflate stream",
  );
}

function deflateCorrupt(where: string): TaskPackReadError {
  return new TaskPackReadError("zip-crc", where, "the deflate data is corrupt");
}

/** How this platform's `DecompressionStream` departs from a strict raw DEFLATE reader. */
interface InflateQuirks {
  /** Bytes after the end of the stream are ignored (Node 20), not an error. */
  ignoresTrailing: boolean;
  /** A stream cut short of its end is accepted (Deno), not an error. */
  acceptsUnfinished: boolean;
  /** The platform's error message for bytes after the end, when it has one. */
  trailingMessage: string | null;
}

/** "hello" as raw DEFLATE (one final block, fixed Huffman codes): its last byte ends it. */
const HELLO_DEFLATED = new Uint8Array([0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]);

let quirks: Promise<InflateQuirks> | null = null;

/** Tries the platform once: how it treats trailing bytes and a stream cut short. */
function inflateQuirks(): Promise<InflateQuirks> {
  quirks ??= (async () => {
    const complete = await inflateOutcome(rangeStream([HELLO_DEFLATED]));
    if (complete !== null) {
      return { ignoresTrailing: false, acceptsUnfinished: false, trailingMessage: null };
    }
    const trailing = await inflateOutcome(rangeStream([HELLO_DEFLATED, new Uint8Array(1)]));
    const unfinished = await inflateOutcome(rangeStream([HELLO_DEFLATED.subarray(0, 6)]));
    return {
      ignoresTrailing: trailing === null,
      acceptsUnfinished: unfinished === null,
      trailingMessage: trailing,
    };
  })();
  return quirks;
}

/** Inflates a stream to nowhere: null when it inflates cleanly, else the error's message. */
async function inflateOutcome(input: ReadableStream<Uint8Array>): Promise<string | null> {
  try {
    const reader = input
      .pipeThrough(
        new DecompressionStream("deflate-raw") as TransformStream<Uint8Array, Uint8Array>,
      )
      .getReader();
    while (!(await reader.read()).done) { /* discard */ }
    return null;
  } catch (error) {
    if (error instanceof SourceFailure || error instanceof TaskPackReadError) throw error;
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A stream over a range of a source (read in BODY_READ pieces, handed on in INFLATE_MIN_INPUT
 * ones, so that no single write can inflate to much), then over byte arrays.
 */
function rangeStream(
  parts: Uint8Array[],
  source?: ByteSource,
  start = 0,
  end = 0,
): ReadableStream<Uint8Array> {
  let position = start;
  let buffer: Uint8Array = new Uint8Array(0);
  let offset = 0;
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset >= buffer.length && source && position < end) {
        const length = Math.min(BODY_READ, end - position);
        buffer = await readExact(source, position, length);
        offset = 0;
        position += length;
      }
      if (offset < buffer.length) {
        controller.enqueue(buffer.subarray(offset, offset + INFLATE_MIN_INPUT));
        offset += INFLATE_MIN_INPUT;
      } else if (next < parts.length) controller.enqueue(parts[next++]!);
      else controller.close();
    },
  }, { highWaterMark: 0 });
}

/**
 * Inflates an entry's raw DEFLATE data, failing unless the DEFLATE stream ends exactly where the
 * data does, with the same verdict on every runtime. Strict platforms (Bun, browsers) refuse
 * both faults while inflating. Deno accepts a stream cut short but refuses bytes after the end,
 * so one more byte is written once the data is in: refused as trailing, the stream had ended;
 * accepted, it had not. Node 20 ignores bytes after the end: `checkAgain` then makes a second
 * pass (see {@linkcode checkDeflateEnd}). Errors are the platform's own, or plain errors that
 * the caller reports as corrupt data.
 */
function inflateToExactEnd(
  compressed: ReadableStream<Uint8Array>,
  checkAgain: () => Promise<void>,
): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let probe: ((error: unknown) => boolean) | null = null;
  let probing = false;
  let lenient = false;
  let writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async start() {
      const platform = await inflateQuirks();
      const inflater = new DecompressionStream("deflate-raw") as TransformStream<
        Uint8Array,
        Uint8Array
      >;
      reader = inflater.readable.getReader();
      if (!platform.acceptsUnfinished || platform.trailingMessage === null) {
        lenient = platform.ignoresTrailing;
        compressed.pipeTo(inflater.writable).catch(() => {});
        return;
      }
      const trailing = platform.trailingMessage;
      probe = (error) => error instanceof Error && error.message === trailing;
      const input = compressed.getReader();
      const sink = writer = inflater.writable.getWriter();
      (async () => {
        for (;;) {
          const { done, value } = await input.read();
          if (done) break;
          await sink.write(value);
        }
        // An empty write is taken only once everything inflated so far has been read, so any
        // output after it comes from the extra byte.
        await sink.write(new Uint8Array(0));
        probing = true;
        await sink.write(new Uint8Array(1));
        // Taken: the stream had not ended.
        await sink.abort(new Error("the deflate stream is cut short"));
      })().catch((error) => sink.abort(error).catch(() => {}));
    },
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader!.read();
      } catch (error) {
        if (!probing || !probe?.(error)) throw error;
        // The extra byte was refused as trailing: the data ended exactly at its end.
        controller.close();
        return;
      }
      if (probing || (result.done && probe)) throw new Error("the deflate stream is cut short");
      if (!result.done) {
        controller.enqueue(result.value);
        return;
      }
      if (lenient) await checkAgain();
      controller.close();
    },
    cancel(reason) {
      writer?.abort(reason).catch(() => {});
      return reader?.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

/**
 * The second pass for a platform that ignores bytes after the end of a DEFLATE stream (Node 20):
 * the data less its last byte must not inflate, or the stream ended before the data did.
 */
async function checkDeflateEnd(
  source: ByteSource,
  start: number,
  end: number,
  where: string,
): Promise<void> {
  if (end > start && await inflateOutcome(rangeStream([], source, start, end - 1)) === null) {
    throw deflateTrailing(where);
  }
}
