// Copyright 2026 the taskpack authors. MIT license.
/**
 * `deno task build:browser`: the pure core as two browser bundles, minified, with no network
 * and no dependencies at run time:
 *
 * - `dist/browser/taskpack.mjs`: an ES module (`import { judge } from "./taskpack.mjs"`);
 * - `dist/browser/taskpack.iife.js`: a classic script that sets `globalThis.taskpack`, for
 *   pages opened from `file://` (browsers refuse module scripts there).
 *
 * Prints each bundle's size, minified and minified+gzipped (level 9): the size budget.
 *
 * @module
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { bundle, formatSize, gzipSize, packageVersion, ROOT } from "./_tools.ts";

/** Where the browser bundles go. */
export const BROWSER_DIR: string = join(ROOT, "dist", "browser");

/** The size of one bundle. */
export interface BundleSize {
  file: string;
  bytes: number;
  gzip: number;
}

/**
 * Builds both browser bundles.
 *
 * @returns Their sizes.
 */
export async function buildBrowser(): Promise<BundleSize[]> {
  const version = await packageVersion();
  const banner = `/*! taskpack ${version} | TaskPack 0.1 core | MIT license */\n`;
  const targets = [
    { file: "taskpack.mjs", entry: "mod.ts", format: "esm" as const },
    { file: "taskpack.iife.js", entry: "tools/browser_global.ts", format: "iife" as const },
  ];
  const sizes: BundleSize[] = [];
  for (const target of targets) {
    const out = join(BROWSER_DIR, target.file);
    await bundle(target.entry, out, { platform: "browser", format: target.format, minify: true });
    const bytes = new TextEncoder().encode(banner + await readFile(out, "utf8"));
    await writeFile(out, bytes);
    sizes.push({ file: `dist/browser/${target.file}`, bytes: bytes.length, gzip: gzipSize(bytes) });
  }
  return sizes;
}

if (import.meta.main) {
  for (const size of await buildBrowser()) {
    console.log(
      `${size.file}: ${formatSize(size.bytes)} minified, ${formatSize(size.gzip)} min+gzip`,
    );
  }
}
