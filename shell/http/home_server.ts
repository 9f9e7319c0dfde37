// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The HTTP home: a team's passports behind one `fetch` handler, on top of any
 * {@linkcode PassportStore} (a folder, Deno KV). It never executes a pack; packs and receipts stay
 * files, and landing runs on the client exactly as against a folder.
 *
 * | request               | body                        | answer                                   |
 * | --------------------- | --------------------------- | ---------------------------------------- |
 * | `GET /p`              |                             | `{passports, problems}` (summaries)      |
 * | `POST /p`             | `{state, keep_version?}`    | 201 `{state, token}`: the token, once    |
 * | `POST /p` (a pack)    | the pack's bytes            | 201 `{state, token, landed}`             |
 * | `GET /p/:id`          |                             | `{state, claim}`                         |
 * | `POST /p/:id`         | `{state, expected_version}` | `{state, claim}`; 409 when stale         |
 * | `POST /p/:id/claim`   | `{holder, ttl_seconds}`     | `{claim}`; 409 when someone holds it     |
 * | `DELETE /p/:id/claim` | `{holder?}` (optional)      | `{released, claim}`                      |
 *
 * - **Packs.** A body sent as a pack (`Content-Type: application/vnd.taskpack+zip`,
 *   `application/vnd.taskpack+json` or `application/zip`), with its signature beside it in
 *   `x-taskpack-signature` (the `.sig` file, base64), lands as a new passport when the home was
 *   given a way to land ({@linkcode HomeOptions.landPack}, as `serve-home` does): the same landing
 *   as everywhere else, under the server's receive policy. A home without one answers 415.
 * - **Tokens.** Creating a passport through the home mints a random bearer token for it, shows it
 *   once in the reply, and keeps only its SHA-256. Every request about one passport (reading it,
 *   saving it, claiming it) needs `Authorization: Bearer <token>`: 401 without one, 403 with the
 *   wrong one. The listing (`GET /p`) shows only ids, versions, titles and times. There are no
 *   accounts: whoever holds a passport's token may work on it.
 * - **The team's door.** With `teamTokenSha256` (`serve-home --team-token-file`), listing and
 *   creating (`GET /p`, `POST /p`) need `Authorization: Bearer <team token>`: 401 without it or
 *   with another, before the body is read, and nothing changes. Per-passport tokens keep working
 *   for reading, saving and claiming one passport. Without it, listing and creating are open to
 *   whoever reaches the home (so `serve-home` binds loopback only, unless `--open`).
 * - **Claims** are soft locks with a time to live, so two people do not work one task at once. A
 *   second claimant gets 409 naming who holds the claim and until when; the holder renews by
 *   claiming again; an expired claim lapses by itself. A claim never blocks a save: a save
 *   succeeds on its version alone and its reply reports the claim.
 * - **Creating** with `state.id` uses that id (409 when it exists), without one the home mints
 *   one. `keep_version: true` keeps the state's version instead of starting at 1, when the
 *   store can import (`taskpack migrate` into a home).
 * - **Errors** are `{ "error": "<one line>" }`: 400 malformed body, 401/403 token, 404 no such
 *   passport, 405 method, 409 stale version or held claim. None changes anything. A body past
 *   the home's bounds is refused as every server of taskpack refuses one, `{error, limit, max}`:
 *   413 over `maxBodyBytes`, 408 (the connection closed) when not in within `bodyTimeoutMs`.
 * - **Host.** A `Host` that is not `host[:port]` is refused (400) before anything else.
 *
 * Token hashes and claims live in a ledger: another {@linkcode PassportStore} whose records carry
 * the passport's id (`taskpack serve-home` puts it in `<folder>/.home/` or under the KV prefix
 * `["taskpack", "home"]`). Without one they live in memory and are lost on restart.
 *
 * @module
 */
import {
  decodeBase64Strict,
  isPlainObject,
  parseJsonStrict,
  portableDigests,
  sha256Hex,
} from "../../lib/bytes/mod.ts";
import { isPassportId, mintPassportId, type PassportState } from "../../lib/format/mod.ts";
import { MemoryStore, type PassportStore, StoreConflictError } from "../../lib/home/mod.ts";
import { receiveBody, type Refusal, refusalResponse } from "./request_bounds.ts";
import { hostSyntaxRefusal } from "./host_header.ts";

/** A soft lock on a passport. */
export interface Claim {
  /** Who holds it. */
  holder: string;
  /** When this holder first claimed it (RFC 3339, UTC). */
  since: string;
  /** When it lapses unless renewed (RFC 3339, UTC). */
  until: string;
}

/** Options for {@linkcode createHomeHandler}. */
export interface HomeOptions {
  /**
   * Where token hashes and claims are kept: a store of its own (never the passports' store).
   * Default: in memory, lost when the process ends.
   */
  ledger?: PassportStore;
  /** The clock. Default `() => new Date()`. */
  now?: () => Date;
  /** Random bytes, for tokens and ids. Default `crypto.getRandomValues`. */
  random?: (n: number) => Uint8Array;
  /** A path the API lives under, such as `/team`. Default: none. */
  basePath?: string;
  /** The largest request body. Default 20 MiB. */
  maxBodyBytes?: number;
  /** How long a request body may take to arrive, in milliseconds. Default 30 s. */
  bodyTimeoutMs?: number;
  /** The longest claim. Default 7 days. */
  maxClaimSeconds?: number;
  /**
   * The SHA-256 (hex, see {@linkcode hashToken}) of the team token: when set, `GET /p` and
   * `POST /p` need it as a bearer token. Default: none, listing and creating are open.
   */
  teamTokenSha256?: string;
  /**
   * Lands a pack posted to `POST /p` (its bytes, and its detached signature when one was sent)
   * and gives the new passport's id and the landing's reply; it throws to refuse, with a
   * `reason` when it has one and the receive policy's `refusal` when a bound refused it.
   * Default: none, and such a post is answered 415.
   */
  landPack?: (
    pack: Uint8Array,
    signature: Uint8Array | undefined,
  ) => Promise<{ passport_id: string } & Record<string, unknown>>;
}

/** The header that carries a pack's detached signature, base64, beside a posted pack. */
export const SIGNATURE_HEADER = "x-taskpack-signature";

const PACK_TYPES = /^application\/(vnd\.taskpack\+(zip|json)|zip)\s*(;|$)/i;

/** A `fetch` handler. */
export type HomeHandler = (request: Request) => Promise<Response>;

/** A ledger record: the passport's token hash and its claim. */
interface LedgerRecord extends PassportState {
  token_sha256?: string;
  claim?: Claim | null;
}

const DEFAULT_MAX_BODY = 20 * 1024 * 1024;
const DEFAULT_BODY_TIMEOUT = 30_000;
const DEFAULT_MAX_CLAIM = 7 * 24 * 3600;
const MAX_HOLDER = 200;
const LEDGER_RETRIES = 32;
const TOKEN_PREFIX = "tpk_";
const utf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/**
 * The SHA-256 (hex) of a token, as the ledger keeps it.
 *
 * @param token The token.
 * @returns Its hash.
 */
export function hashToken(token: string): string {
  return sha256Hex(portableDigests, encoder.encode(token));
}

/**
 * Mints a new token for a passport and keeps its hash in the ledger, replacing any earlier
 * token (its claim is kept). For `taskpack serve-home --mint-token`: a passport that came into
 * the store another way, or whose token was lost.
 *
 * @param ledger The ledger.
 * @param id The passport.
 * @param random Random bytes.
 * @returns The token: show it once, it is not kept.
 */
export async function issueToken(
  ledger: PassportStore,
  id: string,
  random: (n: number) => Uint8Array = defaultRandom,
): Promise<string> {
  const token = mintToken(random);
  await updateRecord(ledger, id, (record) => ({ ...record, token_sha256: hashToken(token) }));
  return token;
}

/**
 * The HTTP home as a `fetch` handler, for `Deno.serve`, `deno serve`, Deno Deploy or any server
 * that speaks `Request` and `Response`.
 *
 * @param store Where the passports live.
 * @param options The ledger, the clock, randomness and limits.
 * @returns The handler.
 *
 * @example Usage
 * ```ts
 * import { createHomeHandler } from "./home_server.ts";
 * import { MemoryStore } from "../../lib/home/mod.ts";
 * import assert from "node:assert/strict";
 *
 * const handle = createHomeHandler(new MemoryStore());
 * const created = await handle(
 *   new Request("http://home/p", {
 *     method: "POST",
 *     body: JSON.stringify({ state: { id: "TP-AAAA-BBBB", title: "t" } }),
 *   }),
 * );
 * assert.equal(created.status, 201);
 * const { token } = await created.json();
 * const opened = await handle(
 *   new Request("http://home/p/TP-AAAA-BBBB", { headers: { authorization: `Bearer ${token}` } }),
 * );
 * assert.equal((await opened.json()).state.version, 1);
 * ```
 */
export function createHomeHandler(store: PassportStore, options: HomeOptions = {}): HomeHandler {
  const ledger = options.ledger ?? new MemoryStore();
  const now = options.now ?? (() => new Date());
  const random = options.random ?? defaultRandom;
  const base = (options.basePath ?? "").replace(/\/+$/, "");
  const maxBody = {
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT,
  };
  const maxClaim = options.maxClaimSeconds ?? DEFAULT_MAX_CLAIM;

  async function route(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (base && path !== base && !path.startsWith(`${base}/`)) return notFound(path);
    const rest = path.slice(base.length);
    if (rest === "/p") {
      if (request.method !== "GET" && request.method !== "POST") return notAllowed("GET, POST");
      const door = teamDoor(request, options.teamTokenSha256);
      if (door) {
        await request.body?.cancel().catch(() => {});
        return door;
      }
      if (request.method === "GET") return reply(200, await store.list());
      if (request.method === "POST") return await create(request);
      return notAllowed("GET, POST");
    }
    const match = /^\/p\/([^/]+)(\/claim)?$/.exec(rest);
    if (!match) return notFound(path);
    const id = safeDecode(match[1]!);
    if (!isPassportId(id)) {
      return fail(404, `There is no passport ${shown(id)} here: ids look like TP-XXXX-XXXX`);
    }
    if (match[2]) {
      if (request.method !== "POST" && request.method !== "DELETE") {
        return notAllowed("POST, DELETE");
      }
    } else if (request.method !== "GET" && request.method !== "POST") {
      return notAllowed("GET, POST");
    }
    const gate = await admit(request, id);
    if (gate instanceof Response) return gate;
    if (match[2]) {
      return request.method === "POST" ? await claim(request, id) : await release(request, id);
    }
    return request.method === "GET" ? await open(id, gate) : await save(request, id, gate);
  }

  /** The passport's ledger record, or the refusal: 404 missing, 401 no token, 403 wrong token. */
  async function admit(request: Request, id: string): Promise<LedgerRecord | Response> {
    const record = (await ledger.open(id)) as LedgerRecord | null;
    const hash = typeof record?.token_sha256 === "string" ? record.token_sha256 : null;
    if (!hash && !(await store.open(id))) return fail(404, `There is no passport ${id} here`);
    const presented = bearer(request);
    if (presented === null) {
      return fail(401, `${id} needs its token: send Authorization: Bearer <token>`, {
        "www-authenticate": 'Bearer realm="taskpack"',
      });
    }
    if (!hash) {
      return fail(
        403,
        `${id} has no token at this home; its operator can mint one with taskpack serve-home --mint-token ${id}`,
      );
    }
    if (!sameText(hashToken(presented), hash)) {
      return fail(403, `The token does not open ${id}`);
    }
    return record!;
  }

  async function create(request: Request): Promise<Response> {
    if (PACK_TYPES.test(request.headers.get("content-type") ?? "")) {
      return await landPosted(request);
    }
    const body = await readJson(request, maxBody);
    if (body instanceof Response) return body;
    if (!isPlainObject(body) || !isPlainObject(body.state)) {
      return fail(400, 'The body must be a JSON object {"state": {...}}');
    }
    const keep = body.keep_version ?? false;
    if (typeof keep !== "boolean") return fail(400, "keep_version must be true or false");
    const given = body.state.id;
    if (given !== undefined && !isPassportId(given)) {
      return fail(400, `state.id must be a passport id (TP-XXXX-XXXX), not ${shown(given)}`);
    }
    const version = body.state.version;
    if (keep && (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1)) {
      return fail(400, "keep_version needs state.version, a whole number of at least 1");
    }
    if (keep && !store.importState) {
      return fail(501, "This home's store cannot keep versions (it has no importState)");
    }
    const id = given ?? await freshId();
    const state = { id, ...body.state } as PassportState;
    let saved: PassportState;
    try {
      saved = keep ? await store.importState!(state) : await store.create(state);
    } catch (error) {
      return refusal(error);
    }
    const token = await issueToken(ledger, id, random);
    return reply(201, { state: saved, token });
  }

  async function landPosted(request: Request): Promise<Response> {
    if (!options.landPack) {
      await request.body?.cancel().catch(() => {});
      return fail(415, "This home does not land packs here; post a passport's state as JSON");
    }
    const header = request.headers.get(SIGNATURE_HEADER);
    let signature: Uint8Array | undefined;
    if (header !== null) {
      try {
        signature = decodeBase64Strict(header.trim());
      } catch {
        await request.body?.cancel().catch(() => {});
        return fail(400, `The ${SIGNATURE_HEADER} header is not base64 (base64 -w0 <pack>.sig)`);
      }
    }
    const bytes = await receiveBody(request, maxBody);
    if ("status" in bytes) return refusalResponse(bytes);
    let landed: { passport_id: string } & Record<string, unknown>;
    try {
      landed = await options.landPack(bytes, signature);
    } catch (error) {
      // A bound of the receive policy is answered as the judge answers it.
      const bound = (error as { refusal?: Refusal }).refusal;
      if (bound) return refusalResponse(bound);
      const reason = (error as { reason?: unknown }).reason;
      return fail(
        400,
        oneLine(messageOf(error)),
        {},
        typeof reason === "string" ? { reason } : {},
      );
    }
    const state = await store.open(landed.passport_id);
    if (!state) return fail(500, "The pack landed, but its passport cannot be read back");
    // A pack landed before answers with that passport; its token is not shown again.
    if (landed.already_landed === true) return reply(200, { state, landed });
    const token = await issueToken(ledger, landed.passport_id, random);
    return reply(201, { state, token, landed });
  }

  async function open(id: string, record: LedgerRecord): Promise<Response> {
    const state = await store.open(id);
    if (!state) return fail(404, `There is no passport ${id} here`);
    return reply(200, { state, claim: activeClaim(record, now()) });
  }

  async function save(request: Request, id: string, record: LedgerRecord): Promise<Response> {
    const body = await readJson(request, maxBody);
    if (body instanceof Response) return body;
    if (!isPlainObject(body) || !isPlainObject(body.state)) {
      return fail(400, 'The body must be a JSON object {"state": {...}, "expected_version": n}');
    }
    const expected = body.expected_version;
    if (typeof expected !== "number" || !Number.isSafeInteger(expected) || expected < 0) {
      return fail(400, "expected_version must be the version you read, a whole number");
    }
    if (body.state.id !== id) {
      return fail(400, `state.id must be ${id}, the passport this request names`);
    }
    let saved: PassportState;
    try {
      saved = await store.save(body.state as PassportState, expected);
    } catch (error) {
      return refusal(error);
    }
    return reply(200, { state: saved, claim: activeClaim(record, now()) });
  }

  async function claim(request: Request, id: string): Promise<Response> {
    const body = await readJson(request, maxBody);
    if (body instanceof Response) return body;
    if (!isPlainObject(body)) {
      return fail(400, 'The body must be a JSON object {"holder": "...", "ttl_seconds": n}');
    }
    const holder = body.holder;
    if (!isHolder(holder)) {
      return fail(
        400,
        `holder must be a name of 1 to ${MAX_HOLDER} characters, no control characters`,
      );
    }
    const ttl = body.ttl_seconds;
    if (typeof ttl !== "number" || !Number.isSafeInteger(ttl) || ttl < 1 || ttl > maxClaim) {
      return fail(400, `ttl_seconds must be a whole number from 1 to ${maxClaim}`);
    }
    let held: Claim | null = null;
    const taken = await updateRecord(ledger, id, (record) => {
      const time = now();
      const active = activeClaim(record, time);
      if (active && active.holder !== holder) {
        held = active;
        return null;
      }
      held = null;
      const until = rfc3339(new Date(time.getTime() + ttl * 1000));
      return { ...record, claim: { holder, since: active?.since ?? rfc3339(time), until } };
    });
    if (held) {
      const { holder: who, until } = held as Claim;
      return fail(409, `${id} is claimed by ${who} until ${until}`, {}, { claim: held });
    }
    return reply(200, { claim: taken!.claim });
  }

  async function release(request: Request, id: string): Promise<Response> {
    const body = await readJson(request, maxBody, true);
    if (body instanceof Response) return body;
    if (
      body !== undefined &&
      (!isPlainObject(body) || (body.holder !== undefined && !isHolder(body.holder)))
    ) {
      return fail(400, 'The body must be empty or a JSON object {"holder": "..."}');
    }
    const holder = body?.holder as string | undefined;
    let held: Claim | null = null;
    let released = false;
    await updateRecord(ledger, id, (record) => {
      const active = activeClaim(record, now());
      held = active;
      released = false;
      if (!active || (holder !== undefined && active.holder !== holder)) return null;
      released = true;
      return { ...record, claim: null };
    });
    if (held && !released) {
      const { holder: who, until } = held as Claim;
      return fail(409, `${id} is claimed by ${who} until ${until}, not by ${holder}`, {}, {
        claim: held,
      });
    }
    return reply(200, { released, claim: null });
  }

  async function freshId(): Promise<string> {
    for (let i = 0; i < 100; i++) {
      const id = mintPassportId(random);
      if (!(await store.open(id)) && !(await ledger.open(id))) return id;
    }
    throw new Error("Cannot mint a passport id: 100 draws collided with the store");
  }

  return async (request: Request): Promise<Response> => {
    const host = hostSyntaxRefusal(request);
    if (host) return host;
    try {
      return await route(request);
    } catch (error) {
      return fail(500, `The home failed: ${oneLine(messageOf(error))}`);
    }
  };
}

/**
 * Changes a passport's ledger record with compare-and-set, retrying when another request
 * changed it first. `change` returns the new record, or null to leave it as it is.
 */
async function updateRecord(
  ledger: PassportStore,
  id: string,
  change: (record: LedgerRecord) => LedgerRecord | null,
): Promise<LedgerRecord | null> {
  for (let attempt = 0; attempt < LEDGER_RETRIES; attempt++) {
    const current = (await ledger.open(id)) as LedgerRecord | null;
    const next = change(current ?? { id, version: 0, token_sha256: "", claim: null });
    if (next === null) return current;
    try {
      return (current
        ? await ledger.save(next, current.version)
        : await ledger.create(next)) as LedgerRecord;
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
    }
  }
  throw new Error(`the record of ${id} kept changing; try again`);
}

/** The record's claim, unless it has lapsed. */
function activeClaim(record: LedgerRecord, time: Date): Claim | null {
  const claim = record.claim;
  if (!isPlainObject(claim) || typeof claim.holder !== "string") return null;
  const until = Date.parse(String(claim.until));
  return Number.isFinite(until) && until > time.getTime() ? claim as unknown as Claim : null;
}

/**
 * The body as JSON; undefined when empty and `optional`; a 400 reply when unreadable, the
 * bounds' 413/408 `{error, limit, max}` when too large or too slow.
 */
async function readJson(
  request: Request,
  bounds: { maxBodyBytes: number; bodyTimeoutMs: number },
  optional = false,
): Promise<unknown | Response> {
  const bytes = await receiveBody(request, bounds);
  if ("status" in bytes) return refusalResponse(bytes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return fail(400, "The body is not UTF-8 text");
  }
  if (optional && text.trim() === "") return undefined;
  if (text.trim() === "") return fail(400, "The body is empty; it must be a JSON object");
  try {
    return parseJsonStrict(text, { where: "the body" });
  } catch (error) {
    return fail(
      400,
      `The body is not valid JSON: ${
        oneLine(messageOf(error).replace(/^Cannot read taskpack: /, ""))
      }`,
    );
  }
}

/** A store error as a reply: 409 conflict (404 when the passport is gone), 400/413 refusals. */
function refusal(error: unknown): Response {
  if (error instanceof StoreConflictError) {
    if (error.actual === null && error.expected !== 0) {
      return fail(404, `There is no passport ${error.id} here`);
    }
    return fail(409, error.message, {}, {
      id: error.id,
      expected: error.expected,
      actual: error.actual,
    });
  }
  if (error instanceof RangeError) return fail(413, oneLine(error.message));
  if (error instanceof TypeError) return fail(400, oneLine(error.message));
  throw error;
}

/**
 * The team's door: undefined when no team token is set or the request carries it, else a 401.
 *
 * @param request The request.
 * @param teamHash The team token's SHA-256, if any.
 * @returns The refusal, or undefined.
 */
export function teamDoor(request: Request, teamHash: string | undefined): Response | undefined {
  if (!teamHash) return undefined;
  const presented = bearer(request);
  if (presented !== null && sameText(hashToken(presented), teamHash)) return undefined;
  return fail(
    401,
    presented === null
      ? "Listing and creating passports here need the team token: send Authorization: Bearer <team token>"
      : "That is not this home's team token",
    { "www-authenticate": 'Bearer realm="taskpack-team"' },
  );
}

/** The token sent as `Authorization: Bearer <token>`, or null. */
function bearer(request: Request): string | null {
  const match = /^Bearer[ \t]+([!-~]+)[ \t]*$/i.exec(request.headers.get("authorization") ?? "");
  return match ? match[1]! : null;
}

function mintToken(random: (n: number) => Uint8Array): string {
  const bytes = random(32);
  if (!(bytes instanceof Uint8Array) || bytes.length < 32) {
    throw new TypeError("Cannot mint a token: random(32) must give 32 bytes");
  }
  return TOKEN_PREFIX + Array.from(bytes.subarray(0, 32), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** Compares two strings in time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

function isHolder(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "" && value.length <= MAX_HOLDER &&
    // deno-lint-ignore no-control-regex -- control characters are what is refused
    !/[\u0000-\u001f\u007f]/.test(value);
}

function reply(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body) + "\n", {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...headers,
    },
  });
}

function fail(
  status: number,
  error: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Response {
  return reply(status, { error: oneLine(error), ...extra }, headers);
}

function notFound(path: string): Response {
  return fail(404, `Nothing here at ${shown(path)}: the API is GET/POST /p and /p/<id>`);
}

function notAllowed(allow: string): Response {
  return fail(405, `Method not allowed here; use ${allow}`, { allow });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function rfc3339(time: Date): string {
  return time.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function shown(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value.slice(0, 60)) : typeof value;
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").slice(0, 500);
}

function defaultRandom(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
