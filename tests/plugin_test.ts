// Copyright 2026 the taskpack authors. MIT license.
// The Claude Code plugin (.claude-plugin/plugin.json), its marketplace entry
// (.claude-plugin/marketplace.json) and the Agent Skill (skills/taskpack/SKILL.md), checked
// against the formats as their owners document them, plus: every path they name exists, and the
// MCP server the plugin declares starts and serves the tools the skill talks about.
//
// The validators below are small transcriptions of the documented schemas, not copies of any
// published JSON Schema:
// - plugin.json: Claude Code docs, "Plugins reference" § Plugin manifest schema
//   (https://code.claude.com/docs/en/plugins-reference; also /docs/en/plugins/manifest-reference):
//   a manifest is optional, but if present `name` is the only required field (kebab-case, no
//   spaces or control characters); metadata fields `version` (semantic version), `description`,
//   `author` (object, `name` required; `email`, `url`), `homepage`, `repository`, `license`,
//   `keywords` (array: a string is a load error), plus `$schema`, `displayName`, `metadata`,
//   `defaultEnabled`; component fields `commands`, `agents`, `skills`, `outputStyles`
//   (string | array) and `hooks`, `mcpServers`, `lspServers` (string | array | object); every
//   component path is relative to the plugin root and starts with `./`, never leaves it (`..`),
//   and has no backslash; `${CLAUDE_PLUGIN_ROOT}` is the plugin's absolute path at run time;
//   skills live in `skills/<name>/SKILL.md` by default. Unknown top-level fields are ignored by
//   Claude Code and warned about by `claude plugin validate`; here, as with `--strict`, they fail.
// - marketplace.json: Claude Code docs, "Create and distribute a plugin marketplace"
//   (https://code.claude.com/docs/en/plugin-marketplaces; also /docs/en/plugins/
//   marketplace-reference): at `.claude-plugin/marketplace.json`; required `name` (kebab-case,
//   not a reserved name), `owner` (object, `name` required; `email`, `url`) and `plugins`
//   (array); optional `$schema`, `description`, `version`, `metadata` (`pluginRoot`,
//   `description`, `version`); each plugin entry needs `name` (kebab-case, unique) and `source`
//   (a relative path starting with `./` resolved from the marketplace root, no `..`; or an object
//   of type github / url / git-subdir / npm / archive / command) and may carry any plugin
//   manifest field plus `category`, `tags`, `strict`, `displayName`, `defaultEnabled`.
// - SKILL.md: the Agent Skills specification (https://agentskills.io/specification): YAML front
//   matter with `name` (1-64 characters, lowercase letters, digits and hyphens, no leading,
//   trailing or doubled hyphen, equal to the folder name) and `description` (1-1024 characters);
//   optional `license`, `compatibility` (up to 500 characters), `metadata`, `allowed-tools`.
// These pages were read through the documentation search index available to this project; the
// validators check only what those pages state.
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { Client } from "npm:@modelcontextprotocol/client@2.4.0";
import { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
import denoConfig from "../deno.json" with { type: "json" };
import { tempDir } from "./_helpers.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const PLUGIN_JSON = join(ROOT, ".claude-plugin/plugin.json");
const MARKETPLACE_JSON = join(ROOT, ".claude-plugin/marketplace.json");

type Json = Record<string, unknown>;

const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
// deno-lint-ignore no-control-regex -- control and bidi characters are exactly what it looks for
const CONTROL = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** Problems with a component path (`./...` inside the plugin root). */
function pathProblems(where: string, path: string): string[] {
  const problems: string[] = [];
  if (!path.startsWith("./")) problems.push(`${where}: "${path}" must start with ./`);
  if (path.split("/").includes("..")) problems.push(`${where}: "${path}" leaves the plugin root`);
  if (path.includes("\\")) problems.push(`${where}: "${path}" contains a backslash`);
  return problems;
}

function nameProblems(where: string, name: unknown): string[] {
  if (typeof name !== "string" || name === "") return [`${where}: required string`];
  if (CONTROL.test(name)) return [`${where}: control or bidi characters`];
  return KEBAB.test(name) ? [] : [`${where}: "${name}" is not kebab-case`];
}

function authorProblems(where: string, author: unknown): string[] {
  if (author === undefined) return [];
  if (!isObject(author)) return [`${where}: must be an object`];
  const problems = typeof author.name === "string" && author.name
    ? []
    : [`${where}.name: required string`];
  for (const key of ["email", "url"]) {
    if (author[key] !== undefined && typeof author[key] !== "string") {
      problems.push(`${where}.${key}: must be a string`);
    }
  }
  return problems;
}

/** The stdio / http server configurations an `mcpServers` object holds. */
function mcpServerProblems(where: string, servers: Json): string[] {
  const problems: string[] = [];
  for (const [name, server] of Object.entries(servers)) {
    const at = `${where}.${name}`;
    if (!isObject(server)) {
      problems.push(`${at}: must be an object`);
      continue;
    }
    if (typeof server.command === "string") {
      if (server.args !== undefined && !isStringArray(server.args)) {
        problems.push(`${at}.args: must be an array of strings`);
      }
      if (
        server.env !== undefined &&
        !(isObject(server.env) && Object.values(server.env).every((v) => typeof v === "string"))
      ) {
        problems.push(`${at}.env: must map names to strings`);
      }
    } else if (typeof server.url !== "string") {
      problems.push(`${at}: needs a command (stdio) or a url`);
    }
  }
  return problems;
}

const PLUGIN_METADATA: Record<string, (where: string, value: unknown) => string[]> = {
  $schema: (w, v) => typeof v === "string" ? [] : [`${w}: must be a string`],
  displayName: (w, v) => typeof v === "string" ? [] : [`${w}: must be a string`],
  version: (w, v) =>
    typeof v === "string" && SEMVER.test(v) ? [] : [`${w}: must be a semantic version`],
  description: (w, v) => typeof v === "string" ? [] : [`${w}: must be a string`],
  author: authorProblems,
  homepage: (w, v) => typeof v === "string" ? [] : [`${w}: must be a string`],
  repository: (w, v) => typeof v === "string" ? [] : [`${w}: must be a string`],
  license: (w, v) => typeof v === "string" ? [] : [`${w}: must be a string`],
  keywords: (w, v) => isStringArray(v) ? [] : [`${w}: must be an array of strings`],
  metadata: (w, v) => isObject(v) ? [] : [`${w}: must be an object`],
  defaultEnabled: (w, v) => typeof v === "boolean" ? [] : [`${w}: must be a boolean`],
};

function componentPaths(where: string, value: unknown, objectAllowed: boolean): string[] {
  if (typeof value === "string") return pathProblems(where, value);
  if (isStringArray(value)) return value.flatMap((path, i) => pathProblems(`${where}[${i}]`, path));
  if (objectAllowed && isObject(value)) {
    return where.endsWith("mcpServers") ? mcpServerProblems(where, value) : [];
  }
  return [`${where}: must be a path or a list of paths${objectAllowed ? " or an object" : ""}`];
}

const PLUGIN_COMPONENTS: Record<string, boolean> = {
  commands: false,
  agents: false,
  skills: false,
  outputStyles: false,
  hooks: true,
  mcpServers: true,
  lspServers: true,
};

/** Validates a `.claude-plugin/plugin.json` object; returns the problems, field by field. */
function validatePluginManifest(manifest: unknown, where = "plugin.json"): string[] {
  if (!isObject(manifest)) return [`${where}: must be a JSON object`];
  const problems = nameProblems(`${where}.name`, manifest.name);
  for (const [key, value] of Object.entries(manifest)) {
    if (key === "name") continue;
    if (key in PLUGIN_METADATA) problems.push(...PLUGIN_METADATA[key]!(`${where}.${key}`, value));
    else if (key in PLUGIN_COMPONENTS) {
      problems.push(...componentPaths(`${where}.${key}`, value, PLUGIN_COMPONENTS[key]!));
    } else problems.push(`${where}.${key}: not a documented field`);
  }
  return problems;
}

const RESERVED_MARKETPLACE_NAMES = new Set([
  "claude-code-marketplace",
  "claude-code-plugins",
  "claude-plugins-official",
  "claude-plugins-community",
  "claude-community",
  "anthropic-marketplace",
  "anthropic-plugins",
  "agent-skills",
  "anthropic-agent-skills",
  "knowledge-work-plugins",
  "life-sciences",
  "claude-for-legal",
  "claude-for-financial-services",
  "financial-services-plugins",
  "first-party-plugins",
  "claude-tag-plugins",
  "healthcare",
  "npm",
  "pip",
  "uv",
  "cargo",
  "github",
  "gh",
]);

const SOURCE_TYPES: Record<string, string[]> = {
  github: ["repo"],
  url: ["url"],
  "git-subdir": ["url", "path"],
  npm: ["package"],
  archive: ["url"],
  command: ["command"],
};

const ENTRY_FIELDS = new Set([
  ...Object.keys(PLUGIN_METADATA),
  ...Object.keys(PLUGIN_COMPONENTS),
  "name",
  "source",
  "category",
  "tags",
  "strict",
  "relevance",
  "headers",
  "headersHelper",
]);

/** Validates a `.claude-plugin/marketplace.json` object; returns the problems. */
function validateMarketplace(marketplace: unknown, where = "marketplace.json"): string[] {
  if (!isObject(marketplace)) return [`${where}: must be a JSON object`];
  const problems = nameProblems(`${where}.name`, marketplace.name);
  if (RESERVED_MARKETPLACE_NAMES.has(String(marketplace.name).toLowerCase())) {
    problems.push(`${where}.name: "${marketplace.name}" is reserved`);
  }
  if (!isObject(marketplace.owner)) problems.push(`${where}.owner: required object`);
  else problems.push(...authorProblems(`${where}.owner`, marketplace.owner));
  for (const key of ["$schema", "description", "version"]) {
    if (marketplace[key] !== undefined && typeof marketplace[key] !== "string") {
      problems.push(`${where}.${key}: must be a string`);
    }
  }
  if (marketplace.metadata !== undefined && !isObject(marketplace.metadata)) {
    problems.push(`${where}.metadata: must be an object`);
  }
  const known = new Set([
    "name",
    "owner",
    "plugins",
    "$schema",
    "description",
    "version",
    "metadata",
    "allowCrossMarketplaceDependenciesOn",
    "renames",
  ]);
  for (const key of Object.keys(marketplace)) {
    if (!known.has(key)) problems.push(`${where}.${key}: not a documented field`);
  }
  if (!Array.isArray(marketplace.plugins)) {
    problems.push(`${where}.plugins: required array`);
    return problems;
  }
  const names = new Set<string>();
  marketplace.plugins.forEach((entry: unknown, i: number) => {
    const at = `${where}.plugins[${i}]`;
    if (!isObject(entry)) {
      problems.push(`${at}: must be an object`);
      return;
    }
    problems.push(...nameProblems(`${at}.name`, entry.name));
    if (typeof entry.name === "string") {
      if (names.has(entry.name)) problems.push(`${at}.name: duplicate plugin name`);
      names.add(entry.name);
    }
    const source = entry.source;
    if (typeof source === "string") problems.push(...pathProblems(`${at}.source`, source));
    else if (isObject(source)) {
      const required = SOURCE_TYPES[String(source.source)];
      if (!required) problems.push(`${at}.source.source: unknown source type`);
      for (const field of required ?? []) {
        if (typeof source[field] !== "string") problems.push(`${at}.source.${field}: required`);
      }
    } else problems.push(`${at}.source: required (a ./path or a source object)`);
    for (const [key, value] of Object.entries(entry)) {
      if (!ENTRY_FIELDS.has(key)) problems.push(`${at}.${key}: not a documented field`);
      else if (key in PLUGIN_METADATA) {
        problems.push(...PLUGIN_METADATA[key]!(`${at}.${key}`, value));
      } else if (key in PLUGIN_COMPONENTS) {
        problems.push(...componentPaths(`${at}.${key}`, value, PLUGIN_COMPONENTS[key]!));
      } else if (key === "strict" && typeof value !== "boolean") {
        problems.push(`${at}.strict: must be a boolean`);
      } else if ((key === "category") && typeof value !== "string") {
        problems.push(`${at}.category: must be a string`);
      } else if (key === "tags" && !isStringArray(value)) {
        problems.push(`${at}.tags: must be an array of strings`);
      }
    }
  });
  return problems;
}

/** Reads simple YAML front matter (`key: plain scalar` lines only) and the body. */
function readFrontMatter(
  text: string,
): { fields: Record<string, string>; problems: string[] } {
  const problems: string[] = [];
  const fields: Record<string, string> = {};
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match) return { fields, problems: ["SKILL.md: must start with YAML front matter (---)"] };
  for (const line of match[1]!.split("\n")) {
    const pair = /^([A-Za-z][A-Za-z0-9-]*): (.+)$/.exec(line);
    if (!pair) {
      problems.push(`front matter: "${line}" is not a "key: value" line`);
      continue;
    }
    const [, key, value] = pair as unknown as [string, string, string];
    // A plain YAML scalar: no indicator first, no ": " or " #" inside (else it is not one value).
    if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(value) || value.includes(": ") || value.includes(" #")) {
      problems.push(`front matter ${key}: not a plain scalar YAML reads as one string`);
    }
    if (key in fields) problems.push(`front matter ${key}: duplicate key`);
    fields[key] = value;
  }
  return { fields, problems };
}

/** Validates a skill folder's SKILL.md against the Agent Skills specification. */
function validateSkill(folderName: string, text: string): string[] {
  const { fields, problems } = readFrontMatter(text);
  const allowed = new Set([
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
  ]);
  for (const key of Object.keys(fields)) {
    if (!allowed.has(key)) problems.push(`front matter ${key}: not in the specification`);
  }
  const name = fields.name ?? "";
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name) || name.length > 64) {
    problems.push(`name: "${name}" must be 1-64 lowercase letters, digits and single hyphens`);
  }
  if (name !== folderName) problems.push(`name: "${name}" must equal the folder "${folderName}"`);
  const description = fields.description ?? "";
  if (description.length < 1 || description.length > 1024) {
    problems.push(`description: ${description.length} characters, must be 1-1024`);
  }
  if ((fields.compatibility?.length ?? 0) > 500) {
    problems.push("compatibility: over 500 characters");
  }
  return problems;
}

async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(path));
}

Deno.test("the validators catch what the documentation forbids", () => {
  assert.deepEqual(validatePluginManifest({ name: "ok-name" }), []);
  assert.match(validatePluginManifest({}).join(), /name: required/);
  assert.match(validatePluginManifest({ name: "Bad Name" }).join(), /kebab-case/);
  assert.match(validatePluginManifest({ name: "a", keywords: "x" }).join(), /keywords/);
  assert.match(validatePluginManifest({ name: "a", version: "one" }).join(), /semantic/);
  assert.match(validatePluginManifest({ name: "a", author: {} }).join(), /author\.name/);
  assert.match(validatePluginManifest({ name: "a", skills: "skills/" }).join(), /start with \.\//);
  assert.match(validatePluginManifest({ name: "a", agents: ["./../x"] }).join(), /leaves/);
  assert.match(validatePluginManifest({ name: "a", mcpServers: { s: {} } }).join(), /command/);
  assert.match(validatePluginManifest({ name: "a", mcp_servers: {} }).join(), /not a documented/);
  const market = { name: "m", owner: { name: "o" }, plugins: [{ name: "p", source: "./" }] };
  assert.deepEqual(validateMarketplace(market), []);
  assert.match(validateMarketplace({ ...market, owner: undefined }).join(), /owner: required/);
  assert.match(
    validateMarketplace({ ...market, name: "claude-plugins-official" }).join(),
    /reserved/,
  );
  assert.match(validateMarketplace({ ...market, plugins: [{ name: "p" }] }).join(), /source/);
  assert.match(
    validateMarketplace({ ...market, plugins: [{ name: "p", source: "./../p" }] }).join(),
    /leaves/,
  );
  assert.match(
    validateMarketplace({ ...market, plugins: [market.plugins[0], market.plugins[0]] }).join(),
    /duplicate/,
  );
  assert.match(
    validateMarketplace({ ...market, plugins: [{ name: "p", source: { source: "github" } }] })
      .join(),
    /repo: required/,
  );
  const skill = "---\nname: good\ndescription: Does a thing. Use when asked.\n---\n# Body\n";
  assert.deepEqual(validateSkill("good", skill), []);
  assert.match(validateSkill("other", skill).join(), /folder/);
  assert.match(validateSkill("good", skill.replace("good", "Good")).join(), /lowercase/);
  assert.match(validateSkill("good", "# no front matter\n").join(), /front matter/);
  assert.match(
    validateSkill("good", skill.replace("Does a thing.", "Does: a thing.")).join(),
    /plain scalar/,
  );
  assert.match(validateSkill("good", skill.replace("---\n#", "when: now\n---\n#")).join(), /when/);
});

Deno.test("plugin.json and marketplace.json follow the documented schemas; what they name exists", async () => {
  const manifest = await readJson(PLUGIN_JSON) as Json;
  assert.deepEqual(validatePluginManifest(manifest), []);
  assert.equal(manifest.version, denoConfig.version, "the plugin's version is the package's");
  const marketplace = await readJson(MARKETPLACE_JSON) as Json;
  assert.deepEqual(validateMarketplace(marketplace), []);

  // Each relative source is a plugin directory, resolved from the marketplace root.
  const entries = marketplace.plugins as Json[];
  assert.ok(entries.some((entry) => entry.name === manifest.name), "the plugin is listed");
  for (const entry of entries) {
    assert.equal(typeof entry.source, "string");
    const root = resolve(ROOT);
    const dir = resolve(root, entry.source as string);
    assert.ok(
      dir === root || dir.startsWith(root + sep),
      "the source stays inside the marketplace",
    );
    const listed = await readJson(join(dir, ".claude-plugin/plugin.json")) as Json;
    assert.equal(listed.name, entry.name);
    assert.equal(entry.version, undefined, "the version lives in plugin.json only");
  }

  // The MCP server: every ${CLAUDE_PLUGIN_ROOT} path it names is in the plugin.
  const servers = manifest.mcpServers as Record<string, { command: string; args: string[] }>;
  assert.deepEqual(Object.keys(servers), ["taskpack"]);
  for (const { command, args } of Object.values(servers)) {
    for (const value of [command, ...args]) {
      if (!value.includes("${CLAUDE_PLUGIN_ROOT}")) continue;
      const path = value.replace("${CLAUDE_PLUGIN_ROOT}", ROOT.replace(/\/$/, ""));
      assert.ok(existsSync(path) && statSync(path).isFile(), `${value} exists`);
    }
  }

  // The skill, in the default layout: skills/<name>/SKILL.md.
  const skills = [...Deno.readDirSync(join(ROOT, "skills"))].filter((e) => e.isDirectory);
  assert.deepEqual(skills.map((e) => e.name), ["taskpack"]);
  for (const { name } of skills) {
    const text = await Deno.readTextFile(join(ROOT, "skills", name, "SKILL.md"));
    assert.deepEqual(validateSkill(name, text), []);
  }
});

Deno.test("the MCP server the plugin declares starts and serves every tool the skill names", async () => {
  const manifest = await readJson(PLUGIN_JSON) as Json;
  const { command, args } =
    (manifest.mcpServers as Record<string, { command: string; args: string[] }>)
      .taskpack!;
  // Only Node and npm need be installed: npx fetches the pinned Deno (the README's version).
  assert.equal(command, "npx");
  assert.deepEqual(args.slice(0, 2), ["--yes", `deno@${Deno.version.deno}`]);
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  assert.ok(readme.includes(`npx --yes deno@${Deno.version.deno}`), "the README names it");
  const store = await tempDir();
  // The deno that npx would fetch is this one: run the rest of the command with it.
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: args.slice(2).map((arg) => arg.replace("${CLAUDE_PLUGIN_ROOT}", ROOT.replace(/\/$/, ""))),
    cwd: store,
    env: { ...Deno.env.toObject(), TASKPACK_STORE: store, TASKPACK_MACHINE: "plugin-test" },
    stderr: "pipe",
  });
  const client = new Client({ name: "plugin-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const served = new Set((await client.listTools()).tools.map((tool) => tool.name));
    const skill = await Deno.readTextFile(join(ROOT, "skills/taskpack/SKILL.md"));
    const named = new Set(skill.match(/taskpack_[a-z]+/g));
    assert.ok(named.size >= 9, "the skill names the tools");
    for (const name of named) assert.ok(served.has(name), `the skill names ${name}; it is served`);
    assert.match(client.getInstructions() ?? "", new RegExp(store), "TASKPACK_STORE is the store");
    const listed = await client.callTool({ name: "taskpack_list", arguments: {} });
    assert.equal((listed.structuredContent as { count?: number }).count, 0);
  } finally {
    await client.close();
  }
});
