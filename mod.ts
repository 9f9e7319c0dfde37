// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * taskpack: TaskPack 0.1 in TypeScript — a portable container for handing unfinished work
 * between AI agents, machines, people and vendors.
 *
 * This entry point is the pure core: bytes and values in, bytes and values out. It never
 * touches the file system, the clock, the host name or randomness (those are parameters), so
 * it runs the same in Deno, Node, Bun, browsers and edge functions. The CLI is `./cli`; run as a
 * program (`deno run -A jsr:@taskpack/cli <verb>`), this module starts it, and only then.
 *
 * - Build and pack: {@linkcode buildPackObject} -> {@linkcode preparePack} (the one
 *   chokepoint: sealing and refusals) -> {@linkcode encodeBag} / {@linkcode encodeFlat}.
 * - Judge strictly: {@linkcode judge} (C0-C10, never throws).
 * - Land leniently: {@linkcode land} -> {@linkcode planLanding}.
 *
 * @example Pack, judge, land
 * ```ts
 * import {
 *   buildPackObject,
 *   encodeFlat,
 *   judge,
 *   land,
 *   planLanding,
 *   preparePack,
 * } from "@taskpack/cli";
 * import assert from "node:assert/strict";
 *
 * const state = {
 *   id: "TP-9CB7-J5MK",
 *   version: 2,
 *   title: "release plugin",
 *   goal: "ship the plugin tonight",
 *   facts: [{ claim: "port 8080 is free", scope: "machine", verified: true }],
 *   next_steps: ["publish to registry"],
 * };
 * const pack = buildPackObject(state, {
 *   packedAt: "2026-12-02T16:46:10Z",
 *   machine: "vm",
 *   actor: "alice",
 *   asks: [{ what: "cover image prompt", accept: "one prompt that covers 750x400" }],
 * });
 * const flat = new TextEncoder().encode(await encodeFlat(await preparePack(pack, [])));
 *
 * const report = await judge(flat);
 * assert.equal(report.ok, true);
 *
 * const landed = await land(flat);
 * const plan = planLanding(landed.object, { newId: "TP-2222-3333", machine: "laptop" });
 * assert.equal(plan.state.facts![0]!.verified, false); // sealed at pack time
 * assert.deepEqual(plan.state.lineage!.chain, ["TP-9CB7-J5MK@2"]);
 * ```
 *
 * @module
 */
export * from "./lib/model.ts";
export * from "./lib/errors.ts";
export * from "./lib/source.ts";
export * from "./lib/digests.ts";
export * from "./lib/names.ts";
export * from "./lib/host_names.ts";
export * from "./lib/patterns.ts";
export * from "./lib/seal.ts";
export * from "./lib/refuse.ts";
export * from "./lib/lineage.ts";
export * from "./lib/bag.ts";
export * from "./lib/flat.ts";
export * from "./lib/pack.ts";
export * from "./lib/read.ts";
export * from "./lib/conformance.ts";
export * from "./lib/land.ts";
export {
  type Capsule,
  CAPSULE_CONTRACT,
  CAPSULE_DONE,
  CapsuleError,
  type CapsuleFact,
  type CapsuleResult,
  type CapsuleRule,
  type CapsuleWork,
  parseCapsuleBytes,
  parseCapsuleText,
  validateCapsule,
} from "./lib/capsule.ts";
export * from "./lib/capsule_map.ts";
export * from "./lib/store.ts";
export * from "./lib/passport.ts";
export * from "./lib/receipt.ts";
export * from "./lib/context.ts";
export * from "./lib/warnings.ts";
export * from "./lib/imperatives.ts";
export * from "./lib/summary.ts";
export * from "./lib/a2a.ts";
export type { ZipLimits } from "./lib/zip_reader.ts";

// `deno run -A jsr:@taskpack/cli <verb>` runs the command line. Importing this module never does,
// nor does it bring the CLI into a library user's module graph: the CLI's name is put together
// at run time (so neither Deno's graph nor tsc nor a bundler follows it), and it is loaded only
// when this file is the program itself.
if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const { Deno: runtime } = globalThis as unknown as {
    Deno?: { args: string[]; exitCode: number };
  };
  const cli = import("./cli" + ".ts") as Promise<{ main: (args: string[]) => Promise<number> }>;
  cli.then(async ({ main }) => {
    if (runtime) runtime.exitCode = await main(runtime.args);
  });
}
