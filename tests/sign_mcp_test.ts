// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- tool results are checked field by field
// Signatures over MCP: `taskpack_pack` signs only with the key the server was started with
// (`--sign-key`), `taskpack_land` reports the signer, and requiring signatures is the server's
// setting (`--require-signed`), never a model's argument. Each server is `taskpack mcp` over
// stdio, spawned as a user would, with a key made by ssh-keygen at test time.
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { tempDir } from "./_helpers.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

async function keygen(path: string): Promise<string> {
  const made = await new Deno.Command("ssh-keygen", {
    args: ["-t", "ed25519", "-N", "", "-q", "-C", "test", "-f", path],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(made.code, 0, new TextDecoder().decode(made.stderr));
  return (await Deno.readTextFile(`${path}.pub`)).trim();
}

async function server(cwd: string, name: string, flags: string[]) {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", CLI, "mcp", "--store", `${cwd}/${name}-store`, "--actor", name, ...flags],
    cwd,
    env: {
      ...Deno.env.toObject(),
      NO_COLOR: "1",
      // No trust list but the one named, no key but the one named, no agent.
      HOME: `${cwd}/${name}-home`,
      XDG_CONFIG_HOME: `${cwd}/${name}-config`,
      GIT_CONFIG_GLOBAL: `${cwd}/${name}-gitconfig`,
      GIT_CONFIG_NOSYSTEM: "1",
      SSH_AUTH_SOCK: "",
      TASKPACK_REQUIRE_SIGNED: "",
      DENO_DIR: Deno.env.get("DENO_DIR") ??
        `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`,
    },
    stderr: "pipe",
  });
  const client = new Client({ name: `test-${name}`, version: "1.0.0" });
  await client.connect(transport);
  const raw = (tool: string, args: Record<string, unknown>): Promise<any> =>
    client.callTool({ name: tool, arguments: args });
  return {
    raw,
    async call(tool: string, args: Record<string, unknown>): Promise<any> {
      const result = await raw(tool, args);
      assert.ok(!result.isError, `${tool}: ${result.content?.[0]?.text}`);
      return result.structuredContent;
    },
    close: () => client.close(),
  };
}

Deno.test("mcp: taskpack_pack signs with the server's key when asked; taskpack_land reports the signer; --require-signed is the server's, not the model's", async () => {
  const dir = await tempDir();
  const pub = await keygen(`${dir}/alice-key`);
  await Deno.writeTextFile(`${dir}/trusted`, `alice@example.com ${pub}\n`);
  const alice = await server(dir, "alice", ["--sign-key", `${dir}/alice-key`]);
  const bob = await server(dir, "bob", ["--require-signed", "--allowed-signers", "trusted"]);
  const plain = await server(dir, "carol", []);
  try {
    const { passport_id } = await alice.call("taskpack_new", { title: "t", goal: "g" });
    const packed = await alice.call("taskpack_pack", {
      id: passport_id,
      out: `${dir}/h.taskpack`,
      sign: true,
    });
    assert.equal(packed.signature, `${dir}/h.taskpack.sig`);
    assert.equal(packed.signed_by.key_type, "ED25519");

    const landed = await bob.call("taskpack_land", { path: `${dir}/h.taskpack` });
    assert.equal(landed.signature.status, "signed");
    assert.equal(landed.signature.principal, "alice@example.com");
    const result = await bob.raw("taskpack_land", { path: `${dir}/h.taskpack` });
    assert.match(result.content[0].text, /signed by alice@example\.com \(ED25519 SHA256:/);

    // Unsigned: Bob's server refuses it; Carol's (no setting) lands it, saying so.
    await alice.call("taskpack_pack", { id: passport_id, out: `${dir}/u.taskpack` });
    const refused = await bob.raw("taskpack_land", { path: `${dir}/u.taskpack` });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /is unsigned and signatures are required/);
    const unsigned = await plain.call("taskpack_land", { path: `${dir}/u.taskpack` });
    assert.deepEqual(unsigned.signature, { status: "unsigned" });

    // A model cannot lift the requirement, nor name a key.
    for (const args of [{ require_signed: false }, { allowed_signers: `${dir}/trusted` }]) {
      const lifted = await bob.raw("taskpack_land", { path: `${dir}/u.taskpack`, ...args });
      assert.equal(lifted.isError, true, JSON.stringify(args));
    }
    const keyed = await plain.raw("taskpack_pack", {
      id: unsigned.passport_id,
      out: `${dir}/k.taskpack`,
      key: `${dir}/alice-key`,
    });
    assert.equal(keyed.isError, true);
    // A server started without a key signs nothing, and says so before writing.
    const noKey = await plain.raw("taskpack_pack", {
      id: unsigned.passport_id,
      out: `${dir}/n.taskpack`,
      sign: true,
    });
    assert.equal(noKey.isError, true);
    assert.match(noKey.content[0].text, /This server signs no packs/);
    await assert.rejects(Deno.stat(`${dir}/n.taskpack`), Deno.errors.NotFound);
  } finally {
    await alice.close();
    await bob.close();
    await plain.close();
  }
});
