// Copyright 2026 the taskpack authors. MIT license.
/**
 * The receive policy of every server taskpack starts: the bounds on the work one HTTP request
 * can cause — how many bytes it may send, how long it may take to send them, how many bytes its
 * pack may inflate to (relative to what was sent, and in absolute terms), and how long judging
 * or landing it may run — and on the whole server: the bytes and the requests in flight at once.
 *
 * - {@linkcode receiveBody}: any body (a pack, an MCP message, a passport's JSON): its size and
 *   its deadline;
 * - {@linkcode receivePack}: a pack as the body (`/conformance`, `/inspect`, `/convert`);
 * - {@linkcode receiveInline}: a pack carried inside a message (an A2A file part, an MCP call's
 *   `pack_base64`), bounded exactly as a body is;
 * - {@linkcode ServerBudget} and {@linkcode withinBudget}: 503 with `Retry-After` before a body
 *   is read, past the whole server's bounds.
 *
 * Every refusal is one shape, `{error, limit, max}`, naming the bound.
 *
 * Everything here is a pure function of the request and the clock: no file system, no
 * environment ({@linkcode boundsFromEnv} is given a getter by the one entry point that reads
 * the environment, `shell/http/judge_server.ts`).
 *
 * @module
 */
import {
  type DecodedPack,
  decodePack,
  judge,
  type ReadLimits,
  type Report,
} from "../../lib/format/mod.ts";
import { type ByteSource, bytesSource, concatBytes, type Digests } from "../../lib/bytes/mod.ts";
import { type LuggageScanner, type ScannerFactory, TextScanner } from "../../lib/scan/mod.ts";

/** The bounds on one request (see {@linkcode DEFAULT_REQUEST_BOUNDS}). */
export interface RequestBounds {
  /** The largest body accepted, in bytes (413, from `Content-Length` or by counting). */
  maxBodyBytes: number;
  /** How long the whole body may take to arrive, in milliseconds (408, connection closed). */
  bodyTimeoutMs: number;
  /** The declared inflated total (and each entry) at most this many times the body's size. */
  maxInflateFactor: number;
  /** The declared inflated total (and each entry) at most this many bytes, whatever the body. */
  maxInflatedBytes: number;
  /** The highest declared compression ratio of one entry (over 1 MiB inflated). */
  maxRatio: number;
  /** How long decoding and judging may run once the body is in, in milliseconds. */
  maxWorkMs: number;
  /**
   * The whole server's bound on bodies being received or judged at once, in bytes (each
   * request counts its `Content-Length`, else `maxBodyBytes`): past it, 503 with `Retry-After`
   * before the body is read.
   */
  maxBytesInFlight: number;
  /** The whole server's bound on packs being received or judged at once (503 past it). */
  maxConcurrentJudgements: number;
}

/**
 * The public judge's defaults: a 64 MiB body, received within 30 s; an inflated total of at
 * most 16 times the body and never more than 1 GiB, refused from the central directory before
 * anything is inflated; an entry ratio of at most 64 (the reader's own default, 1,100, is
 * about what DEFLATE can do at all); and 10 s of judging. The CLI keeps the reader's
 * generous defaults; these are for a server anyone can reach.
 *
 * @example Usage
 * ```ts
 * import { DEFAULT_REQUEST_BOUNDS } from "./request_bounds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(DEFAULT_REQUEST_BOUNDS.maxInflatedBytes, 1024 ** 3);
 * ```
 */
export const DEFAULT_REQUEST_BOUNDS: Readonly<RequestBounds> = Object.freeze({
  maxBodyBytes: 64 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
  maxInflateFactor: 16,
  maxInflatedBytes: 1024 ** 3,
  // The total bound is what bounds the work; this one refuses a bomb-shaped entry by name,
  // while leaving room for one very compressible log beside incompressible luggage. It also
  // bounds what one 1 MiB read of compressed data can inflate to between budget checks.
  maxRatio: 64,
  maxWorkMs: 10_000,
  maxBytesInFlight: 192 * 1024 * 1024,
  maxConcurrentJudgements: 64,
});

/**
 * The reader's limits for a pack of `size` bytes that came in a request: what every route that
 * takes a pack applies before anything is inflated or written. The inflated total (and each
 * entry) at most `maxInflateFactor` times the pack and never more than `maxInflatedBytes`.
 *
 * @param size The pack's size in bytes.
 * @param bounds The server's bounds (default: the public judge's).
 * @returns The reader limits.
 *
 * @example Usage
 * ```ts
 * import { receiveLimits } from "./request_bounds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(receiveLimits(1024).maxTotalSize, 16 * 1024);
 * ```
 */
export function receiveLimits(
  size: number,
  bounds: Readonly<RequestBounds> = DEFAULT_REQUEST_BOUNDS,
): Partial<ReadLimits> {
  const inflated = Math.floor(Math.min(bounds.maxInflateFactor * size, bounds.maxInflatedBytes));
  return {
    maxPackBytes: bounds.maxBodyBytes,
    maxTotalSize: inflated,
    maxEntrySize: inflated,
    maxRatio: bounds.maxRatio,
  };
}

/** The environment variable that sets each bound for `deno task serve`. */
export const BOUND_ENV: Readonly<Record<keyof RequestBounds, string>> = Object.freeze({
  maxBodyBytes: "TASKPACK_JUDGE_MAX_BODY_BYTES",
  bodyTimeoutMs: "TASKPACK_JUDGE_BODY_TIMEOUT_MS",
  maxInflateFactor: "TASKPACK_JUDGE_MAX_INFLATE_FACTOR",
  maxInflatedBytes: "TASKPACK_JUDGE_MAX_INFLATED_BYTES",
  maxRatio: "TASKPACK_JUDGE_MAX_RATIO",
  maxWorkMs: "TASKPACK_JUDGE_MAX_WORK_MS",
  maxBytesInFlight: "TASKPACK_JUDGE_MAX_BYTES_IN_FLIGHT",
  maxConcurrentJudgements: "TASKPACK_JUDGE_MAX_CONCURRENT_JUDGEMENTS",
});

/**
 * The bounds, with the defaults filled in; refuses a bound that is not a non-negative number.
 *
 * @param given Some bounds.
 * @returns All of them.
 */
export function resolveBounds(given: Partial<RequestBounds> = {}): RequestBounds {
  const bounds = { ...DEFAULT_REQUEST_BOUNDS };
  for (const name of Object.keys(DEFAULT_REQUEST_BOUNDS) as (keyof RequestBounds)[]) {
    const value = given[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value >= 0)) {
      throw new RangeError(`Cannot create the judge: ${name} must be a number of at least 0`);
    }
    bounds[name] = value;
  }
  return bounds;
}

const UNITS: Readonly<Record<string, number>> = {
  "": 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/**
 * Reads bounds from environment variables ({@linkcode BOUND_ENV}); sizes may end in `KiB`,
 * `MiB` or `GiB`. A value that is not a whole number is refused, naming the variable.
 *
 * @param get Gives a variable's value (e.g. `(name) => Deno.env.get(name)`).
 * @returns The bounds that were set.
 */
export function boundsFromEnv(get: (name: string) => string | undefined): Partial<RequestBounds> {
  const bounds: Partial<RequestBounds> = {};
  for (const [name, variable] of Object.entries(BOUND_ENV) as [keyof RequestBounds, string][]) {
    const text = get(variable);
    if (text === undefined || text.trim() === "") continue;
    const match = /^([0-9]+)\s*([A-Za-z]*)$/.exec(text.trim());
    const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
    const value = match && unit !== undefined ? Number(match[1]) * unit : NaN;
    if (!Number.isSafeInteger(value)) {
      throw new RangeError(
        `${variable} needs a whole number (KiB, MiB, GiB allowed), got "${text}"`,
      );
    }
    bounds[name] = value;
  }
  return bounds;
}

/** A refusal: its status, the one sentence, the bound it hit and that bound's value. */
export interface Refusal {
  /** 408 (too slow), 413 (too large, or too much work) or 503 (the server is busy). */
  status: 408 | 413 | 503;
  /** One sentence, naming the bound. */
  error: string;
  /** The bound's name, as in {@linkcode RequestBounds}. */
  limit: keyof RequestBounds;
  /** The bound's value. */
  max: number;
}

/**
 * The response for a refusal: JSON `{error, limit, max}`. A 408 also closes the connection,
 * since the rest of a slow body is not worth waiting for.
 *
 * @param refusal The refusal.
 * @returns The response.
 */
export function refusalResponse(refusal: Refusal): Response {
  const { status, error, limit, max } = refusal;
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  };
  if (status === 408) headers.connection = "close";
  if (status === 503) headers["retry-after"] = String(RETRY_AFTER_SECONDS);
  return new Response(JSON.stringify({ error, limit, max }, null, 2) + "\n", { status, headers });
}

/** A deadline for decoding and judging; once past, every check refuses to go on. */
export class WorkBudget {
  readonly #end: number;
  readonly #now: () => number;
  /** The budget, in milliseconds. */
  readonly ms: number;
  /** True once a check found the deadline passed. */
  exceeded = false;

  /**
   * Starts the budget now.
   *
   * @param ms The budget, in milliseconds.
   * @param now The clock (milliseconds).
   */
  constructor(ms: number, now: () => number = () => performance.now()) {
    this.ms = ms;
    this.#now = now;
    this.#end = now() + ms;
  }

  /** Throws (and marks the budget exceeded) once the deadline has passed. */
  check(): void {
    if (this.exceeded || this.#now() >= this.#end) {
      this.exceeded = true;
      throw new Error(`the judge's work budget of ${this.ms} ms is spent`);
    }
  }

  /**
   * A source that checks the budget before each read: the reader reads compressed data 1 MiB
   * at a time, so inflating stops within a read of the deadline.
   *
   * @param source The source.
   * @returns The same bytes, on a budget.
   */
  source(source: ByteSource): ByteSource {
    return {
      size: source.size,
      read: (offset, length) => {
        this.check();
        return source.read(offset, length);
      },
    };
  }

  /**
   * The same bytes, as an array whose every slice checks the budget first: for an operation
   * that reads a pack from bytes it is given (landing), so that it stops within one read of
   * the deadline too.
   *
   * @param bytes The pack.
   * @returns The same bytes, on a budget.
   */
  bytes(bytes: Uint8Array): Uint8Array {
    const check = () => this.check();
    class OnBudget extends Uint8Array {
      override subarray(begin?: number, end?: number): Uint8Array<ArrayBuffer> {
        check();
        return new Uint8Array(this.buffer, this.byteOffset, this.length).subarray(begin, end);
      }
    }
    return new OnBudget(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length);
  }

  /**
   * A scanner factory that checks the budget on every chunk of inflated luggage, so hashing
   * and scanning stop too (the check fails the file, and every file after it).
   *
   * @returns The factory.
   */
  scanner(): ScannerFactory {
    return (): LuggageScanner => {
      const inner = new TextScanner();
      return {
        push: (bytes) => {
          this.check();
          return inner.push(bytes);
        },
        finish: () => inner.finish(),
        scanWhole: (bytes) => {
          this.check();
          return inner.scanWhole(bytes);
        },
      };
    };
  }

  /** The refusal to answer with once the budget is spent. */
  refusal(): Refusal {
    return {
      status: 413,
      error: `Judging this pack needs more than this judge's work budget of ${this.ms} ms ` +
        `(maxWorkMs)`,
      limit: "maxWorkMs",
      max: this.ms,
    };
  }
}

/** A body received within the bounds, and what judging it may cost. */
export interface BoundedPack {
  /** The body. */
  bytes: Uint8Array;
  /** The body as a source on the work budget. */
  source: ByteSource;
  /** The reader limits for this body: the inflated bounds, relative to its size. */
  limits: Partial<ReadLimits>;
  /** The work budget, started when the body was in. */
  budget: WorkBudget;
  /**
   * The refusal for an error the reader threw, when it is one of these bounds (decided from
   * the central directory, before inflating) or the spent budget; else null.
   */
  refusalFor(error: unknown): Refusal | null;
}

/** A received pack, judged: the report, and the pack as decoded or why it could not be. */
export type JudgedPack =
  | { report: Report; decoded: DecodedPack; readError?: undefined }
  | { report: Report; decoded: null; readError: unknown };

/**
 * Judges a received pack as every route that judges one does: decoded first, so that a bound
 * is refused from the central directory before anything is inflated, then judged on the work
 * budget. A pack that cannot be decoded is still judged (the report says why it fails).
 *
 * @param received The pack, received within the bounds.
 * @param digests The digests to judge with (default: the portable ones).
 * @returns The judgement, or the refusal when a bound or the budget was passed.
 *
 * @example Usage
 * ```ts
 * import { judgeReceived, receiveInline, resolveBounds } from "./request_bounds.ts";
 * import { assert } from "@std/assert";
 *
 * const received = receiveInline(new TextEncoder().encode("{}"), resolveBounds());
 * assert("source" in received);
 * const judged = await judgeReceived(received);
 * assert("report" in judged && !judged.report.ok && judged.decoded === null);
 * ```
 */
export async function judgeReceived(
  received: BoundedPack,
  digests?: Digests,
): Promise<JudgedPack | Refusal> {
  const options = { ...(digests ? { digests } : {}), limits: received.limits };
  let decoded: DecodedPack | null = null;
  let readError: unknown;
  try {
    decoded = await decodePack(received.source, options);
  } catch (error) {
    const refusal = received.refusalFor(error);
    if (refusal) return refusal;
    readError = error;
  }
  const report = await judge(received.source, {
    ...options,
    scanner: received.budget.scanner(),
  });
  if (received.budget.exceeded) return received.budget.refusal();
  return decoded ? { report, decoded } : { report, decoded: null, readError };
}

/**
 * Receives a request's body within the bounds, without judging what it is: refused (413) from
 * `Content-Length` when it declares more than `maxBytes`, else counted while reading (413), and
 * cut off (408) when it has not arrived within `bodyTimeoutMs`. Every route that reads a body
 * reads it through this (a pack, an MCP message, a passport's JSON).
 *
 * @param request The request.
 * @param bounds The bounds (see {@linkcode resolveBounds}).
 * @param maxBytes The largest body (default `maxBodyBytes`; an MCP message carries a pack in
 *   base64, see {@linkcode messageBytesFor}); a refusal still names `maxBodyBytes`.
 * @returns The body's bytes, or the refusal.
 *
 * @example Usage
 * ```ts
 * import { receiveBody, resolveBounds } from "./request_bounds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const request = new Request("http://judge.test/", { method: "POST", body: "x".repeat(100) });
 * const refused = await receiveBody(request, resolveBounds({ maxBodyBytes: 10 }));
 * assertEquals("status" in refused && refused.limit, "maxBodyBytes");
 * ```
 */
export async function receiveBody(
  request: Request,
  bounds: Pick<RequestBounds, "maxBodyBytes" | "bodyTimeoutMs">,
  maxBytes: number = bounds.maxBodyBytes,
): Promise<Uint8Array | Refusal> {
  const tooLarge: Refusal = {
    status: 413,
    error: `The body is over this server's limit of ${maxBytes} bytes (maxBodyBytes)`,
    limit: "maxBodyBytes",
    max: bounds.maxBodyBytes,
  };
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return tooLarge;
  }
  if (request.body === null) return new Uint8Array(0);
  const size = declared !== null && /^\d+$/.test(declared.trim()) ? Number(declared) : undefined;
  const read = await readWithin(request.body, maxBytes, bounds.bodyTimeoutMs, size);
  if (read === "too-large") return tooLarge;
  if (read === "timeout") {
    return {
      status: 408,
      error: `The body did not arrive within this server's limit of ${bounds.bodyTimeoutMs} ms ` +
        `(bodyTimeoutMs)`,
      limit: "bodyTimeoutMs",
      max: bounds.bodyTimeoutMs,
    };
  }
  return read;
}

/**
 * The largest MCP message (or other JSON envelope) that can carry a pack of `maxBodyBytes`:
 * base64 makes it a third larger, plus room for the envelope.
 *
 * @param bounds The bounds.
 * @returns The bound on such a message, in bytes.
 */
export function messageBytesFor(bounds: Readonly<RequestBounds>): number {
  return Math.ceil(bounds.maxBodyBytes / 3) * 4 + 64 * 1024;
}

/**
 * Receives a request's body within the bounds: refused (413) from `Content-Length` when it
 * declares too much, else counted while reading (413), and cut off (408) when it has not
 * arrived within `bodyTimeoutMs`. The body gets reader limits relative to its size.
 *
 * @param request The request, its body a pack.
 * @param bounds The bounds (see {@linkcode resolveBounds}).
 * @param now The clock (milliseconds), for the work budget.
 * @returns The body and what judging it may cost, or the refusal.
 *
 * @example Usage
 * ```ts
 * import { receivePack, resolveBounds } from "./request_bounds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const request = new Request("http://judge.test/", { method: "POST", body: "x".repeat(100) });
 * const refused = await receivePack(request, resolveBounds({ maxBodyBytes: 10 }));
 * assertEquals("status" in refused && refused.limit, "maxBodyBytes");
 * ```
 */
export async function receivePack(
  request: Request,
  bounds: RequestBounds,
  now?: () => number,
): Promise<BoundedPack | Refusal> {
  const bytes = await receiveBody(request, bounds);
  return "status" in bytes ? bytes : receiveInline(bytes, bounds, now);
}

/**
 * The receive policy for a pack that is already in memory: one carried inside a message (an
 * MCP tool call's `pack_base64`, an A2A file part). The same bounds as a body: refused (413)
 * when larger than `maxBodyBytes`, else given reader limits relative to its size, a work budget
 * started now, and the refusal for what the reader throws.
 *
 * @param bytes The pack.
 * @param bounds The bounds.
 * @param now The clock (milliseconds), for the work budget.
 * @returns The pack and what judging it may cost, or the refusal.
 *
 * @example Usage
 * ```ts
 * import { receiveInline, resolveBounds } from "./request_bounds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const received = receiveInline(new Uint8Array(100), resolveBounds());
 * assertEquals("limits" in received && received.limits.maxTotalSize, 1600);
 * ```
 */
export function receiveInline(
  bytes: Uint8Array,
  bounds: RequestBounds,
  now?: () => number,
): BoundedPack | Refusal {
  if (bytes.length > bounds.maxBodyBytes) {
    return {
      status: 413,
      error: `The pack is over this server's limit of ${bounds.maxBodyBytes} bytes (maxBodyBytes)`,
      limit: "maxBodyBytes",
      max: bounds.maxBodyBytes,
    };
  }
  const relative = bounds.maxInflateFactor * bytes.length;
  const inflatedBound: keyof RequestBounds = relative < bounds.maxInflatedBytes
    ? "maxInflateFactor"
    : "maxInflatedBytes";
  const budget = new WorkBudget(bounds.maxWorkMs, now);
  return {
    bytes,
    source: budget.source(bytesSource(bytes)),
    limits: receiveLimits(bytes.length, bounds),
    budget,
    refusalFor(error: unknown): Refusal | null {
      if (budget.exceeded) return budget.refusal();
      const message = error instanceof Error ? error.message : "";
      // The reader names the limit it hit: "(raise maxTotalSize)".
      const match =
        /Cannot read taskpack: (.*?) \(raise (maxTotalSize|maxEntrySize|maxRatio|maxPackBytes)\)/
          .exec(message);
      if (!match) return null;
      const detail = match[1]!;
      if (match[2] === "maxPackBytes") {
        return {
          status: 413,
          error: `The pack is over this server's limit of ${bounds.maxBodyBytes} bytes ` +
            `(maxBodyBytes)`,
          limit: "maxBodyBytes",
          max: bounds.maxBodyBytes,
        };
      }
      if (match[2] === "maxRatio") {
        return {
          status: 413,
          error: `This server refuses the pack before inflating it: ${detail} (maxRatio)`,
          limit: "maxRatio",
          max: bounds.maxRatio,
        };
      }
      const why = inflatedBound === "maxInflateFactor"
        ? `${bounds.maxInflateFactor} times the ${bytes.length}-byte pack (maxInflateFactor)`
        : `this server's ceiling whatever the pack (maxInflatedBytes)`;
      return {
        status: 413,
        error: `This server refuses the pack before inflating it: ${detail}, ${why}`,
        limit: inflatedBound,
        max: bounds[inflatedBound],
      };
    },
  };
}

/** How long a client told 503 is asked to wait, in seconds. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * The whole server's budget: the bytes of the bodies being received or judged at once
 * (`maxBytesInFlight`) and how many packs are (`maxConcurrentJudgements`). A request past either
 * is refused (503, `Retry-After`) before its body is read; each bound alone holds even when
 * every request keeps within its own.
 *
 * @example Usage
 * ```ts
 * import { resolveBounds, ServerBudget } from "./request_bounds.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const budget = new ServerBudget(resolveBounds({ maxConcurrentJudgements: 1 }));
 * const request = () => new Request("http://judge.test/", { method: "POST", body: "{}" });
 * const first = budget.admit(request());
 * assertEquals(typeof first, "function");
 * const second = budget.admit(request());
 * assertEquals(typeof second !== "function" && second.status, 503);
 * if (typeof first === "function") first();
 * ```
 */
export class ServerBudget {
  readonly #bounds: RequestBounds;
  #bytes = 0;
  #count = 0;

  /**
   * A budget for one server.
   *
   * @param bounds The bounds (`maxBytesInFlight`, `maxConcurrentJudgements`, `maxBodyBytes`).
   */
  constructor(bounds: RequestBounds) {
    this.#bounds = bounds;
  }

  /** The bytes and the requests admitted and not yet released. */
  get inFlight(): { bytes: number; requests: number } {
    return { bytes: this.#bytes, requests: this.#count };
  }

  /**
   * Admits a request, or refuses it. A request is counted at its declared `Content-Length`
   * (at most `maxBodyBytes`), else at `maxBodyBytes`; the first request is always admitted.
   *
   * @param request The request (its body is not read).
   * @param maxBytes Its largest body (default `maxBodyBytes`).
   * @returns The function that releases what it holds (call it once answered), or the 503.
   */
  admit(request: Request, maxBytes: number = this.#bounds.maxBodyBytes): (() => void) | Refusal {
    const declared = request.headers.get("content-length")?.trim() ?? "";
    const size = Math.min(/^\d+$/.test(declared) ? Number(declared) : maxBytes, maxBytes);
    const { maxBytesInFlight, maxConcurrentJudgements } = this.#bounds;
    if (this.#count > 0 && this.#count + 1 > maxConcurrentJudgements) {
      return busy("maxConcurrentJudgements", maxConcurrentJudgements, "packs at once");
    }
    if (this.#count > 0 && this.#bytes + size > maxBytesInFlight) {
      return busy("maxBytesInFlight", maxBytesInFlight, "bytes in flight");
    }
    this.#bytes += size;
    this.#count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#bytes -= size;
      this.#count--;
    };
  }
}

function busy(limit: keyof RequestBounds, max: number, what: string): Refusal {
  return {
    status: 503,
    error: `This server is at its limit of ${max} ${what} (${limit}); try again shortly`,
    limit,
    max,
  };
}

/**
 * Runs `answer` for a request within the server's budget: 503 (and the body not read) when the
 * server is at its bound, else the answer, the request's share released once it is given.
 *
 * @param budget The server's budget.
 * @param request The request.
 * @param answer Answers it.
 * @param maxBytes The request's largest body (default `maxBodyBytes`).
 * @returns The response.
 */
export async function withinBudget(
  budget: ServerBudget,
  request: Request,
  answer: () => Promise<Response>,
  maxBytes?: number,
): Promise<Response> {
  const admitted = budget.admit(request, maxBytes);
  if (typeof admitted !== "function") {
    await request.body?.cancel().catch(() => {});
    return refusalResponse(admitted);
  }
  try {
    return await answer();
  } finally {
    admitted();
  }
}

/**
 * Reads a whole stream, unless it passes `limit` bytes or takes longer than `ms`. With the size
 * declared (`Content-Length`), the body goes straight into one buffer of that size, so a body
 * is held once, not once in pieces and again joined.
 */
async function readWithin(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  ms: number,
  declared?: number,
): Promise<Uint8Array | "too-large" | "timeout"> {
  const reader = stream.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  const whole = declared !== undefined && declared <= limit ? new Uint8Array(declared) : null;
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const next = await Promise.race([reader.read(), timeout]);
      if (next === "timeout") {
        reader.cancel().catch(() => {});
        return "timeout";
      }
      if (next.done) break;
      const end = total + next.value.length;
      if (end > limit) {
        reader.cancel().catch(() => {});
        return "too-large";
      }
      if (whole && end <= whole.length) whole.set(next.value, total);
      else parts.push(next.value);
      total = end;
    }
  } catch {
    reader.cancel().catch(() => {});
    throw new Error("The body could not be read");
  } finally {
    clearTimeout(timer);
  }
  if (whole) {
    // More than declared: what came past the declared size follows it.
    if (parts.length) return concatBytes([whole, ...parts]);
    return total === whole.length ? whole : whole.subarray(0, total);
  }
  return parts.length === 1 ? parts[0]! : concatBytes(parts);
}
