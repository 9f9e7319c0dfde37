// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The judge (TaskPack 0.1 §6): checks C0 to C10 on a file exactly as written. It reads
 * strictly — nothing is repaired on the pack's behalf, and anything the lenient reader would
 * have had to repair fails C0 — and it never throws: a file that is not even a ZIP or JSON
 * still gets a report whose failing checks say why.
 *
 * C7 and C8 use the very detectors the writer refuses with (`patterns.ts` through
 * `refuse.ts`), in the pack object and in the whole of every luggage file; C7 also scans the
 * bytes a bag's ZIP carries besides them (its comments, extra fields and tag files).
 *
 * @module
 */
import { encodingNote, redactCredentials, type ScannerFactory } from "../scan/mod.ts";
import {
  bytesEqual,
  type ByteSource,
  bytesSource,
  canonicalJson,
  type Digests,
  DigestTable,
  isPlainObject,
  portableDigests,
  readAllBytes,
  sha256Hex,
  TaskPackReadError,
  utf8,
} from "../bytes/mod.ts";
import { deriveTagFiles, LUGGAGE_PREFIX, manifestMatches, payloadOf, TAG_FILES } from "./bag.ts";
import { flatAttachment, flatTextMatches } from "./flat.ts";
import { lineageProblem } from "./lineage.ts";
import { type CheckId, type CheckResult, type Report, TASKPACK_SPEC } from "./model.ts";
import {
  auditEach,
  type DecodedPack,
  decodePack,
  detectEncoding,
  type Progress,
  type ReadLimits,
} from "./read.ts";
import { luggageNameProblems, packObjectProblems } from "./refuse.ts";
import { namesOf } from "./names.ts";
import { type PortabilityWarning, portabilityWarningsOf } from "./host_names.ts";
import { isPortableScope, sealPack } from "./seal.ts";
import { isRfc3339DateTime } from "./time.ts";
import { landingCheckProblems, memberNameWarnings } from "./shape.ts";
import type { Inflater } from "../zip/mod.ts";

/** The requirement of each check, worded as in spec §6. */
export const REQUIREMENTS: Readonly<Record<CheckId, string>> = {
  C0: "the file is conformant as written — reading it required no repair",
  C1: "BagIt structure and sha256 manifests agree",
  C2: "data/passport.json parses",
  C3: "kind is handoff or receipt",
  C4: "lineage carries root_id and from_version",
  C5: "every ask has an accept",
  C6: "no machine-scoped fact crosses wearing a ✓ — a fact with no scope counts as machine-scoped",
  C7: "no credentials, in any field of the pack object or in the luggage",
  C8: "no chat transcript",
  C9: "the two encodings round-trip byte-for-byte, whatever the attachments' size",
  C10: "packed_at is declared",
};

const CHECK_IDS = Object.keys(REQUIREMENTS) as CheckId[];

/** Options for {@linkcode judge}. */
export interface JudgeOptions {
  /** Hash implementations (default: portable). */
  digests?: Digests;
  /** Reader limits (see `DEFAULT_READ_LIMITS`). */
  limits?: Partial<ReadLimits>;
  /** Told how far the pass over the luggage has come (see {@linkcode Progress}). */
  onProgress?: (progress: Progress) => void;
  /** A one-shot decoder for small deflated entries (see `ReadOptions.inflater`). */
  inflater?: Inflater;
  /** Makes the scanner for each luggage file (default: a `TextScanner` on this thread). */
  scanner?: ScannerFactory;
}

/**
 * Judges a file against C0-C10, strictly, as written. Never throws.
 *
 * @param input The file: bytes, or a random-access source for large files.
 * @param options Digests and reader limits.
 * @returns The report: `ok` only when every check passed.
 *
 * @example Usage
 * ```ts
 * import { judge } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * const report = await judge(new TextEncoder().encode("not a pack"));
 * assertEquals(report.ok, false);
 * assertEquals(report.checks.length, 11);
 * assertMatch(report.checks[1]!.detail, /neither a ZIP/);
 * ```
 */
export async function judge(
  input: ByteSource | Uint8Array,
  options: JudgeOptions = {},
): Promise<Report> {
  const digests = options.digests ?? portableDigests;
  const source = input instanceof Uint8Array ? bytesSource(input) : input;
  const failures = new Map<CheckId, string[]>();
  const fail = (id: CheckId, detail: string) => {
    const list = failures.get(id) ?? [];
    if (list.length < 20) list.push(detail);
    failures.set(id, list);
  };
  let decoded: DecodedPack;
  try {
    decoded = await decodePack(source, {
      digests,
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.inflater ? { inflater: options.inflater } : {}),
    });
  } catch (error) {
    return unreadable(error, await sniff(source));
  }
  let digest: string | null = null;
  try {
    for (const deviation of decoded.deviations) {
      fail(deviation.check, `${deviation.where}: ${deviation.detail}`);
    }
    if (decoded.bom) fail("C9", "a byte order mark does not survive the round trip");
    for (const where of decoded.zipCredentials) fail("C7", `${where}: looks like a credential`);
    // Each file's digest is kept as bytes for the round trip; the audits themselves are not.
    const sums = new DigestTable(decoded.luggage.length);
    await auditEach(decoded, {
      digests,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.scanner ? { scanner: options.scanner } : {}),
    }, (audit, index) => {
      if (audit.sha256 !== null) sums.set(index, audit.sha256);
      const where = LUGGAGE_PREFIX + audit.name;
      if (audit.error) fail("C1", `${where}: ${stripPrefix(audit.error.message)}`);
      if (audit.finding) {
        const id = audit.finding.rule === "credential" ? "C7" : "C8";
        fail(
          id,
          `${where}:${audit.finding.line}: looks like ${
            audit.finding.rule === "credential"
              ? `a credential${encodingNote(audit.finding)}`
              : "a chat transcript"
          }`,
        );
      }
    });
    judgeObject(decoded.object, fail);
    for (const problem of luggageNameProblems(namesOf(decoded.luggage))) {
      fail("C7", `${problem.where}: ${problem.detail}`);
    }
    digest = await judgeRoundTrip(decoded, sums, digests, fail);
  } catch (error) {
    fail(
      "C1",
      `the file could not be read to the end: ${
        stripPrefix(String((error as Error)?.message ?? error))
      }`,
    );
  }
  const warnings = [
    ...portabilityWarningsOf(decoded.luggage.length, (index) => decoded.luggage[index]!.name),
    ...memberNameWarnings(decoded.object),
  ];
  return report(decoded.encoding, digest, failures, new Set(), warnings);
}

/** C2-C8 and C10 on the pack object as written. */
function judgeObject(object: unknown, fail: (id: CheckId, detail: string) => void): void {
  const pack = isPlainObject(object) ? object : {};
  const state = isPlainObject(pack.passport) ? pack.passport : null;
  if (!state) fail("C2", "the pack object has no passport object");
  else if (typeof state.id !== "string" || state.id === "") fail("C2", "passport.id is missing");

  if (pack.kind !== "handoff" && pack.kind !== "receipt") {
    fail("C3", `kind is ${JSON.stringify(pack.kind ?? null)}`);
  }
  const lineage = lineageProblem(pack.lineage, state?.id);
  if (lineage) fail("C4", lineage);
  else if (!Array.isArray((pack.lineage as Record<string, unknown>).chain)) {
    fail("C0", "lineage has no chain: landing would have to start one");
  }
  if (pack.asks !== undefined && !Array.isArray(pack.asks)) fail("C5", "asks is not a list");
  if (pack.landing_checks !== undefined && !Array.isArray(pack.landing_checks)) {
    fail("C2", "landing_checks is not a list");
  } else if (Array.isArray(pack.landing_checks) && !pack.landing_checks.every(isPlainObject)) {
    fail("C2", "a landing check is not an object");
  }
  for (const problem of landingCheckProblems(pack.landing_checks)) {
    fail("C2", `${problem.where}: ${problem.detail}`);
  }
  if (state && state.next_steps !== undefined && !Array.isArray(state.next_steps)) {
    fail("C2", "passport.next_steps is not a list");
  }

  const facts = state && Array.isArray(state.facts) ? state.facts : [];
  facts.forEach((fact, index) => {
    if (isPlainObject(fact) && !isPortableScope(fact.scope) && fact.verified === true) {
      const scope = fact.scope === undefined ? "no scope" : `scope ${JSON.stringify(fact.scope)}`;
      fail("C6", `passport.facts[${index}] (${scope}) is marked verified`);
    }
  });
  if (state && state.facts !== undefined && !Array.isArray(state.facts)) {
    fail("C2", "passport.facts is not a list");
  }
  for (const repair of sealPack(pack).repairs) {
    fail("C0", `${repair.where}: reading it would need sealing`);
  }

  for (const problem of packObjectProblems(pack)) {
    const id: CheckId = problem.rule === "credential"
      ? "C7"
      : problem.rule === "transcript"
      ? "C8"
      : problem.rule === "instruction-field"
      ? "C0"
      : "C5";
    fail(id, `${problem.where}: ${problem.detail}`);
  }
  if (!isRfc3339DateTime(pack.packed_at)) {
    fail(
      "C10",
      pack.packed_at === undefined
        ? "packed_at is missing"
        : "packed_at is not an RFC 3339 date-time (RFC 3339 §5.6: each field in its range)",
    );
  }
}

/**
 * C9: both encodings are pure functions of the pack object and the luggage, so the round trip
 * holds exactly when the file's own bytes equal what those functions give. For a bag: the pack
 * object's bytes and all four tag files are re-derived and compared (luggage bytes pass
 * through both encodings unchanged by construction, at any size). For a flat file: the whole
 * text is re-derived and compared. Returns the pack digest.
 */
async function judgeRoundTrip(
  decoded: DecodedPack,
  sums: DigestTable,
  digests: Digests,
  fail: (id: CheckId, detail: string) => void,
): Promise<string | null> {
  if (decoded.luggage.some((_, i) => !sums.has(i))) {
    fail("C9", "not evaluated: a luggage file could not be read");
    return null;
  }
  const canonical = utf8(canonicalJson(decoded.object));
  const payload = payloadOf(
    { sha256: sha256Hex(digests, canonical), size: canonical.length },
    decoded.luggage,
    (i) => sums.hex(i)!,
  );
  // A bag's manifest is compared as it is derived, line by line; only one that differs is made.
  const writtenManifest = decoded.tagFiles?.["manifest-sha256.txt"];
  const sameManifest = decoded.encoding === "bag" && writtenManifest !== undefined &&
    manifestMatches(writtenManifest, payload);
  const derived = deriveTagFiles(
    decoded.object,
    payload,
    digests,
    sameManifest ? writtenManifest : undefined,
  );
  if (decoded.encoding === "bag") {
    if (!bytesEqual(decoded.passportBytes!, canonical)) {
      fail(
        "C9",
        "data/passport.json is not the canonical JSON of its own content (2-space, one final LF)",
      );
    }
    const written = decoded.tagFiles ?? {};
    const expected = [derived.bagit, derived.bagInfo, derived.manifest, derived.tagManifest];
    TAG_FILES.forEach((name, i) => {
      const bytes = written[name];
      if (bytes && !bytesEqual(bytes, expected[i]!)) {
        fail("C9", `${name} differs from the one the flat form would convert back into`);
      }
    });
    const tagManifest = written["tagmanifest-sha256.txt"];
    return tagManifest ? sha256Hex(digests, tagManifest) : null;
  }
  if (decoded.encoding === "tpx") {
    fail("C9", "a retired .tpx file is not one of the two encodings");
    return derived.digest;
  }
  // Compared attachment by attachment: the whole list and a second text are never held.
  const matches = await flatTextMatches(
    decoded.text!,
    decoded.object,
    decoded.luggage.length,
    async (i) => {
      const file = decoded.luggage[i]!;
      const bytes = file.read ? await file.read() : await readAllBytes(file.open());
      return flatAttachment(file.name, bytes, sums.hex(i)!);
    },
  );
  if (!matches) {
    fail(
      "C9",
      "the text is not what the bag would convert back into (key order, spacing, attachment encoding or the note)",
    );
  }
  return derived.digest;
}

/** The encoding the first bytes suggest, for the report of a file that could not be read. */
async function sniff(source: ByteSource): Promise<string> {
  try {
    const kind = detectEncoding(await source.read(0, Math.min(source.size, 64)));
    return kind === "json" ? "flat" : kind;
  } catch {
    return "unknown";
  }
}

function unreadable(error: unknown, encoding: string): Report {
  const failures = new Map<CheckId, string[]>();
  const message = stripPrefix(error instanceof Error ? error.message : String(error));
  const code = error instanceof TaskPackReadError ? error.code : "internal";
  // The check the failure belongs to; every other check could not be evaluated.
  const id: CheckId = /^(json-|invalid-utf8|wrong-type|unsupported-version)/.test(code)
    ? "C2"
    : "C1";
  failures.set(id, [code === "internal" ? `the reader failed: ${message}` : message]);
  return report(encoding, null, failures, new Set(CHECK_IDS.filter((c) => c !== id)), []);
}

function report(
  encoding: string,
  digest: string | null,
  failures: ReadonlyMap<CheckId, string[]>,
  notEvaluated: ReadonlySet<CheckId>,
  warnings: PortabilityWarning[],
): Report {
  const checks: CheckResult[] = CHECK_IDS.map((id) => {
    const details = failures.get(id);
    if (notEvaluated.has(id)) {
      return {
        id,
        requirement: REQUIREMENTS[id],
        ok: false,
        detail: "not evaluated: the file could not be read",
      };
    }
    return {
      id,
      requirement: REQUIREMENTS[id],
      ok: !details,
      // The report is printed and served: nothing in it quotes what looks like a secret.
      detail: details ? details.map(redactCredentials).join("; ") : "",
    };
  });
  const passed = checks.filter((check) => check.ok).length;
  return {
    ok: passed === checks.length,
    spec: TASKPACK_SPEC,
    encoding,
    digest,
    passed,
    total: checks.length,
    checks,
    warnings: warnings.map((warning) => ({
      ...warning,
      name: redactCredentials(warning.name),
      ...(warning.clashesWith !== undefined
        ? { clashesWith: redactCredentials(warning.clashesWith) }
        : {}),
    })),
  };
}

function stripPrefix(message: string): string {
  return message.replace(/^Cannot read taskpack: /, "");
}
