// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- tests edit parsed JSON freely to build broken packs
// Shared test helpers: fixtures, a sample task, and packing both ways in memory.
import {
  buildPackObject,
  type BuildPackOptions,
  encodeBag,
  encodeFlat,
  land,
  type Luggage,
  type PassportState,
  type PreparedPack,
  preparePack,
} from "../mod.ts";

/** The packs the incumbent (task-passport 0.3.0) wrote. */
export const REFERENCE_DIR = new URL("../testdata/interop/reference-0.3.0/", import.meta.url);
export const REFERENCE_FILES = [
  "handoff.taskpack",
  "handoff.taskpack.json",
  "minimal.taskpack",
  "minimal.taskpack.json",
  "names.taskpack",
  "names.taskpack.json",
  "receipt.taskpack.json",
];

export async function readReference(name: string): Promise<Uint8Array> {
  return await Deno.readFile(new URL(name, REFERENCE_DIR));
}

export const encoder: TextEncoder = new TextEncoder();
export const decoder: TextDecoder = new TextDecoder();

export async function streamBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A task in progress, with every kind of fact. */
export function sampleState(): PassportState {
  return {
    id: "TP-9CB7-J5MK",
    version: 2,
    title: "release plugin",
    goal: "ship the plugin tonight",
    current_state: "Build is green on CI; cover image missing.",
    facts: [
      { claim: "customer wants the release before Friday", scope: "universal", verified: true },
      { claim: "plugin ids are kebab-case", scope: "org", verified: true },
      { claim: "node 20 is at /usr/bin/node", scope: "machine", verified: true },
      { claim: "port 8080 is free", verified: true },
    ],
    decisions: [{ what: "ship without the dark theme", why: "not ready" }],
    artifacts: ["git https://example.invalid/plugin.git@19672b5"],
    next_steps: ["generate cover image", "publish to registry"],
  };
}

export const SAMPLE_OPTIONS: BuildPackOptions = {
  packedAt: "2026-12-02T16:46:10Z",
  machine: "vm",
  actor: "alice",
  note: "please finish the release",
  asks: [{ what: "cover image prompt", accept: "one prompt that covers 750x400" }],
  landingChecks: [{ check: "this machine can render images", how: "run the image tool once" }],
};

/** Packs a state in both encodings. */
export async function packBoth(
  state: PassportState = sampleState(),
  options: BuildPackOptions = SAMPLE_OPTIONS,
  luggage: Luggage[] = [],
): Promise<{ prepared: PreparedPack; bag: Uint8Array; flat: Uint8Array }> {
  const prepared = await preparePack(buildPackObject(state, options), luggage);
  const bag = await streamBytes(encodeBag(prepared));
  const flat = encoder.encode(await encodeFlat(prepared, { maxAttachmentBytes: Infinity }));
  return { prepared, bag, flat };
}

/** Converts a file (either encoding) into the other one, as the CLI does. */
export async function convert(bytes: Uint8Array, to: "bag" | "flat"): Promise<Uint8Array> {
  const landed = await land(bytes);
  const prepared = await preparePack(landed.object, landed.luggage);
  return to === "bag"
    ? await streamBytes(encodeBag(prepared))
    : encoder.encode(await encodeFlat(prepared, { maxAttachmentBytes: Infinity }));
}

/** Parses a flat file's JSON. */
export function parseFlat(bytes: Uint8Array): Record<string, any> {
  return JSON.parse(decoder.decode(bytes));
}

/** Runs `run` in a new temporary folder, removed afterwards whatever happens. */
export async function inTempDir(
  run: (dir: string) => Promise<void>,
  prefix = "taskpack-test-",
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Every temporary folder or file the tests of this module made through `tempDir`/`tempFile`;
 * whatever a test did not remove itself is removed when the module's tests end.
 */
const madeTemporaries = new Set<string>();
globalThis.addEventListener("unload", () => {
  for (const path of madeTemporaries) {
    try {
      Deno.removeSync(path, { recursive: true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
});

/** A new temporary folder, registered to be removed when this test module ends. */
export async function tempDir(options?: Deno.MakeTempOptions): Promise<string> {
  const path = await Deno.makeTempDir({ prefix: "taskpack-test-", ...options });
  madeTemporaries.add(path);
  return path;
}

/** A new temporary file, registered to be removed when this test module ends. */
export async function tempFile(options?: Deno.MakeTempOptions): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "taskpack-test-", ...options });
  madeTemporaries.add(path);
  return path;
}
