// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The one decoder that landing (lenient) and judging (strict) share. It detects the encoding
 * from the bytes, reads the container as hostile input, and returns the pack exactly as
 * written, with every deviation it saw listed rather than fixed. It never repairs: what to do
 * about a deviation is the caller's decision (`land` repairs what can be repaired and refuses
 * the rest; `judge` reports each one against its check).
 *
 * @module
 */
import {
  type ByteSource,
  bytesSource,
  chunkedStream,
  decodeBase64Strict,
  decodeUtf8Strict,
  type Digests,
  DigestTable,
  isPlainObject,
  isValidUtf8,
  type Luggage,
  luggageChunks,
  parseJsonStrict,
  portableDigests,
  type Progress,
  progressCounter,
  type ReadErrorCode,
  sha256Hex,
  TaskPackReadError,
} from "../bytes/mod.ts";
import {
  BAGIT_TXT,
  eachManifestRow,
  LUGGAGE_PREFIX,
  parseManifest,
  parsePayloadOxum,
  PASSPORT_PATH,
  TAG_FILES,
} from "./bag.ts";
import { type CheckId, FLAT_VERSION, PACK_SPEC } from "./model.ts";
import { luggageNameProblem, luggageSetProblem } from "./names.ts";
import { fieldTypeProblem } from "./shape.ts";
import {
  DEFAULT_ZIP_LIMITS,
  type Inflater,
  openZip,
  type ZipArchive,
  type ZipEntry,
  type ZipLimits,
} from "../zip/mod.ts";
import {
  encodingNote,
  findCredential,
  isInstructionKey,
  redactCredentials,
  scanBytes,
  type ScannerFactory,
  type ScanResult,
  TextScanner,
} from "../scan/mod.ts";

/** Limits on what a reader accepts; each refusal names the limit it hit. */
export interface ReadLimits extends ZipLimits {
  /** Largest file, in bytes: checked first, before anything else is read. */
  maxPackBytes: number;
  /** Largest `data/passport.json` (or flat file) read into memory. */
  maxPassportBytes: number;
  /** Largest tag file read into memory. */
  maxTagFileBytes: number;
  /** Deepest JSON nesting accepted. */
  maxJsonDepth: number;
  /** Longest JSON object key, in UTF-16 code units. */
  maxJsonKeyLength: number;
}

/** The default limits: generous for real work, small enough that a hostile file cannot hurt. */
export const DEFAULT_READ_LIMITS: ReadLimits = {
  ...DEFAULT_ZIP_LIMITS,
  maxPackBytes: 64 * 1024 ** 3,
  maxPassportBytes: 64 * 1024 * 1024,
  maxTagFileBytes: 64 * 1024 * 1024,
  maxJsonDepth: 256,
  maxJsonKeyLength: 1024,
};

/** The deepest JSON nesting a reader may be allowed: past it, JSON.stringify overflows. */
const MAX_JSON_DEPTH = 1000;
/** Luggage up to this size that its source reads at once is audited whole (as `luggageChunks`). */
const WHOLE_AUDIT = 1 << 20;

/** Options for {@linkcode decodePack}. */
export interface ReadOptions {
  /** Hash implementations (default: portable). */
  digests?: Digests;
  /** A one-shot decoder for small deflated entries (default: none; all entries stream). */
  inflater?: Inflater;
  /** Overrides for {@linkcode DEFAULT_READ_LIMITS}. */
  limits?: Partial<ReadLimits>;
}

export type { Progress } from "../bytes/mod.ts";

/** Something the file does that a conformant writer would not; `fatal` ones cannot be repaired. */
export interface Deviation {
  /** The check it fails. */
  check: CheckId;
  /** Entry name or field path. */
  where: string;
  /** What is wrong. */
  detail: string;
  /** True when landing must refuse; false when a lenient reader can repair it. */
  fatal: boolean;
  /** For fatal deviations: the code landing refuses with. */
  code?: ReadErrorCode;
}

/** A luggage file as read: its declared digest, and a stream that verifies size and CRC. */
export interface ReadLuggage extends Luggage {
  /** The digest its manifest (or flat attachment) declares; null when none is declared. */
  readonly declaredSha256: string | null;
}

/** A pack as written, with what was seen along the way. */
export interface DecodedPack {
  /** `bag`, `flat`, or the retired `tpx`. */
  readonly encoding: "bag" | "flat" | "tpx";
  /** The pack object as written (retired `.tpx` files mapped onto the current model). */
  readonly object: unknown;
  /** Bag: `data/passport.json` as written (after a BOM, if any). */
  readonly passportBytes: Uint8Array | null;
  /** Flat: the file's text as written (after a BOM, if any). */
  readonly text: string | null;
  /** Bag: the tag files as written. */
  readonly tagFiles: Readonly<Record<string, Uint8Array>> | null;
  /** The luggage, in manifest order. */
  readonly luggage: readonly ReadLuggage[];
  /** Everything a conformant writer would not have done. */
  readonly deviations: readonly Deviation[];
  /** Whether a byte order mark was skipped (it cannot survive a round trip, C9). */
  readonly bom: boolean;
  /**
   * Bag: where the bytes the ZIP carries besides the pack and its luggage (every tag file, the
   * archive comment, entry comments, extra fields) look like a credential (C7), such as
   * `line 7 of bag-info.txt` or `the comment of data/files/x`; never the secret itself.
   * Empty for a flat file.
   */
  readonly zipCredentials: readonly string[];
}

/**
 * Which encoding bytes are in, from their first bytes: a ZIP (`PK`), JSON (`{`, after an
 * optional BOM and whitespace), or neither.
 *
 * @param head The first bytes of the file (16 are plenty).
 * @returns `bag`, `json` or `unknown`.
 *
 * @example Usage
 * ```ts
 * import { detectEncoding } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(detectEncoding(new Uint8Array([0x50, 0x4b, 3, 4])), "bag");
 * assertEquals(detectEncoding(new TextEncoder().encode('\ufeff {"taskpack":"0.1"}')), "json");
 * assertEquals(detectEncoding(new TextEncoder().encode("hello")), "unknown");
 * ```
 */
export function detectEncoding(head: Uint8Array): "bag" | "json" | "unknown" {
  if (head[0] === 0x50 && head[1] === 0x4b) return "bag";
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (
    i < head.length &&
    (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)
  ) i++;
  return head[i] === 0x7b ? "json" : "unknown";
}

/**
 * Reads a pack as written, in either encoding (or a retired `.tpx/0.1` file).
 *
 * Luggage is not read here: each {@linkcode ReadLuggage} opens a stream that verifies its
 * size and CRC as it goes, so a multi-GiB bag is read in bounded memory.
 *
 * @param input The file.
 * @param options Digests and limits.
 * @returns The decoded pack.
 * @throws {TaskPackReadError} When the bytes cannot be read as a pack at all.
 *
 * @example Usage
 * ```ts
 * import { decodePack, TaskPackReadError } from "@taskpack/cli";
 * import { assertRejects } from "@std/assert";
 *
 * const text = JSON.stringify({ taskpack: "9.9", encoding: "flat", passport: {} });
 * await assertRejects(
 *   () => decodePack(new TextEncoder().encode(text)),
 *   TaskPackReadError,
 *   "not a TaskPack version",
 * );
 * ```
 */
export async function decodePack(
  input: ByteSource | Uint8Array,
  options: ReadOptions = {},
): Promise<DecodedPack> {
  const source = input instanceof Uint8Array ? bytesSource(input) : input;
  const limits = { ...DEFAULT_READ_LIMITS, ...options.limits };
  const digests = options.digests ?? portableDigests;
  if (!(limits.maxJsonDepth <= MAX_JSON_DEPTH)) {
    throw new RangeError(
      `Cannot read taskpack: maxJsonDepth cannot be raised past ${MAX_JSON_DEPTH} (deeper values overflow the stack of JSON.stringify)`,
    );
  }
  if (source.size > limits.maxPackBytes) {
    throw new TaskPackReadError(
      "limit",
      "",
      `the file is ${source.size} bytes, over the limit of ${limits.maxPackBytes} (raise maxPackBytes)`,
    );
  }
  const encoding = detectEncoding(await source.read(0, Math.min(source.size, 64)));
  if (encoding === "bag") return await decodeBag(source, limits, digests, options.inflater);
  if (encoding === "json") return await decodeJson(source, limits, digests);
  throw new TaskPackReadError(
    "not-a-pack",
    "",
    "the file is neither a ZIP (.taskpack) nor JSON (.taskpack.json)",
  );
}

async function decodeBag(
  source: ByteSource,
  limits: ReadLimits,
  digests: Digests,
  inflater?: Inflater,
): Promise<DecodedPack> {
  const zip = await openZip(source, {
    limits,
    digests,
    ...(inflater ? { inflater } : {}),
  });
  const deviations: Deviation[] = [];
  const fatal = (where: string, detail: string, code: ReadErrorCode = "bag-structure") =>
    deviations.push({ check: "C1", where, detail, fatal: true, code });

  // A file by name, through the index the reader made of the names (a directory is no file).
  const fileNamed = (name: string): ZipEntry | undefined => {
    const entry = zip.find(name);
    return entry?.isDirectory === false ? entry : undefined;
  };
  const luggageEntries: ZipEntry[] = [];
  for (const entry of zip.entries) {
    if (entry.isDirectory) continue;
    if (TAG_FILES.includes(entry.name) || entry.name === PASSPORT_PATH) continue;
    if (entry.name.startsWith(LUGGAGE_PREFIX)) {
      const problem = luggageNameProblem(entry.name.slice(LUGGAGE_PREFIX.length));
      if (problem) fatal(entry.name, `unsafe luggage name: ${problem}`, "zip-name");
      else luggageEntries.push(entry);
    } else {
      fatal(entry.name, "a file the TaskPack layout does not allow (only tag files and data/ are)");
    }
  }
  // The luggage names need no set check of their own: openZip refused two equal names, and a
  // name inside a file, among all the archive's names (zipNameClash).

  // Sizes come from the central directory: refuse before reading anything.
  for (
    const [name, limit, key] of [
      [PASSPORT_PATH, limits.maxPassportBytes, "maxPassportBytes"],
      ...TAG_FILES.map((tag) => [tag, limits.maxTagFileBytes, "maxTagFileBytes"] as const),
    ] as const
  ) {
    const size = fileNamed(name)?.size ?? 0;
    if (size > limit) {
      throw new TaskPackReadError(
        "limit",
        name,
        `the entry is ${size} bytes, over the limit of ${limit} (raise ${key})`,
      );
    }
  }

  const tagFiles: Record<string, Uint8Array> = {};
  for (const name of TAG_FILES) {
    const entry = fileNamed(name);
    if (entry) tagFiles[name] = await zip.read(entry, limits.maxTagFileBytes);
    else fatal(name, "the tag file is missing");
  }
  // The tag files travel with the pack: a secret on an extra line of one is still carried.
  const tagCredentials: string[] = [];
  for (const name of TAG_FILES) {
    const bytes = tagFiles[name];
    const finding = bytes ? scanBytes(bytes).finding : null;
    if (finding?.rule === "credential") {
      tagCredentials.push(
        `line ${finding.line} of ${name}${encodingNote(finding)}`,
      );
    }
  }
  const tagText = (name: string): string | null => {
    const bytes = tagFiles[name];
    if (!bytes) return null;
    try {
      return decodeUtf8Strict(bytes);
    } catch {
      fatal(name, "the tag file is not valid UTF-8", "invalid-utf8");
      return null;
    }
  };

  const bagit = tagText("bagit.txt");
  if (bagit !== null && bagit !== BAGIT_TXT) {
    const lines = bagit.split("\n");
    if (bagit.startsWith("\ufeff")) fatal("bagit.txt", "bagit.txt starts with a byte order mark");
    else if (!lines.includes("BagIt-Version: 1.0")) {
      fatal("bagit.txt", "bagit.txt does not declare BagIt-Version 1.0");
    } else if (!lines.includes("Tag-File-Character-Encoding: UTF-8")) {
      fatal("bagit.txt", "bagit.txt does not declare UTF-8 tag files");
    }
  }

  const passportEntry = fileNamed(PASSPORT_PATH);
  if (!passportEntry) {
    throw new TaskPackReadError(
      "bag-structure",
      PASSPORT_PATH,
      "the bag has no data/passport.json",
    );
  }

  // Payload manifest: every data/ file listed once, every listed file present. Its bytes are
  // checked as UTF-8 in pieces and read line by line (never one string, nor a list of lines),
  // and the digests are kept by entry, as bytes.
  const manifestBytes = tagFiles["manifest-sha256.txt"];
  let declared = new DigestTable(zip.entries.length);
  if (manifestBytes !== undefined && !isValidUtf8(manifestBytes)) {
    fatal("manifest-sha256.txt", "the tag file is not valid UTF-8", "invalid-utf8");
  } else if (manifestBytes !== undefined) {
    /** Listed paths outside data/ or missing from the bag, in the manifest's order. */
    const wrong: string[] = [];
    const absent = new Set<string>();
    const error = eachManifestRow(manifestBytes, (digestAt, path) => {
      const entry = fileNamed(path);
      if (entry === undefined) {
        if (absent.has(path)) return "lists a path a second time";
        absent.add(path);
      } else {
        if (declared.has(entry.index)) return "lists a path a second time";
        declared.setFromAscii(entry.index, manifestBytes, digestAt);
      }
      if (entry === undefined || !path.startsWith("data/")) wrong.push(path);
    });
    if (error !== null) {
      // A malformed manifest declares nothing.
      fatal("manifest-sha256.txt", `the manifest is malformed: ${error}`, "bag-manifest");
      declared = new DigestTable(1);
    } else {
      for (const path of wrong) {
        if (path.startsWith("data/")) {
          fatal(path, "listed in manifest-sha256.txt but missing from the bag", "bag-manifest");
        } else {
          fatal("manifest-sha256.txt", `it lists "${path}", outside data/`, "bag-manifest");
        }
      }
    }
    for (const entry of zip.entries) {
      if (!entry.isDirectory && entry.name.startsWith("data/") && !declared.has(entry.index)) {
        fatal(
          entry.name,
          "the file is in the bag but not in manifest-sha256.txt",
          "bag-unlisted-file",
        );
      }
    }
  }

  // Tag manifest: every tag file vouched for, and matching.
  const tagManifestText = tagText("tagmanifest-sha256.txt");
  if (tagManifestText !== null) {
    const parsed = parseManifest(tagManifestText);
    if (parsed.error) {
      fatal(
        "tagmanifest-sha256.txt",
        `the tag manifest is malformed: ${parsed.error}`,
        "bag-manifest",
      );
    }
    const listed = new Set(parsed.lines.map((line) => line.path));
    for (const line of parsed.lines) {
      const bytes = tagFiles[line.path];
      if (!TAG_FILES.slice(0, 3).includes(line.path)) {
        fatal(
          "tagmanifest-sha256.txt",
          `it lists "${line.path}", which is not a tag file`,
          "bag-manifest",
        );
      } else if (bytes && sha256Hex(digests, bytes) !== line.sha256) {
        fatal(
          line.path,
          "the tag file does not match its tagmanifest-sha256.txt digest",
          "bag-digest",
        );
      }
    }
    for (const name of TAG_FILES.slice(0, 3)) {
      if (tagFiles[name] && !listed.has(name)) {
        fatal(name, "the tag file is not listed in tagmanifest-sha256.txt", "bag-unlisted-file");
      }
    }
  }

  // Payload-Oxum: the declared totals match what the bag holds.
  const bagInfo = tagText("bag-info.txt");
  if (bagInfo !== null) {
    const oxum = parsePayloadOxum(bagInfo);
    const payload = zip.entries.filter((e) => !e.isDirectory && e.name.startsWith("data/"));
    const octets = payload.reduce((sum, e) => sum + e.size, 0);
    if (!oxum) fatal("bag-info.txt", "bag-info.txt has no single well-formed Payload-Oxum");
    else if (oxum.octets !== octets || oxum.count !== payload.length) {
      fatal(
        "bag-info.txt",
        `Payload-Oxum says ${oxum.octets}.${oxum.count}, the bag holds ${octets}.${payload.length}`,
      );
    }
  }

  const rawPassport = await zip.read(passportEntry, limits.maxPassportBytes);
  let passportBytes = rawPassport;
  if (
    declared.has(passportEntry.index) &&
    !declared.matches(passportEntry.index, sha256Hex(digests, passportBytes))
  ) {
    fatal(PASSPORT_PATH, "data/passport.json does not match its manifest digest", "bag-digest");
  }
  if (passportBytes[0] === 0xef && passportBytes[1] === 0xbb && passportBytes[2] === 0xbf) {
    deviations.push({
      check: "C0",
      where: PASSPORT_PATH,
      detail: "a byte order mark was skipped",
      fatal: false,
    });
    passportBytes = passportBytes.subarray(3);
  }
  const object = parseObject(passportBytes, PASSPORT_PATH, limits);
  checkSpec(object, PASSPORT_PATH);

  const bag = { zip, declared };
  const luggage = luggageEntries.map((entry) => new EntryLuggage(bag, entry));
  const bom = passportBytes !== rawPassport;
  return {
    encoding: "bag",
    object,
    passportBytes,
    text: null,
    tagFiles,
    luggage,
    deviations,
    bom,
    zipCredentials: [...tagCredentials, ...zipCredentials(zip)],
  };
}

/**
 * A luggage file in a bag: one small object of two references, its name, size and declared
 * digest read from its entry and the bag when asked (a bag of 70,000 files would otherwise hold
 * a closure scope, a name and a digest string more for each).
 */
class EntryLuggage implements ReadLuggage {
  readonly #bag: { readonly zip: ZipArchive; readonly declared: DigestTable };
  readonly #entry: ZipEntry;

  constructor(bag: { readonly zip: ZipArchive; readonly declared: DigestTable }, entry: ZipEntry) {
    this.#bag = bag;
    this.#entry = entry;
  }

  get name(): string {
    return this.#entry.name.slice(LUGGAGE_PREFIX.length);
  }

  get size(): number {
    return this.#entry.size;
  }

  get declaredSha256(): string | null {
    return this.#bag.declared.hex(this.#entry.index);
  }

  open(): ReadableStream<Uint8Array> {
    return this.#bag.zip.open(this.#entry);
  }

  read(): Promise<Uint8Array> {
    return this.#bag.zip.read(this.#entry, this.#entry.size);
  }
}

// Lossy on purpose: a token is ASCII, whatever binary bytes an extra field holds around it.
const lossy = new TextDecoder();

/**
 * Where the archive comment, an entry comment, an extra field record (central or local,
 * known or not) or a directory entry's name looks like a credential: these bytes travel with
 * the pack as much as its luggage does.
 */
function zipCredentials(zip: ZipArchive): string[] {
  const found: string[] = [];
  const scan = (bytes: Uint8Array, where: string) => {
    const finding = bytes.length > 0 ? findCredential(lossy.decode(bytes)) : null;
    if (finding) found.push(where + encodingNote(finding));
  };
  scan(zip.comment, "the archive comment");
  for (const entry of zip.entries) {
    // A directory's name travels too, though no luggage list holds it.
    if (entry.isDirectory) {
      const finding = findCredential(entry.name);
      if (finding) {
        found.push(`the name of directory entry #${entry.index}${encodingNote(finding)}`);
      }
    }
    const { comment, extraFields } = zip.metadata(entry);
    if (comment.length === 0 && extraFields.length === 0) continue;
    // A name that is itself a secret is not repeated (C7 reports it by position).
    const name = findCredential(entry.name) === null ? entry.name : `entry #${entry.index}`;
    scan(comment, `the comment of ${name}`);
    for (const field of extraFields) {
      const id = field.id.toString(16).toUpperCase().padStart(4, "0");
      scan(field.bytes, `${field.local ? "local " : ""}extra field 0x${id} of ${name}`);
    }
  }
  return found;
}

async function decodeJson(
  source: ByteSource,
  limits: ReadLimits,
  digests: Digests,
): Promise<DecodedPack> {
  if (source.size > limits.maxPassportBytes) {
    throw new TaskPackReadError(
      "limit",
      "",
      `the JSON file is ${source.size} bytes, over the limit of ${limits.maxPassportBytes} (raise maxPassportBytes)`,
    );
  }
  const fileBytes = await source.read(0, source.size);
  let bytes = fileBytes;
  const deviations: Deviation[] = [];
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    deviations.push({
      check: "C0",
      where: "(file)",
      detail: "a byte order mark was skipped",
      fatal: false,
    });
    bytes = bytes.subarray(3);
  }
  const text = decodeText(bytes, "(file)");
  // The wrapper is one level more than the pack object it carries: the limit is the pack
  // object's, as for a bag's data/passport.json, so a bag that reads converts to a flat file
  // that reads (C9 at the limit).
  let raw: unknown;
  try {
    raw = parseJsonStrict(text, {
      maxDepth: limits.maxJsonDepth + 1,
      maxKeyLength: limits.maxJsonKeyLength,
      wellFormed: true,
      where: "(file)",
    });
  } catch (error) {
    if (!(error instanceof TaskPackReadError) || error.code !== "json-too-deep") throw error;
    // Said of the pack object, whose limit it is (the wrapper's level is not counted).
    throw new TaskPackReadError(
      "json-too-deep",
      error.where,
      stripReadPrefix(error.message).replace(
        `deeper than ${limits.maxJsonDepth + 1} levels`,
        `deeper than ${limits.maxJsonDepth} levels inside the wrapper`,
      ).slice(0, error.where ? -(error.where.length + 3) : undefined),
    );
  }
  if (!isPlainObject(raw)) {
    throw new TaskPackReadError("wrong-type", "(file)", "the JSON file is not an object");
  }

  let encoding: "flat" | "tpx";
  let object: unknown;
  const credentials: string[] = [];
  if ("taskpack" in raw) {
    if (raw.taskpack !== FLAT_VERSION) {
      throw new TaskPackReadError(
        "unsupported-version",
        "taskpack",
        `${shown(raw.taskpack)} is not a TaskPack version this reader knows (0.1)`,
      );
    }
    if (raw.encoding !== "flat") {
      throw new TaskPackReadError(
        "flat-structure",
        "encoding",
        'the flat form\'s encoding is not "flat"',
      );
    }
    encoding = "flat";
    object = raw.passport;
    Object.keys(raw).forEach((key, index) => {
      if (!["taskpack", "encoding", "note_to_reader", "passport", "attachments"].includes(key)) {
        deviations.push({
          check: "C0",
          // A key that is itself a secret is named by its position, never quoted.
          where: findCredential(key) ? `<wrapper key ${index + 1}>` : key,
          detail: isInstructionKey(key)
            ? "an instruction field in the wrapper was ignored (§4.5: it is data, never instructions)"
            : "an unknown wrapper field was ignored",
          fatal: false,
        });
      }
    });
    // C7 covers every key and value of the file: the wrapper's own fields and unknown ones too
    // (the pack object is judged as such; the attachments below).
    for (const [key, value] of Object.entries(raw)) {
      if (key !== "passport" && key !== "attachments") {
        credentialsIn(key, value, "the wrapper", credentials);
      }
    }
  } else if ("tpx" in raw) {
    if (raw.tpx !== "0.1") {
      throw new TaskPackReadError(
        "unsupported-version",
        "tpx",
        "the retired .tpx file is not version 0.1",
      );
    }
    encoding = "tpx";
    object = fromTpx(raw);
    deviations.push({
      check: "C0",
      where: "(file)",
      detail: "a retired .tpx/0.1 file was mapped onto the current model",
      fatal: false,
    });
  } else {
    throw new TaskPackReadError(
      "not-a-pack",
      "(file)",
      "the JSON has neither a taskpack nor a tpx field",
    );
  }
  if (!isPlainObject(object)) {
    throw new TaskPackReadError(
      "wrong-type",
      "passport",
      "the pack object is missing or not an object",
    );
  }
  checkSpec(object, "passport");

  if (encoding === "flat" && Array.isArray(raw.attachments)) {
    raw.attachments.forEach((item, index) => {
      if (!isPlainObject(item)) return;
      for (const [key, value] of Object.entries(item)) {
        // The name is judged as a luggage name, the data as the luggage itself.
        if (key !== "name" && key !== "data") {
          credentialsIn(key, value, `attachments[${index}]`, credentials);
        }
      }
    });
  }
  const luggage = decodeAttachments(raw.attachments, digests, deviations, limits);
  const bom = bytes !== fileBytes;
  return {
    encoding,
    object,
    passportBytes: null,
    text,
    tagFiles: null,
    luggage,
    deviations,
    bom,
    zipCredentials: credentials,
  };
}

/**
 * Adds where a field of the file outside the pack object (its key, or any key or string in its
 * value) looks like a credential: `<where>: field <n>` by position, never by its text.
 */
function credentialsIn(key: string, value: unknown, where: string, found: string[]): void {
  const label = findCredential(key) ? "a field" : `the field ${JSON.stringify(key)}`;
  const stack: unknown[] = [key, value];
  while (stack.length) {
    const next = stack.pop();
    if (typeof next === "string") {
      const finding = findCredential(next);
      if (finding) {
        found.push(`${label} of ${where}${encodingNote(finding)}`);
        return;
      }
    } else if (Array.isArray(next)) stack.push(...next);
    else if (isPlainObject(next)) {
      for (const [k, v] of Object.entries(next)) stack.push(k, v);
    }
  }
}

function decodeAttachments(
  value: unknown,
  digests: Digests,
  deviations: Deviation[],
  limits: ReadLimits,
): ReadLuggage[] {
  if (value === undefined) {
    deviations.push({
      check: "C0",
      where: "attachments",
      detail: "the attachments list is missing",
      fatal: false,
    });
    return [];
  }
  if (!Array.isArray(value)) {
    throw new TaskPackReadError("flat-structure", "attachments", "attachments is not a list");
  }
  // One limit for both encodings: a bag's entries, a flat file's attachments (before any is
  // decoded).
  if (value.length > limits.maxEntries) {
    throw new TaskPackReadError(
      "limit",
      "attachments",
      `attachment count ${value.length} is over the limit of ${limits.maxEntries} (raise maxEntries)`,
    );
  }
  const out: ReadLuggage[] = [];
  value.forEach((item, index) => {
    const where = `attachments[${index}]`;
    if (!isPlainObject(item)) {
      throw new TaskPackReadError("flat-attachment", where, "the attachment is not an object");
    }
    const { name, encoding, data, sha256, bytes } = item;
    if (typeof name !== "string") {
      throw new TaskPackReadError("flat-attachment", where, "the attachment has no name");
    }
    const problem = luggageNameProblem(name);
    if (problem) {
      throw new TaskPackReadError("flat-attachment", where, `unsafe attachment name: ${problem}`);
    }
    if (typeof data !== "string") {
      throw new TaskPackReadError("flat-attachment", where, "the attachment has no data string");
    }
    let content: Uint8Array;
    if (encoding === "utf8") content = new TextEncoder().encode(data);
    else if (encoding === "base64") {
      try {
        content = decodeBase64Strict(data);
      } catch {
        throw new TaskPackReadError(
          "flat-attachment",
          where,
          "the attachment's base64 is not canonical",
        );
      }
    } else {throw new TaskPackReadError(
        "flat-attachment",
        where,
        'the attachment\'s encoding is not "utf8" or "base64"',
      );}
    const actual = sha256Hex(digests, content);
    if (sha256 === undefined) {
      deviations.push({
        check: "C0",
        where,
        detail: "the attachment declares no sha256 (nobody vouched for it)",
        fatal: false,
      });
    } else if (sha256 !== actual) {
      throw new TaskPackReadError(
        "integrity",
        where,
        "the attachment does not match its declared sha256",
      );
    }
    if (bytes === undefined) {
      deviations.push({
        check: "C0",
        where,
        detail: "the attachment declares no byte count",
        fatal: false,
      });
    } else if (bytes !== content.length) {
      throw new TaskPackReadError(
        "flat-attachment",
        where,
        `the attachment declares ${shown(bytes)} bytes but holds ${content.length}`,
      );
    }
    const held = content;
    out.push({
      name,
      size: held.length,
      declaredSha256: typeof sha256 === "string" ? sha256 : null,
      open: () => chunkedStream(held),
      read: () => Promise.resolve(held),
    });
  });
  const clash = luggageSetProblem(out.map((file) => file.name));
  if (clash) {
    throw new TaskPackReadError("flat-attachment", `attachment "${clash.name}"`, clash.problem);
  }
  return out;
}

/** Maps a retired `.tpx/0.1` file onto the current pack object (read, never written). */
function fromTpx(raw: Record<string, unknown>): Record<string, unknown> {
  const state = isPlainObject(raw.passport) ? raw.passport : {};
  const id = typeof state.id === "string" ? state.id : "";
  const peer = isPlainObject(raw.peer) ? raw.peer : {};
  const facts = Array.isArray(raw.facts) && raw.facts.length ? raw.facts : undefined;
  return {
    spec: PACK_SPEC,
    kind: raw.kind === "receipt" ? "receipt" : "handoff",
    packed_at: typeof raw.issued_at === "string" ? raw.issued_at : "",
    origin: isPlainObject(raw.origin) ? raw.origin : {},
    lineage: isPlainObject(raw.lineage)
      ? raw.lineage
      : { root_id: id, from_version: 0, chain: [`${id}@0`] },
    note: typeof peer.note === "string" ? peer.note : "",
    passport: facts ? { ...state, facts } : state,
    asks: Array.isArray(raw.asks) ? raw.asks : [],
    landing_checks: Array.isArray(raw.landing_checks) ? raw.landing_checks : [],
  };
}

function parseObject(
  bytes: Uint8Array,
  where: string,
  limits: ReadLimits,
): Record<string, unknown> {
  const value = parseJsonStrict(decodeText(bytes, where), {
    maxDepth: limits.maxJsonDepth,
    maxKeyLength: limits.maxJsonKeyLength,
    wellFormed: true,
    where,
  });
  if (!isPlainObject(value)) {
    throw new TaskPackReadError("wrong-type", where, "the pack object is not a JSON object");
  }
  return value;
}

/** A read error's message without the prefix its constructor adds. */
function stripReadPrefix(message: string): string {
  return message.replace(/^Cannot read taskpack: /, "");
}

function decodeText(bytes: Uint8Array, where: string): string {
  try {
    return decodeUtf8Strict(bytes);
  } catch {
    throw new TaskPackReadError("invalid-utf8", where, "the text is not valid UTF-8");
  }
}

function checkSpec(object: Record<string, unknown>, where: string): void {
  if (object.spec !== PACK_SPEC) {
    throw new TaskPackReadError(
      "unsupported-version",
      `${where} spec`,
      `${shown(object.spec)} is not a pack spec this reader knows (${PACK_SPEC})`,
    );
  }
  // A field the format gives text to, holding an object, has no one reading as text.
  const typed = fieldTypeProblem(object);
  if (typed) throw new TaskPackReadError("wrong-type", typed.where, typed.detail);
}

/** A value as a refusal quotes it: its first 40 characters as JSON, whatever its type. */
function shown(value: unknown): string {
  if (typeof value === "string" && redactCredentials(value) !== value) {
    return "a value that looks like a credential";
  }
  const text = typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : (() => {
    try {
      return JSON.stringify(value) ?? typeof value;
    } catch {
      return typeof value;
    }
  })();
  return text.length > 42 ? `${text.slice(0, 41)}…` : text;
}

/** What streaming one luggage file found. */
export interface LuggageAudit {
  /** The luggage name. */
  readonly name: string;
  /** The SHA-256 of the bytes as read (null when reading failed). */
  readonly sha256: string | null;
  /** The first credential or transcript found, with its line. */
  readonly finding: ScanResult["finding"];
  /** Why the bytes could not be read or did not match their declared digest. */
  readonly error: TaskPackReadError | null;
}

/**
 * Streams every luggage file once: verifies size and CRC (in the ZIP reader), the SHA-256
 * against the declared digest, and scans the whole file for credentials and transcripts.
 * Bounded memory whatever the sizes. Never throws for bad bytes: errors are returned per file.
 *
 * @param decoded The decoded pack.
 * @param options Digests, progress, the scanner, what to do with a file read whole.
 * @returns One audit per luggage file, in order.
 *
 * @example Usage
 * ```ts
 * import { auditLuggage, decodePack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const flat = JSON.stringify({
 *   taskpack: "0.1",
 *   encoding: "flat",
 *   passport: { spec: "task-passport-bag/0.1" },
 *   attachments: [{ name: "a.txt", encoding: "utf8", data: "hello" }],
 * });
 * const decoded = await decodePack(new TextEncoder().encode(flat));
 * const [audit] = await auditLuggage(decoded);
 * assertEquals(audit!.error, null);
 * assertEquals(audit!.finding, null);
 * ```
 */
export async function auditLuggage(
  decoded: DecodedPack,
  options: AuditOptions = {},
): Promise<LuggageAudit[]> {
  const audits: LuggageAudit[] = [];
  await auditEach(decoded, options, (audit) => void audits.push(audit));
  return audits;
}

/** Options for {@linkcode auditLuggage} and {@linkcode auditEach}. */
export interface AuditOptions {
  /** Hash implementations (default: portable). */
  digests?: Digests;
  /** Told how far the audit has come. */
  onProgress?: (progress: Progress) => void;
  /** Makes the scanner for each file (default: a `TextScanner` on this thread). */
  scanner?: ScannerFactory;
  /** Told of each file read whole that passed its checks, with its bytes. */
  onChecked?: OnChecked;
}

/**
 * {@linkcode auditLuggage} without the list: each file's audit is handed to `visit` as soon as
 * it is made, in order, and kept only if `visit` keeps it. A pack of 70,000 files then holds no
 * audit per file; `visit` may throw to stop at a file (the error is passed on).
 *
 * @param decoded The decoded pack.
 * @param options Digests, progress, the scanner, what to do with a file read whole.
 * @param visit Told of each audit, with the file's place in `decoded.luggage`.
 *
 * @example Usage
 * ```ts
 * import { auditEach, decodePack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const flat = JSON.stringify({
 *   taskpack: "0.1",
 *   encoding: "flat",
 *   passport: { spec: "task-passport-bag/0.1" },
 *   attachments: [
 *     { name: "a.txt", encoding: "utf8", data: "hello" },
 *     { name: "b.txt", encoding: "utf8", data: "world" },
 *   ],
 * });
 * const bad: string[] = [];
 * await auditEach(await decodePack(new TextEncoder().encode(flat)), {}, (audit) => {
 *   if (audit.error || audit.finding) bad.push(audit.name);
 * });
 * assertEquals(bad, []);
 * ```
 */
export async function auditEach(
  decoded: DecodedPack,
  options: AuditOptions,
  visit: (audit: LuggageAudit, index: number) => void,
): Promise<void> {
  const digests = options.digests ?? portableDigests;
  const progress = progressCounter(options.onProgress, decoded.luggage);
  for (let index = 0; index < decoded.luggage.length; index++) {
    const file = decoded.luggage[index]!;
    const where = LUGGAGE_PREFIX + file.name;
    const hasher = digests.sha256();
    const scanner = options.scanner?.(file.size) ?? new TextScanner();
    let whole: Uint8Array | null = null;
    let audit: LuggageAudit;
    try {
      let finding: ScanResult["finding"];
      if (file.read && file.size <= WHOLE_AUDIT && scanner.scanWhole) {
        // A small file its source reads at once: hashed and scanned whole, with no stream.
        const bytes = whole = await file.read();
        hasher.update(bytes);
        finding = (await scanner.scanWhole(bytes)).finding;
        progress.bytes(bytes.length);
      } else {
        // Each chunk is looked at once: it may be read into a buffer used again for the next.
        for await (const value of luggageChunks(file)) {
          hasher.update(value);
          const behind = scanner.push(value);
          if (behind) await behind;
          progress.bytes(value.length);
        }
        finding = (await scanner.finish()).finding;
      }
      const sha256 = hasher.digestHex();
      const declared = file.declaredSha256;
      const error = declared !== null && declared !== sha256
        ? new TaskPackReadError("bag-digest", where, "the file does not match its manifest digest")
        : null;
      audit = { name: file.name, sha256, finding, error };
      if (finding || error) whole = null;
    } catch (cause) {
      whole = null;
      const error = cause instanceof TaskPackReadError ? cause : new TaskPackReadError(
        "zip-structure",
        where,
        `the file could not be read: ${String(cause)}`,
      );
      audit = { name: file.name, sha256: null, finding: null, error };
    }
    visit(audit, index);
    // Outside the try: a failure of the caller's is not a fault of the pack.
    if (whole && options.onChecked) await options.onChecked(file, whole);
    progress.file();
  }
}

/**
 * Told of a luggage file that was read whole (up to 1 MiB) and passed its own checks (size,
 * CRC-32, its declared SHA-256, the scan), with its bytes, before the next file is read; a
 * promise it returns is awaited. A shell may start writing the file somewhere private while
 * the rest is checked: the pack as a whole may still be refused.
 *
 * @param file The file, as in `DecodedPack.luggage`.
 * @param bytes Its bytes; the reader does not use them again.
 */
export type OnChecked = (file: ReadLuggage, bytes: Uint8Array) => void | Promise<void>;
