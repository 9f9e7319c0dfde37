// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * TaskPack over A2A, in A2A's own names: the agent-card extension, artifacts as luggage
 * and back, and a task's identity as a pack's lineage.
 *
 * It uses `format/` and `bytes/`.
 *
 * @example Usage
 * ```ts
 * import { TASKPACK_A2A_EXTENSION_URI, withTaskPackExtension } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(typeof TASKPACK_A2A_EXTENSION_URI, "string");
 * assertEquals(typeof withTaskPackExtension, "function");
 * ```
 *
 * @module
 */

export {
  A2A_ARTIFACT_FOLDER,
  A2A_ARTIFACT_INDEX,
  A2A_EXTENSIONS_HEADER,
  type A2AAgentCapabilities,
  type A2AAgentCard,
  type A2AAgentExtension,
  type A2AArtifact,
  type A2APart,
  type A2ATaskIdentity,
  type ArtifactsAsLuggage,
  type ArtifactsFromLuggage,
  artifactsToLuggage,
  type ExtensionNegotiation,
  type LineageFromTask,
  lineageToTask,
  luggageToArtifacts,
  negotiateExtensions,
  TASKPACK_A2A_EXTENSION,
  TASKPACK_A2A_EXTENSION_URI,
  TASKPACK_MEDIA_TYPES,
  type TaskPackAgentExtension,
  type TaskPackExtensionParams,
  taskToLineage,
  type WithTaskPackExtension,
  withTaskPackExtension,
} from "./a2a.ts";
