// Copyright 2026 the taskpack authors. MIT license.
/**
 * `deno task build:npm`: the npm package `taskpack`, in `dist/npm/`:
 *
 * - `mod.js`: the pure core, one ES module (`deno bundle`, browser platform: no `node:`);
 * - `types/`: its declarations (`tsc --emitDeclarationOnly`, TypeScript pinned, from npm);
 * - `cli/cli.js`: the command line, ES modules for Node and Bun (`node:` built-ins only; what
 *   a verb imports dynamically, such as the MCP server, is a chunk of its own, loaded only by
 *   that verb); beside it, each worker module as a bundle of its own (`cli/scan_worker.js`...);
 * - `bin/taskpack.js`: the `taskpack` program (`#!/usr/bin/env node`), which calls `main()`
 *   itself: Node has no `import.meta.main`, and under Bun the bin, not `cli.js`, is the main
 *   module, so the CLI runs exactly once everywhere;
 * - `package.json` (no dependencies), `README.md`, `LICENSE`.
 *
 * Then `npm pack dist/npm` gives the tarball.
 *
 * @module
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { WORKERS } from "../shell/workers/worker_url.ts";
import { bundle, formatSize, npmTool, packageVersion, ROOT, runOk } from "./_tools.ts";

/** Where the npm package is assembled. */
export const NPM_DIR: string = join(ROOT, "dist", "npm");

/** The name the package is published under on npm (the one `npx taskpack` fetches). */
export const NPM_NAME = "taskpack";

const BIN = `#!/usr/bin/env node
// The \`taskpack\` command. See \`taskpack --help\`.
import process from "node:process";
import { main } from "../cli/cli.js";

process.exitCode = await main(process.argv.slice(2));
`;

/**
 * Builds the npm package.
 *
 * @param log Progress lines.
 * @param out Where to assemble it (default `dist/npm`).
 * @returns The package folder.
 */
export async function buildNpm(
  log: (line: string) => void = () => {},
  out: string = NPM_DIR,
): Promise<string> {
  const version = await packageVersion();
  await rm(out, { recursive: true, force: true });
  await mkdir(join(out, "bin"), { recursive: true });

  await bundle("mod.ts", join(out, "mod.js"), { platform: "browser", format: "esm" });
  await bundle("cli.ts", join(out, "cli"), { platform: "deno", format: "esm", split: true });
  // Workers are started by URL, not imported: each is a bundle of its own beside the chunks.
  for (const worker of WORKERS) {
    await bundle(`shell/workers/${worker}.ts`, join(out, "cli", `${worker}.js`), {
      platform: "deno",
      format: "esm",
    });
  }
  await writeFile(join(out, "bin", "taskpack.js"), BIN, { mode: 0o755 });
  await declarations(log, out);
  await checkCore(join(out, "mod.js"));

  const manifest = {
    name: NPM_NAME,
    version,
    description: "TaskPack 0.1: a portable container for handing unfinished work between AI " +
      "agents, machines and people. Reads, writes and judges .taskpack and .taskpack.json.",
    license: "MIT",
    keywords: ["taskpack", "handoff", "agents", "bagit", "zip"],
    type: "module",
    main: "./mod.js",
    types: "./types/mod.d.ts",
    exports: {
      ".": { types: "./types/mod.d.ts", default: "./mod.js" },
      "./package.json": "./package.json",
    },
    bin: { taskpack: "bin/taskpack.js" },
    files: ["mod.js", "cli/", "bin/", "types/", "README.md", "LICENSE"],
    sideEffects: false,
    engines: { node: ">=20" },
  };
  await writeFile(join(out, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  await copyFile(join(ROOT, "README.md"), join(out, "README.md"));
  await copyFile(join(ROOT, "LICENSE"), join(out, "LICENSE"));
  return out;
}

/** Emits `types/**.d.ts` for mod.ts with tsc, then points their imports at `.js` files. */
async function declarations(log: (line: string) => void, out: string): Promise<void> {
  const tsc = join(await npmTool("typescript", log), "node_modules", "typescript", "bin", "tsc");
  const scratch = await mkdtemp(join(tmpdir(), "taskpack-tsc-"));
  try {
    const config = {
      compilerOptions: {
        target: "es2022",
        // ESM, as the package is ("type": "module"); tsc would take a lone .ts file for CommonJS.
        module: "esnext",
        moduleResolution: "bundler",
        lib: ["es2024", "dom", "dom.iterable"],
        types: [],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        declaration: true,
        emitDeclarationOnly: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        rootDir: ROOT,
        outDir: join(out, "types"),
      },
      files: [join(ROOT, "mod.ts")],
    };
    const path = join(scratch, "tsconfig.json");
    await writeFile(path, JSON.stringify(config, null, 2));
    await runOk("node", [tsc, "-p", path]);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  // tsc keeps the `.ts` endings of relative imports in declarations; npm consumers resolve
  // `./x.js` to `./x.d.ts`. Doc examples import the JSR name; on npm the package is `taskpack`.
  const types = join(out, "types");
  for (const file of await readdir(types, { recursive: true })) {
    if (!file.endsWith(".d.ts")) continue;
    const path = join(types, file);
    const text = (await readFile(path, "utf8"))
      .replace(/(from\s+["']\.{1,2}\/[^"']*?)\.ts(["'])/g, "$1.js$2")
      .replaceAll('from "@taskpack/cli"', `from "${NPM_NAME}"`);
    await writeFile(path, text);
  }
}

/** The core bundle must stay pure: no `node:` import, no `Deno`, no `process`. */
async function checkCore(path: string): Promise<void> {
  const text = await readFile(path, "utf8");
  for (const [pattern, what] of [[/from\s*["']node:/, "a node: import"], [/\bDeno\./, "Deno."]]) {
    if ((pattern as RegExp).test(text)) {
      throw new Error(`Cannot build: ${relative(ROOT, path)} has ${what}`);
    }
  }
}

if (import.meta.main) {
  const dir = await buildNpm((line) => console.error(line));
  for (const file of ["mod.js", ...(await readdir(join(dir, "cli"))).map((f) => `cli/${f}`)]) {
    const size = (await readFile(join(dir, file))).length;
    console.log(`dist/npm/${file}: ${formatSize(size)}`);
  }
  console.log(`dist/npm/package.json: ${NPM_NAME}@${await packageVersion()}`);
  console.log("pack it with: npm pack ./dist/npm");
}
