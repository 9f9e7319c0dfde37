// Copyright 2026 the taskpack authors. MIT license.
// `deno task serve` as written in deno.json: started for real, it answers on loopback, and the
// kernel's table of listening sockets shows it bound to 127.0.0.1 alone. (No connection is
// tried to any other address: tests send traffic to loopback only.)
import assert from "node:assert/strict";

async function reachable(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}

/** The local addresses of the TCP sockets listening on `port` (Linux: /proc/net/tcp, tcp6). */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = Deno.readTextFileSync(table);
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [address, hexPort] = (fields[1] ?? "").split(":");
      // State 0A is LISTEN.
      if (fields[3] === "0A" && hexPort !== undefined && parseInt(hexPort, 16) === port) {
        found.push(address!);
      }
    }
  }
  return found;
}

Deno.test({
  name: "`deno task serve` listens on 127.0.0.1 and on no other address",
  ignore: Deno.build.os !== "linux",
  async fn() {
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
        up = await reachable(port);
        if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(up, "listening on 127.0.0.1");
      // 0100007F is 127.0.0.1 as /proc/net/tcp writes it (little-endian hex).
      assert.deepEqual(listeningAddresses(port), ["0100007F"]);
    } finally {
      child.kill("SIGTERM");
      await child.status;
    }
  },
});
