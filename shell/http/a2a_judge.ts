// Copyright 2026 the taskpack authors. MIT license.
/**
 * The judge as an A2A agent, on the official SDK (`@a2a-js/sdk` server, JSON-RPC binding):
 * a client sends a message with a pack as a file part (`raw` bytes, or a `.taskpack.json` as
 * text) and gets back a completed task whose artifact is the conformance report. The SDK's
 * transport-agnostic pieces (`DefaultRequestHandler`, `JsonRpcTransportHandler`) are wired
 * here to a fetch-style `Request` / `Response`, so no web framework is needed.
 *
 * Nothing is kept: tasks live in a small in-memory ring (the SDK reads a task back while it
 * answers) and the pack's bytes are judged in memory and never executed.
 *
 * A file part is a pack like any body: it meets the judge's receive policy (`receiveInline`
 * in `request_bounds.ts`: its size, the inflated bounds relative to it, refused from the central
 * directory before anything is inflated, and the work budget). A refused pack answers with a
 * rejected task whose message says why, its data part `{error, limit, max}` as `POST
 * /conformance` would answer.
 *
 * @example Serve it
 * ```ts ignore
 * import { createA2AJudge } from "./shell/a2a_judge.ts";
 * const a2a = createA2AJudge({ card, maxBodyBytes: 1 << 20 });
 * Deno.serve((request) => a2a(request));
 * ```
 *
 * @module
 */
import {
  A2A_VERSION_HEADER,
  type AgentCard,
  AgentCard as AgentCardCodec,
  Extensions,
  HTTP_EXTENSION_HEADER,
  type ListTasksResponse,
  type Part,
  Role,
  type Task,
  TaskState,
} from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  type ExecutionEventBus,
  JsonRpcTransportHandler,
  type RequestContext,
  type TaskStore,
  UnauthenticatedUser,
  validateVersion,
} from "@a2a-js/sdk/server";
import { type Digests, type Report, TASKPACK_A2A_EXTENSION_URI } from "../../mod.ts";
import {
  DEFAULT_REQUEST_BOUNDS,
  judgeReceived,
  receiveInline,
  type Refusal,
  type RequestBounds,
} from "./request_bounds.ts";

/** Where the JSON-RPC endpoint lives, relative to the judge's origin. */
export const A2A_PATH = "/a2a";

/** The protocol version the endpoint speaks. */
const PROTOCOL_VERSION = "1.0";

/** Options for {@linkcode createA2AJudge}. */
export interface A2AJudgeOptions {
  /** The Agent Card as served (JSON form); its interfaces are filled in per origin. */
  card: Record<string, unknown>;
  /** Hash implementations (default: portable). */
  digests?: Digests | undefined;
  /** The bounds a file part is judged under (default: the public judge's). */
  bounds?: RequestBounds | undefined;
}

/** Serves the JSON-RPC endpoint: the request's body already read (and bounded) by the caller. */
export type A2AJudge = (request: Request, body: Uint8Array) => Promise<Response>;

/**
 * The Agent Card with its A2A interface: the JSON-RPC endpoint at this origin.
 *
 * @param card The card as configured.
 * @param origin The origin the card is served from, e.g. `http://127.0.0.1:8000`.
 * @returns A copy whose `supportedInterfaces` names the endpoint (when the card names none).
 */
export function cardWithInterface(
  card: Record<string, unknown>,
  origin: string,
): Record<string, unknown> {
  const given = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  if (given.length > 0) return card;
  return {
    ...card,
    supportedInterfaces: [{
      url: origin + A2A_PATH,
      protocolBinding: "JSONRPC",
      protocolVersion: PROTOCOL_VERSION,
    }],
  };
}

/**
 * Creates the A2A endpoint's handler.
 *
 * @param options The card and digests.
 * @returns A handler for `POST /a2a` (JSON-RPC 2.0 over HTTP).
 */
export function createA2AJudge(options: A2AJudgeOptions): A2AJudge {
  const card: AgentCard = AgentCardCodec.fromJSON(cardWithInterface(options.card, ""));
  const handler = new DefaultRequestHandler(
    card,
    new RecentTasks(64),
    new JudgeExecutor(options.digests, options.bounds ?? DEFAULT_REQUEST_BOUNDS),
  );
  const transport = new JsonRpcTransportHandler(handler);

  return async (request, body) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return rpc({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    const id = (parsed as { id?: unknown } | null)?.id ?? null;
    try {
      const headers: Record<string, string> = {};
      request.headers.forEach((value, key) => headers[key] = value);
      const context = defaultServerCallContextBuilder({
        extensions: Extensions.parseServiceParameter(
          request.headers.get(HTTP_EXTENSION_HEADER) ?? undefined,
        ),
        user: new UnauthenticatedUser(),
        headers,
        requestedVersion: request.headers.get(A2A_VERSION_HEADER) ?? PROTOCOL_VERSION,
      });
      validateVersion(context.requestedVersion, card, "JSONRPC");
      const answer = await transport.handle(parsed as Record<string, unknown>, context);
      if (Symbol.asyncIterator in Object(answer)) {
        return rpc({
          jsonrpc: "2.0",
          id,
          error: { code: -32004, message: "Streaming is not supported: use SendMessage" },
        });
      }
      const response = rpc(answer);
      const activated = context.activatedExtensions ?? [];
      if (activated.length) response.headers.set(HTTP_EXTENSION_HEADER, activated.join(", "));
      return response;
    } catch (error) {
      return rpc({ jsonrpc: "2.0", id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
  };
}

function rpc(value: unknown): Response {
  return new Response(JSON.stringify(value), {
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

/** Judges the first pack in the message and answers with the report as an artifact. */
class JudgeExecutor implements AgentExecutor {
  #digests: Digests | undefined;
  #bounds: RequestBounds;

  constructor(digests: Digests | undefined, bounds: RequestBounds) {
    this.#digests = digests;
    this.#bounds = bounds;
  }

  /** The report, or the refusal when the pack is past the bounds (as `POST /conformance`). */
  async #judge(bytes: Uint8Array): Promise<Report | Refusal> {
    const received = receiveInline(bytes, this.#bounds);
    if ("status" in received) return received;
    const judged = await judgeReceived(received, this.#digests);
    return "status" in judged ? judged : judged.report;
  }

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    if (context.context.requestedExtensions?.includes(TASKPACK_A2A_EXTENSION_URI)) {
      context.context.addActivatedExtension(TASKPACK_A2A_EXTENSION_URI);
    }
    const bytes = packBytes(context.userMessage.parts);
    const task: Task = {
      id: context.taskId,
      contextId: context.contextId,
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
      artifacts: [],
      history: [],
      metadata: undefined,
    };
    if (!bytes) {
      task.status = rejected(context, [textPart(
        "Send the .taskpack or .taskpack.json as a file part (its raw bytes); nothing else " +
          "is judged, and no URL is fetched.",
      )]);
    } else {
      const report = await this.#judge(bytes);
      if ("status" in report) {
        const { error, limit, max } = report;
        task.status = rejected(context, [textPart(error), {
          content: { $case: "data", value: { error, limit, max } },
          metadata: undefined,
          filename: "",
          mediaType: "application/json",
        }]);
        bus.publish(AgentEvent.task(task));
        bus.finished();
        return;
      }
      task.artifacts.push({
        artifactId: "conformance-report",
        name: "conformance-report.json",
        description: `TaskPack 0.1 conformance report: ${
          report.ok ? "conformant" : "NOT conformant"
        }, ${report.passed}/${report.total} checks`,
        parts: [{
          content: { $case: "data", value: JSON.parse(JSON.stringify(report)) },
          metadata: undefined,
          filename: "conformance-report.json",
          mediaType: "application/json",
        }],
        metadata: undefined,
        extensions: [],
      });
    }
    bus.publish(AgentEvent.task(task));
    bus.finished();
  }

  cancelTask(): Promise<void> {
    return Promise.resolve();
  }
}

/** The first file part's bytes: `raw`, or a flat pack sent as text. */
function packBytes(parts: readonly Part[]): Uint8Array | null {
  for (const part of parts) {
    const content = part.content;
    if (content?.$case === "raw") return new Uint8Array(content.value);
    if (
      content?.$case === "text" &&
      (/json/i.test(part.mediaType) || /\.taskpack\.json$/i.test(part.filename))
    ) {
      return new TextEncoder().encode(content.value);
    }
  }
  return null;
}

/** A rejected task's status: the agent's message, with the parts that say why. */
function rejected(context: RequestContext, parts: Part[]): Task["status"] {
  return {
    state: TaskState.TASK_STATE_REJECTED,
    message: {
      messageId: crypto.randomUUID(),
      contextId: context.contextId,
      taskId: context.taskId,
      role: Role.ROLE_AGENT,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    timestamp: undefined,
  };
}

function textPart(text: string): Part {
  return {
    content: { $case: "text", value: text },
    metadata: undefined,
    filename: "",
    mediaType: "",
  };
}

/** The last few tasks only: the SDK reads a task back while answering; nothing is kept longer. */
class RecentTasks implements TaskStore {
  #tasks = new Map<string, Task>();
  #size: number;

  constructor(size: number) {
    this.#size = size;
  }

  save(task: Task): Promise<void> {
    this.#tasks.delete(task.id);
    this.#tasks.set(task.id, task);
    while (this.#tasks.size > this.#size) this.#tasks.delete(this.#tasks.keys().next().value!);
    return Promise.resolve();
  }

  load(taskId: string): Promise<Task | undefined> {
    return Promise.resolve(this.#tasks.get(taskId));
  }

  /** Listing is not offered: the judge keeps no history worth listing. */
  list(): Promise<ListTasksResponse> {
    return Promise.resolve({ tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 });
  }
}
