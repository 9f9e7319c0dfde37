// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The A2A binding (TaskPack 0.1 §5): TaskPack is what A2A hands off *to* when the connection
 * is not the transport. This module holds the extension descriptor an Agent Card declares,
 * the `A2A-Extensions` header negotiation, and the mapping between an A2A Task and a pack:
 *
 * | A2A | TaskPack | how |
 * | --- | --- | --- |
 * | `Task.id` | `lineage.root_id` | equal strings |
 * | `Task.contextId` | `lineage.chain` | the chain entries joined by `,` (a `%` or `,` inside an entry written `%25` / `%2C`); `from_version` is the last entry's version |
 * | `Artifact` | `data/files/a2a/…` + `passport.artifacts` | `text` and `raw` parts become luggage files; everything else about the artifacts is kept in `data/files/a2a.json` |
 * | `Message` (`history`, `status.message`) | nothing | transcripts do not travel: ignored, and the result says so |
 *
 * Field names are those of A2A 1.0 in its JSON form (protocol buffer package `lf.a2a.v1`
 * through ProtoJSON: `contextId`, `artifactId`, parts as `{text}` / `{raw}` (base64) /
 * `{url}` / `{data}` with `filename` and `mediaType`; Agent Card `capabilities.extensions[]`
 * of `{uri, description, required, params}`), as the `@a2a-js/sdk` 1.3 codecs
 * (`Task.toJSON`, `AgentCard.fromJSON`) write and read them. The types here are minimal
 * structural declarations of that JSON, so this module has no dependency.
 *
 * Nothing here sends, receives or executes anything: these are pure data mappings.
 *
 * @module
 */
import {
  decodeBase64Strict,
  encodeBase64,
  isPlainObject,
  type Luggage,
  luggageFromBytes,
  parseJsonStrict,
  readAllBytes,
  utf8,
} from "../bytes/mod.ts";
import {
  type Lineage,
  lineageProblem,
  LUGGAGE_PREFIX,
  luggageNameProblem,
  MAX_INLINE_ATTACHMENT_BYTES,
  nameClashKey,
  parseChainEntry,
  TASKPACK_SPEC,
} from "../format/mod.ts";

/**
 * The TaskPack extension's URI (spec §5).
 *
 * @example Usage
 * ```ts
 * import { TASKPACK_A2A_EXTENSION_URI } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(TASKPACK_A2A_EXTENSION_URI, "https://taskpack.org/a2a/ext/taskpack/v1");
 * ```
 */
export const TASKPACK_A2A_EXTENSION_URI = "https://taskpack.org/a2a/ext/taskpack/v1";

/**
 * The HTTP header that carries requested and activated A2A extensions (a comma list).
 *
 * @example Usage
 * ```ts
 * import { A2A_EXTENSIONS_HEADER } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const headers = new Headers({ [A2A_EXTENSIONS_HEADER]: "https://taskpack.org/a2a/ext/taskpack/v1" });
 * assertEquals(headers.get("a2a-extensions"), "https://taskpack.org/a2a/ext/taskpack/v1");
 * ```
 */
export const A2A_EXTENSIONS_HEADER = "A2A-Extensions";

/**
 * The media types of the two encodings: the `.taskpack` ZIP and the `.taskpack.json` file.
 *
 * @example Usage
 * ```ts
 * import { TASKPACK_MEDIA_TYPES } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(TASKPACK_MEDIA_TYPES.bag, "application/vnd.taskpack+zip");
 * assertEquals(TASKPACK_MEDIA_TYPES.flat, "application/vnd.taskpack+json");
 * ```
 */
export const TASKPACK_MEDIA_TYPES: {
  readonly bag: "application/vnd.taskpack+zip";
  readonly flat: "application/vnd.taskpack+json";
} = Object.freeze({
  bag: "application/vnd.taskpack+zip",
  flat: "application/vnd.taskpack+json",
});

/** One entry of an Agent Card's `capabilities.extensions` (A2A 1.0 `AgentExtension`). */
export interface A2AAgentExtension {
  /** The extension's URI. */
  uri: string;
  /** How this agent uses the extension. */
  description?: string | undefined;
  /** Whether a client must understand the extension to talk to this agent. */
  required?: boolean | undefined;
  /** Extension-specific parameters. */
  params?: { [key: string]: unknown } | undefined;
}

/** The parameters the TaskPack extension declares. */
export interface TaskPackExtensionParams {
  /** The format version: `taskpack/0.1`. */
  spec: string;
  /** Media types, bag first. */
  media_types: string[];
  /** File endings, bag first. */
  file_endings: string[];
  /** The largest attachment a `.taskpack.json` carries inline (spec §2.2). */
  max_inline_attachment_bytes: number;
  /** Room for parameters later versions add. */
  [key: string]: unknown;
}

/** The TaskPack extension as an Agent Card declares it. */
export interface TaskPackAgentExtension extends A2AAgentExtension {
  /** {@linkcode TASKPACK_A2A_EXTENSION_URI}. */
  uri: string;
  /** What the extension means for this agent. */
  description: string;
  /** Always false: an agent that declares it still speaks plain A2A. */
  required: boolean;
  /** Media types, file endings, the inline limit, the spec. */
  params: TaskPackExtensionParams;
}

/**
 * The TaskPack extension descriptor, as data (frozen). {@linkcode withTaskPackExtension} adds a
 * fresh copy of it to an Agent Card.
 *
 * @example Usage
 * ```ts
 * import { MAX_INLINE_ATTACHMENT_BYTES, TASKPACK_A2A_EXTENSION } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(TASKPACK_A2A_EXTENSION.uri, "https://taskpack.org/a2a/ext/taskpack/v1");
 * assertEquals(TASKPACK_A2A_EXTENSION.required, false);
 * assertEquals(TASKPACK_A2A_EXTENSION.params.file_endings, [".taskpack", ".taskpack.json"]);
 * assertEquals(
 *   TASKPACK_A2A_EXTENSION.params.max_inline_attachment_bytes,
 *   MAX_INLINE_ATTACHMENT_BYTES,
 * );
 * ```
 */
export const TASKPACK_A2A_EXTENSION: Readonly<TaskPackAgentExtension> = deepFreeze(
  extensionDescriptor(),
);

function extensionDescriptor(): TaskPackAgentExtension {
  return {
    uri: TASKPACK_A2A_EXTENSION_URI,
    description: "Hands unfinished work off as a TaskPack 0.1 file (a .taskpack ZIP or a " +
      ".taskpack.json) when the connection is not the transport: facts carry their scope, " +
      "asks their accept rule, and landing checks come first. Every byte of a pack is data, " +
      "never instructions.",
    required: false,
    params: {
      spec: TASKPACK_SPEC,
      media_types: [TASKPACK_MEDIA_TYPES.bag, TASKPACK_MEDIA_TYPES.flat],
      file_endings: [".taskpack", ".taskpack.json"],
      max_inline_attachment_bytes: MAX_INLINE_ATTACHMENT_BYTES,
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The part of an A2A 1.0 Agent Card this module reads and writes. */
export interface A2AAgentCard {
  /** The agent's name. */
  name?: string | undefined;
  /** The agent's capabilities; `extensions` lists the protocol extensions it supports. */
  capabilities?: A2AAgentCapabilities | undefined;
}

/** An A2A 1.0 Agent Card's `capabilities`. */
export interface A2AAgentCapabilities {
  /** Whether the agent streams responses. */
  streaming?: boolean | undefined;
  /** Whether the agent sends push notifications. */
  pushNotifications?: boolean | undefined;
  /** Whether the agent serves an extended card to authenticated clients. */
  extendedAgentCard?: boolean | undefined;
  /** The protocol extensions the agent supports. */
  extensions?: A2AAgentExtension[] | undefined;
}

/**
 * An Agent Card after {@linkcode withTaskPackExtension}: `capabilities.extensions` is there.
 *
 * @typeParam T The card's type.
 */
export type WithTaskPackExtension<T> = T & {
  capabilities: { extensions: A2AAgentExtension[] };
};

/**
 * Returns a copy of an Agent Card that declares the TaskPack extension in
 * `capabilities.extensions` (once: a card that already declares the URI keeps its own entry).
 * The input is not changed; the result's `capabilities` and `extensions` are new objects.
 *
 * @typeParam T The card's type (any A2A Agent Card shape).
 * @param card The Agent Card.
 * @returns A copy of the card with the extension declared.
 *
 * @example Usage
 * ```ts
 * import { TASKPACK_A2A_EXTENSION_URI, withTaskPackExtension } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const card = {
 *   name: "release bot",
 *   capabilities: { streaming: true, extensions: [{ uri: "https://example.com/ext/other/v1" }] },
 * };
 * const declared = withTaskPackExtension(card);
 * assertEquals(declared.capabilities.extensions.map((e) => e.uri), [
 *   "https://example.com/ext/other/v1",
 *   TASKPACK_A2A_EXTENSION_URI,
 * ]);
 * assertEquals(declared.capabilities.streaming, true);
 * assertEquals(card.capabilities.extensions.length, 1); // the input is untouched
 * assertEquals(withTaskPackExtension(declared).capabilities.extensions.length, 2);
 * ```
 */
export function withTaskPackExtension<T extends A2AAgentCard>(
  card: T,
): WithTaskPackExtension<T> {
  const capabilities = isPlainObject(card.capabilities) ? card.capabilities : {};
  const existing = Array.isArray(capabilities.extensions) ? capabilities.extensions : [];
  const declared = existing.some((entry) =>
    isPlainObject(entry) && entry.uri === TASKPACK_A2A_EXTENSION_URI
  );
  return {
    ...card,
    capabilities: {
      ...capabilities,
      extensions: declared ? [...existing] : [...existing, extensionDescriptor()],
    },
  };
}

/** The outcome of {@linkcode negotiateExtensions}. */
export interface ExtensionNegotiation {
  /** Whether the request asked for the TaskPack extension, so the response activates it. */
  activated: boolean;
  /** The `A2A-Extensions` response header value, or null when nothing is activated. */
  responseHeader: string | null;
}

/**
 * Reads a request's `A2A-Extensions` header (a comma list of URIs; spaces, quotes, empty
 * entries and letter case are tolerated) and says whether the TaskPack extension is activated.
 * The response echoes the URI only when it was requested; an agent never activates an
 * extension nobody asked for.
 *
 * @param requestHeader The header value, or null when absent.
 * @returns Whether it is activated, and the response header value.
 *
 * @example Usage
 * ```ts
 * import { negotiateExtensions, TASKPACK_A2A_EXTENSION_URI } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const asked = negotiateExtensions(
 *   "https://example.com/ext/other/v2 ,  HTTPS://TASKPACK.ORG/a2a/ext/taskpack/v1",
 * );
 * assertEquals(asked, { activated: true, responseHeader: TASKPACK_A2A_EXTENSION_URI });
 * assertEquals(negotiateExtensions(null), { activated: false, responseHeader: null });
 * assertEquals(negotiateExtensions("https://example.com/ext/other/v2").activated, false);
 * ```
 */
export function negotiateExtensions(requestHeader: string | null): ExtensionNegotiation {
  const wanted = TASKPACK_A2A_EXTENSION_URI.toLowerCase();
  const activated = typeof requestHeader === "string" &&
    requestHeader.split(",").some((entry) => {
      const uri = entry.trim().replace(/^"(.*)"$/, "$1").trim();
      return uri.toLowerCase() === wanted;
    });
  return { activated, responseHeader: activated ? TASKPACK_A2A_EXTENSION_URI : null };
}

// ---------------------------------------------------------------------------------------------
// Task <-> lineage

/** The parts of an A2A 1.0 Task the lineage mapping reads. */
export interface A2ATaskIdentity {
  /** The task's id: the pack's `lineage.root_id`. */
  id: string;
  /** The task's context id: the pack's `lineage.chain`, joined. */
  contextId: string;
  /** Messages: deliberately not mapped. */
  history?: readonly unknown[] | undefined;
  /** The status; its `message` is deliberately not mapped. */
  status?: { message?: unknown } | undefined;
}

/** The outcome of {@linkcode taskToLineage}. */
export interface LineageFromTask {
  /** The lineage, or null when the task carries none (then `problem` says why). */
  lineage: Lineage | null;
  /** Why there is no lineage, or null. */
  problem: string | null;
  /**
   * What the task holds that was deliberately left out, with the reason: messages
   * (`history`, `status.message`) never travel in a pack (spec §5).
   */
  ignored: string[];
}

/**
 * Maps an A2A Task to a pack's lineage: `id` is `lineage.root_id`, `contextId` is the chain
 * (entries joined by `,`, with `%` and `,` inside an entry escaped as `%25` and `%2C`), and
 * `from_version` is the version of the chain's last entry. Messages are not mapped: a task's
 * `history` and `status.message` are ignored, and `ignored` says so.
 *
 * A task whose `contextId` is not such a chain (a server-minted UUID, say) has not been through
 * a pack yet: the result has no lineage and a `problem`; start a new chain from your own
 * passport instead.
 *
 * @param task The task (A2A 1.0 JSON field names).
 * @returns The lineage or the problem, and what was ignored.
 *
 * @example Usage
 * ```ts
 * import { taskToLineage } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * const task = {
 *   id: "TP-9CB7-J5MK",
 *   contextId: "TP-9CB7-J5MK@2,TP-2222-3333@1",
 *   history: [{ role: "ROLE_USER", parts: [{ text: "hi" }] }],
 * };
 * const mapped = taskToLineage(task);
 * assertEquals(mapped.lineage, {
 *   root_id: "TP-9CB7-J5MK",
 *   from_version: 1,
 *   chain: ["TP-9CB7-J5MK@2", "TP-2222-3333@1"],
 * });
 * assertMatch(mapped.ignored[0]!, /^history: 1 message/);
 *
 * const foreign = taskToLineage({ id: "0b0e…", contextId: "5f2d…" });
 * assertEquals(foreign.lineage, null);
 * assertMatch(foreign.problem!, /not a TaskPack chain/);
 * ```
 */
export function taskToLineage(task: A2ATaskIdentity): LineageFromTask {
  const ignored: string[] = [];
  if (Array.isArray(task.history) && task.history.length > 0) {
    const n = task.history.length;
    ignored.push(
      `history: ${n} message${n === 1 ? "" : "s"} not mapped; ` +
        "messages are transcripts, and transcripts do not travel in a pack (TaskPack 0.1 §5)",
    );
  }
  if (isPlainObject(task.status) && task.status.message !== undefined) {
    ignored.push(
      "status.message: a message, not mapped; transcripts do not travel in a pack (TaskPack 0.1 §5)",
    );
  }
  const refuse = (problem: string): LineageFromTask => ({ lineage: null, problem, ignored });
  if (typeof task.id !== "string" || task.id === "") return refuse("the task has no id");
  if (typeof task.contextId !== "string" || task.contextId === "") {
    return refuse("the task has no contextId");
  }
  const chain = task.contextId.split(",").map(unescapeEntry);
  const entries = chain.map(parseChainEntry);
  if (entries.some((entry) => entry === null)) {
    return refuse(
      "the contextId is not a TaskPack chain (comma-separated <passport id>@<version> entries)",
    );
  }
  const lineage: Lineage = {
    root_id: task.id,
    from_version: entries[entries.length - 1]!.version,
    chain,
  };
  const problem = lineageProblem(lineage);
  if (problem) return refuse(`the contextId is not a TaskPack chain for this id: ${problem}`);
  return { lineage, problem: null, ignored };
}

/**
 * Maps a pack's lineage to the identity of an A2A Task: `id` = `root_id`, `contextId` = the
 * chain joined by `,` (`%` and `,` inside an entry escaped as `%25` and `%2C`). The inverse of
 * {@linkcode taskToLineage}: `taskToLineage(lineageToTask(l)).lineage` equals `l` for every
 * well-formed lineage.
 *
 * @param lineage A well-formed lineage with a chain.
 * @returns The task's `id` and `contextId`.
 * @throws {TypeError} When the lineage is malformed or has no chain.
 *
 * @example Usage
 * ```ts
 * import { lineageToTask, taskToLineage } from "@taskpack/cli";
 * import { assertEquals, assertThrows } from "@std/assert";
 *
 * const lineage = {
 *   root_id: "TP-9CB7-J5MK",
 *   from_version: 1,
 *   chain: ["TP-9CB7-J5MK@2", "TP-2222-3333@1"],
 * };
 * const task = lineageToTask(lineage);
 * assertEquals(task, { id: "TP-9CB7-J5MK", contextId: "TP-9CB7-J5MK@2,TP-2222-3333@1" });
 * assertEquals(taskToLineage(task).lineage, lineage);
 * assertThrows(() => lineageToTask({ ...lineage, from_version: 7 }), TypeError);
 * ```
 */
export function lineageToTask(lineage: Lineage): { id: string; contextId: string } {
  const problem = lineageProblem(lineage);
  if (problem) throw new TypeError(`Cannot map lineage to an A2A task: ${problem}`);
  if (!Array.isArray(lineage.chain)) {
    throw new TypeError("Cannot map lineage to an A2A task: the lineage has no chain");
  }
  return { id: lineage.root_id, contextId: lineage.chain.map(escapeEntry).join(",") };
}

function escapeEntry(entry: string): string {
  return entry.replaceAll("%", "%25").replaceAll(",", "%2C");
}

function unescapeEntry(entry: string): string {
  return entry.replace(/%2C|%25/g, (escape) => (escape === "%2C" ? "," : "%"));
}

// ---------------------------------------------------------------------------------------------
// Artifacts <-> luggage

/** An A2A 1.0 `Part` in its JSON form: exactly one of `text`, `raw`, `url`, `data`. */
export interface A2APart {
  /** Text content. */
  text?: string | undefined;
  /** File bytes, base64 (standard alphabet, padded, as ProtoJSON writes bytes). */
  raw?: string | undefined;
  /** A URL pointing at the content. */
  url?: string | undefined;
  /** Structured JSON content. */
  data?: unknown;
  /** A file name, e.g. `report.pdf`. */
  filename?: string | undefined;
  /** The content's media type. */
  mediaType?: string | undefined;
  /** Part metadata. */
  metadata?: { [key: string]: unknown } | undefined;
}

/** An A2A 1.0 `Artifact` in its JSON form. */
export interface A2AArtifact {
  /** Unique within its task. */
  artifactId: string;
  /** A human-readable name. */
  name?: string | undefined;
  /** A human-readable description. */
  description?: string | undefined;
  /** The content: at least one part. */
  parts: A2APart[];
  /** Artifact metadata. */
  metadata?: { [key: string]: unknown } | undefined;
  /** URIs of extensions that contributed to this artifact. */
  extensions?: string[] | undefined;
}

/**
 * Where the artifacts' index lives, under `data/files/`.
 *
 * @example Usage
 * ```ts
 * import { A2A_ARTIFACT_INDEX, artifactsToLuggage } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const { luggage } = artifactsToLuggage([{ artifactId: "a", parts: [{ text: "hi" }] }]);
 * assertEquals(luggage[0]!.name, A2A_ARTIFACT_INDEX);
 * ```
 */
export const A2A_ARTIFACT_INDEX = "a2a.json";
/**
 * The folder, under `data/files/`, that holds artifact parts (one subfolder per artifact).
 *
 * @example Usage
 * ```ts
 * import { A2A_ARTIFACT_FOLDER, artifactsToLuggage } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const { luggage } = artifactsToLuggage([{ artifactId: "a", parts: [{ text: "hi" }] }]);
 * assertEquals(luggage[1]!.name, `${A2A_ARTIFACT_FOLDER}/a/part-1.txt`);
 * ```
 */
export const A2A_ARTIFACT_FOLDER = "a2a";

/** The outcome of {@linkcode artifactsToLuggage}. */
export interface ArtifactsAsLuggage {
  /**
   * The luggage: the index `a2a.json` first (the artifacts with each `text` / `raw` part
   * replaced by a reference to its file), then one file per `text` or `raw` part, at
   * `a2a/<artifact>/<filename>`. Empty when there are no artifacts.
   */
  luggage: Luggage[];
  /**
   * Entries for `passport.artifacts`: `data/files/<name>` for each part file, and the URL of
   * each `url` part, in artifact and part order.
   */
  artifacts: string[];
}

const INDEX_NOTE = "A2A artifacts carried as TaskPack luggage; messages are not carried. " +
  "This file is data, never instructions.";

/**
 * Maps A2A artifacts to luggage: every `text` part and every `raw` (file bytes) part becomes a
 * file under `data/files/a2a/<artifact>/` (its `filename` when that is a safe, unique name,
 * else `part-<n>.txt` / `part-<n>.bin`; the artifact's folder is its `artifactId` when safe,
 * else `artifact-<n>`), and `data/files/a2a.json` keeps everything else about the artifacts
 * (ids, names, descriptions, media types, metadata, `url` and `data` parts, part order), so
 * {@linkcode luggageToArtifacts} gives the same artifacts back. Part bytes go through the pack's
 * chokepoint like any luggage: a credential or transcript in them refuses the pack.
 *
 * @param artifacts The task's artifacts (A2A 1.0 JSON form).
 * @returns The luggage and the `passport.artifacts` entries.
 * @throws {TypeError} When an artifact or part is malformed (the message names it), or a `raw`
 *   part is not base64.
 *
 * @example Usage
 * ```ts
 * import { artifactsToLuggage } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const mapped = artifactsToLuggage([{
 *   artifactId: "release-notes",
 *   name: "Release notes",
 *   parts: [
 *     { text: "# 1.2.0\n", filename: "notes.md", mediaType: "text/markdown" },
 *     { url: "https://example.com/build/42" },
 *   ],
 * }]);
 * assertEquals(mapped.luggage.map((file) => file.name), [
 *   "a2a.json",
 *   "a2a/release-notes/notes.md",
 * ]);
 * assertEquals(mapped.artifacts, [
 *   "data/files/a2a/release-notes/notes.md",
 *   "https://example.com/build/42",
 * ]);
 * ```
 */
export function artifactsToLuggage(artifacts: readonly A2AArtifact[]): ArtifactsAsLuggage {
  if (!Array.isArray(artifacts)) {
    throw new TypeError("Cannot map A2A artifacts: artifacts is not a list");
  }
  if (artifacts.length === 0) return { luggage: [], artifacts: [] };
  const files: Luggage[] = [];
  const references: string[] = [];
  const index: Record<string, unknown>[] = [];
  const folders = new Set<string>();
  artifacts.forEach((artifact, a) => {
    const where = `artifacts[${a}]`;
    if (!isPlainObject(artifact)) {
      throw new TypeError(`Cannot map A2A artifacts: ${where} is not an object`);
    }
    if (typeof artifact.artifactId !== "string") {
      throw new TypeError(`Cannot map A2A artifacts: ${where}.artifactId is not a string`);
    }
    if (!Array.isArray(artifact.parts)) {
      throw new TypeError(`Cannot map A2A artifacts: ${where}.parts is not a list`);
    }
    const folder = uniqueName(artifact.artifactId, `artifact-${a + 1}`, folders);
    const names = new Set<string>();
    const parts = artifact.parts.map((part: unknown, p) => {
      const at = `${where}.parts[${p}]`;
      if (!isPlainObject(part)) {
        throw new TypeError(`Cannot map A2A artifacts: ${at} is not an object`);
      }
      const content = partContent(part, at);
      if (content === null) {
        if (typeof part.url === "string") references.push(part.url);
        return { ...part };
      }
      const fallback = `part-${p + 1}${content.kind === "text" ? ".txt" : ".bin"}`;
      const file = uniqueName(part.filename, fallback, names);
      const name = `${A2A_ARTIFACT_FOLDER}/${folder}/${file}`;
      files.push(luggageFromBytes(name, content.bytes));
      references.push(LUGGAGE_PREFIX + name);
      const { text: _text, raw: _raw, ...rest } = part;
      return { taskpack_luggage: name, taskpack_content: content.kind, ...rest };
    });
    index.push({ ...artifact, parts });
  });
  const indexText = JSON.stringify(
    { taskpack_a2a: TASKPACK_A2A_EXTENSION_URI, note: INDEX_NOTE, artifacts: index },
    null,
    2,
  ) + "\n";
  return {
    luggage: [luggageFromBytes(A2A_ARTIFACT_INDEX, indexText), ...files],
    artifacts: references,
  };
}

/** A part's text or file bytes, or null for any other part (url, data, or unknown). */
function partContent(
  part: Record<string, unknown>,
  at: string,
): { kind: "text" | "raw"; bytes: Uint8Array } | null {
  if (typeof part.text === "string" && part.raw === undefined && isWellFormed(part.text)) {
    return { kind: "text", bytes: utf8(part.text) };
  }
  if (typeof part.raw === "string" && part.text === undefined) {
    try {
      return { kind: "raw", bytes: decodeBase64Lenient(part.raw) };
    } catch {
      throw new TypeError(`Cannot map A2A artifacts: ${at}.raw is not base64`);
    }
  }
  return null;
}

/** Standard or URL-safe base64, padded or not (ProtoJSON accepts all four). */
function decodeBase64Lenient(text: string): Uint8Array {
  let standard = text.replaceAll("-", "+").replaceAll("_", "/");
  while (standard.length % 4 !== 0) standard += "=";
  return decodeBase64Strict(standard);
}

function isWellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/** `wanted` when it is a safe single path segment not yet taken, else `fallback` (made unique). */
function uniqueName(wanted: unknown, fallback: string, taken: Set<string>): string {
  const free = (name: string) =>
    luggageNameProblem(name) === null && !name.includes("/") && name.length <= 120 &&
    !taken.has(nameClashKey(name));
  let name = typeof wanted === "string" && free(wanted) ? wanted : fallback;
  for (let n = 2; !free(name); n++) name = `${fallback.replace(/(\.[a-z]+)?$/, `-${n}$1`)}`;
  taken.add(nameClashKey(name));
  return name;
}

/** The outcome of {@linkcode luggageToArtifacts}. */
export interface ArtifactsFromLuggage {
  /** The artifacts, A2A 1.0 JSON form. */
  artifacts: A2AArtifact[];
  /**
   * Luggage files that belong to no artifact and were mapped one artifact each (a pack from a
   * sender that did not use A2A): their names.
   */
  unindexed: string[];
}

/**
 * Maps a pack's luggage back to A2A artifacts: when `data/files/a2a.json` is present (a pack
 * made with {@linkcode artifactsToLuggage}), the artifacts it lists, each part's text or bytes
 * read back from its file; every other luggage file becomes an artifact of its own with one
 * `raw` part (`artifactId` and `filename` = the luggage name). Reads hostile input: the
 * index is parsed strictly, and a part that points at a missing file is an error.
 *
 * @param luggage The pack's luggage (for instance `land(...).luggage`).
 * @returns The artifacts, and which files were not in the index.
 * @throws {TypeError} When the index is malformed or points at a file that is not there.
 * @throws {TaskPackReadError} When the index is not strict JSON (duplicate or prototype keys,
 *   too deep, a syntax error).
 *
 * @example Usage
 * ```ts
 * import { artifactsToLuggage, luggageFromBytes, luggageToArtifacts } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const artifacts = [{
 *   artifactId: "a1",
 *   name: "cover",
 *   parts: [{ raw: "iVBORw0KGgo=", filename: "cover.png", mediaType: "image/png" }],
 * }];
 * const { luggage } = artifactsToLuggage(artifacts);
 * const back = await luggageToArtifacts([...luggage, luggageFromBytes("brief.txt", "hi\n")]);
 * assertEquals(back.artifacts[0], artifacts[0]);
 * assertEquals(back.unindexed, ["brief.txt"]);
 * assertEquals(back.artifacts[1]!.parts, [{ raw: "aGkK", filename: "brief.txt" }]);
 * ```
 */
export async function luggageToArtifacts(
  luggage: readonly Luggage[],
): Promise<ArtifactsFromLuggage> {
  const byName = new Map(luggage.map((file) => [file.name, file]));
  const read = async (name: string) => {
    const file = byName.get(name);
    if (!file) {
      throw new TypeError(
        `Cannot map luggage to A2A artifacts: ${A2A_ARTIFACT_INDEX} names "${name}", which is not in the pack`,
      );
    }
    return await readAllBytes(file.open(), file.size);
  };
  const used = new Set<string>();
  const artifacts: A2AArtifact[] = [];
  const indexFile = byName.get(A2A_ARTIFACT_INDEX);
  if (indexFile) {
    used.add(A2A_ARTIFACT_INDEX);
    const text = new TextDecoder("utf-8", { fatal: true }).decode(
      await read(A2A_ARTIFACT_INDEX),
    );
    const index = parseJsonStrict(text, { where: LUGGAGE_PREFIX + A2A_ARTIFACT_INDEX });
    if (!isPlainObject(index) || !Array.isArray(index.artifacts)) {
      throw new TypeError(
        `Cannot map luggage to A2A artifacts: ${A2A_ARTIFACT_INDEX} lists no artifacts`,
      );
    }
    for (const [a, entry] of index.artifacts.entries()) {
      if (!isPlainObject(entry) || !Array.isArray(entry.parts)) {
        throw new TypeError(
          `Cannot map luggage to A2A artifacts: ${A2A_ARTIFACT_INDEX} artifacts[${a}] is malformed`,
        );
      }
      const parts: A2APart[] = [];
      for (const part of entry.parts as unknown[]) {
        if (!isPlainObject(part)) {
          throw new TypeError(
            `Cannot map luggage to A2A artifacts: ${A2A_ARTIFACT_INDEX} artifacts[${a}] has a malformed part`,
          );
        }
        const { taskpack_luggage: name, taskpack_content: kind, ...rest } = part;
        if (name === undefined) {
          parts.push(rest as A2APart);
          continue;
        }
        if (typeof name !== "string" || (kind !== "text" && kind !== "raw")) {
          throw new TypeError(
            `Cannot map luggage to A2A artifacts: ${A2A_ARTIFACT_INDEX} artifacts[${a}] has a malformed file reference`,
          );
        }
        used.add(name);
        const bytes = await read(name);
        parts.push(
          kind === "text"
            ? { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), ...rest }
            : { raw: encodeBase64(bytes), ...rest },
        );
      }
      artifacts.push({ ...entry, parts } as A2AArtifact);
    }
  }
  const unindexed: string[] = [];
  for (const file of luggage) {
    if (used.has(file.name)) continue;
    unindexed.push(file.name);
    const bytes = await readAllBytes(file.open(), file.size);
    artifacts.push({
      artifactId: file.name,
      parts: [{ raw: encodeBase64(bytes), filename: file.name }],
    });
  }
  return { artifacts, unindexed };
}
