// Copyright 2026 the taskpack authors. MIT license.
// The documents a reader meets first stay true to the repository: every local link leads to a
// file that exists, every source file ARCHITECTURE.md names exists, and the README stays a page.
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

async function documents(): Promise<string[]> {
  const docs = (await Array.fromAsync(Deno.readDir(new URL("docs/", ROOT))))
    .filter((entry) => entry.name.endsWith(".md"))
    .map((entry) => `docs/${entry.name}`);
  return ["README.md", "ARCHITECTURE.md", ...docs.sort()];
}

async function exists(url: URL): Promise<boolean> {
  try {
    await Deno.stat(url);
    return true;
  } catch {
    return false;
  }
}

/** The local targets of a Markdown text's links, without their #fragments. */
function localLinks(text: string): string[] {
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return targets
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith("#"))
    .map((target) => target.replace(/#.*$/, ""));
}

Deno.test("every local link in the README, ARCHITECTURE.md and docs/ leads to a file", async () => {
  let checked = 0;
  for (const doc of await documents()) {
    const text = await Deno.readTextFile(new URL(doc, ROOT));
    for (const target of localLinks(text)) {
      checked++;
      assert.ok(await exists(new URL(target, new URL(doc, ROOT))), `${doc} links to ${target}`);
    }
  }
  assert.ok(checked >= 10, `expected the documents' links, found ${checked}`);
});

Deno.test("the link check catches a broken link, and leaves web links and anchors alone", () => {
  assert.deepEqual(
    localLinks("[a](docs/gone.md#x) [b](https://example.com) [c](#top) [d](../ARCHITECTURE.md)"),
    ["docs/gone.md", "../ARCHITECTURE.md"],
  );
});

Deno.test("every source file ARCHITECTURE.md names exists", async () => {
  const text = await Deno.readTextFile(new URL("ARCHITECTURE.md", ROOT));
  const named = [
    ...new Set([...text.matchAll(/`((?:lib|shell|cli|mcp|web)\/[\w/]+\.ts)`/g)]
      .map((m) => m[1]!)),
  ];
  assert.ok(named.length >= 20, `expected the spec table's files, found ${named.length}`);
  for (const path of named) assert.ok(await exists(new URL(path, ROOT)), path);
});

Deno.test("the README stays a user's page: at most about 250 lines", async () => {
  const lines = (await Deno.readTextFile(new URL("README.md", ROOT))).split("\n").length;
  assert.ok(lines <= 260, `README.md has ${lines} lines; move depth to docs/`);
});
