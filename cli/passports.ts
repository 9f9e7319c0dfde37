// Copyright 2026 the taskpack authors. MIT license.
/**
 * The passport verbs: `new`, `list`, `open`, `prompt`, `checkpoint`, `answer`, `doctor`: the
 * command line over the operations of `app/`, as text or, with `--json`, the operation's reply.
 *
 * @module
 */
import { mkdir, open as openFile, rm, stat } from "../shell/host/host_fs.ts";
import { pid } from "../shell/host/host_process.ts";
import { join } from "../shell/host/host_path.ts";
import { handoffPrompt, type PassportStore } from "../lib/home/mod.ts";
import {
  answerPassportAsk,
  checkpointPassport,
  createPassport,
  listPassports,
  openPassport,
  openStore,
  openWorkplace,
  requirePassport,
  type Workplace,
} from "../app/mod.ts";
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
  /** `doctor --compare`: another store to compare with. */
  compare?: string | undefined;
}

/**
 * The workplace a verb runs in, from its flags; side notes go to standard error.
 *
 * @param flags The store, machine and actor flags, and `--json`.
 * @param io Where notes go.
 * @returns The workplace.
 */
export async function workplaceFor(
  flags: {
    json: boolean;
    store?: string | undefined;
    machine?: string | undefined;
    actor?: string | undefined;
  },
  io: Io,
  limits = {},
): Promise<Workplace> {
  return await openWorkplace({
    store: flags.store,
    machine: flags.machine,
    actor: flags.actor,
    limits,
    note: (line) => io.err(`${line}\n`),
    showProgress: !flags.json,
  });
}

/** `new --title <t> --goal <g> [--current-state ..] [--next-step ..]...` */
export async function runNew(flags: PassportFlags, io: Io): Promise<number> {
  if (!flags.title) throw new UsageError("new needs --title <text>");
  if (!flags.goal) throw new UsageError("new needs --goal <text>");
  const reply = await createPassport(await workplaceFor(flags, io), {
    title: flags.title,
    goal: flags.goal,
    currentState: flags["current-state"],
    nextSteps: flags["next-step"],
  });
  if (flags.json) io.out(JSON.stringify(reply) + "\n");
  else {
    io.out(`created ${reply.passport_id} (version ${reply.state_version}): ${reply.state.title}\n`);
  }
  return EXIT.ok;
}

/** `list` */
export async function runList(flags: PassportFlags, io: Io): Promise<number> {
  const work = await workplaceFor(flags, io);
  const listing = await listPassports(work);
  for (const problem of listing.problems) io.err(`skipped ${problem.entry}: ${problem.reason}\n`);
  if (flags.json) {
    io.out(JSON.stringify(listing) + "\n");
    return EXIT.ok;
  }
  if (!listing.passports.length) io.out(`no passports in ${work.storeName}\n`);
  for (const p of listing.passports) {
    io.out(`${p.passport_id}  v${p.state_version}  ${p.updated_at}  ${p.title}\n`);
  }
  return EXIT.ok;
}

/** `open <id>`: the state and a compiled context for a receiving model. */
export async function runOpen(
  id: string | undefined,
  flags: PassportFlags,
  io: Io,
): Promise<number> {
  const reply = await openPassport(await workplaceFor(flags, io), id ?? "");
  io.out(flags.json ? JSON.stringify(reply) + "\n" : String(reply.compiled_context));
  return EXIT.ok;
}

/** `prompt <id>`: the one-line handoff prompt. */
export async function runPrompt(
  id: string | undefined,
  flags: PassportFlags,
  io: Io,
): Promise<number> {
  const state = await requirePassport(await workplaceFor(flags, io), id);
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
  const saved = await checkpointPassport(await workplaceFor(flags, io), state, expected);
  if (flags.json) io.out(JSON.stringify(saved) + "\n");
  else io.out(`saved ${saved.passport_id} version ${saved.state_version}\n`);
  return EXIT.ok;
}

/** `answer <id> <ask-id> --text <answer>` */
export async function runAnswer(
  positionals: string[],
  flags: PassportFlags,
  io: Io,
): Promise<number> {
  const [id, askId] = positionals;
  if (!id || !askId || positionals.length !== 2) {
    throw new UsageError("Expected: taskpack answer <id> <ask-id> --text <answer>");
  }
  if (!flags.text) throw new UsageError("answer needs --text <answer>");
  const saved = await answerPassportAsk(await workplaceFor(flags, io), id, askId, flags.text);
  if (flags.json) io.out(JSON.stringify(saved) + "\n");
  else io.out(`answered ${askId} on ${saved.passport_id} (version ${saved.state_version})\n`);
  return EXIT.ok;
}

/** `doctor`: is the store usable? It examines; it never makes the store it is asked about. */
export async function runDoctor(flags: PassportFlags, io: Io): Promise<number> {
  const { store, dir, name } = await openStore(flags.store);
  // For a kv: or http(s) store, the folder probed is where its landed luggage goes.
  const report: Record<string, unknown> = {
    ready: false,
    store: name,
    ...(dir === name ? {} : { luggage_dir: dir }),
  };
  try {
    if (dir === name) {
      const info = await stat(dir).catch(() => null);
      if (!info) {
        throw new Error(
          `the folder ${dir} does not exist (taskpack new makes it, or mkdir it yourself)`,
        );
      }
    } else await mkdir(dir, { recursive: true });
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
  let differences: { id: string; what: string }[] | null = null;
  let other = "";
  if (report.ready && flags.compare !== undefined) {
    const compared = await openStore(flags.compare);
    other = compared.name;
    differences = await compareStores(store, compared.store);
    Object.assign(report, { compared_with: other, same: !differences.length, differences });
  }
  if (flags.json) io.out(JSON.stringify(report) + "\n");
  else if (report.ready) {
    io.out(`store ${name}: ready, ${String(report.passport_count)} passport(s)\n`);
    for (const p of report.problems as { entry: string; reason: string }[]) {
      io.out(`  unreadable ${p.entry}: ${p.reason}\n`);
    }
    if (differences && !differences.length) {
      io.out(`store ${other}: the same passports, record for record\n`);
    } else if (differences) {
      io.out(`store ${other}: ${differences.length} difference(s):\n`);
      for (const d of differences) io.out(`  ${d.id}: ${d.what}\n`);
    }
  } else io.out(`store ${name}: NOT usable: ${String(report.error)}\n`);
  if (!report.ready) return EXIT.usage;
  return differences?.length ? EXIT.refused : EXIT.ok;
}

/** What differs between two stores, passport by passport (their canonical JSON compared). */
async function compareStores(
  a: PassportStore,
  b: PassportStore,
): Promise<{ id: string; what: string }[]> {
  const [left, right] = await Promise.all([a.list(), b.list()]);
  const ids = new Set([...left.passports, ...right.passports].map((p) => p.id));
  const differences: { id: string; what: string }[] = [];
  for (const id of [...ids].sort()) {
    const [x, y] = await Promise.all([a.open(id), b.open(id)]);
    if (!x) differences.push({ id, what: "only in the store compared with" });
    else if (!y) differences.push({ id, what: "missing from the store compared with" });
    else if (JSON.stringify(x) !== JSON.stringify(y)) {
      differences.push({ id, what: `differs (version ${x.version} and ${y.version})` });
    }
  }
  return differences;
}
