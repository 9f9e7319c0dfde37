// Copyright 2026 the taskpack authors. MIT license.
// The Claude Code plugin (.claude-plugin/plugin.json), its marketplace entry
// (.claude-plugin/marketplace.json), the Agent Plugins 1.0 layout beside it (root plugin.json,
// mcp.json, skills/) and the Agent Skill (skills/taskpack/SKILL.md), checked against the formats
// as their owners document them, plus: every path they name exists, both layouts declare the
// same server and skills, and the MCP server each declares starts and serves the tools the skill
// talks about.
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
// - Agent Plugins 1.0.0 (https://agent-plugins.org/specification, spec/1.0.0.md and
//   schemas/1.0.0/*.schema.json in agentplugins/agent-plugins-spec): root `plugin.json`, a closed
//   object: `$schema` (exactly https://agent-plugins.org/schemas/1.0.0/plugin.schema.json) and
//   `name` (1-64 characters of a-z, 0-9, `-` and `.`, alphanumeric first and last, no `--` or
//   `..`) required; `version`, `description`, `homepage`, `repository`, `license` strings;
//   `author` a closed object of `name`, `email`, `url` strings; `keywords` strings; `extensions`
//   an object of objects. Components sit at fixed places only: skills in `skills/<name>/SKILL.md`
//   (immediate children), MCP servers in root `mcp.json`, a closed object: `$schema` (exactly
//   https://agent-plugins.org/schemas/1.0.0/mcp.schema.json, the same version as plugin.json) and
//   `mcpServers`; each server one closed variant: `stdio` (`command`, a bare name or a `./` path,
//   never expanded; `args`, `env` (no `PLUGIN_ROOT` or `PLUGIN_DATA` key), `cwd` (`./`,
//   `${PLUGIN_ROOT}` or `${PLUGIN_DATA}` rooted)) or `streamable-http` / `sse` (`url`,
//   `headers`). A client expands `${PLUGIN_ROOT}` and `${PLUGIN_DATA}` in `args`, `env` and `cwd`,
//   sets both in the server's environment, and starts it in the plugin root unless `cwd` says.
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
const AGENT_PLUGIN_JSON = join(ROOT, "plugin.json");
const AGENT_MCP_JSON = join(ROOT, "mcp.json");
const AGENT_PLUGIN_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json";
const AGENT_MCP_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json";

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

/** Validates an Agent Plugins 1.0 root `plugin.json`; returns the problems. */
function validateAgentPlugin(manifest: unknown, where = "plugin.json"): string[] {
  if (!isObject(manifest)) return [`${where}: must be a JSON object`];
  const problems: string[] = [];
  if (manifest.$schema !== AGENT_PLUGIN_SCHEMA) {
    problems.push(`${where}.$schema: must be ${AGENT_PLUGIN_SCHEMA}`);
  }
  const name = manifest.name;
  if (
    typeof name !== "string" || name.length < 1 || name.length > 64 ||
    !/^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/.test(name) || /--|\.\./.test(name)
  ) {
    problems.push(`${where}.name: "${name}" must be 1-64 of a-z 0-9 - . (no -- or ..)`);
  }
  for (const [key, value] of Object.entries(manifest)) {
    if (key === "$schema" || key === "name") continue;
    if (["version", "description", "homepage", "repository", "license"].includes(key)) {
      if (typeof value !== "string") problems.push(`${where}.${key}: must be a string`);
    } else if (key === "author") {
      if (!isObject(value)) problems.push(`${where}.author: must be an object`);
      else {
        for (const [field, text] of Object.entries(value)) {
          if (!["name", "email", "url"].includes(field)) {
            problems.push(`${where}.author.${field}: not a field`);
          } else if (typeof text !== "string") {
            problems.push(`${where}.author.${field}: must be a string`);
          }
        }
      }
    } else if (key === "keywords") {
      if (!isStringArray(value)) problems.push(`${where}.keywords: must be an array of strings`);
    } else if (key === "extensions") {
      if (!isObject(value) || !Object.values(value).every(isObject)) {
        problems.push(`${where}.extensions: must map namespaces to objects`);
      }
    } else problems.push(`${where}.${key}: not a field of the closed manifest`);
  }
  return problems;
}

/** Validates an Agent Plugins 1.0 `mcp.json`; returns the problems. */
function validateAgentMcp(config: unknown, where = "mcp.json"): string[] {
  if (!isObject(config)) return [`${where}: must be a JSON object`];
  const problems: string[] = [];
  if (config.$schema !== AGENT_MCP_SCHEMA) {
    problems.push(`${where}.$schema: must be ${AGENT_MCP_SCHEMA}`);
  }
  for (const key of Object.keys(config)) {
    if (key !== "$schema" && key !== "mcpServers") problems.push(`${where}.${key}: not a field`);
  }
  if (!isObject(config.mcpServers)) {
    problems.push(`${where}.mcpServers: required object`);
    return problems;
  }
  for (const [name, server] of Object.entries(config.mcpServers)) {
    const at = `${where}.mcpServers.${name}`;
    if (!isObject(server)) {
      problems.push(`${at}: must be an object`);
      continue;
    }
    const fields: Record<string, string[]> = {
      stdio: ["type", "command", "args", "env", "cwd"],
      "streamable-http": ["type", "url", "headers"],
      sse: ["type", "url", "headers"],
    };
    const allowed = fields[String(server.type)];
    if (!allowed) {
      problems.push(`${at}.type: must be stdio, streamable-http or sse`);
      continue;
    }
    for (const key of Object.keys(server)) {
      if (!allowed.includes(key)) problems.push(`${at}.${key}: not a field of ${server.type}`);
    }
    if (server.type === "stdio") {
      const command = server.command;
      if (typeof command !== "string" || command === "") {
        problems.push(`${at}.command: required non-empty string`);
      } else if (command.includes("/") && !command.startsWith("./")) {
        problems.push(`${at}.command: a bare name or a ./ path`);
      } else if (command.startsWith("./")) problems.push(...pathProblems(`${at}.command`, command));
      else if (command.includes("${")) problems.push(`${at}.command: is never expanded`);
      if (server.args !== undefined && !isStringArray(server.args)) {
        problems.push(`${at}.args: must be an array of strings`);
      }
      if (server.env !== undefined) {
        if (
          !isObject(server.env) || !Object.values(server.env).every((v) => typeof v === "string")
        ) {
          problems.push(`${at}.env: must map names to strings`);
        } else {
          for (const reserved of ["PLUGIN_ROOT", "PLUGIN_DATA"]) {
            if (reserved in server.env) problems.push(`${at}.env.${reserved}: reserved`);
          }
        }
      }
      if (
        server.cwd !== undefined &&
        !(typeof server.cwd === "string" &&
          /^(?:\.\/|\$\{PLUGIN_ROOT\}(?:\/|$)|\$\{PLUGIN_DATA\}(?:\/|$))/.test(server.cwd))
      ) {
        problems.push(`${at}.cwd: must start with ./, \${PLUGIN_ROOT} or \${PLUGIN_DATA}`);
      }
    } else if (typeof server.url !== "string" || server.url === "") {
      problems.push(`${at}.url: required non-empty string`);
    }
  }
  return problems;
}

/** The skills a folder holds by the Agent Plugins rule: immediate children with a SKILL.md. */
function discoveredSkills(root: string): string[] {
  return [...Deno.readDirSync(join(root, "skills"))]
    .filter((entry) => {
      const path = join(root, "skills", entry.name, "SKILL.md");
      return entry.isDirectory && existsSync(path) && statSync(path).isFile();
    })
    .map((entry) => entry.name)
    .sort();
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

  const agent = { $schema: AGENT_PLUGIN_SCHEMA, name: "a.b-c" };
  assert.deepEqual(validateAgentPlugin(agent), []);
  assert.match(validateAgentPlugin({ name: "a" }).join(), /\$schema/);
  assert.match(validateAgentPlugin({ ...agent, $schema: AGENT_MCP_SCHEMA }).join(), /\$schema/);
  for (const name of ["", "A", "-a", "a-", "a--b", "a..b", "a".repeat(65)]) {
    assert.match(validateAgentPlugin({ ...agent, name }).join(), /name/, name);
  }
  assert.match(validateAgentPlugin({ ...agent, skills: "./skills" }).join(), /closed/);
  assert.match(validateAgentPlugin({ ...agent, mcpServers: {} }).join(), /closed/);
  assert.match(validateAgentPlugin({ ...agent, author: { name: "x", org: "y" } }).join(), /org/);
  assert.match(validateAgentPlugin({ ...agent, keywords: "x" }).join(), /keywords/);
  assert.match(validateAgentPlugin({ ...agent, extensions: { "com.x": 1 } }).join(), /extensions/);
  const stdio = { type: "stdio", command: "npx", args: ["${PLUGIN_ROOT}/x"] };
  const mcp = { $schema: AGENT_MCP_SCHEMA, mcpServers: { s: stdio } };
  assert.deepEqual(validateAgentMcp(mcp), []);
  assert.deepEqual(validateAgentMcp({ ...mcp, mcpServers: {} }), []);
  const server = (patch: Json) => ({ ...mcp, mcpServers: { s: { ...stdio, ...patch } } });
  assert.match(validateAgentMcp({ ...mcp, $schema: AGENT_PLUGIN_SCHEMA }).join(), /\$schema/);
  assert.match(validateAgentMcp({ ...mcp, servers: {} }).join(), /servers: not a field/);
  assert.match(validateAgentMcp(server({ type: undefined })).join(), /type/);
  assert.match(validateAgentMcp(server({ command: "" })).join(), /command/);
  assert.match(validateAgentMcp(server({ command: "../bin/x" })).join(), /bare name/);
  assert.match(validateAgentMcp(server({ command: "${PLUGIN_ROOT}/x" })).join(), /bare name/);
  assert.match(validateAgentMcp(server({ url: "http://x" })).join(), /url: not a field/);
  assert.match(validateAgentMcp(server({ env: { PLUGIN_ROOT: "/" } })).join(), /reserved/);
  assert.match(validateAgentMcp(server({ cwd: "data" })).join(), /cwd/);
  assert.match(
    validateAgentMcp({ ...mcp, mcpServers: { h: { type: "streamable-http" } } }).join(),
    /url: required/,
  );
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

Deno.test("the Agent Plugins layout follows Agent Plugins 1.0 and declares what the Claude Code plugin does", async () => {
  const agent = await readJson(AGENT_PLUGIN_JSON) as Json;
  assert.deepEqual(validateAgentPlugin(agent), []);
  const mcp = await readJson(AGENT_MCP_JSON) as Json;
  assert.deepEqual(validateAgentMcp(mcp), []);
  // The same schema version in both files (a mismatch disables the plugin's MCP servers).
  assert.equal(
    String(agent.$schema).replace("plugin.schema", ""),
    String(mcp.$schema).replace("mcp.schema", ""),
  );

  // The same plugin: every metadata field both formats have says the same thing.
  const claude = await readJson(PLUGIN_JSON) as Json;
  for (const key of ["name", "version", "description", "author", "license", "keywords"]) {
    assert.deepEqual(agent[key], claude[key], `${key} is the same in both plugin.json files`);
  }

  // The same server: the same name, command and arguments, each plugin root in its own words.
  const servers = mcp.mcpServers as Record<string, { command: string; args: string[] }>;
  const claudeServers = claude.mcpServers as Record<string, { command: string; args: string[] }>;
  assert.deepEqual(Object.keys(servers), Object.keys(claudeServers));
  for (const [name, server] of Object.entries(servers)) {
    assert.equal(server.command, claudeServers[name]!.command);
    assert.deepEqual(
      server.args,
      claudeServers[name]!.args.map((arg) =>
        arg.replaceAll("${CLAUDE_PLUGIN_ROOT}", "${PLUGIN_ROOT}")
      ),
    );
    for (const arg of server.args) {
      if (!arg.includes("${PLUGIN_ROOT}")) continue;
      const path = arg.replace("${PLUGIN_ROOT}", ROOT.replace(/\/$/, ""));
      assert.ok(existsSync(path) && statSync(path).isFile(), `${arg} exists`);
    }
  }

  // The same skills: Agent Plugins discovers skills/<name>/SKILL.md, Claude Code's default too.
  const listed = [...Deno.readDirSync(join(ROOT, "skills"))].filter((e) => e.isDirectory)
    .map((e) => e.name).sort();
  assert.deepEqual(discoveredSkills(ROOT), listed);
  assert.deepEqual(listed, ["taskpack"]);
});

/** Starts a declared stdio server with this Deno in place of `npx --yes deno@<this>`. */
async function startDeclared(
  declared: { command: string; args: string[] },
  root: string,
  env: Record<string, string>,
  cwd: string,
): Promise<Client> {
  // Only Node and npm need be installed: npx fetches the pinned Deno (the README's version).
  assert.equal(declared.command, "npx");
  assert.deepEqual(declared.args.slice(0, 2), ["--yes", `deno@${Deno.version.deno}`]);
  // The deno that npx would fetch is this one: run the rest of the command with it.
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: declared.args.slice(2).map((arg) => arg.replace(root, ROOT.replace(/\/$/, ""))),
    cwd,
    env,
    stderr: "pipe",
  });
  const client = new Client({ name: "plugin-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** Every tool the skill names is served; the store is empty. */
async function checkServes(client: Client): Promise<void> {
  const served = new Set((await client.listTools()).tools.map((tool) => tool.name));
  const skill = await Deno.readTextFile(join(ROOT, "skills/taskpack/SKILL.md"));
  const named = new Set(skill.match(/taskpack_[a-z]+/g));
  assert.ok(named.size >= 9, "the skill names the tools");
  for (const name of named) assert.ok(served.has(name), `the skill names ${name}; it is served`);
  const listed = await client.callTool({ name: "taskpack_list", arguments: {} });
  assert.equal((listed.structuredContent as { count?: number }).count, 0);
}

Deno.test("the MCP server the plugin declares starts and serves every tool the skill names", async () => {
  const manifest = await readJson(PLUGIN_JSON) as Json;
  const declared = (manifest.mcpServers as Record<string, { command: string; args: string[] }>)
    .taskpack!;
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  assert.ok(readme.includes(`npx --yes deno@${Deno.version.deno}`), "the README names it");
  const store = await tempDir();
  const client = await startDeclared(declared, "${CLAUDE_PLUGIN_ROOT}", {
    ...Deno.env.toObject(),
    TASKPACK_STORE: store,
    TASKPACK_MACHINE: "plugin-test",
  }, store);
  try {
    await checkServes(client);
    assert.match(client.getInstructions() ?? "", new RegExp(store), "TASKPACK_STORE is the store");
  } finally {
    await client.close();
  }
});

Deno.test("the MCP server mcp.json declares starts as an Agent Plugins client starts it", async () => {
  const mcp = await readJson(AGENT_MCP_JSON) as Json;
  const declared = (mcp.mcpServers as Record<string, { command: string; args: string[] }>)
    .taskpack!;
  const data = await tempDir({ prefix: "taskpack-plugin-data-" });
  // The client's environment, with nothing of ours in it but where per-user data lives (so the
  // per-user default store is a fresh one), then PLUGIN_ROOT and PLUGIN_DATA; the server starts
  // in the plugin root (no cwd declared).
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => !name.startsWith("TASKPACK_")),
  );
  const client = await startDeclared(declared, "${PLUGIN_ROOT}", {
    ...env,
    XDG_DATA_HOME: data,
    PLUGIN_ROOT: ROOT.replace(/\/$/, ""),
    PLUGIN_DATA: join(data, "plugin"),
  }, ROOT);
  try {
    await checkServes(client);
    const store = join(data, "taskpack", "passports");
    assert.ok((client.getInstructions() ?? "").includes(store), "the per-user default store");
  } finally {
    await client.close();
  }
});
