// Copyright 2026 the taskpack authors. MIT license.
// Runs the shared check script in headless Chromium (Debian's, never a downloaded browser),
// driven by playwright-core, against one of the browser bundles:
//
//   iife      tests/runtimes/iife.html opened from file://, the classic-script bundle
//   esm       tests/runtimes/esm.html served on 127.0.0.1, the ES module bundle (Chromium
//             refuses module scripts from file://: "blocked by CORS policy", origin 'null')
//
//   node tests/runtimes/chromium_runner.mjs <playwright-core folder> <chromium> iife|esm <inputs.json>
//
// Prints one JSON line: { browser, result | error, requests }. `requests` lists every request
// that left the page for anything but the page's own files: it must stay empty (no network).
import { createRequire } from "node:module";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize, sep } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const TYPES = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript" };

// The browser's flags come from tools/_tools.ts (CHROMIUM_ARGS), as JSON.
const [toolFolder, executablePath, mode, inputsPath, argsJson] = process.argv.slice(2);
if (!toolFolder || !executablePath || !["iife", "esm"].includes(mode) || !inputsPath || !argsJson) {
  process.stderr.write(
    "usage: chromium_runner.mjs <playwright-core folder> <chromium> " +
      "iife|esm <inputs.json> <chromium flags as JSON>\n",
  );
  process.exit(1);
}
const ARGS = JSON.parse(argsJson);
const { chromium } = createRequire(join(toolFolder, "package.json"))("playwright-core");
const inputs = JSON.parse(await readFile(inputsPath, "utf8"));

/** Serves the repository's tests/runtimes/ and dist/ folders, read-only, on 127.0.0.1. */
function serve() {
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname));
    const allowed = path.startsWith("/tests/runtimes/") || path.startsWith("/dist/");
    try {
      if (request.method !== "GET" || !allowed || path.includes(`..${sep}`)) throw new Error();
      const body = await readFile(join(ROOT, path));
      response.writeHead(200, {
        "content-type": TYPES[extname(path)] ?? "application/octet-stream",
      });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const server = mode === "esm" ? await serve() : null;
const origin = server ? `http://127.0.0.1:${server.address().port}` : null;
const url = mode === "esm"
  ? `${origin}/tests/runtimes/esm.html`
  : pathToFileURL(join(ROOT, "tests", "runtimes", "iife.html")).href;

const browser = await chromium.launch({ executablePath, args: ARGS, headless: true });
const out = { browser: `chromium ${browser.version()}`, mode, url, requests: [], console: [] };
try {
  const page = await browser.newPage();
  page.on("request", (request) => {
    const target = request.url();
    if (!target.startsWith("file://") && !(origin && target.startsWith(`${origin}/`))) {
      out.requests.push(target);
    }
  });
  page.on("console", (message) => {
    if (message.type() === "error") out.console.push(message.text());
  });
  page.on("pageerror", (error) => out.console.push(String(error)));
  await page.goto(url);
  await page.waitForFunction(
    () => document.getElementById("status")?.textContent === "ready",
    null,
    { timeout: 15_000 },
  );
  const text = await page.evaluate(async (inputs) => {
    const api = globalThis.taskpackEsm ??
      { taskpack: globalThis.taskpack, runChecks: globalThis.taskpackChecks.runChecks };
    return JSON.stringify(await api.runChecks(api.taskpack, inputs));
  }, inputs);
  out.result = JSON.parse(text);
} catch (error) {
  out.error = String(error?.message ?? error).split("\n")[0];
} finally {
  await browser.close();
  server?.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
