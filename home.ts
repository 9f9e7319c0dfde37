// Copyright 2026 the taskpack authors. MIT license.
/**
 * A team's passport home over HTTP, for any server that speaks `fetch`: the handler
 * (`createHomeHandler`), the stores it can serve (a folder, Deno KV) and the store that talks
 * to it (`HttpStore`). `taskpack serve-home` runs the same handler with `Deno.serve`.
 *
 * A handler needs a store, so this module cannot itself be the `export default { fetch }` of
 * `deno serve`; a three-line file can:
 *
 * ```ts ignore
 * // home_server.ts — run with: deno serve -A --unstable-kv home_server.ts
 * import { createHomeHandler, KV_LEDGER_PREFIX, KvStore } from "jsr:@taskpack/cli/home";
 *
 * const store = new KvStore("./team-home.kv"); // on Deno Deploy: new KvStore(await Deno.openKv())
 * export default { fetch: createHomeHandler(store, { ledger: store.withPrefix(KV_LEDGER_PREFIX) }) };
 * ```
 *
 * The ledger keeps each passport's token hash and claim; without one they are kept in memory
 * and lost on restart. For a folder store, `new FolderStore("<folder>/.home")` is the ledger
 * `serve-home` uses.
 *
 * @example Usage
 * ```ts
 * import { createHomeHandler, HttpStore } from "./home.ts";
 * import { MemoryStore } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const handler = createHomeHandler(new MemoryStore());
 * // An HttpStore talks to it; here through the handler directly instead of the network.
 * const store = new HttpStore("http://home.invalid", {
 *   fetch: (input, init) => handler(new Request(input, init)),
 * });
 * const created = await store.create({ id: "TP-AAAA-BBBB", version: 0, title: "t" });
 * const saved = await store.save({ ...created, goal: "g" }, 1);
 * assert.equal(saved.version, 2);
 * assert.deepEqual((await store.list()).passports.map((p) => p.id), ["TP-AAAA-BBBB"]);
 * ```
 *
 * @module
 */
export {
  type Claim,
  createHomeHandler,
  hashToken,
  type HomeHandler,
  type HomeOptions,
  issueToken,
} from "./shell/http/home_server.ts";
export {
  ClaimHeldError,
  defaultTokenDir,
  HomeRequestError,
  HttpStore,
  type HttpStoreOptions,
} from "./shell/stores/http_store.ts";
export {
  KV_CHUNK_BYTES,
  KV_DEFAULT_PREFIX,
  KV_LEDGER_PREFIX,
  KV_MAX_BYTES,
  type KvAtomicLike,
  type KvEntryLike,
  type KvKey,
  type KvKeyPart,
  type KvLike,
  type KvSelector,
  KvStore,
  type KvStoreOptions,
  kvUnavailable,
  PassportRecordError,
} from "./shell/stores/kv_store.ts";
export { FolderStore, type FolderStoreOptions } from "./shell/stores/folder_store.ts";
export type { PassportStore, PassportSummary, StoreListing } from "./lib/home/mod.ts";
export type {
  Ask,
  CheckId,
  CheckResult,
  Decision,
  Fact,
  FLAT_VERSION,
  FlatAttachment,
  FlatPack,
  LandingCheck,
  Lineage,
  MAX_INLINE_ATTACHMENT_BYTES,
  NOTE_TO_READER,
  Origin,
  PACK_SPEC,
  PackKind,
  PackObject,
  PASSPORT_SPEC,
  PassportState,
  Repair,
  Report,
  TASKPACK_SPEC,
} from "./lib/format/mod.ts";
