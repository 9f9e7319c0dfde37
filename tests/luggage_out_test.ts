// Copyright 2026 the taskpack authors. MIT license.
// Landing luggage: files staged early (as each passes its checks) stay out of sight until the
// whole pack has passed, the rest is written at the end, and a refusal found after thousands
// of files were staged leaves no folder, no staging folder and no passport behind.
import assert from "node:assert/strict";
import { luggageOut } from "../app/luggage_out.ts";
import { MANY_SMALL_FILES } from "../app/codecs.ts";
import { luggageFromBytes } from "../mod.ts";
import { auditLuggage, decodePack, type ReadLuggage } from "../lib/format/read.ts";
import { bagParts, baseObject, forgeBag } from "../tools/make_hostile_corpus.ts";
import { tokens } from "./_hostile_generated.ts";
import { cli } from "./_cli.ts";
import { inTempDir } from "./_helpers.ts";

const named = (name: string, bytes: Uint8Array | string): ReadLuggage => ({
  ...luggageFromBytes(name, bytes),
  declaredSha256: null,
});

Deno.test("the audit hands on only the files that passed their own checks, with their bytes", async () => {
  const token = tokens().find((t) => t.kind === "aws-access-key")!.token;
  const encode = (text: string) => new TextEncoder().encode(text);
  const huge = new Uint8Array((1 << 20) + 1).fill(0x61);
  const parts = bagParts({
    luggage: [
      ["a.txt", encode("fine\n")],
      ["key.txt", encode(`KEY=${token}\n`)],
      ["swapped.txt", encode("declared\n")],
      ["huge.txt", huge],
      ["b/c.txt", encode("also fine\n")],
    ],
  }, await baseObject());
  // The bytes in the archive differ from those the manifest declares (the CRC matches them).
  parts.find((part) => part.name === "data/files/swapped.txt")!.bytes = encode("swapped!\n");
  const decoded = await decodePack(forgeBag(parts));
  const told: [string, string][] = [];
  const audits = await auditLuggage(decoded, {
    onChecked(file, bytes) {
      told.push([file.name, new TextDecoder().decode(bytes)]);
    },
  });
  assert.deepEqual(audits.map((a) => [a.name, a.finding?.rule ?? a.error?.code ?? null]), [
    ["a.txt", null],
    ["key.txt", "credential"],
    ["swapped.txt", "bag-digest"],
    ["huge.txt", null],
    ["b/c.txt", null],
  ]);
  // The huge file is streamed, not read whole: it is left to the caller to write.
  assert.deepEqual(told, [["a.txt", "fine\n"], ["b/c.txt", "also fine\n"]]);
});

Deno.test("files staged as they pass their checks appear only when the landing finishes", async () => {
  await inTempDir(async (dir) => {
    const big = new Uint8Array(200_000).map((_, i) => i % 251);
    const luggage = [
      ...Array.from({ length: 600 }, (_, i) => named(`d${i % 5}/f${i}.txt`, `file ${i}\n`)),
      named("big/blob.bin", big),
      named("late.txt", "never staged\n"),
    ];
    const out = await luggageOut(`${dir}/out`, { early: true });
    assert.ok(out.onChecked, "early staging needs a worker (Deno has one)");
    // As land would: every small file read whole, in order; the last one is left to finish.
    for (const file of luggage.slice(0, -1)) await out.onChecked(file, await file.read!());
    const seen = [...Deno.readDirSync(dir)].map((entry) => entry.name);
    assert.equal(seen.length, 1);
    assert.match(seen[0]!, /^\.out\.landing-/);

    await out.finish(luggage);
    assert.deepEqual([...Deno.readDirSync(dir)].map((entry) => entry.name), ["out"]);
    for (const file of luggage) {
      assert.deepEqual(
        await Deno.readFile(`${dir}/out/${file.name}`),
        await file.read!(),
        file.name,
      );
    }
  });
});

Deno.test("aborting after files were staged removes them all, and the folders made for them", async () => {
  await inTempDir(async (dir) => {
    const out = await luggageOut(`${dir}/new/store/out`, { early: true });
    for (let i = 0; i < 1500; i++) {
      const file = named(`d${i % 7}/f${i}.txt`, `file ${i}\n`);
      await out.onChecked!(file, await file.read!());
    }
    await out.abort();
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  });
});

Deno.test("a landing target that exists and is not an empty folder is refused before anything is staged", async () => {
  await inTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/full`);
    await Deno.writeTextFile(`${dir}/full/keep.txt`, "mine");
    await Deno.writeTextFile(`${dir}/file`, "mine");
    await Deno.mkdir(`${dir}/empty`);
    await Deno.symlink(`${dir}/empty`, `${dir}/link`);
    await assert.rejects(luggageOut(`${dir}/full`, { early: true }), /not empty/);
    await assert.rejects(luggageOut(`${dir}/file`, { early: true }), /exists/);
    await assert.rejects(luggageOut(`${dir}/link`, { early: true }), /exists/);
    assert.deepEqual([...Deno.readDirSync(dir)].map((entry) => entry.name).sort(), [
      "empty",
      "file",
      "full",
      "link",
    ]);
    assert.deepEqual([...Deno.readDirSync(`${dir}/full`)].map((entry) => entry.name), ["keep.txt"]);
  });
});

Deno.test("an empty folder takes the luggage, under the names given, and undo empties it again", async () => {
  await inTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/out`, { mode: 0o751 });
    const luggage = Array.from({ length: 40 }, (_, i) => named(`d${i % 3}/f${i}.txt`, `${i}\n`));
    const out = await luggageOut(`${dir}/out`, { early: true });
    for (const file of luggage.slice(0, 20)) {
      await out.onChecked!(file, await file.read!(), file.name.replace("f", "g"));
    }
    const renamed = luggage.slice(20).map((f) => ({
      original: f.name,
      landed: f.name.replace("f", "h"),
      reason: "test",
    }));
    await out.finish(luggage, renamed);
    assert.deepEqual([...Deno.readDirSync(dir)].map((entry) => entry.name), ["out"]);
    assert.equal((await Deno.stat(`${dir}/out`)).mode! & 0o777, 0o751);
    for (const [i, file] of luggage.entries()) {
      const landed = file.name.replace("f", i < 20 ? "g" : "h");
      assert.deepEqual(await Deno.readFile(`${dir}/out/${landed}`), await file.read!(), landed);
    }
    await out.undo();
    assert.deepEqual([...Deno.readDirSync(`${dir}/out`)], []);
  });
});

Deno.test("the CLI refuses a pack whose last of thousands of files carries a credential, and leaves nothing behind", async () => {
  await inTempDir(async (dir) => {
    const token = tokens().find((t) => t.kind === "github-token")!.token;
    const encode = (text: string) => new TextEncoder().encode(text);
    const luggage: [string, Uint8Array][] = Array.from(
      { length: MANY_SMALL_FILES + 20 },
      (_, i) => [`d${i % 9}/f${i}.txt`, encode(`ordinary line ${i}\n`)],
    );
    luggage.push(["z/.env", encode(`TOKEN=${token}\n`)]);
    /** Forges a bag of the luggage as it is now, and lands it into the same store and folder. */
    const landIt = async (name: string) => {
      const pack = `${dir}/${name}.taskpack`;
      await Deno.writeFile(pack, forgeBag(bagParts({ luggage }, await baseObject())));
      return await cli(
        ["land", pack, "--store", `${dir}/home`, "--files-out", `${dir}/home/out`, "--json"],
        { cwd: dir },
      );
    };

    const landed = await landIt("p");
    assert.equal(landed.code, 2, landed.stderr);
    assert.match(landed.stderr, /credential/);
    assert.match(landed.stderr, /data\/files\/z\/\.env/);
    // No luggage, no staging folder, no passport, not even the store's folder, made for it.
    assert.deepEqual([...Deno.readDirSync(dir)].map((entry) => entry.name).sort(), [
      "p.taskpack",
    ]);

    // The same pack without the credential lands every file.
    luggage.pop();
    const good = await landIt("q");
    assert.equal(good.code, 0, good.stderr);
    // The store's folder, made by the landing, is as private as the store makes it.
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(`${dir}/home`)).mode! & 0o777, 0o700);
    }
    for (const [name, bytes] of [luggage[0]!, luggage.at(-1)!]) {
      assert.deepEqual(await Deno.readFile(`${dir}/home/out/${name}`), bytes, name);
    }
  });
});

Deno.test("the CLI lands a large pack's deflated luggage byte for byte, and refuses it with one flipped byte, leaving nothing behind", async () => {
  await inTempDir(async (dir) => {
    // Over 8 MiB in all, so that the CLI reads with the runtime's inflater, and log.txt over
    // 256 KiB deflated, so that it is inflated step by step rather than in one call.
    const noise = new Uint8Array(9 << 20);
    for (let i = 0; i < noise.length; i += 65_536) {
      crypto.getRandomValues(noise.subarray(i, i + 65_536));
    }
    const log = new TextEncoder().encode(
      Array.from({ length: 100_000 }, (_, i) => `${i} GET /v1/items/${i * 7919 % 10_007} 200\n`)
        .join(""),
    );
    await Deno.mkdir(`${dir}/work`);
    await Deno.writeFile(`${dir}/work/noise.bin`, noise);
    await Deno.writeFile(`${dir}/work/log.txt`, log);
    const made = await cli(
      ["new", "--title", "t", "--goal", "g", "--store", `${dir}/a`, "--json"],
      { cwd: dir },
    );
    const id = made.json().passport_id;
    const packed = await cli(
      ["pack", id, "--store", `${dir}/a`, "--out", `${dir}/p.taskpack`, "--file", `${dir}/work`],
      { cwd: dir },
    );
    assert.equal(packed.code, 0, packed.stderr);

    const landed = await cli(
      ["land", `${dir}/p.taskpack`, "--store", `${dir}/b`, "--files-out", `${dir}/out`, "--json"],
      { cwd: dir },
    );
    assert.equal(landed.code, 0, landed.stderr);
    assert.deepEqual(await Deno.readFile(`${dir}/out/work/log.txt`), log);
    assert.deepEqual(await Deno.readFile(`${dir}/out/work/noise.bin`), noise);

    // One byte flipped inside log.txt's deflated data (after its local header).
    const pack = await Deno.readFile(`${dir}/p.taskpack`);
    const name = new TextEncoder().encode("data/files/work/log.txt");
    let at = -1;
    for (let i = 0; i + 30 + name.length <= pack.length && at < 0; i++) {
      if (
        pack[i] === 0x50 && pack[i + 1] === 0x4b && pack[i + 2] === 3 && pack[i + 3] === 4 &&
        pack.subarray(i + 30, i + 30 + name.length).every((b, k) => b === name[k])
      ) at = i;
    }
    assert.ok(at >= 0, "log.txt's local header");
    const view = new DataView(pack.buffer, pack.byteOffset);
    assert.equal(view.getUint16(at + 8, true), 8, "log.txt is deflated");
    const data = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    pack[data + 50_000]! ^= 0x55;
    await Deno.writeFile(`${dir}/bad.taskpack`, pack);
    const refused = await cli(
      ["land", `${dir}/bad.taskpack`, "--store", `${dir}/c`, "--files-out", `${dir}/bad-out`],
      { cwd: dir },
    );
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /data\/files\/work\/log\.txt/);
    assert.equal(await Deno.stat(`${dir}/bad-out`).catch(() => null), null);
    assert.equal(await Deno.stat(`${dir}/c`).catch(() => null), null);
    const judged = await cli(["conformance", `${dir}/bad.taskpack`, "--json"], { cwd: dir });
    assert.equal(judged.json().ok, false);
  });
});
