// Copyright 2026 the taskpack authors. MIT license.
// The runtime matrix's "no deno on PATH": every other program stays reachable, even where deno
// shares a folder with sh and node (as `npm install -g deno` leaves it in /usr/bin).
import assert from "node:assert/strict";
import { pathWithout } from "../tools/_tools.ts";
import { inTempDir } from "./_helpers.ts";

Deno.test("pathWithout keeps every program but the one left out, first of each name", async () => {
  await inTempDir(async (dir) => {
    const program = async (path: string, text: string) => {
      await Deno.writeTextFile(path, `#!/bin/sh\necho ${text}\n`);
      await Deno.chmod(path, 0o755);
    };
    await Deno.mkdir(`${dir}/usr-bin`);
    await Deno.mkdir(`${dir}/later`);
    await Deno.mkdir(`${dir}/links`);
    await program(`${dir}/usr-bin/deno`, "deno");
    await program(`${dir}/usr-bin/node`, "first");
    await program(`${dir}/later/node`, "second");
    await program(`${dir}/later/npm`, "npm");
    await Deno.writeTextFile(`${dir}/later/README`, "not a program");
    const path = await pathWithout(
      "deno",
      `${dir}/links`,
      [`${dir}/usr-bin`, `${dir}/missing`, `${dir}/later`].join(":"),
    );
    assert.equal(path, `${dir}/links`);
    assert.deepEqual([...Deno.readDirSync(`${dir}/links`)].map((e) => e.name).sort(), [
      "node",
      "npm",
    ]);
    assert.equal(Deno.realPathSync(`${dir}/links/node`), `${dir}/usr-bin/node`);
    const sh = await new Deno.Command("/bin/sh", {
      args: ["-c", "command -v deno; node"],
      env: { PATH: path },
      clearEnv: true,
      stdout: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(sh.stdout), "first\n");
  });
});
