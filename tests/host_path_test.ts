// Copyright 2026 the taskpack authors. MIT license.
// The shells' own POSIX path functions against node:path/posix, on generated paths.
import assert from "node:assert/strict";
import { posix, win32 } from "node:path";
import fc from "npm:fast-check@4.11.0";
import {
  posixBasename,
  posixDirname,
  posixJoin,
  posixNormalize,
  posixResolve,
  windowsJoin,
} from "../shell/host/host_path.ts";

const path = fc.array(fc.constantFrom("a", "bc", ".", "..", "/", "//", "", ".a", "a.", "..."), {
  maxLength: 7,
}).map((parts) => parts.join(""));

const pathWithSlashes = fc.array(fc.constantFrom("a", "b", ".", ".."), { maxLength: 5 }).chain(
  (names) =>
    fc.tuple(
      fc.constantFrom("", "/", "//", "///"),
      fc.constant(names),
      fc.constantFrom("", "/", "//"),
    ).map(([lead, parts, tail]) => lead + parts.join("/") + tail),
);

const anyPath = fc.oneof(path, pathWithSlashes);

Deno.test("host paths: normalize, join, dirname and basename are node:path/posix's", () => {
  fc.assert(
    fc.property(anyPath, (p) => {
      assert.equal(posixNormalize(p), posix.normalize(p), `normalize ${JSON.stringify(p)}`);
      assert.equal(posixDirname(p), posix.dirname(p), `dirname ${JSON.stringify(p)}`);
      assert.equal(posixBasename(p), posix.basename(p), `basename ${JSON.stringify(p)}`);
    }),
    { numRuns: 5000 },
  );
  fc.assert(
    fc.property(fc.array(anyPath, { maxLength: 4 }), (parts) => {
      assert.equal(posixJoin(...parts), posix.join(...parts), `join ${JSON.stringify(parts)}`);
    }),
    { numRuns: 5000 },
  );
});

Deno.test("host paths: resolving against an absolute folder is node:path/posix's", () => {
  fc.assert(
    fc.property(anyPath.map((p) => "/" + p), anyPath, (base, p) => {
      assert.equal(posixResolve(base, p), posix.resolve(base, p), JSON.stringify([base, p]));
    }),
    { numRuns: 5000 },
  );
});

Deno.test("host paths: joining the Windows per-user folders is node:path/win32's", () => {
  const root = fc.constantFrom(
    "C:\\Users\\ann",
    "C:/Users/ann/",
    "D:\\",
    "C:\\Users\\ann\\AppData\\Roaming\\",
    "//server/share/home",
    "\\\\server\\share\\home\\",
  );
  const name = fc.constantFrom("AppData", "Roaming\\", "taskpack", "passports", "", "a/b", "c\\");
  fc.assert(
    // (A bare network share, `\\\\server\\share`, is never a home or APPDATA: not covered.)
    fc.property(root, fc.array(name, { maxLength: 3 }), (first, rest) => {
      const parts = [first, ...rest];
      assert.equal(windowsJoin(...parts), win32.join(...parts), JSON.stringify(parts));
    }),
    { numRuns: 3000 },
  );
});
