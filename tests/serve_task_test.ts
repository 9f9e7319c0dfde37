// Copyright 2026 the taskpack authors. MIT license.
// `deno task serve` and `taskpack serve`, started for real: the task honours --port, answers on
// loopback, and the kernel's table of listening sockets shows it bound to 127.0.0.1 alone (no
// connection is tried to any other address: tests send traffic to loopback only); a port
// already taken is one sentence, for `serve` and `serve-home` alike.
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";
import { tempDir } from "./_helpers.ts";

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

/** A port nothing listens on now (the kernel's pick, released). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function waitUntilReachable(port: number): Promise<void> {
  // A minute: from an empty cache, the task fetches the CLI's npm packages first.
  for (let i = 0; i < 600; i++) {
    if (await reachable(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`nothing answered on 127.0.0.1:${port} within a minute`);
}

Deno.test({
  name:
    "`deno task serve --port <n>` binds that port on 127.0.0.1 alone and serves judge and viewer",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const port = freePort();
    // The task exactly as a person types it: deno task hands --port to `taskpack serve`.
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "serve", "--port", String(port)],
      cwd: new URL("../", import.meta.url),
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "null",
    }).spawn();
    try {
      await waitUntilReachable(port);
      // 0100007F is 127.0.0.1 as /proc/net/tcp writes it (little-endian hex).
      assert.deepEqual(listeningAddresses(port), ["0100007F"]);
      const page = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<title>[^<]*TaskPack/i);
      const report = await fetch(`http://127.0.0.1:${port}/conformance`, {
        method: "POST",
        body: "not a pack",
      });
      assert.equal(report.status, 400);
      assert.equal((await report.json()).ok, false);
      const card = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
      assert.equal(card.status, 200);
      await card.body?.cancel();
    } finally {
      child.kill("SIGTERM");
      const { code } = await child.status;
      const said = new TextDecoder().decode(await new Response(child.stdout).arrayBuffer());
      assert.equal(
        said,
        `taskpack judge: serving the judge and the viewer at http://127.0.0.1:${port}/ (Ctrl-C to stop)\n`,
      );
      assert.equal(code, 0, "SIGTERM stops it cleanly");
    }
  },
});

for (const verb of ["serve", "serve-home"]) {
  Deno.test(`taskpack ${verb} on a port already taken says so in one line, no stack trace`, async () => {
    const cwd = await tempDir();
    const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const port = (taken.addr as Deno.NetAddr).port;
      const store = verb === "serve-home" ? ["--store", `${cwd}/store`] : [];
      const result = await cli([verb, ...store, "--port", String(port)], { cwd });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(
        result.stderr,
        `taskpack: port ${port} on 127.0.0.1 is in use; pick another with --port\n`,
      );
      assert.equal(result.stdout, "");
    } finally {
      taken.close();
    }
  });
}

Deno.test("taskpack serve refuses a --port that is not a port, in one sentence", async () => {
  const cwd = await tempDir();
  const result = await cli(["serve", "--port", "eighty"], { cwd });
  assert.equal(result.code, 1);
  assert.equal(
    result.stderr,
    'taskpack: --port needs a port number from 0 to 65535, got "eighty" (see --help)\n',
  );
});
