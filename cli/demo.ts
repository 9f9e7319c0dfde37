// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack demo [--dir <folder>]`: the whole cycle on a sample task, for a first look. Builds a
 * task, packs it in both encodings, judges both, converts each into the other (byte for byte)
 * and shows what landing it on another machine would do — without touching any store.
 *
 * @module
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesEqual, luggageFromBytes } from "../lib/bytes/mod.ts";
import {
  buildPackObject,
  encodeBag,
  encodeFlat,
  judge,
  land,
  mintPassportId,
  type PassportState,
  planLanding,
  preparePack,
} from "../lib/format/mod.ts";
import { writeFileAtomic } from "../shell/host/files.ts";
import { nativeDigests } from "../shell/host/node_digests.ts";
import { EXIT, formatBytes, type Io } from "./io.ts";

const SAMPLE: PassportState = {
  id: "TP-9CB7-J5MK",
  version: 2,
  title: "release plugin",
  goal: "ship the plugin tonight",
  current_state: "Build is green on CI; release notes drafted; cover image missing.",
  facts: [
    {
      claim: "customer wants the release before Friday",
      scope: "universal",
      verified: true,
      source: "email",
    },
    { claim: "plugin ids are kebab-case", scope: "org", verified: true },
    { claim: "node 20 is installed at /usr/bin/node", scope: "machine", verified: true },
    { claim: "port 8080 is free", verified: true },
  ],
  decisions: [{ what: "ship without the dark theme", why: "not ready, low demand" }],
  artifacts: ["git https://example.invalid/plugin.git@19672b5 docs/release.md"],
  next_steps: ["generate cover image", "publish to registry"],
};

/**
 * Runs the demo.
 *
 * @param dir Where to write the sample packs (a new temporary folder when omitted).
 * @param io Output.
 * @returns The exit code.
 */
export async function runDemo(dir: string | undefined, io: Io): Promise<number> {
  const folder = dir ?? await mkdtemp(join(tmpdir(), "taskpack-demo-"));
  const say = (text = "") => io.out(text + "\n");
  const digests = nativeDigests;

  say(
    '1. A task in progress on machine "alice-laptop": 4 facts, 2 of them machine-scoped and marked ✓.',
  );
  const pack = buildPackObject(SAMPLE, {
    packedAt: new Date(),
    machine: "alice-laptop",
    actor: "alice",
    note: "please finish the release",
    asks: [{
      what: "cover image prompt",
      why: "we render it here",
      accept: "one prompt that covers 750x400 and the palette",
    }],
    landingChecks: [{ check: "this machine can render images", how: "run the image tool once" }],
  });
  const ready = await preparePack(pack, [
    luggageFromBytes("brief.txt", "Release brief\n中文 行李 ✓\n"),
    luggageFromBytes("notes/deep/n.md", "nested note\n"),
  ], { digests });
  say(
    `   Packing sealed ${ready.repairs.length} fact(s): they leave as "re-verify", not ✓ (spec §4.2).`,
  );

  const bagPath = join(folder, "release.taskpack");
  const flatPath = join(folder, "release.taskpack.json");
  await writeFileAtomic(bagPath, encodeBag(ready, { digests }));
  await writeFileAtomic(flatPath, await encodeFlat(ready));
  const bag = new Uint8Array(await readFile(bagPath));
  const flat = new Uint8Array(await readFile(flatPath));
  say();
  say("2. Packed in both encodings:");
  say(`   ${bagPath}  ${formatBytes(bag.length)}  (ZIP + BagIt, canonical)`);
  say(`   ${flatPath}  ${formatBytes(flat.length)}  (one JSON file any AI can open)`);

  say();
  say("3. Judged strictly (C0-C10, spec §6):");
  for (const [path, bytes] of [[bagPath, bag], [flatPath, flat]] as const) {
    const report = await judge(bytes, { digests });
    say(
      `   ${path}: ${
        report.ok ? "conformant" : "NOT conformant"
      } ${report.passed}/${report.total}, digest sha256:${report.digest}`,
    );
  }

  say();
  say("4. Converted each into the other:");
  const landedFlat = await land(flat, { digests });
  const fromFlat = await preparePack(landedFlat.object, landedFlat.luggage, { digests });
  const rebuiltBag = new Uint8Array(
    await new Response(encodeBag(fromFlat, { digests })).arrayBuffer(),
  );
  say(
    `   flat -> bag: ${
      bytesEqual(rebuiltBag, bag) ? "byte-identical to the packed .taskpack" : "DIFFERENT"
    }`,
  );
  const landedBag = await land(bag, { digests });
  const rebuiltFlat = await encodeFlat(
    await preparePack(landedBag.object, landedBag.luggage, { digests }),
  );
  say(
    `   bag -> flat: ${
      rebuiltFlat === new TextDecoder().decode(flat)
        ? "byte-identical to the packed .taskpack.json"
        : "DIFFERENT"
    }`,
  );

  say();
  say("5. What landing it on bob's machine would do (dry run, nothing saved):");
  const newId = mintPassportId((n) => crypto.getRandomValues(new Uint8Array(n)));
  const plan = planLanding(landedBag.object, { newId, machine: "bob-desktop" });
  say(`   a NEW passport ${newId}; the sender's ${SAMPLE.id}@${SAMPLE.version} is kept as lineage`);
  say(`   next steps, in order (landing checks first, §4.4):`);
  plan.state.next_steps!.forEach((step, i) => say(`     ${i + 1}. ${step}`));
  return EXIT.ok;
}
