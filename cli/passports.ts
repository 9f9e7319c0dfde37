// Copyright 2026 the taskpack authors. MIT license.
/**
 * The passport verbs: `new`, `list`, `open`, `prompt`, `checkpoint`, `answer`, `doctor`. JSON
 * shapes follow the incumbent's (`passport_id`, `state_version`, `state`, `compiled_context`,
 * `handoff_prompt`) so scripts and agents written against it keep working.
 *
 * @module
 */
import { mkdir, open as openFile, rm } from "../shell/host/host_fs.ts";
import { pid } from "../shell/host/host_process.ts";
import { join } from "../shell/host/host_path.ts";
import { isPlainObject } from "../lib/bytes/mod.ts";
import {
  answerAsk,
  compileContext,
  handoffPrompt,
  newPassportState,
  type PassportStore,
} from "../lib/home/mod.ts";
import { isPassportId, type PassportState } from "../lib/format/mod.ts";
import { actorName, machineName, mintUniqueId, now, openStore } from "./home.ts";
import { EXIT, type Io, readJsonFile, UsageError } from "./io.ts";

/** The options the passport verbs read. */
export interface PassportFlags {
  json: boolean;
  store?: string | undefined;
  machine?: string | undefined;
  actor?: string | undefined;
  title?: string | undefined;
  goal?: string | undefined;
  "current-state"?: string | undefined;
  "next-step"?: string[] | undefined;
  file?: string[] | undefined;
  "expected-version"?: string | undefined;
  text?: string | undefined;
}

/** The incumbent's shape for one passport. */
export function passportReply(
  state: PassportState,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    passport_id: state.id,
    state_version: state.version,
    state,
    ...extra,
    handoff_prompt: handoffPrompt(state.id),
  };
}

/** Opens a passport or fails with one sentence. */
export async function requirePassport(
  store: PassportStore,
  id: string | undefined,
): Promise<PassportState> {
  if (!id) throw new UsageError("A passport id (TP-XXXX-XXXX) is required");
  if (!isPassportId(id)) throw new UsageError(`"${id}" is not a passport id (TP-XXXX-XXXX)`);
  const state = await store.open(id);
  if (!state) throw new UsageError(`No passport ${id} in this store (see: taskpack list)`);
  return state;
}

/** `new --title <t> --goal <g> [--current-state ..] [--next-step ..]...` */
export async function runNew(flags: PassportFlags, io: Io): Promise<number> {
  if (!flags.title) throw new UsageError("new needs --title <text>");
  if (!flags.goal) throw new UsageError("new needs --goal <text>");
  const { store } = await openStore(flags.store);
  const state = newPassportState({
    id: await mintUniqueId(store),
    title: flags.title,
    goal: flags.goal,
    now: now(),
    machine: machineName(flags.machine),
    harness: "taskpack-cli",
    ...(flags["current-state"] ? { currentState: flags["current-state"] } : {}),
    ...(flags["next-step"] ? { nextSteps: flags["next-step"] } : {}),
  });
  const saved = await store.create(state);
  if (flags.json) io.out(JSON.stringify(passportReply(saved)) + "\n");
  else io.out(`created ${saved.id} (version ${saved.version}): ${saved.title}\n`);
  return EXIT.ok;
}

/** `list` */
export async function runList(flags: PassportFlags, io: Io): Promise<number> {
  const { store, name } = await openStore(flags.store);
  const listing = await store.list();
  for (const problem of listing.problems) io.err(`skipped ${problem.entry}: ${problem.reason}\n`);
  if (flags.json) {
    io.out(
      JSON.stringify({
        count: listing.passports.length,
        passports: listing.passports.map((p) => ({
          passport_id: p.id,
          title: p.title,
          state_version: p.version,
          updated_at: p.updated_at,
        })),
        problems: listing.problems,
      }) + "\n",
    );
    return EXIT.ok;
  }
  if (!listing.passports.length) io.out(`no passports in ${name}\n`);
  for (const p of listing.passports) {
    io.out(`${p.id}  v${p.version}  ${p.updated_at}  ${p.title}\n`);
  }
  return EXIT.ok;
}

/** `open <id>`: the state and a compiled context for a receiving model. */
export async function runOpen(
  id: string | undefined,
  flags: PassportFlags,
  io: Io,
): Promise<number> {
  const { store } = await openStore(flags.store);
  const state = await requirePassport(store, id);
  const context = compileContext(state);
  if (flags.json) {
    io.out(JSON.stringify(passportReply(state, { compiled_context: context })) + "\n");
  } else io.out(context);
  return EXIT.ok;
}

/** `prompt <id>`: the one-line handoff prompt. */
export async function runPrompt(
  id: string | undefined,
  flags: PassportFlags,
  io: Io,
): Promise<number> {
  const { store } = await openStore(flags.store);
  const state = await requirePassport(store, id);
  io.out(
    flags.json
      ? JSON.stringify({ passport_id: state.id, handoff_prompt: handoffPrompt(state.id) }) + "\n"
      : handoffPrompt(state.id) + "\n",
  );
  return EXIT.ok;
}

/** `checkpoint --file <state.json> --expected-version <n>` */
export async function runCheckpoint(flags: PassportFlags, io: Io): Promise<number> {
  const file = flags.file?.[0];
  if (!file || (flags.file?.length ?? 0) > 1) {
    throw new UsageError("checkpoint needs one --file <state.json>");
  }
  const expected = Number(flags["expected-version"]);
  if (flags["expected-version"] === undefined || !Number.isSafeInteger(expected) || expected < 1) {
    throw new UsageError("checkpoint needs --expected-version <n>, the version you read");
  }
  const state = await readJsonFile(file);
  if (!isPlainObject(state) || !isPassportId(state.id)) {
    throw new UsageError(`${file} is not a passport state (an object with an id TP-XXXX-XXXX)`);
  }
  const { store } = await openStore(flags.store);
  await requirePassport(store, state.id);
  const saved = await store.save({ ...(state as PassportState), updated_at: now() }, expected);
  if (flags.json) io.out(JSON.stringify(passportReply(saved)) + "\n");
  else io.out(`saved ${saved.id} version ${saved.version}\n`);
  return EXIT.ok;
}

/** `answer <id> <ask-id> --text <answer>` */
export async function runAnswer(
  positionals: string[],
  flags: PassportFlags,
  io: Io,
): Promise<number> {
  const [id, askId] = positionals;
  if (!askId || positionals.length !== 2) {
    throw new UsageError("Expected: taskpack answer <id> <ask-id> --text <answer>");
  }
  if (!flags.text) throw new UsageError("answer needs --text <answer>");
  const { store } = await openStore(flags.store);
  const state = await requirePassport(store, id);
  const by = `${actorName(flags.actor) || "someone"}@${machineName(flags.machine)}`;
  const saved = await store.save({
    ...answerAsk(state, askId, flags.text, by, now()),
    updated_at: now(),
  }, state.version);
  if (flags.json) io.out(JSON.stringify(passportReply(saved, { answered: askId })) + "\n");
  else io.out(`answered ${askId} on ${saved.id} (version ${saved.version})\n`);
  return EXIT.ok;
}

/** `doctor`: is the store usable? */
export async function runDoctor(flags: PassportFlags, io: Io): Promise<number> {
  const { store, dir, name } = await openStore(flags.store);
  // For a kv: or http(s) store, the folder probed is where its landed luggage goes.
  const report: Record<string, unknown> = {
    ready: false,
    store: name,
    ...(dir === name ? {} : { luggage_dir: dir }),
  };
  try {
    await mkdir(dir, { recursive: true });
    const probe = join(dir, `.doctor-${pid}`);
    const handle = await openFile(probe, "wx");
    await handle.close();
    await rm(probe);
    const listing = await store.list();
    Object.assign(report, {
      ready: true,
      passport_count: listing.passports.length,
      problems: listing.problems,
    });
  } catch (error) {
    report.error = (error as Error).message;
  }
  if (flags.json) io.out(JSON.stringify(report) + "\n");
  else if (report.ready) {
    io.out(`store ${name}: ready, ${String(report.passport_count)} passport(s)\n`);
    for (const p of report.problems as { entry: string; reason: string }[]) {
      io.out(`  unreadable ${p.entry}: ${p.reason}\n`);
    }
  } else io.out(`store ${name}: NOT usable: ${String(report.error)}\n`);
  return report.ready ? EXIT.ok : EXIT.usage;
}
