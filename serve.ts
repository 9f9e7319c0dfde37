// Copyright 2026 the taskpack authors. MIT license.
/**
 * The HTTP conformance judge: a `fetch` handler, so `deno serve -A serve.ts` runs it, and
 * Deno Deploy, Bun (`export default { fetch }`) and other edge runtimes can host it.
 *
 * | route | answer |
 * | --- | --- |
 * | `POST /conformance` (a pack as the body, either encoding, detected from the bytes) | 200 with the report (C0-C10), conformant or not; 400 with the same report plus `error` (`{...report, error}`) when the body cannot be read as a pack at all |
 * | a pack with its signature: the header `x-taskpack-signature`, the `.sig` file base64-encoded (`base64 -w0 handoff.taskpack.sig`) | the same report, plus `signature`: `{status: "matches", key_type, fingerprint, public_key}` or `{status: "refused", reason, error}` — beside the verdict, never part of C0-C10 (the judge has no trust list: it says which key signed, not whose) |
 * | `POST /inspect` (same body) | 200 with the contents summary (as `taskpack inspect --json`); 400 as above |
 * | either, refused for what it would cost | 413 with `{error, limit, max}` naming the bound (`maxBodyBytes`, `maxInflateFactor`, `maxInflatedBytes`, `maxRatio`, `maxWorkMs`); 408 with `{error, limit, max}` and the connection closed when the body is not in within `bodyTimeoutMs`; 503 with `Retry-After`, before the body is read, past the whole server's `maxBytesInFlight` or `maxConcurrentJudgements` |
 * | any request whose `Host` is not `host[:port]` | 400, before routing |
 * | `GET /.well-known/agent-card.json` | an A2A Agent Card declaring the TaskPack extension and the JSON-RPC interface |
 * | `POST /a2a` | A2A JSON-RPC (official SDK): `SendMessage` with a pack as a file part answers with a task whose artifact is the report |
 * | `POST /convert?to=bag` or `?to=flat` (same body) | 200 with the pack in the other encoding (`content-type` its media type, `x-taskpack-digest` its digest), written through the same chokepoint as every new pack, so it is conformant; 400 `{error}` when the body cannot be read or converted; 413/408 as below |
 * | `POST /mcp` | MCP over Streamable HTTP (official SDK, stateless): the tools `taskpack_conformance`, `taskpack_inspect` (a pack carried in the call, judged in memory under the same bounds) and `taskpack_capsule_check`, the checks as a resource, a prompt |
 * | `GET /` | the viewer page (everything computed in the browser; nothing is uploaded) |
 * | anything else | 404, or 405 with `Allow` for a known path and the wrong method |
 *
 * A public judge must bound what one request can cost, so it is tighter than the CLI: the
 * body is at most 64 MiB and must arrive within 30 s; the pack may declare at most 16 times
 * the body's size in inflated bytes (never more than 1 GiB) and an entry ratio of at most 64,
 * refused from the central directory before anything is inflated; and judging stops after
 * 10 s. {@linkcode JudgeHandlerOptions} raises or lowers each bound, and `taskpack serve` (which
 * `deno task serve` runs) reads them from `TASKPACK_JUDGE_*` environment variables
 * (`shell/http/judge_server.ts`). The same bounds hold on every route that takes a pack: an A2A
 * file part and a pack carried in an MCP call are judged exactly as a body is.
 *
 * The default export (`deno serve serve.ts`) answers only requests whose `Host` is a loopback
 * name, or one listed in `TASKPACK_ALLOWED_HOSTS`.
 *
 * Every response honours `A2A-Extensions` negotiation: when a request asks for the TaskPack
 * extension, the response echoes its URI. The judge reads the body into memory (bounded by
 * the limit) and judges it there: it never writes to disk and never executes anything a pack
 * carries.
 *
 * @example Run it
 * ```ts ignore
 * // deno serve -A serve.ts, or from code:
 * import { createJudgeHandler } from "./serve.ts";
 * Deno.serve({ port: 8080 }, createJudgeHandler({ maxBodyBytes: 16 * 1024 * 1024, maxWorkMs: 5000 }));
 * ```
 *
 * @module
 */
import {
  A2A_EXTENSIONS_HEADER,
  type A2AAgentCard,
  checkLuggage,
  type Digests,
  encodeBag,
  encodeFlat,
  land,
  negotiateExtensions,
  preparePack,
  SignatureError,
  summarisePack,
  TASKPACK_MEDIA_TYPES,
  verifyPackSignature,
  withTaskPackExtension,
} from "./mod.ts";
import { decodeBase64Strict } from "./lib/bytes/mod.ts";
import {
  type BoundedPack,
  DEFAULT_REQUEST_BOUNDS,
  judgeReceived,
  messageBytesFor,
  receivePack,
  refusalResponse,
  type RequestBounds,
  resolveBounds,
  ServerBudget,
  withinBudget,
} from "./shell/http/request_bounds.ts";
import { A2A_PATH, cardWithInterface, createA2AJudge } from "./shell/http/a2a_judge.ts";
import {
  allowedHostsFor,
  hostSyntaxRefusal,
  parseHostList,
  rebindingRefusal,
} from "./shell/http/dns_rebinding.ts";
import { allowedHostsFromEnv } from "./shell/http/host_env.ts";
import { createJudgeMcpServer } from "./mcp/direct_tools.ts";
import { redactCredentials } from "./lib/scan/mod.ts";
import { createMcpEndpoint, MCP_PATH } from "./mcp/endpoint.ts";

export { DEFAULT_REQUEST_BOUNDS, type RequestBounds };

/** The default body limit: 64 MiB (`DEFAULT_REQUEST_BOUNDS.maxBodyBytes`). */
export const DEFAULT_MAX_BODY_BYTES: number = DEFAULT_REQUEST_BOUNDS.maxBodyBytes;

/**
 * Options for {@linkcode createJudgeHandler}: the bounds on one request (each defaults as in
 * {@linkcode DEFAULT_REQUEST_BOUNDS}), and what the judge serves.
 */
export interface JudgeHandlerOptions extends Partial<RequestBounds> {
  /**
   * The viewer page served at `GET /`: the HTML itself, or a function that loads it. By
   * default `web/viewer.html` beside this module is fetched once (a `file:` URL locally, an
   * `https:` URL when this module is imported from a registry).
   */
  viewerHtml?: string | (() => Promise<string>);
  /**
   * The Agent Card to serve (the TaskPack extension is added to it). By default a card that
   * describes this judge.
   */
  agentCard?: A2AAgentCard & Record<string, unknown>;
  /** Hash implementations (default: portable). */
  digests?: Digests;
  /**
   * DNS-rebinding protection: the names `Host` and `Origin` may carry (see
   * `shell/http/dns_rebinding.ts`). Default: not checked, for a judge behind a platform that fixes
   * the host; `taskpack serve` and this module's default export allow the loopback names and
   * `TASKPACK_ALLOWED_HOSTS`. A `Host` that is not `host[:port]` is refused (400) either way.
   */
  allowedHosts?: readonly string[];
}

/** A `fetch` handler: a request in, a response out. */
export type JudgeHandler = (request: Request) => Promise<Response>;

const JSON_TYPE = "application/json; charset=utf-8";
const PAGE_POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
  "img-src data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const ROUTES: Readonly<Record<string, readonly string[]>> = {
  "/": ["GET", "HEAD"],
  "/conformance": ["POST"],
  "/inspect": ["POST"],
  "/convert": ["POST"],
  "/.well-known/agent-card.json": ["GET", "HEAD"],
  [A2A_PATH]: ["POST"],
  [MCP_PATH]: ["POST", "GET", "DELETE"],
};

/** The card served when none is given: it describes this judge, honestly. */
function defaultCard(): A2AAgentCard & Record<string, unknown> {
  const packTypes = [TASKPACK_MEDIA_TYPES.bag, TASKPACK_MEDIA_TYPES.flat];
  return {
    name: "TaskPack conformance judge",
    description: "Judges TaskPack 0.1 files (checks C0-C10) and summarises what they carry. " +
      "Over A2A, send a message with the .taskpack or .taskpack.json as a file part: the " +
      "report comes back as an artifact. Over plain HTTP, POST the file to /conformance or " +
      "/inspect. Every byte of a pack is treated as data, never as instructions; nothing is " +
      "stored.",
    version: "0.1.0",
    supportedInterfaces: [],
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    defaultInputModes: packTypes,
    defaultOutputModes: ["application/json"],
    skills: [
      {
        id: "taskpack-conformance",
        name: "Judge a TaskPack",
        description: "POST /conformance with the file as the body: the report of checks " +
          "C0-C10, strictly, as written (200 whether or not it is conformant).",
        tags: ["taskpack", "conformance", "handoff"],
        examples: ["POST /conformance with handoff.taskpack as the body"],
        inputModes: packTypes,
        outputModes: ["application/json"],
      },
      {
        id: "taskpack-inspect",
        name: "Summarise a TaskPack",
        description: "POST /inspect with the file as the body: goal, state, facts with their " +
          "seal state, asks, landing checks (the sender's suggestions), lineage, luggage.",
        tags: ["taskpack", "inspect", "handoff"],
        examples: ["POST /inspect with handoff.taskpack.json as the body"],
        inputModes: packTypes,
        outputModes: ["application/json"],
      },
    ],
  };
}

/**
 * Creates the judge's `fetch` handler.
 *
 * @param options The bounds on a request, the viewer page, the Agent Card, digests.
 * @returns The handler; pass it to `Deno.serve`, or export it as `{ fetch }`.
 *
 * @example Usage
 * ```ts
 * import { createJudgeHandler } from "./serve.ts";
 * import assert from "node:assert/strict";
 *
 * const handler = createJudgeHandler({ maxBodyBytes: 1024, viewerHtml: "<!doctype html>" });
 * const response = await handler(
 *   new Request("http://judge.test/conformance", { method: "POST", body: "not a pack" }),
 * );
 * assert.equal(response.status, 400);
 * const report = await response.json(); // the report, plus why the body could not be read
 * assert.match(report.error, /not a TaskPack/);
 * assert.equal(report.ok, false);
 * ```
 */
export function createJudgeHandler(options: JudgeHandlerOptions = {}): JudgeHandler {
  const bounds = resolveBounds(options);
  const digests = options.digests ? { digests: options.digests } : {};
  const card = withTaskPackExtension(options.agentCard ?? defaultCard());
  const loadViewer = viewerLoader(options.viewerHtml);
  const a2a = createA2AJudge({ card, digests: options.digests, bounds });
  // The MCP tools judge through this same handler, so they meet the same bounds; the message
  // itself is received under them too (its size, in base64, and its deadline).
  const mcp = createMcpEndpoint(() => createJudgeMcpServer(answer), { bounds });
  const budget = new ServerBudget(bounds);

  async function route(request: Request, path: string): Promise<Response> {
    if (path === "/") {
      let html: string;
      try {
        html = await loadViewer();
      } catch {
        return json(503, { error: "The viewer page is not available on this server" });
      }
      return new Response(request.method === "HEAD" ? null : html, {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": PAGE_POLICY,
          "cache-control": "no-cache",
        },
      });
    }
    if (path === MCP_PATH) return await mcp.fetch(request);
    if (path === "/.well-known/agent-card.json") {
      return json(
        200,
        cardWithInterface(card, new URL(request.url).origin),
        request.method === "HEAD",
      );
    }
    // POST /conformance, POST /inspect and POST /a2a: a body within the bounds.
    if (/^multipart\//i.test(request.headers.get("content-type") ?? "")) {
      await request.body?.cancel().catch(() => {});
      return json(400, {
        error: "A form upload is not read: send the file itself as the body " +
          "(curl --data-binary @handoff.taskpack)",
      });
    }
    const received = await receivePack(request, bounds);
    if ("status" in received) return refusalResponse(received);
    if (path === A2A_PATH) return await a2a(request, received.bytes);
    if (path === "/convert") return await convert(request, received);
    const judged = await judgeReceived(received, options.digests);
    if ("status" in judged) return refusalResponse(judged);
    const { report, decoded, readError } = judged;
    if (!decoded) {
      const reason = readError instanceof Error
        ? redactCredentials(readError.message.replace(/^Cannot read taskpack: /, ""))
        : "";
      // One shape for every judgement: the report, with why the body could not be read.
      return json(400, {
        ...report,
        error: `The body is not a TaskPack that can be read: ${reason}`,
      });
    }
    const { budget } = received;
    // Beside the verdict, never part of it: which key signed the pack, when a signature came.
    const intact = report.checks.find((check) => check.id === "C1")?.ok === true;
    const signed = await signatureBeside(
      request.headers.get(SIGNATURE_HEADER),
      intact ? report.digest : null,
    );
    if (path === "/conformance") return json(200, { ...report, ...signed });
    // The per-file check reads the luggage again: on the same budget.
    const verdicts = await checkLuggage(decoded, { ...digests, scanner: budget.scanner() });
    if (budget.exceeded) return refusalResponse(budget.refusal());
    return json(200, { ...summarisePack(decoded, report, verdicts), ...signed });
  }

  /** `POST /convert?to=bag|flat`: read leniently, packed again through the chokepoint. */
  async function convert(
    request: Request,
    received: BoundedPack,
  ): Promise<Response> {
    const to = new URL(request.url).searchParams.get("to");
    if (to !== "bag" && to !== "flat") {
      return json(400, { error: "Say which encoding to convert to: ?to=bag or ?to=flat" });
    }
    const { source, limits, budget } = received;
    let bytes: Uint8Array<ArrayBuffer>;
    let digest: string;
    try {
      const landed = await land(source, { ...digests, limits, scanner: budget.scanner() });
      if (budget.exceeded) return refusalResponse(budget.refusal());
      const pack = await preparePack(landed.object, landed.luggage, {
        ...digests,
        scanner: budget.scanner(),
      });
      if (budget.exceeded) return refusalResponse(budget.refusal());
      digest = pack.digest;
      if (to === "flat") bytes = new TextEncoder().encode(await encodeFlat(pack));
      else bytes = new Uint8Array(await new Response(encodeBag(pack, digests)).arrayBuffer());
    } catch (error) {
      const refusal = received.refusalFor(error);
      if (refusal) return refusalResponse(refusal);
      const reason = error instanceof Error
        ? redactCredentials(error.message.replace(/^Cannot read taskpack: /, "").split("\n")[0]!)
        : "";
      return json(400, { error: `The body cannot be converted: ${reason}` });
    }
    return new Response(bytes, {
      headers: {
        "content-type": to === "flat" ? TASKPACK_MEDIA_TYPES.flat : TASKPACK_MEDIA_TYPES.bag,
        "x-taskpack-digest": digest,
        "cache-control": "no-store",
      },
    });
  }

  /** Every request, once its Host and Origin are through (the MCP tools call this directly). */
  async function answer(request: Request): Promise<Response> {
    const negotiation = negotiateExtensions(request.headers.get(A2A_EXTENSIONS_HEADER));
    let response: Response;
    try {
      const path = new URL(request.url).pathname;
      const methods = ROUTES[path];
      if (!Object.hasOwn(ROUTES, path) || methods === undefined) {
        response = json(404, {
          error: `Nothing at ${path}`,
          routes: Object.entries(ROUTES).map(([p, m]) => `${m[0]} ${p}`),
        });
      } else if (!methods.includes(request.method)) {
        response = json(405, { error: `${request.method} is not allowed on ${path}` });
        response.headers.set("allow", methods.join(", "));
      } else {
        response = await route(request, path);
      }
    } catch {
      response = json(500, { error: "The judge failed on this request" });
    }
    response.headers.set("x-content-type-options", "nosniff");
    response.headers.set("referrer-policy", "no-referrer");
    response.headers.append("vary", A2A_EXTENSIONS_HEADER);
    if (negotiation.responseHeader) {
      response.headers.set(A2A_EXTENSIONS_HEADER, negotiation.responseHeader);
    }
    return response;
  }
  return (request) => {
    const refused = options.allowedHosts
      ? rebindingRefusal(request, options.allowedHosts)
      : hostSyntaxRefusal(request);
    if (refused) return Promise.resolve(refused);
    // Every body the judge reads is within the whole server's budget, before it is read.
    if (request.method === "POST" && BUDGETED.has(new URL(request.url).pathname)) {
      const path = new URL(request.url).pathname;
      const max = path === MCP_PATH ? messageBytesFor(bounds) : bounds.maxBodyBytes;
      return withinBudget(budget, request, () => answer(request), max);
    }
    return answer(request);
  };
}

/**
 * The header that carries a pack's detached signature to the judge: the `.sig` file
 * (armored SSHSIG), base64-encoded.
 *
 * @example Send a pack with its signature
 * ```sh
 * curl --data-binary @handoff.taskpack \
 *   -H "x-taskpack-signature: $(base64 -w0 handoff.taskpack.sig)" http://localhost:8000/conformance
 * ```
 */
export const SIGNATURE_HEADER = "x-taskpack-signature";

/**
 * The signature sent beside a pack, checked against its digest: which key signed it (the judge
 * has no trust list, so never whose), or why it is refused. Nothing when none was sent.
 */
async function signatureBeside(
  header: string | null,
  digest: string | null,
): Promise<{ signature?: Record<string, unknown> }> {
  if (header === null) return {};
  const refused = (reason: string, error: string) => ({
    signature: { status: "refused", reason, error },
  });
  let armored: Uint8Array;
  try {
    armored = decodeBase64Strict(header.trim());
  } catch {
    return refused(
      "sig-armor",
      `The ${SIGNATURE_HEADER} header is not base64 (base64 -w0 <pack>.sig)`,
    );
  }
  if (digest === null) {
    return refused(
      "integrity",
      "The pack is not whole (C1) or declares no digest, so no signature can vouch for it",
    );
  }
  try {
    const signed = await verifyPackSignature(digest, armored, { where: SIGNATURE_HEADER });
    return {
      signature: {
        status: "matches",
        key_type: signed.keyType,
        fingerprint: signed.fingerprint,
        public_key: signed.publicKey,
      },
    };
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    return refused(error.code, error.message);
  }
}

/** The routes that read a body, each within the server's budget. */
const BUDGETED: ReadonlySet<string> = new Set([
  "/conformance",
  "/inspect",
  "/convert",
  A2A_PATH,
  MCP_PATH,
]);

function json(status: number, value: unknown, headOnly = false): Response {
  return new Response(headOnly ? null : JSON.stringify(value, null, 2) + "\n", {
    status,
    headers: { "content-type": JSON_TYPE, "cache-control": "no-store" },
  });
}

function viewerLoader(given: JudgeHandlerOptions["viewerHtml"]): () => Promise<string> {
  if (typeof given === "string") return () => Promise.resolve(given);
  if (typeof given === "function") return given;
  let cached: string | undefined;
  return async () => {
    if (cached === undefined) {
      const response = await globalThis.fetch(new URL("./web/viewer.html", import.meta.url));
      if (!response.ok) throw new Error(`viewer page: HTTP ${response.status}`);
      cached = await response.text();
    }
    return cached;
  };
}

let defaultHandler: JudgeHandler | undefined;

/**
 * The judge with its defaults ({@linkcode DEFAULT_REQUEST_BOUNDS}, the viewer beside this
 * module, the judge's own Agent Card), safe wherever it is started: it answers only requests
 * whose `Host` (and `Origin`) is a loopback name, or one listed in `TASKPACK_ALLOWED_HOSTS`
 * (comma-separated; read on the first request, when the runtime allows it). Mount
 * {@linkcode createJudgeHandler} with `allowedHosts` to choose otherwise.
 *
 * @param request The request.
 * @returns The response.
 *
 * @example Usage
 * ```ts
 * import { fetch } from "./serve.ts";
 * import assert from "node:assert/strict";
 *
 * const response = await fetch(new Request("http://localhost/.well-known/agent-card.json"));
 * const card = await response.json();
 * assert.equal(card.capabilities.extensions[0].uri, "https://taskpack.org/a2a/ext/taskpack/v1");
 * ```
 */
export function fetch(request: Request): Promise<Response> {
  defaultHandler ??= createJudgeHandler({
    allowedHosts: allowedHostsFor("localhost", parseHostList(allowedHostsFromEnv())),
  });
  return defaultHandler(request);
}

/** `deno serve -A serve.ts` (and Bun, and other runtimes that take `{ fetch }`) runs this. */
export default { fetch };
