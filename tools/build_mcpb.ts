// Copyright 2026 the taskpack authors. MIT license.
/**
 * `deno task build:mcpb`: `dist/taskpack.mcpb`, an MCP Bundle (the zip with a `manifest.json`
 * that Claude Desktop and other MCPB hosts install in one click), built from the npm build:
 *
 * - `server/`: the npm build's command line (`bin/taskpack.js`, `cli/`), with a `package.json`
 *   that makes its `.js` files ES modules; no dependencies, nothing fetched at first start;
 * - `manifest.json` (MCPB manifest 0.3): a `node` server that runs
 *   `node ${__dirname}/server/bin/taskpack.js mcp`, with the store folder, the machine name and
 *   the actor as `user_config` (each passed as `TASKPACK_STORE`, `TASKPACK_MACHINE`,
 *   `TASKPACK_ACTOR`; left empty, the server falls back as the CLI does), and the tools the built
 *   server lists, read from it at build time;
 * - `LICENSE`.
 *
 * The staged folder is `dist/mcpb/`; `@anthropic-ai/mcpb` (pinned) validates the manifest and
 * packs the folder, as `mcpb pack dist/mcpb dist/taskpack.mcpb` does.
 *
 * @module
 */
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import { packExtension } from "npm:@anthropic-ai/mcpb@2.1.2";
import { buildNpm } from "./build_npm.ts";
import { formatSize, packageVersion, ROOT } from "./_tools.ts";

/** The pinned validator and packer. */
export const MCPB_PACKAGE = "@anthropic-ai/mcpb@2.1.2";

/** The manifest version written (the newest one that is not marked experimental). */
export const MANIFEST_VERSION = "0.3";

/** Where the bundle is written. */
export const MCPB_FILE: string = join(ROOT, "dist", "taskpack.mcpb");

/** Where its contents are staged. */
export const MCPB_DIR: string = join(ROOT, "dist", "mcpb");

/** The entry point inside the bundle. */
export const ENTRY_POINT = "server/bin/taskpack.js";

/** A tool as the manifest lists it. */
export interface ManifestTool {
  name: string;
  description?: string;
}

/**
 * The bundle's manifest.
 *
 * @param version The package version.
 * @param tools The tools the server lists.
 * @returns The manifest object.
 */
export function mcpbManifest(version: string, tools: readonly ManifestTool[]): object {
  return {
    manifest_version: MANIFEST_VERSION,
    name: "taskpack",
    display_name: "TaskPack",
    version,
    description: "Hand unfinished work between agents, machines and people as TaskPack files: " +
      "your passport store over MCP.",
    long_description: "TaskPack keeps task passports (TP-XXXX-XXXX) in a store on this machine " +
      "and moves unfinished work as .taskpack and .taskpack.json files: open and checkpoint a " +
      "task, pack it for someone else with asks and landing checks, land what others send, and " +
      "carry answers home in a receipt. Everything inside a pack is treated as data written by " +
      "someone else; nothing from a pack is ever run.",
    author: { name: "the taskpack authors" },
    license: "MIT",
    keywords: ["taskpack", "handoff", "passport", "agents"],
    server: {
      type: "node",
      entry_point: ENTRY_POINT,
      mcp_config: {
        command: "node",
        args: [`\${__dirname}/${ENTRY_POINT}`, "mcp"],
        env: {
          TASKPACK_STORE: "${user_config.store}",
          TASKPACK_MACHINE: "${user_config.machine}",
          TASKPACK_ACTOR: "${user_config.actor}",
        },
      },
    },
    tools: tools.map(({ name, description }) => ({
      name,
      ...(description ? { description: description.split("\n")[0] } : {}),
    })),
    compatibility: {
      platforms: ["darwin", "win32", "linux"],
      runtimes: { node: ">=20.0.0" },
    },
    user_config: {
      store: {
        type: "directory",
        title: "Passport store",
        description: "The folder that holds your passports. Empty: the per-user default " +
          "(~/.local/share/taskpack/passports, ~/Library/Application Support/taskpack/passports " +
          "or %APPDATA%\\taskpack\\passports).",
        required: false,
        default: "",
      },
      machine: {
        type: "string",
        title: "Machine name",
        description: "This machine's name in the passports you write. Empty: the host name.",
        required: false,
        default: "",
      },
      actor: {
        type: "string",
        title: "Your name",
        description: "Who acts, in the passports you write. Empty: your user name.",
        required: false,
        default: "",
      },
    },
  };
}

/**
 * The tools a built server lists: starts `node <entry> mcp` on an empty store and asks.
 *
 * @param entry The built `bin/taskpack.js`.
 * @returns Each tool's name and description.
 */
export async function listBuiltTools(entry: string): Promise<ManifestTool[]> {
  const store = await mkdtemp(join(tmpdir(), "taskpack-mcpb-store-"));
  const client = new Client({ name: "taskpack-build-mcpb", version: "1.0.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: "node",
        args: [entry, "mcp"],
        env: { ...Deno.env.toObject(), TASKPACK_STORE: store, TASKPACK_MACHINE: "build" },
        stderr: "pipe",
      }),
    );
    const { tools } = await client.listTools();
    return tools.map(({ name, description }) => ({
      name,
      ...(description ? { description } : {}),
    }));
  } finally {
    await client.close();
    await rm(store, { recursive: true, force: true });
  }
}

/**
 * Builds the bundle: the npm build, the staged folder, the manifest, the packed `.mcpb`.
 *
 * @param options Where to build (defaults: `dist/npm`, `dist/mcpb`, `dist/taskpack.mcpb`).
 * @param log Progress lines.
 * @returns The bundle file and the manifest written.
 */
export async function buildMcpb(
  options: { npmDir?: string; stageDir?: string; out?: string } = {},
  log: (line: string) => void = () => {},
): Promise<{ file: string; manifest: object }> {
  const stage = options.stageDir ?? MCPB_DIR;
  const out = options.out ?? MCPB_FILE;
  const npm = await buildNpm(log, options.npmDir);
  await rm(stage, { recursive: true, force: true });
  await mkdir(join(stage, "server"), { recursive: true });
  await cp(join(npm, "bin"), join(stage, "server", "bin"), { recursive: true });
  await cp(join(npm, "cli"), join(stage, "server", "cli"), { recursive: true });
  const version = await packageVersion();
  // The built files are ES modules; without this Node 20 would read them as CommonJS.
  await writeFile(
    join(stage, "server", "package.json"),
    JSON.stringify({ name: "taskpack-mcpb-server", version, private: true, type: "module" }) +
      "\n",
  );
  await copyFile(join(ROOT, "LICENSE"), join(stage, "LICENSE"));
  const tools = await listBuiltTools(join(stage, ENTRY_POINT));
  const manifest = mcpbManifest(version, tools);
  await writeFile(join(stage, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  await mkdir(dirname(out), { recursive: true });
  await rm(out, { force: true });
  // Validates the manifest (the schema of its manifest_version), then zips the folder.
  const packed = await packExtension({ extensionPath: stage, outputPath: out, silent: true });
  if (!packed) {
    throw new Error(
      `Cannot pack ${stage}: ${MCPB_PACKAGE} refused it (run: npx -y ${MCPB_PACKAGE} validate ${
        join(stage, "manifest.json")
      })`,
    );
  }
  return { file: out, manifest };
}

if (import.meta.main) {
  const { file } = await buildMcpb({}, (line) => console.error(line));
  const size = (await readFile(file)).length;
  console.log(`${file.slice(ROOT.length + 1)}: ${formatSize(size)}`);
  console.log("install it by opening it with an MCPB host (Claude Desktop: Settings > Extensions)");
}
