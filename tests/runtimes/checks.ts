// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The one check script of the runtime matrix (`deno task test:runtimes`). It runs unchanged on
 * Deno (from source), and from the built bundles on Node, Bun and Chromium: the caller passes
 * the library in (`tp`) and the fixtures as base64, and gets one JSON-ready result back.
 *
 * The result has two parts:
 * - `shared` must be identical on every runtime: ZIP entries (names, sizes, sha256), pack
 *   digests, the flat text, the reports, conversions both ways;
 * - `own` is this runtime's own `.taskpack` bytes (native DEFLATE differs between runtimes):
 *   it must be identical on a second run of the same runtime.
 *
 * Only web platform APIs are used here (`crypto.subtle`, `DecompressionStream`, `atob`), and
 * the ZIP entries are listed by a parser of its own, independent of the library's reader.
 * Native DEFLATE readers differ at the edges (Node 20 ignores bytes after the end of a stream,
 * Deno accepts a stream cut short, each words its errors its own way), so a few bags carry
 * fixed DEFLATE bytes with exactly those faults.
 *
 * @module
 */
import type * as Taskpack from "../../mod.ts";
import { forgeZip } from "../_zip_forge.ts";

/** The library, as the caller loaded it (source on Deno, a bundle elsewhere). */
export type TaskpackApi = typeof Taskpack;

/** A file handed to the checks. */
export interface CheckInput {
  /** Its name, relative to the folder it came from. */
  name: string;
  /** Its bytes, base64. */
  base64: string;
}

/** Everything the checks read. */
export interface CheckInputs {
  /** The incumbent's packs (`testdata/interop/reference-0.3.0/`). */
  fixtures: CheckInput[];
  /** A sample of the hostile corpus (`testdata/hostile/`), possibly empty. */
  hostile: CheckInput[];
  /** Signatures `ssh-keygen -Y sign` made at run time, one per key type (possibly none). */
  signatures?: CheckSignature[];
}

/** A pack signature made by OpenSSH, and the trust list that names its key. */
export interface CheckSignature {
  /** The key type it was made with (`ed25519`, `ecdsa`, `rsa`). */
  name: string;
  /** The pack digest signed. */
  digest: string;
  /** The armored signature. */
  signature: string;
  /** An `allowed_signers` line for its key. */
  allowedSigners: string;
}

/** One ZIP entry, as stored. */
export interface EntryDigest {
  name: string;
  size: number;
  sha256: string;
}

/** What the checks found: `shared` must match Deno's, `own` must match a second run. */
export interface CheckResult {
  shared: Record<string, unknown>;
  own: Record<string, unknown>;
}

/** The fixed time every built pack carries. */
export const PACKED_AT = "2026-12-02T16:46:10Z";
/** The fixed machine every built pack comes from. */
export const MACHINE = "runtime-matrix";

/**
 * Runs every check.
 *
 * @param tp The library.
 * @param inputs The fixtures.
 * @returns The result.
 */
export async function runChecks(tp: TaskpackApi, inputs: CheckInputs): Promise<CheckResult> {
  const shared: Record<string, unknown> = {};
  const own: Record<string, unknown> = {};

  const built: Record<string, unknown> = {};
  const ownBags: Record<string, unknown> = {};
  for (const [name, make] of Object.entries(PACKS)) {
    const { state, options, luggage } = make(tp);
    const outcome = await attempt(async () => {
      const prepared = await tp.preparePack(tp.buildPackObject(state, options), luggage);
      return await describePrepared(tp, prepared, ownBags, name);
    });
    built[name] = outcome;
  }
  shared.built = built;
  own.bags = ownBags;

  const fixtures: Record<string, unknown> = {};
  const ownFixtures: Record<string, unknown> = {};
  const byName = new Map(inputs.fixtures.map((f) => [f.name, decodeBase64(f.base64)]));
  for (const [name, bytes] of byName) {
    fixtures[name] = await attempt(async () => {
      const report = await tp.judge(bytes);
      const converted = await convertBothWays(tp, bytes, ownFixtures, name);
      const sibling = siblingOf(name);
      const siblingBytes = sibling === null ? undefined : byName.get(sibling);
      return {
        sha256: await sha256Hex(bytes),
        report,
        ...converted,
        // A conversion to the other encoding gives the incumbent's own file, byte for byte.
        ...(siblingBytes === undefined ? {} : {
          siblingReproduced: sibling!.endsWith(".json")
            ? converted.toFlat.sha256 === await sha256Hex(siblingBytes)
            : sameEntries(
              (converted.toBag as { entries: EntryDigest[] }).entries,
              await zipEntries(siblingBytes),
            ),
        }),
      };
    });
  }
  shared.fixtures = fixtures;
  own.fixtures = ownFixtures;

  const hostile: Record<string, unknown> = {};
  for (const file of inputs.hostile) {
    const bytes = decodeBase64(file.base64);
    hostile[file.name] = {
      sha256: await sha256Hex(bytes),
      report: await attempt(() => tp.judge(bytes)),
      land: await attempt(async () => {
        const landed = await tp.land(bytes);
        const prepared = await tp.preparePack(landed.object, landed.luggage);
        return { encoding: landed.encoding, repairs: landed.repairs, digest: prepared.digest };
      }),
    };
  }
  shared.hostile = hostile;
  shared.deflateEdges = await deflateEdges(tp);
  shared.smallEntriesBag = await smallEntriesBag(tp);
  shared.signatures = await signatureChecks(tp, inputs.signatures ?? []);
  return { shared, own };
}

/**
 * A bag whose every entry is at most 16 KiB: each is deflated by the core's own encoder (its
 * WebAssembly build where the runtime compiles it, its script where it does not, as on a
 * browser's main thread), so the archive is the same bytes on every runtime.
 */
async function smallEntriesBag(tp: TaskpackApi): Promise<Record<string, unknown>> {
  const files = [
    tp.luggageFromBytes("brief.md", "# Release brief\n\nShip it tonight.\n".repeat(200)),
    tp.luggageFromBytes("logs/a.log", seededText(11, 120)),
    tp.luggageFromBytes("logs/b.log", seededText(12, 300)),
    tp.luggageFromBytes("blobs/small-random.bin", seededBytes(0xbeef, 3000)),
    tp.luggageFromBytes("blobs/zeros.bin", new Uint8Array(16_384)),
    tp.luggageFromBytes("名前/ノート.txt", "メモ: 日本語のテキスト\n".repeat(40)),
  ];
  const prepared = await tp.preparePack(tp.buildPackObject(sampleState(), SAMPLE_OPTIONS), files);
  const bag = await streamBytes(tp.encodeBag(prepared));
  return { sha256: await sha256Hex(bag), size: bag.length, methods: await zipMethods(bag) };
}

/**
 * OpenSSH's signatures verified on this runtime's WebCrypto (and refused over another digest),
 * and one made here with an in-memory Ed25519 key, verified back.
 */
async function signatureChecks(
  tp: TaskpackApi,
  signatures: readonly CheckSignature[],
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const other = "0".repeat(64);
  for (const input of signatures) {
    out[input.name] = {
      verified: await attempt(() =>
        tp.verifyPackSignature(input.digest, input.signature, {
          allowedSigners: input.allowedSigners,
        })
      ),
      otherDigest: await attempt(() => tp.verifyPackSignature(other, input.signature)),
    };
  }
  out.inMemory = await attempt(async () => {
    const keys = await crypto.subtle.generateKey("Ed25519", false, ["sign", "verify"]);
    const signature = await tp.signPackDigest(other, keys as CryptoKeyPair);
    const { status, keyType, hashAlgorithm } = await tp.verifyPackSignature(other, signature);
    const refused = await tp.verifyPackSignature("1".repeat(64), signature).then(
      () => "accepted",
      (error) => (error as { code?: string }).code,
    );
    return { status, keyType, hashAlgorithm, refused };
  });
  return out;
}

/** "hello" as raw DEFLATE: one final block with fixed Huffman codes, ended by its last byte. */
const HELLO_DEFLATED = [0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00];

/** Bags whose one luggage file is fixed DEFLATE bytes: whole, with a tail, cut short, not DEFLATE. */
async function deflateEdges(tp: TaskpackApi): Promise<Record<string, unknown>> {
  const pack = tp.buildPackObject({ id: "TP-2222-3333", version: 1 }, {
    packedAt: PACKED_AT,
    machine: MACHINE,
  });
  const hello = new TextEncoder().encode("hello");
  const prepared = await tp.preparePack(pack, [tp.luggageFromBytes("hello.txt", hello)]);
  const variants: Record<string, number[]> = {
    whole: HELLO_DEFLATED,
    "bytes after the end": [...HELLO_DEFLATED, 1, 2, 3],
    "cut short": HELLO_DEFLATED.slice(0, -1),
    "cut in half": HELLO_DEFLATED.slice(0, 3),
    "not deflate": [0xff, 0xff, 0xff, 0xff],
  };
  const out: Record<string, unknown> = {};
  for (const [name, body] of Object.entries(variants)) {
    const zip = forgeZip([
      { name: "bagit.txt", data: prepared.tags.bagit },
      { name: "bag-info.txt", data: prepared.tags.bagInfo },
      { name: "manifest-sha256.txt", data: prepared.tags.manifest },
      { name: "tagmanifest-sha256.txt", data: prepared.tags.tagManifest },
      { name: "data/passport.json", data: prepared.passportJson },
      { name: "data/files/hello.txt", method: 8, data: new Uint8Array(body), content: hello },
    ]);
    out[name] = {
      report: await attempt(() => tp.judge(zip)),
      land: await attempt(async () => {
        const landed = await tp.land(zip);
        await tp.preparePack(landed.object, landed.luggage);
        return { encoding: landed.encoding, repairs: landed.repairs };
      }),
    };
  }
  return out;
}

/** Describes a prepared pack: both encodings, judged, converted back, encoded twice. */
async function describePrepared(
  tp: TaskpackApi,
  prepared: Taskpack.PreparedPack,
  ownBags: Record<string, unknown>,
  label: string,
): Promise<Record<string, unknown>> {
  const bag = await streamBytes(tp.encodeBag(prepared));
  const again = await streamBytes(tp.encodeBag(prepared));
  const flat = new TextEncoder().encode(
    await tp.encodeFlat(prepared, { maxAttachmentBytes: Infinity }),
  );
  const fromBag = await convert(tp, bag, "flat");
  const fromFlat = await convert(tp, flat, "bag");
  const entries = await zipEntries(bag);
  ownBags[label] = {
    sha256: await sha256Hex(bag),
    size: bag.length,
    methods: await zipMethods(bag),
    // Converting the flat form back gives this runtime's very bytes.
    flatToBagSha256: await sha256Hex(fromFlat.bytes),
  };
  return {
    digest: prepared.digest,
    repairs: prepared.repairs,
    entries,
    bagStableWithinRun: bytesEqual(bag, again),
    flat: { sha256: await sha256Hex(flat), size: flat.length },
    judgeBag: await tp.judge(bag),
    judgeFlat: await tp.judge(flat),
    bagToFlat: {
      digest: fromBag.digest,
      equalsFlat: bytesEqual(fromBag.bytes, flat),
    },
    flatToBag: {
      digest: fromFlat.digest,
      equalsBagEntries: sameEntries(await zipEntries(fromFlat.bytes), entries),
      equalsBagBytes: bytesEqual(fromFlat.bytes, bag),
    },
  };
}

/** Converts a file to both encodings, as `taskpack convert` does. */
async function convertBothWays(
  tp: TaskpackApi,
  bytes: Uint8Array,
  ownFixtures: Record<string, unknown>,
  label: string,
): Promise<{ toFlat: Record<string, unknown>; toBag: Record<string, unknown> }> {
  const toFlat = await convert(tp, bytes, "flat");
  const toBag = await convert(tp, bytes, "bag");
  ownFixtures[label] = { toBagSha256: await sha256Hex(toBag.bytes), size: toBag.bytes.length };
  return {
    toFlat: {
      digest: toFlat.digest,
      repairs: toFlat.repairs,
      sha256: await sha256Hex(toFlat.bytes),
    },
    toBag: {
      digest: toBag.digest,
      entries: await zipEntries(toBag.bytes),
      report: await tp.judge(toBag.bytes),
    },
  };
}

async function convert(
  tp: TaskpackApi,
  bytes: Uint8Array,
  to: "bag" | "flat",
): Promise<{ bytes: Uint8Array; digest: string; repairs: unknown[] }> {
  const landed = await tp.land(bytes);
  const prepared = await tp.preparePack(landed.object, landed.luggage);
  const out = to === "bag"
    ? await streamBytes(tp.encodeBag(prepared))
    : new TextEncoder().encode(await tp.encodeFlat(prepared, { maxAttachmentBytes: Infinity }));
  return { bytes: out, digest: prepared.digest, repairs: [...landed.repairs, ...prepared.repairs] };
}

function siblingOf(name: string): string | null {
  if (name.endsWith(".taskpack.json")) return name.slice(0, -".json".length);
  if (name.endsWith(".taskpack")) return `${name}.json`;
  return null;
}

/** Runs a step; a throw becomes data (the error's class, code and message), never a crash. */
async function attempt<T>(step: () => Promise<T>): Promise<T | { thrown: unknown }> {
  try {
    return await step();
  } catch (error) {
    const e = error as { name?: unknown; message?: unknown; rule?: unknown; code?: unknown };
    return {
      thrown: {
        name: e?.name ?? typeof error,
        ...(e?.rule === undefined ? {} : { rule: e.rule }),
        ...(e?.code === undefined ? {} : { code: e.code }),
        message: String(e?.message ?? error),
      },
    };
  }
}

// --- the fixed inputs ----------------------------------------------------------------------

interface PackInput {
  state: Taskpack.PassportState;
  options: Taskpack.BuildPackOptions;
  luggage: Taskpack.Luggage[];
}

function sampleState(): Taskpack.PassportState {
  return {
    id: "TP-9CB7-J5MK",
    version: 3,
    title: "release plugin — Überprüfung 検証",
    goal: "ship the plugin tonight",
    current_state: "Build is green on CI; cover image missing.\nSecond line of state.",
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

const SAMPLE_OPTIONS: Taskpack.BuildPackOptions = {
  packedAt: PACKED_AT,
  machine: MACHINE,
  actor: "alice",
  harness: "runtime-matrix",
  note: "please finish the release",
  asks: [{ what: "cover image prompt", accept: "one prompt that covers 750x400" }],
  landingChecks: [{ check: "this machine can render images", how: "run the image tool once" }],
};

/** A small PRNG (mulberry32) so the random-looking luggage is the same everywhere. */
function seededBytes(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  return out;
}

/** Compressible text: numbered log lines with words picked by the seeded generator. */
function seededText(seed: number, lines: number): string {
  const words = ["build", "module", "compiled", "cache", "warm", "step", "linked", "ok", "tests"];
  const picks = seededBytes(seed, lines * 4);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const w = (k: number) => words[picks[i * 4 + k]! % words.length];
    out.push(`${String(i).padStart(6, "0")} ${w(0)} ${w(1)} ${w(2)} ${picks[i * 4 + 3]} items`);
  }
  return out.join("\n") + "\n";
}

function luggage(tp: TaskpackApi): Taskpack.Luggage[] {
  return [
    tp.luggageFromBytes("brief.md", "# Release brief\n\nShip it tonight.\n".repeat(200)),
    tp.luggageFromBytes("logs/build.log", seededText(7, 6000)), // > 64 KiB, compressible
    tp.luggageFromBytes("blobs/random.bin", seededBytes(0x5eed, 150_000)), // > 64 KiB, random
    tp.luggageFromBytes("blobs/small-random.bin", seededBytes(0xbeef, 3000)),
    tp.luggageFromBytes("blobs/zeros.bin", new Uint8Array(70_000)),
    tp.luggageFromBytes("empty.txt", new Uint8Array(0)),
    tp.luggageFromBytes("名前/ノート.txt", "メモ: 日本語のテキスト\n"),
  ];
}

/** The packs built from fixed inputs. */
const PACKS: Record<string, (tp: TaskpackApi) => PackInput> = {
  minimal: () => ({
    state: { id: "TP-2222-3333", version: 1 },
    options: { packedAt: PACKED_AT, machine: MACHINE },
    luggage: [],
  }),
  sample: () => ({ state: sampleState(), options: SAMPLE_OPTIONS, luggage: [] }),
  luggage: (tp) => ({ state: sampleState(), options: SAMPLE_OPTIONS, luggage: luggage(tp) }),
  receipt: () => ({
    state: {
      ...sampleState(),
      id: "TP-4444-5555",
      version: 1,
      lineage: { root_id: "TP-9CB7-J5MK", from_version: 3, chain: ["TP-9CB7-J5MK@3"] },
    },
    options: { ...SAMPLE_OPTIONS, kind: "receipt", asks: [], landingChecks: [] },
    luggage: [],
  }),
};

// --- bytes, hashes and a small ZIP lister --------------------------------------------------

async function streamBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

function sameEntries(a: EntryDigest[], b: EntryDigest[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

interface CentralEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** Lists a ZIP's entries from its central directory (no ZIP64: the packs here are small). */
function centralDirectory(zip: Uint8Array): CentralEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new RangeError("Cannot list the ZIP: no end of central directory");
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const entries: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (view.getUint32(at, true) !== 0x02014b50) {
      throw new RangeError(`Cannot list the ZIP: no central header at ${at}`);
    }
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const entry = {
      name: new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    };
    if (entry.compressedSize === 0xffffffff || entry.localOffset === 0xffffffff) {
      throw new RangeError("Cannot list the ZIP: ZIP64 is beyond this small lister");
    }
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Every entry's name, size and sha256 of its uncompressed bytes, in archive order.
 *
 * @param zip A `.taskpack`.
 * @returns The entries.
 */
export async function zipEntries(zip: Uint8Array): Promise<EntryDigest[]> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const out: EntryDigest[] = [];
  for (const entry of centralDirectory(zip)) {
    const local = entry.localOffset;
    if (view.getUint32(local, true) !== 0x04034b50) {
      throw new RangeError(`Cannot list the ZIP: no local header for ${entry.name}`);
    }
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const stored = zip.subarray(start, start + entry.compressedSize);
    let data: Uint8Array;
    if (entry.method === 0) data = stored;
    else if (entry.method === 8) {
      const inflated = new Blob([stored as Uint8Array<ArrayBuffer>]).stream()
        .pipeThrough(new DecompressionStream("deflate-raw"));
      data = new Uint8Array(await new Response(inflated).arrayBuffer());
    } else throw new RangeError(`Cannot list the ZIP: method ${entry.method} for ${entry.name}`);
    if (data.length !== entry.size) {
      throw new RangeError(`Cannot list the ZIP: ${entry.name} is not ${entry.size} bytes`);
    }
    out.push({ name: entry.name, size: data.length, sha256: await sha256Hex(data) });
  }
  return out;
}

/** How each entry is stored (`name:stored` / `name:deflated`): the runtime's own choice. */
function zipMethods(zip: Uint8Array): Promise<string[]> {
  return Promise.resolve(
    centralDirectory(zip).map((e) =>
      `${e.name}:${e.method === 0 ? "stored" : "deflated"}:${e.compressedSize}`
    ),
  );
}
