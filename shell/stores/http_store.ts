// Copyright 2026 the taskpack authors. MIT license.
/**
 * A passport store that talks to an HTTP home (`taskpack serve-home`, or
 * {@linkcode createHomeHandler} anywhere): `--store https://host/...`. The CLI (and anything
 * else that takes a {@linkcode PassportStore}) then works unchanged against a remote home.
 *
 * Tokens: a passport created through the home gets a bearer token, shown once. This store keeps
 * it in memory and, when given a `tokenDir`, in a file of its own
 * (`<tokenDir>/<home>/<id>.token`, mode 0600). A request about a passport sends that
 * passport's token when one is known, else the `token` option (the CLI passes
 * `TASKPACK_TOKEN`), so a token handed over by a colleague works without a file.
 *
 * @module
 */
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, posix, win32 } from "node:path";
import { isPlainObject, portableDigests, sha256Hex } from "../../lib/bytes/mod.ts";
import {
  checkExpectedVersion,
  checkPassportId,
  checkPassportState,
  messageOf,
  type PassportStore,
  type PassportSummary,
  StoreConflictError,
  type StoreListing,
} from "../../lib/home/mod.ts";
import { isPassportId, type PassportState } from "../../lib/format/mod.ts";
import type { Claim } from "../http/home_server.ts";

export type { Claim } from "../http/home_server.ts";

/** Options for {@linkcode HttpStore}. */
export interface HttpStoreOptions {
  /** The token to send for a passport whose own token is not known (`TASKPACK_TOKEN`). */
  token?: string;
  /** Where per-passport token files are kept; without it, tokens are kept in memory only. */
  tokenDir?: string;
  /** Called once when the home mints a token (it is never shown again). */
  onToken?: (id: string, token: string, file: string | null) => void;
  /** Called when a save succeeds on a passport someone has claimed. */
  onClaim?: (id: string, claim: Claim) => void;
  /** The `fetch` to use. Default: the global one. */
  fetch?: typeof fetch;
  /** How long one request may take. Default 60 000 ms. */
  timeoutMs?: number;
}

/** The home refused a request, or answered something unexpected. */
export class HomeRequestError extends Error {
  /** The HTTP status (0 when the home could not be reached). */
  readonly status: number;
  /** The home's one-line reason. */
  readonly reason: string;

  /**
   * Creates the error.
   *
   * @param message The whole sentence.
   * @param status The HTTP status.
   * @param reason The home's reason.
   */
  constructor(message: string, status: number, reason: string) {
    super(message);
    this.name = "HomeRequestError";
    this.status = status;
    this.reason = reason;
  }
}

/** A claim could not be taken: someone else holds it. */
export class ClaimHeldError extends Error {
  /** The passport. */
  readonly id: string;
  /** The claim that is held. */
  readonly claim: Claim;

  /**
   * Creates the error.
   *
   * @param id The passport.
   * @param claim Who holds it, since and until when.
   */
  constructor(id: string, claim: Claim) {
    super(`${id} is claimed by ${claim.holder} until ${claim.until}`);
    this.name = "ClaimHeldError";
    this.id = id;
    this.claim = claim;
  }
}

/**
 * A {@linkcode PassportStore} over HTTP.
 *
 * @example Usage
 * ```ts ignore
 * import { HttpStore } from "./http_store.ts";
 *
 * const store = new HttpStore("https://home.example.org/team", {
 *   token: Deno.env.get("TASKPACK_TOKEN"),
 * });
 * const state = await store.open("TP-9CB7-J5MK");
 * ```
 */
export class HttpStore implements PassportStore {
  /** The home's URL, without a trailing slash; the API is under `<url>/p`. */
  readonly url: string;
  readonly #options: HttpStoreOptions;
  readonly #tokens = new Map<string, string>();
  readonly #fetch: typeof fetch;

  /**
   * A store at an HTTP home.
   *
   * @param url `http://` or `https://`, where the home serves `/p`.
   * @param options Tokens, callbacks, `fetch`.
   */
  constructor(url: string, options: HttpStoreOptions = {}) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new TypeError(`Cannot use ${JSON.stringify(url)} as a home: it is not a URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new TypeError(`Cannot use ${url} as a home: only http:// and https:// are spoken`);
    }
    if (parsed.username || parsed.password || parsed.search || parsed.hash) {
      throw new TypeError(
        `Cannot use ${url} as a home: no credentials, query or fragment in the URL (tokens go in TASKPACK_TOKEN)`,
      );
    }
    this.url = `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Lists the passports (the home shows summaries to anyone who can reach it). */
  async list(): Promise<StoreListing> {
    const { status, body } = await this.#request("GET", "/p", null);
    if (status !== 200) throw this.#unexpected(status, body, "list the passports");
    const passports = isPlainObject(body) && Array.isArray(body.passports) ? body.passports : null;
    const problems = isPlainObject(body) && Array.isArray(body.problems) ? body.problems : [];
    if (!passports || !passports.every(isSummary)) {
      throw new HomeRequestError(
        `Cannot list the passports at ${this.url}: the answer is not a listing`,
        status,
        "",
      );
    }
    return {
      passports: passports.map((p: PassportSummary) => ({
        id: p.id,
        version: p.version,
        title: p.title,
        updated_at: p.updated_at,
      })),
      problems: problems.filter(isProblem),
    };
  }

  /**
   * The current state of a passport.
   *
   * @param id A passport id.
   * @returns The state, or null when the home holds no such passport.
   * @throws {HomeRequestError} When the home refuses (no token, wrong token).
   */
  async open(id: string): Promise<PassportState | null> {
    checkPassportId(id);
    const { status, body } = await this.#request("GET", `/p/${id}`, id);
    if (status === 404) return null;
    if (status !== 200) throw this.#unexpected(status, body, `open ${id}`, id);
    return stateOf(body, id, this.url);
  }

  /**
   * Creates a passport at the home, as version 1; the home mints its token, which this store
   * keeps (see {@linkcode HttpStore.tokenOf}) and reports through `onToken`.
   *
   * @param state The passport; its `version` is ignored.
   * @returns The saved state.
   * @throws {StoreConflictError} When a passport with that id exists.
   */
  async create(state: PassportState): Promise<PassportState> {
    return (await this.#create(state, false)).state;
  }

  /**
   * Creates a passport at the home at the version it carries (for `taskpack migrate`); the home
   * mints its token, as for {@linkcode HttpStore.create}.
   *
   * @param state The passport.
   * @returns The saved state.
   * @throws {StoreConflictError} When a passport with that id exists.
   */
  async importState(state: PassportState): Promise<PassportState> {
    return (await this.#create(state, true)).state;
  }

  /**
   * Saves a checkpoint over `expectedVersion`. A claim someone holds does not stop it; it is
   * reported through `onClaim`.
   *
   * @param state The passport.
   * @param expectedVersion The version that was read.
   * @returns The saved state, version `expectedVersion + 1`.
   * @throws {StoreConflictError} When the home holds another version, or no such passport.
   */
  async save(state: PassportState, expectedVersion: number): Promise<PassportState> {
    const id = checkPassportState(state);
    checkExpectedVersion(id, expectedVersion);
    const { status, body } = await this.#request("POST", `/p/${id}`, id, {
      state,
      expected_version: expectedVersion,
    });
    if (status === 404) throw new StoreConflictError(id, expectedVersion, null);
    if (status === 409) throw new StoreConflictError(id, expectedVersion, actualOf(body));
    if (status !== 200) throw this.#unexpected(status, body, `save ${id}`, id);
    const saved = stateOf(body, id, this.url);
    const claim = isPlainObject(body) ? claimOf(body.claim) : null;
    if (claim) this.#options.onClaim?.(id, claim);
    return saved;
  }

  /**
   * Claims a passport for a while (a soft lock: saves are never blocked by it).
   *
   * @param id The passport.
   * @param holder Who claims it.
   * @param ttlSeconds For how long.
   * @returns The claim held now.
   * @throws {ClaimHeldError} When someone else holds it.
   */
  async claim(id: string, holder: string, ttlSeconds: number): Promise<Claim> {
    checkPassportId(id);
    const { status, body } = await this.#request("POST", `/p/${id}/claim`, id, {
      holder,
      ttl_seconds: ttlSeconds,
    });
    const claim = isPlainObject(body) ? claimOf(body.claim) : null;
    if (status === 409 && claim) throw new ClaimHeldError(id, claim);
    if (status !== 200 || !claim) throw this.#unexpected(status, body, `claim ${id}`, id);
    return claim;
  }

  /**
   * Gives a claim up.
   *
   * @param id The passport.
   * @param holder Only if this holder holds it (else {@linkcode ClaimHeldError}); omit to
   * release whoever holds it.
   * @returns Whether a claim was released.
   */
  async release(id: string, holder?: string): Promise<boolean> {
    checkPassportId(id);
    const { status, body } = await this.#request(
      "DELETE",
      `/p/${id}/claim`,
      id,
      holder === undefined ? null : { holder },
    );
    const claim = isPlainObject(body) ? claimOf(body.claim) : null;
    if (status === 409 && claim) throw new ClaimHeldError(id, claim);
    if (status !== 200) throw this.#unexpected(status, body, `release ${id}`, id);
    return isPlainObject(body) && body.released === true;
  }

  /**
   * The token this store would send for a passport: its own (remembered or in its file), else
   * the `token` option.
   *
   * @param id The passport.
   * @returns The token, or null.
   */
  async tokenOf(id: string): Promise<string | null> {
    const known = this.#tokens.get(id);
    if (known) return known;
    const file = this.tokenFile(id);
    if (file) {
      try {
        const text = (await readFile(file, "utf8")).trim();
        if (text) {
          this.#tokens.set(id, text);
          return text;
        }
      } catch (error) {
        if ((error as { code?: unknown })?.code !== "ENOENT") throw error;
      }
    }
    return this.#options.token || null;
  }

  /**
   * The file that keeps a passport's token, or null without a `tokenDir`.
   *
   * @param id The passport.
   * @returns The path.
   */
  tokenFile(id: string): string | null {
    const dir = this.#options.tokenDir;
    return dir ? join(dir, homeKey(this.url), `${checkPassportId(id)}.token`) : null;
  }

  async #create(
    state: PassportState,
    keepVersion: boolean,
  ): Promise<{ state: PassportState; token: string }> {
    const id = checkPassportState(state);
    const { status, body } = await this.#request(
      "POST",
      "/p",
      null,
      keepVersion ? { state, keep_version: true } : { state },
    );
    if (status === 409) throw new StoreConflictError(id, 0, actualOf(body));
    if (status !== 201) throw this.#unexpected(status, body, `create ${id}`);
    const saved = stateOf(body, id, this.url);
    const token = isPlainObject(body) && typeof body.token === "string" ? body.token : null;
    if (!token) {
      throw new HomeRequestError(
        `The home at ${this.url} created ${id} but sent no token`,
        201,
        "",
      );
    }
    this.#tokens.set(id, token);
    const file = this.tokenFile(id);
    if (file) await writeSecret(file, token);
    this.#options.onToken?.(id, token, file);
    return { state: saved, token };
  }

  async #request(
    method: string,
    path: string,
    id: string | null,
    payload: unknown = null,
  ): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (id) {
      const token = await this.tokenOf(id);
      if (token) headers.authorization = `Bearer ${token}`;
    }
    let text: string | undefined;
    if (payload !== null) {
      text = JSON.stringify(payload);
      headers["content-type"] = "application/json";
    }
    let response: Response;
    try {
      response = await this.#fetch(`${this.url}${path}`, {
        method,
        headers,
        ...(text === undefined ? {} : { body: text }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 60_000),
      });
    } catch (error) {
      throw new HomeRequestError(
        `Cannot reach the home at ${this.url}: ${messageOf(error)}`,
        0,
        messageOf(error),
      );
    }
    const answer = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(answer);
    } catch {
      // not JSON: judged by the status below
    }
    return { status: response.status, body };
  }

  #unexpected(status: number, body: unknown, what: string, id?: string): HomeRequestError {
    const reason = isPlainObject(body) && typeof body.error === "string"
      ? body.error.replace(/[\r\n]+/g, " ")
      : `HTTP ${status}`;
    let hint = "";
    if ((status === 401 || status === 403) && id) {
      const file = this.tokenFile(id);
      hint = `; set TASKPACK_TOKEN to ${id}'s token` + (file ? `, or keep it in ${file}` : "");
    }
    return new HomeRequestError(
      `Cannot ${what} at ${this.url}: ${reason}${hint}`,
      status,
      reason,
    );
  }
}

/**
 * The per-user folder of token files.
 *
 * - Linux and other Unix: `$XDG_CONFIG_HOME/taskpack/tokens` when `XDG_CONFIG_HOME` is an
 *   absolute path, else `~/.config/taskpack/tokens`.
 * - macOS: `~/Library/Application Support/taskpack/tokens`.
 * - Windows: `%APPDATA%\taskpack\tokens`.
 *
 * @param env The environment.
 * @param home The user's home folder.
 * @param platform `process.platform` or `Deno.build.os`.
 * @returns The folder.
 *
 * @example Usage
 * ```ts
 * import { defaultTokenDir } from "./http_store.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(defaultTokenDir({}, "/home/ann", "linux"), "/home/ann/.config/taskpack/tokens");
 * ```
 */
export function defaultTokenDir(
  env: Record<string, string | undefined>,
  home: string,
  platform: string,
): string {
  if (platform === "win32" || platform === "windows") {
    const appData = env.APPDATA || win32.join(home, "AppData", "Roaming");
    return win32.join(appData, "taskpack", "tokens");
  }
  if (platform === "darwin") {
    return posix.join(home, "Library", "Application Support", "taskpack", "tokens");
  }
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && posix.isAbsolute(xdg) ? xdg : posix.join(home, ".config");
  return posix.join(base, "taskpack", "tokens");
}

/** A folder name for one home: its host and port, and a hash of its whole URL. */
function homeKey(url: string): string {
  const host = new URL(url).host.replace(/[^A-Za-z0-9.-]/g, "_");
  return `${host}-${sha256Hex(portableDigests, new TextEncoder().encode(url)).slice(0, 12)}`;
}

/** Writes a secret: owner-only folder and file, written aside then renamed into place. */
async function writeSecret(file: string, secret: string): Promise<void> {
  const dir = join(file, "..");
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    await writeFile(temp, secret + "\n", { mode: 0o600, flag: "wx" });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

function stateOf(body: unknown, id: string, url: string): PassportState {
  const state = isPlainObject(body) ? body.state : null;
  if (!isPlainObject(state) || state.id !== id || typeof state.version !== "number") {
    throw new HomeRequestError(
      `The home at ${url} answered for ${id} with something that is not that passport`,
      200,
      "",
    );
  }
  return state as PassportState;
}

function actualOf(body: unknown): number | null {
  const actual = isPlainObject(body) ? body.actual : null;
  return typeof actual === "number" && Number.isSafeInteger(actual) ? actual : null;
}

function claimOf(value: unknown): Claim | null {
  if (!isPlainObject(value)) return null;
  const { holder, since, until } = value;
  if (typeof holder !== "string" || typeof until !== "string") return null;
  return { holder, since: typeof since === "string" ? since : "", until };
}

function isSummary(value: unknown): value is PassportSummary {
  return isPlainObject(value) && isPassportId(value.id) && typeof value.version === "number" &&
    typeof value.title === "string" && typeof value.updated_at === "string";
}

function isProblem(value: unknown): value is { entry: string; reason: string } {
  return isPlainObject(value) && typeof value.entry === "string" &&
    typeof value.reason === "string";
}
