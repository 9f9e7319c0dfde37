// Copyright 2026 the taskpack authors. MIT license.
/**
 * What a home remembers of the packs it landed, so a retried landing does not do the work
 * twice: each passport keeps, in `landed_packs`, the digest of every pack landed as it or
 * merged into it. The record lives in the passport itself, so every store keeps it (a folder,
 * Deno KV, an HTTP home, PostgreSQL) and it moves with `migrate`; it stays home, never packed.
 *
 * @module
 */
import { isPlainObject } from "../lib/bytes/mod.ts";
import type { PassportState } from "../lib/format/mod.ts";
import type { PassportStore } from "../lib/home/mod.ts";

/** The state field that holds the record. */
export const LANDED_PACKS = "landed_packs";

/** One pack landed as a passport or merged into it. */
export interface LandedRecord {
  /** The pack digest (sha256 of its tag manifest, the same for both encodings). */
  digest: string;
  /** `handoff` (landed as this passport) or `receipt` (merged into it). */
  kind: "handoff" | "receipt";
  /** When. */
  at: string;
}

/**
 * The passport's record of landed packs.
 *
 * @param state A passport.
 * @returns Its records (none when it has none).
 */
export function landedPacks(state: PassportState): LandedRecord[] {
  const list = state[LANDED_PACKS];
  return Array.isArray(list)
    ? list.filter((r): r is LandedRecord => isPlainObject(r) && typeof r.digest === "string")
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
 * @returns The state without the record of landed packs.
 */
export function withoutHomeRecords(state: PassportState): PassportState {
  if (!(LANDED_PACKS in state)) return state;
  const { [LANDED_PACKS]: _, ...rest } = state;
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
