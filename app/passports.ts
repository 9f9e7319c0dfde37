// Copyright 2026 the taskpack authors. MIT license.
/**
 * The passport operations: new, list, open, prompt, checkpoint, answer. Each takes the
 * {@linkcode Workplace} and typed values and gives back the reply every door shows, in the
 * incumbent's shape (`passport_id`, `state_version`, `state`, `compiled_context`,
 * `handoff_prompt`) so scripts and agents written against it keep working.
 *
 * @module
 */
import { isPlainObject } from "../lib/bytes/mod.ts";
import {
  answerAsk,
  compileContext,
  handoffPrompt,
  newPassportState,
  type PassportStore,
} from "../lib/home/mod.ts";
import { isPassportId, mintPassportId, type PassportState } from "../lib/format/mod.ts";
import { FolderStore } from "../shell/stores/folder_store.ts";
import { stat } from "../shell/host/host_fs.ts";
import { OperationError, usage } from "./refusal.ts";
import type { Workplace } from "./workplace.ts";

/** One passport, as every door replies with it. */
export interface PassportReply {
  /** Its id. */
  passport_id: string;
  /** Its version: pass it back as the expected version of a checkpoint. */
  state_version: number;
  /** The whole state. */
  state: PassportState;
  /** The one-line prompt that hands it to a worker. */
  handoff_prompt: string;
  [field: string]: unknown;
}

/**
 * The incumbent's shape for one passport.
 *
 * @param state The passport.
 * @param extra Fields to put before the prompt.
 * @returns The reply.
 */
export function passportReply(
  state: PassportState,
  extra: Record<string, unknown> = {},
): PassportReply {
  return {
    passport_id: state.id,
    state_version: state.version,
    state,
    ...extra,
    handoff_prompt: handoffPrompt(state.id),
  };
}

/**
 * Opens a passport, or refuses with one sentence naming the store.
 *
 * @param work The workplace.
 * @param id The passport id.
 * @returns Its state.
 */
export async function requirePassport(
  work: Workplace,
  id: string | undefined,
): Promise<PassportState> {
  if (!id) throw usage("A passport id (TP-XXXX-XXXX) is required");
  if (!isPassportId(id)) throw usage(`"${id}" is not a passport id (TP-XXXX-XXXX)`, id);
  const state = await work.store.open(id);
  if (!state) {
    await requireStore(work);
    throw new OperationError(
      "missing",
      "not-found",
      `No passport ${id} in the store ${work.storeName} (taskpack list shows what it holds)`,
      id,
    );
  }
  return state;
}

/**
 * Refuses a folder store that does not exist: a typo in `--store` names an empty store, and
 * reading one would answer as if it held nothing.
 *
 * @param work The workplace.
 */
export async function requireStore(work: Workplace): Promise<void> {
  if (!(work.store instanceof FolderStore) || await exists(work.store.dir)) return;
  throw new OperationError(
    "missing",
    "no-store",
    `There is no store ${work.storeName}: no such folder (taskpack new makes one there; check ` +
      "--store and TASKPACK_STORE)",
    work.storeName,
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Mints an id no passport in the store has.
 *
 * @param store The store.
 * @param random Random bytes.
 * @returns A fresh id.
 */
export async function mintUniqueId(
  store: PassportStore,
  random: (n: number) => Uint8Array,
): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const id = mintPassportId(random);
    if (!(await store.open(id))) return id;
  }
  throw new Error("Cannot mint a passport id: 100 draws collided with the store");
}

/** What a new passport starts with. */
export interface NewPassport {
  /** A short name for the task. */
  title: string;
  /** What done looks like. */
  goal: string;
  /** Where the work stands. */
  currentState?: string | undefined;
  /** The next steps, in order. */
  nextSteps?: readonly string[] | undefined;
}

/**
 * `new`: mints a passport at version 1.
 *
 * @param work The workplace.
 * @param input Its title, goal, state and steps.
 * @returns The new passport.
 */
export async function createPassport(work: Workplace, input: NewPassport): Promise<PassportReply> {
  if (!input.title) throw usage("A new passport needs a title");
  if (!input.goal) throw usage("A new passport needs a goal");
  const state = newPassportState({
    id: await mintUniqueId(work.store, work.random),
    title: input.title,
    goal: input.goal,
    now: work.now(),
    machine: work.machine,
    harness: work.harness,
    ...(input.currentState ? { currentState: input.currentState } : {}),
    ...(input.nextSteps?.length ? { nextSteps: [...input.nextSteps] } : {}),
  });
  return passportReply(await work.store.create(state));
}

/** The store's passports, as `list` replies. */
export interface Listing {
  /** How many. */
  count: number;
  /** One line each. */
  passports: { passport_id: string; title: string; state_version: number; updated_at: string }[];
  /** Entries that could not be read, and why. */
  problems: { entry: string; reason: string }[];
}

/**
 * `list`: the passports in the store, and what could not be read.
 *
 * @param work The workplace.
 * @returns The listing.
 */
export async function listPassports(work: Workplace): Promise<Listing> {
  await requireStore(work);
  const listing = await work.store.list();
  return {
    count: listing.passports.length,
    passports: listing.passports.map((p) => ({
      passport_id: p.id,
      title: p.title,
      state_version: p.version,
      updated_at: p.updated_at,
    })),
    problems: listing.problems,
  };
}

/**
 * `open`: the state and the compiled context a receiving model reads.
 *
 * @param work The workplace.
 * @param id The passport id.
 * @returns The passport with `compiled_context`.
 */
export async function openPassport(work: Workplace, id: string): Promise<PassportReply> {
  const state = await requirePassport(work, id);
  return passportReply(state, { compiled_context: compileContext(state) });
}

/**
 * `checkpoint`: saves a new version, refused when the store moved on since `expectedVersion`.
 *
 * @param work The workplace.
 * @param state The whole state with the worker's changes.
 * @param expectedVersion The version the worker read.
 * @returns The saved passport.
 */
export async function checkpointPassport(
  work: Workplace,
  state: unknown,
  expectedVersion: number,
): Promise<PassportReply> {
  if (!Number.isSafeInteger(expectedVersion) || expectedVersion < 1) {
    throw usage("A checkpoint needs the expected version, the version you read (1 or more)");
  }
  if (!isPlainObject(state) || !isPassportId(state.id)) {
    throw usage("A checkpoint needs a passport state: an object with an id TP-XXXX-XXXX");
  }
  await requirePassport(work, state.id);
  const saved = await work.store.save(
    { ...(state as PassportState), updated_at: work.now() },
    expectedVersion,
  );
  return passportReply(saved);
}

/**
 * `answer`: records the answer to an ask this passport received.
 *
 * @param work The workplace.
 * @param id The passport id.
 * @param askId The ask's id (`a1` ...).
 * @param text The answer.
 * @returns The saved passport, with `answered`.
 */
export async function answerPassportAsk(
  work: Workplace,
  id: string,
  askId: string,
  text: string,
): Promise<PassportReply> {
  if (!askId) throw usage("An answer needs the ask's id (a1, a2 ...)");
  if (!text) throw usage("An answer needs its text");
  const state = await requirePassport(work, id);
  let answered: PassportState;
  try {
    answered = answerAsk(
      state,
      askId,
      text,
      `${work.actor || "someone"}@${work.machine}`,
      work.now(),
    );
  } catch (error) {
    throw new OperationError("missing", "no-such-ask", (error as Error).message, askId);
  }
  const saved = await work.store.save({ ...answered, updated_at: work.now() }, state.version);
  return passportReply(saved, { answered: askId });
}
