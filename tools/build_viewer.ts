// Copyright 2026 the taskpack authors. MIT license.
/**
 * Builds `web/viewer.html`: bundles `web/viewer_app.ts` (with the TaskPack core) into one
 * classic script with `deno bundle --platform browser --format iife`, and inlines it into
 * `web/viewer_template.html`, so the page works offline from `file://` and from the HTTP
 * judge's `GET /`.
 *
 * ```sh
 * deno task build:viewer            # writes web/viewer.html
 * deno run -A tools/build_viewer.ts --out /tmp/viewer.html
 * ```
 *
 * @module
 */

import { LIBRARY_EXTERNAL } from "./_tools.ts";

const ROOT = new URL("../", import.meta.url);
const MARK = "<!-- VIEWER_SCRIPT -->";

/**
 * Builds the viewer page.
 *
 * @returns The page's HTML.
 */
export async function buildViewer(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "taskpack-viewer-" });
  try {
    const out = `${dir}/viewer.js`;
    // Run from the repository root with relative paths: the bundle's module comments are
    // relative to it, so the output does not depend on where the checkout lives.
    const result = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--check",
        "--platform",
        "browser",
        "--format",
        "iife",
        "--output",
        out,
        `--external=${LIBRARY_EXTERNAL}`,
        "web/viewer_app.ts",
      ],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!result.success) {
      throw new Error(`Cannot bundle the viewer:\n${new TextDecoder().decode(result.stderr)}`);
    }
    const script = await Deno.readTextFile(out);
    const template = await Deno.readTextFile(new URL("web/viewer_template.html", ROOT));
    if (!template.includes(MARK)) {
      throw new Error(`Cannot build the viewer: no ${MARK} in the template`);
    }
    if (script.includes("<!--")) {
      throw new Error("Cannot build the viewer: the script holds `<!--`, unsafe inside <script>");
    }
    // `</script` would end the inline script early; `<\/script` means the same to JavaScript.
    const inline = script.replace(/<\/script/gi, "<\\/script");
    return template.replace(MARK, () => `<script>\n${inline}</script>`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--out");
  const target = i >= 0 && Deno.args[i + 1]
    ? Deno.args[i + 1]!
    : new URL("web/viewer.html", ROOT).pathname;
  const html = await buildViewer();
  await Deno.writeTextFile(target, html);
  // deno-lint-ignore no-console
  console.error(`wrote ${target} (${html.length} characters)`);
}
