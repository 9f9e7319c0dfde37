// Copyright 2026 the taskpack authors. MIT license.
// The MCP Bundle (`deno task build:mcpb`, tools/build_mcpb.ts), built once for this file into a
// temporary folder: its manifest passes the MCPB tools' own validator (@anthropic-ai/mcpb, the
// code MCPB hosts use to load bundles), and the .mcpb, unzipped, starts exactly as its manifest
// says, under Node 20 with nothing but `node` on the PATH, and serves MCP over stdio.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { getMcpConfigForManifest, v0_3, validateManifest } from "npm:@anthropic-ai/mcpb@2.1.2";
import denoConfig from "../deno.json" with { type: "json" };
import { buildMcpb, MANIFEST_VERSION } from "../tools/build_mcpb.ts";
import { tempDir } from "./_helpers.ts";

type Json = Record<string, unknown>;

interface McpConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

let built: Promise<{ file: string; dir: string; manifest: Json }> | undefined;

/** Builds the bundle once, unzips it, and reads the manifest from the unzipped copy. */
function bundle(): Promise<{ file: string; dir: string; manifest: Json }> {
  built ??= (async () => {
    const work = await tempDir({ prefix: "taskpack-mcpb-" });
    const { file } = await buildMcpb({
      npmDir: join(work, "npm"),
      stageDir: join(work, "stage"),
      out: join(work, "taskpack.mcpb"),
    });
    // A .mcpb is a plain zip: unpack it as a host would, somewhere else.
    const dir = join(work, "installed");
    const unzip = await new Deno.Command("unzip", { args: ["-q", file, "-d", dir] }).output();
    assert.equal(unzip.code, 0, new TextDecoder().decode(unzip.stderr));
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, "manifest.json")));
    return { file, dir, manifest };
  })();
  return built;
}

/** A Node 20: this machine's `node` when it is one, else the `node` package of that major. */
async function node20(): Promise<string> {
  const probe = (command: string, args: string[]) =>
    new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).output()
      .then((out) => out.code === 0 ? new TextDecoder().decode(out.stdout).trim() : "")
      .catch(() => "");
  const local = await probe("node", ["-p", "process.version + ' ' + process.execPath"]);
  if (local.startsWith("v20.")) return local.split(" ").slice(1).join(" ");
  const fetched = await probe("npx", ["-y", "-p", "node@20", "node", "-p", "process.execPath"]);
  assert.ok(fetched, "a Node 20 to run the bundle with");
  return fetched;
}

/** The server config the host computes: MCPB's own substitution of `${__dirname}` and the rest. */
async function hostConfig(
  manifest: Json,
  dir: string,
  home: string,
  userConfig: Record<string, string>,
): Promise<McpConfig> {
  const config = await getMcpConfigForManifest({
    // deno-lint-ignore no-explicit-any -- the library's manifest type; validated separately
    manifest: manifest as any,
    extensionPath: dir,
    systemDirs: { HOME: home, DESKTOP: home, DOCUMENTS: home, DOWNLOADS: home },
    userConfig,
    pathSeparator: "/",
  });
  assert.ok(config, "the host has a server config for the bundle");
  return config as McpConfig;
}

/** Starts the server as the config says, with only Node 20 on the PATH, and connects. */
async function connect(config: McpConfig, home: string): Promise<Client> {
  assert.equal(config.command, "node");
  const bin = await tempDir({ prefix: "taskpack-mcpb-bin-" });
  await Deno.symlink(await node20(), join(bin, "node"));
  const transport = new StdioClientTransport({
    command: join(bin, "node"),
    args: config.args ?? [],
    cwd: home,
    // What a host gives: a PATH, a home, and the manifest's env; no TASKPACK_* of ours leaks in.
    env: { PATH: bin, HOME: home, ...config.env },
    stderr: "pipe",
  });
  const client = new Client({ name: "mcpb-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

Deno.test("the bundle's manifest passes @anthropic-ai/mcpb's validator, and a broken one does not", async () => {
  const { dir, manifest } = await bundle();
  assert.equal(manifest.manifest_version, MANIFEST_VERSION);
  assert.equal(manifest.version, denoConfig.version, "the bundle's version is the package's");
  const parsed = v0_3.McpbManifestSchema.safeParse(manifest);
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  // The same check `mcpb validate` and `mcpb pack` make, on the unpacked file.
  assert.equal(validateManifest(join(dir, "manifest.json")), true);

  // The validator is strict enough to catch what would break an install.
  const broken: Json[] = [
    { ...manifest, author: undefined },
    { ...manifest, server: { ...(manifest.server as Json), type: "deno" } },
    { ...manifest, mcp_servers: {} },
    { ...manifest, manifest_version: "9.9" },
  ];
  for (const bad of broken) {
    assert.equal(v0_3.McpbManifestSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }

  // What the manifest names is in the bundle, and every user_config value reaches the server.
  const server = manifest.server as { entry_point: string; mcp_config: McpConfig };
  assert.equal(server.mcp_config.command, "node");
  assert.ok(existsSync(join(dir, server.entry_point)), `${server.entry_point} is in the bundle`);
  for (const arg of server.mcp_config.args ?? []) {
    if (!arg.includes("${__dirname}")) continue;
    assert.ok(existsSync(arg.replace("${__dirname}", dir)), `${arg} is in the bundle`);
  }
  const env = JSON.stringify(server.mcp_config.env);
  for (const key of Object.keys(manifest.user_config as Json)) {
    assert.ok(env.includes(`\${user_config.${key}}`), `user_config.${key} is passed on`);
  }
  // The server is the npm build's, whole: nothing to install, nothing fetched at first start.
  assert.equal(existsSync(join(dir, "node_modules")), false);
  const pkg = JSON.parse(await Deno.readTextFile(join(dir, "server", "package.json")));
  assert.equal(pkg.type, "module");
  assert.equal(pkg.dependencies, undefined);
});

Deno.test("the unzipped bundle starts as its manifest says under Node 20 and serves MCP over stdio", async () => {
  const { dir, manifest } = await bundle();
  const home = await tempDir({ prefix: "taskpack-mcpb-home-" });
  const store = join(home, "my passports");
  const config = await hostConfig(manifest, dir, home, {
    store,
    machine: "mcpb-machine",
    actor: "mcpb-actor",
  });
  assert.deepEqual(config.args, [join(dir, "server/bin/taskpack.js"), "mcp"]);
  assert.ok(!JSON.stringify(config).includes("${"), "every variable is substituted");
  const client = await connect(config, home);
  try {
    assert.equal(client.getServerVersion()?.name, "taskpack");
    assert.equal(client.getServerVersion()?.version, denoConfig.version);
    const served = (await client.listTools()).tools.map((tool) => tool.name);
    const listed = (manifest.tools as { name: string }[]).map((tool) => tool.name);
    assert.deepEqual(served, listed, "the manifest lists the tools the server serves");
    assert.ok(served.includes("taskpack_land"));
    const instructions = client.getInstructions() ?? "";
    assert.ok(instructions.includes(store), "the store is the user's folder");
    assert.ok(instructions.includes("mcpb-machine"), "the machine is the user's name for it");
    const made = await client.callTool({
      name: "taskpack_new",
      arguments: { title: "from the bundle", goal: "prove the bundle writes to the store" },
    });
    assert.notEqual(made.isError, true, JSON.stringify(made.content));
    const listedNow = await client.callTool({ name: "taskpack_list", arguments: {} });
    assert.equal((listedNow.structuredContent as { count?: number }).count, 1);
    // A pack says who packed it where: the user's actor and machine.
    const id = (made.structuredContent as { passport_id: string }).passport_id;
    const out = join(home, "handoff.taskpack.json");
    const packed = await client.callTool({ name: "taskpack_pack", arguments: { id, out } });
    assert.notEqual(packed.isError, true, JSON.stringify(packed.content));
    const pack = await Deno.readTextFile(out);
    assert.match(pack, /"mcpb-actor"/, "the actor is the user's name");
    assert.match(pack, /"mcpb-machine"/, "the machine is the user's name for it");
  } finally {
    await client.close();
  }
  // The passport went to the folder the user chose.
  const files = [...Deno.readDirSync(store)].map((entry) => entry.name);
  assert.ok(files.some((name) => name.startsWith("TP-")), `the store holds it: ${files}`);
});

Deno.test("left empty, the bundle's settings fall back as the command line's do", async () => {
  const { dir, manifest } = await bundle();
  const home = await tempDir({ prefix: "taskpack-mcpb-home-" });
  // The user filled in nothing: each default (empty) is substituted.
  const config = await hostConfig(manifest, dir, home, {});
  assert.deepEqual(config.env, { TASKPACK_STORE: "", TASKPACK_MACHINE: "", TASKPACK_ACTOR: "" });
  const client = await connect(config, home);
  try {
    const instructions = client.getInstructions() ?? "";
    const fallback = Deno.build.os === "darwin"
      ? join(home, "Library", "Application Support", "taskpack", "passports")
      : join(home, ".local", "share", "taskpack", "passports");
    assert.ok(instructions.includes(fallback), `the per-user default store: ${instructions}`);
    assert.doesNotMatch(instructions, /user_config/);
  } finally {
    await client.close();
  }
});
