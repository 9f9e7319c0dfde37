// Copyright 2026 the taskpack authors. MIT license.
/**
 * What a home remembers of the packs that came and went, in the passport itself, so every store
 * keeps it (a folder, Deno KV, an HTTP home, PostgreSQL) and it moves with `migrate`; it stays
 * home, never packed:
 *
 * - `landed_packs`: the digest of every pack landed as the passport or merged into it (so a
 *   retried landing does not do the work twice), and who signed it;
 * - `sent_packs` (the outbox): every pack made from the passport, with its digest, kind,
 *   encoding, the version packed, when, where it was written and who signed it, so a receipt
 *   that comes home is matched to the pack it answers;
 * - `answered_by_verified` on an ask: who signed the receipt that answered it, beside
 *   `answered_by` as the receipt wrote it.
 *
 * @module
 */
import { isPlainObject } from "../lib/bytes/mod.ts";
import type { PassportState } from "../lib/format/mod.ts";
import type { PassportStore } from "../lib/home/mod.ts";
import type { SignatureSummary } from "./signatures.ts";

/** The state field that holds the record of landed packs. */
export const LANDED_PACKS = "landed_packs";

/** The state field that holds the outbox: the packs made from the passport. */
export const SENT_PACKS = "sent_packs";

/** The ask field that holds who signed the receipt that answered it. */
export const ANSWERED_BY_VERIFIED = "answered_by_verified";

/** One pack landed as a passport or merged into it. */
export interface LandedRecord {
  /** The pack digest (sha256 of its tag manifest, the same for both encodings). */
  digest: string;
  /** `handoff` (landed as this passport) or `receipt` (merged into it). */
  kind: "handoff" | "receipt";
  /** When. */
  at: string;
  /** Who signed it, as verified on landing. */
  signature?: SignatureSummary;
  /** For a receipt: the version of this passport it answers, and whether this home sent it. */
  answers?: { version: number; sent: boolean; digest?: string };
}

/** One pack made from a passport (the outbox). */
export interface SentRecord {
  /** The pack digest. */
  digest: string;
  /** `handoff` or `receipt`. */
  kind: "handoff" | "receipt";
  /** `bag` or `flat`. */
  encoding: "bag" | "flat";
  /** The passport's version the pack carries (its lineage's last entry). */
  version: number;
  /** When. */
  at: string;
  /** Where it was written (an absolute path). */
  out: string;
  /** Who signed it, when it was signed as it was packed. */
  signature: SignatureSummary;
}

/**
 * The passport's outbox.
 *
 * @param state A passport.
 * @returns Its records (none when it has none).
 */
export function sentPacks(state: PassportState): SentRecord[] {
  return recordsIn<SentRecord>(state, SENT_PACKS);
}

/**
 * The state with one more pack in its outbox.
 *
 * @param state A passport.
 * @param record The pack made.
 * @returns The new state.
 */
export function withSent(state: PassportState, record: SentRecord): PassportState {
  return { ...state, [SENT_PACKS]: [...sentPacks(state), record] };
}

/**
 * The passport's record of landed packs.
 *
 * @param state A passport.
 * @returns Its records (none when it has none).
 */
export function landedPacks(state: PassportState): LandedRecord[] {
  return recordsIn<LandedRecord>(state, LANDED_PACKS);
}

/** The records a home-only list holds: each an object with a pack digest. */
function recordsIn<T extends { digest: string }>(state: PassportState, field: string): T[] {
  const list = state[field];
  return Array.isArray(list)
    ? list.filter((r): r is T => isPlainObject(r) && typeof r.digest === "string")
    : [];
}

/**
 * The state with one more landed pack recorded.
 *
 * @param state A passport.
 * @param record The pack landed.
 * @returns The new state.
 */
export function withLanding(state: PassportState, record: LandedRecord): PassportState {
  return { ...state, [LANDED_PACKS]: [...landedPacks(state), record] };
}

/**
 * The state as it travels: what only this home needs stays home.
 *
 * @param state A passport.
 * @returns The state without the records of landed and sent packs, and without who signed
 *   the answers to its asks.
 */
export function withoutHomeRecords(state: PassportState): PassportState {
  const verified = Array.isArray(state.asks) &&
    state.asks.some((ask) => isPlainObject(ask) && ANSWERED_BY_VERIFIED in ask);
  if (!(LANDED_PACKS in state) && !(SENT_PACKS in state) && !verified) return state;
  const { [LANDED_PACKS]: _landed, [SENT_PACKS]: _sent, ...rest } = state;
  if (verified) {
    rest.asks = state.asks!.map((ask) => {
      if (!isPlainObject(ask) || !(ANSWERED_BY_VERIFIED in ask)) return ask;
      const { [ANSWERED_BY_VERIFIED]: _, ...question } = ask;
      return question as typeof ask;
    });
  }
  return rest as PassportState;
}

/**
 * The passport a handoff with this digest already landed as, if any.
 *
 * @param store The store.
 * @param digest The pack digest.
 * @returns The passport, or null.
 */
export async function findLanding(
  store: PassportStore,
  digest: string,
): Promise<PassportState | null> {
  const { passports } = await store.list();
  // Newest first: a retry comes soon after the landing it repeats.
  for (const summary of [...passports].sort((a, b) => b.updated_at.localeCompare(a.updated_at))) {
    const state = await store.open(summary.id);
    if (state && landedPacks(state).some((r) => r.digest === digest && r.kind === "handoff")) {
      return state;
    }
  }
  return null;
}
