// Copyright 2026 the taskpack authors. MIT license.
// MCP as the clients agents use see it: the v1 SDK's client (the one MCP Inspector bundles)
// validates every tool result's structured content against the tool's declared output schema,
// errors included. Each refusal must reach the model as our one sentence, over stdio and over
// Streamable HTTP, never as a schema complaint.
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { startCliServer } from "./_cli.ts";
import { tempDir } from "./_helpers.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;
const REFERENCE = new URL("../testdata/interop/reference-0.3.0/", import.meta.url).pathname;

type Door = { client: Client; close(): Promise<void> };

function environment(): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.TASKPACK_STORE;
  return { ...env, NO_COLOR: "1" };
}

async function overStdio(store: string): Promise<Door> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "-A", CLI, "mcp", "--store", store, "--machine", "m", "--actor", "a"],
    env: environment(),
    stderr: "pipe",
  });
  const client = new Client({ name: "validating", version: "1.0.0" });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

async function overHttp(store: string): Promise<Door> {
  const server = await startCliServer(
    ["mcp", "--http", "--port", "0", "--json", "--store", store],
    environment(),
  );
  const client = new Client({ name: "validating", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return {
    client,
    async close() {
      await client.close();
      await server.stop();
    },
  };
}

/** The text of an error result, after the client validated it (a schema failure throws). */
async function refusal(door: Door, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await door.client.callTool({ name, arguments: args });
  assert.equal(result.isError, true, `${name} should refuse: ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined, "a refusal carries no structured content");
  const content = result.content as { type: string; text: string }[];
  assert.equal(content.length, 1);
  const text = content[0]!.text;
  assert.doesNotMatch(text, /output schema|Structured content|validation/i, text);
  assert.ok(!text.includes("\n"), `one sentence: ${text}`);
  return text;
}

for (const [label, open] of [["stdio", overStdio], ["Streamable HTTP", overHttp]] as const) {
  Deno.test(`a validating v1 client reads our sentence for every refusal (${label})`, async () => {
    const dir = await tempDir();
    const door = await open(`${dir}/store`);
    try {
      // The client caches every output schema here, and checks each result against it.
      const { tools } = await door.client.listTools();
      assert.ok(
        tools.every((t: { outputSchema?: unknown }) => t.outputSchema),
        "every tool declares its output",
      );
      const created = await door.client.callTool({
        name: "taskpack_new",
        arguments: { title: "t", goal: "g" },
      });
      assert.ok(!created.isError, JSON.stringify(created));
      const id = (created.structuredContent as { passport_id: string }).passport_id;

      assert.match(
        await refusal(door, "taskpack_open", { id: "TP-2222-3333" }),
        /^No passport TP-2222-3333 in the store .+store \(taskpack list/,
      );
      assert.match(
        await refusal(door, "taskpack_land", { path: `${dir}/missing.taskpack` }),
        /^No such file or folder: .*missing\.taskpack \[no-such-file\]$/,
      );
      assert.match(
        await refusal(door, "taskpack_answer", { id, ask_id: "a9", text: "x" }),
        /has no ask "a9"/,
      );
      assert.match(
        await refusal(door, "taskpack_pack", {
          id,
          out: `${dir}/out.taskpack`,
          asks: [{ what: "which colour?" }],
        }),
        /no accept rule/,
      );
      // A result, validated the same way, still arrives whole.
      const judged = await door.client.callTool({
        name: "taskpack_conformance",
        arguments: { path: `${REFERENCE}handoff.taskpack` },
      });
      assert.equal((judged.structuredContent as { ok: boolean }).ok, true);
      const landed = await door.client.callTool({
        name: "taskpack_land",
        arguments: { path: `${REFERENCE}handoff.taskpack` },
      });
      assert.ok(!landed.isError, JSON.stringify(landed.content));
      const again = await door.client.callTool({
        name: "taskpack_land",
        arguments: { path: `${REFERENCE}handoff.taskpack` },
      });
      assert.equal((again.structuredContent as { already_landed?: boolean }).already_landed, true);
    } finally {
      await door.close();
    }
  });
}

Deno.test("tools/list stays lean: under 12 KB of compact JSON", async () => {
  const dir = await tempDir();
  const door = await overStdio(`${dir}/store`);
  try {
    const { tools } = await door.client.listTools();
    const size = new TextEncoder().encode(JSON.stringify({ tools })).length;
    assert.ok(size < 12 * 1024, `tools/list is ${size} bytes`);
    // No bare `additionalProperties: {}` and no type arrays: what strict validators warn about.
    const text = JSON.stringify(tools);
    assert.doesNotMatch(text, /"additionalProperties":\{\}/);
    assert.doesNotMatch(text, /"type":\[/);
  } finally {
    await door.close();
  }
});
