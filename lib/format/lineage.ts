// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Identity and lineage (TaskPack 0.1 §3, §3.1, §4.4.1): minting passport ids, extending the
 * chain when a pack is made, and finding the passport a receipt answers.
 *
 * @module
 */
import type { Lineage, PassportState } from "./model.ts";

/** The id alphabet: digits and capitals without the look-alikes 0, 1, I, L, O and U. */
export const ID_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ";

// Ids are minted from ID_ALPHABET; any digits and capitals are accepted, so passports minted
// by the incumbent (whose alphabet has a U) stay usable.
const ID_PATTERN = /^TP-[0-9A-Z]{4}-[0-9A-Z]{4}$/;

/**
 * Mints a new passport id, `TP-XXXX-XXXX`, from injected randomness (uniform over the
 * alphabet: biased bytes are drawn again).
 *
 * @param randomBytes Returns `n` random bytes (e.g. `crypto.getRandomValues`).
 * @returns A fresh id.
 *
 * @example Usage
 * ```ts
 * import { isPassportId, mintPassportId } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const id = mintPassportId((n) => crypto.getRandomValues(new Uint8Array(n)));
 * assertEquals(isPassportId(id), true);
 * ```
 */
export function mintPassportId(randomBytes: (n: number) => Uint8Array): string {
  const limit = 256 - (256 % ID_ALPHABET.length);
  let out = "";
  while (out.length < 8) {
    for (const byte of randomBytes(16)) {
      if (byte < limit && out.length < 8) out += ID_ALPHABET[byte % ID_ALPHABET.length];
    }
  }
  return `TP-${out.slice(0, 4)}-${out.slice(4)}`;
}

/**
 * Whether a string is a passport id: `TP-XXXX-XXXX`, digits and capital letters (safe as a file
 * name on every system).
 *
 * @param id The candidate.
 * @returns True for a well-formed id.
 *
 * @example Usage
 * ```ts
 * import { isPassportId } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(isPassportId("TP-9CB7-J5MK"), true);
 * assertEquals(isPassportId("TP-9cb7-J5MK"), false);
 * assertEquals(isPassportId("TP-../x-1234"), false);
 * ```
 */
export function isPassportId(id: unknown): id is string {
  return typeof id === "string" && ID_PATTERN.test(id);
}

/**
 * Splits a chain entry `<passport id>@<version>`.
 *
 * @param entry The entry.
 * @returns The id and version, or null when the entry is malformed.
 *
 * @example Usage
 * ```ts
 * import { parseChainEntry } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(parseChainEntry("TP-9CB7-J5MK@2"), { id: "TP-9CB7-J5MK", version: 2 });
 * assertEquals(parseChainEntry("TP-9CB7-J5MK"), null);
 * assertEquals(parseChainEntry("TP-9CB7@J5MK@2"), null);
 * ```
 */
export function parseChainEntry(entry: unknown): { id: string; version: number } | null {
  if (typeof entry !== "string") return null;
  // One "@" only: "A@B@2" would split two ways (id "A@B" at 2, or id "A" at "B@2").
  const match = /^([^@]+)@(0|[1-9][0-9]{0,15})$/.exec(entry);
  if (!match) return null;
  return { id: match[1]!, version: Number(match[2]) };
}

/**
 * Checks a lineage: `root_id` a non-empty string without `@`, `from_version` a non-negative
 * integer, and, when a chain is present, entries of the form `id@version` (one `@`: an id that
 * holds one would split two ways) whose first id is `root_id` and whose last entry is the
 * sender — `sender` (the pack's `passport.id`, when given) at `from_version` (§3: "the last
 * entry is the sender").
 *
 * @param lineage The value found in a pack.
 * @param sender The pack's own `passport.id`: the passport the pack was made from.
 * @returns A reason it is malformed, or null.
 *
 * @example Usage
 * ```ts
 * import { lineageProblem } from "@taskpack/cli";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * assertEquals(lineageProblem({ root_id: "TP-A", from_version: 2, chain: ["TP-A@2"] }), null);
 * assertMatch(lineageProblem({ root_id: "TP-A", from_version: 3, chain: ["TP-A@2"] })!, /last/);
 * assertMatch(lineageProblem({ root_id: "TP-A", from_version: 2, chain: ["TP-A@2"] }, "TP-B")!, /sender/);
 * ```
 */
export function lineageProblem(lineage: unknown, sender?: unknown): string | null {
  if (typeof lineage !== "object" || lineage === null || Array.isArray(lineage)) {
    return "lineage is missing or not an object";
  }
  const { root_id, from_version, chain } = lineage as Record<string, unknown>;
  if (typeof root_id !== "string" || root_id === "") return "lineage.root_id is missing";
  if (root_id.includes("@")) {
    return 'lineage.root_id holds "@", so its chain entry would split two ways';
  }
  if (typeof sender === "string" && sender.includes("@")) {
    return 'passport.id holds "@", so its chain entry would split two ways';
  }
  if (typeof from_version !== "number" || !Number.isSafeInteger(from_version) || from_version < 0) {
    return "lineage.from_version is not a non-negative integer";
  }
  if (chain === undefined) {
    // With no chain, a reader starts one at the sender; that is root_id only when they agree.
    return typeof sender === "string" && sender !== root_id
      ? "lineage has no chain and root_id is not the sender, so no chain can be started (§3)"
      : null;
  }
  if (!Array.isArray(chain) || chain.length === 0) return "lineage.chain is not a non-empty list";
  const entries = chain.map(parseChainEntry);
  const bad = entries.findIndex((entry) => entry === null);
  if (bad >= 0) return `lineage.chain[${bad}] is not of the form <id>@<version>`;
  if (entries[0]!.id !== root_id) return "lineage.chain does not start at root_id";
  const last = entries[entries.length - 1]!;
  if (last.version !== from_version) {
    return "the last lineage.chain entry is not at from_version";
  }
  if (typeof sender === "string" && last.id !== sender) {
    return "the last lineage.chain entry is not the sender (§3: it is passport.id at from_version)";
  }
  return null;
}

/**
 * The lineage of a pack made from a passport (§3.1): the passport's kept chain, then its own
 * entry. A passport that was never landed starts a new chain at itself.
 *
 * @param state The passport being packed.
 * @returns The lineage to write into the pack.
 *
 * @example Usage
 * ```ts
 * import { lineageForPack } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(lineageForPack({ id: "TP-AAAA-AAAA", version: 2 }), {
 *   root_id: "TP-AAAA-AAAA",
 *   from_version: 2,
 *   chain: ["TP-AAAA-AAAA@2"],
 * });
 * const landed = {
 *   id: "TP-BBBB-BBBB",
 *   version: 3,
 *   lineage: { root_id: "TP-AAAA-AAAA", from_version: 2, chain: ["TP-AAAA-AAAA@2"] },
 * };
 * assertEquals(lineageForPack(landed).chain, ["TP-AAAA-AAAA@2", "TP-BBBB-BBBB@3"]);
 * ```
 */
export function lineageForPack(state: Pick<PassportState, "id" | "version" | "lineage">): Lineage {
  const own = `${state.id}@${state.version}`;
  const kept = state.lineage;
  if (kept && lineageProblem(kept) === null && Array.isArray(kept.chain)) {
    return { root_id: kept.root_id, from_version: state.version, chain: [...kept.chain, own] };
  }
  return { root_id: state.id, from_version: state.version, chain: [own] };
}

/**
 * The passport a receipt answers (§4.4.1): the entry before the last in the chain; for a chain
 * of one entry, `root_id`.
 *
 * @param lineage The receipt's lineage.
 * @returns The target passport id, or null when the lineage is malformed.
 *
 * @example Usage
 * ```ts
 * import { receiptTarget } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const chain = ["TP-AAAA-AAAA@2", "TP-BBBB-BBBB@3", "TP-CCCC-CCCC@1"];
 * assertEquals(receiptTarget({ root_id: "TP-AAAA-AAAA", from_version: 1, chain }), "TP-BBBB-BBBB");
 * ```
 */
export function receiptTarget(lineage: unknown): string | null {
  if (lineageProblem(lineage) !== null) return null;
  const { root_id, chain } = lineage as Lineage;
  if (!Array.isArray(chain) || chain.length < 2) return root_id;
  return parseChainEntry(chain[chain.length - 2])!.id;
}
