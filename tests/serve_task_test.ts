// Copyright 2026 the taskpack authors. MIT license.
// `deno task serve` as written in deno.json: started for real, it answers on loopback and on
// no other address of this machine. (A file of its own, beside serve_test.ts.)
import assert from "node:assert/strict";

/** This machine's IPv4 addresses other than loopback (none on a machine without a network). */
function outsideAddresses(): string[] {
  return Deno.networkInterfaces()
    .filter((i) => i.family === "IPv4" && !i.address.startsWith("127."))
    .map((i) => i.address);
}

async function reachable(hostname: string, port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname, port })).close();
    return true;
  } catch {
    return false;
  }
}

Deno.test("`deno task serve` answers on 127.0.0.1 and on no other address", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const words: string[] = config.tasks.serve.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "serve"], config.tasks.serve);
  // The task exactly as written, plus a free port (deno task would hand a flag to the script).
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["serve", "--port", String(port), ...words.slice(2)],
    cwd: new URL("../", import.meta.url),
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    let up = false;
    for (let i = 0; i < 100 && !up; i++) {
      up = await reachable("127.0.0.1", port);
      if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(up, "listening on 127.0.0.1");
    for (const address of outsideAddresses()) {
      assert.equal(await reachable(address, port), false, `not reachable on ${address}`);
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
});
