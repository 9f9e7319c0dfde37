// Copyright 2026 the taskpack authors. MIT license.
// The stand-in for @std/assert that the library's examples run against: each assertion passes
// where it should and fails where it should, and deep equality agrees with Node's strict one.
import nodeAssert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import {
  assert,
  assertEquals,
  AssertionError,
  assertMatch,
  assertRejects,
  assertThrows,
} from "./_std_assert.ts";

const fails = (fn: () => unknown) => nodeAssert.throws(fn, AssertionError);

Deno.test("assertEquals holds JSON values equal exactly when Node's deepStrictEqual does", () => {
  const agree = (a: unknown, b: unknown) => {
    let node = true;
    try {
      nodeAssert.deepStrictEqual(a, b);
    } catch {
      node = false;
    }
    let ours = true;
    try {
      assertEquals(a, b);
    } catch (error) {
      nodeAssert.ok(error instanceof AssertionError);
      ours = false;
    }
    nodeAssert.equal(ours, node, JSON.stringify([a, b]));
  };
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      agree(a, b);
      agree(a, structuredClone(a));
    }),
    { numRuns: 3000 },
  );
});

Deno.test("assertEquals compares bytes, maps, sets, dates and prototypes", () => {
  assertEquals(new Uint8Array([1, 2]), new Uint8Array([1, 2]));
  fails(() => assertEquals(new Uint8Array([1, 2]), new Uint8Array([1, 3])));
  fails(() => assertEquals(new Uint8Array([1]), new Uint8Array([1, 0])));
  fails(() => assertEquals<unknown>(new Uint8Array([1]), new Int8Array([1])));
  assertEquals(new Map([["a", { b: 1 }]]), new Map([["a", { b: 1 }]]));
  fails(() => assertEquals(new Map([["a", 1]]), new Map([["a", 2]])));
  assertEquals(new Set([1, 2]), new Set([2, 1]));
  fails(() => assertEquals(new Set([1, 2]), new Set([1, 3])));
  assertEquals(new Date(5), new Date(5));
  fails(() => assertEquals(new Date(5), new Date(6)));
  fails(() => assertEquals<unknown>({ a: 1 }, Object.assign(Object.create(null), { a: 1 })));
  fails(() => assertEquals<unknown>({ a: undefined }, {}));
  assertEquals(Number.NaN, Number.NaN);
});

Deno.test("assert, assertMatch, assertThrows and assertRejects fail when they should", async () => {
  assert(1);
  fails(() => assert(0));
  assertMatch("taskpack", /pack$/);
  fails(() => assertMatch("taskpack", /^pack/));

  const error = assertThrows(
    () => {
      throw new RangeError("out of range: 7");
    },
    RangeError,
    "range: 7",
  );
  nodeAssert.equal(error.message, "out of range: 7");
  fails(() => assertThrows(() => {}, Error));
  fails(() =>
    assertThrows(() => {
      throw new TypeError("x");
    }, RangeError)
  );
  fails(() =>
    assertThrows(
      () => {
        throw new RangeError("x");
      },
      RangeError,
      "y",
    )
  );

  nodeAssert.equal(
    (await assertRejects(() => Promise.reject(new TypeError("no")), TypeError)).message,
    "no",
  );
  await nodeAssert.rejects(assertRejects(() => Promise.resolve(1), Error), AssertionError);
  await nodeAssert.rejects(
    assertRejects(() => Promise.reject(new TypeError("no")), RangeError),
    AssertionError,
  );
  await nodeAssert.rejects(
    assertRejects(() => Promise.reject(new TypeError("no")), TypeError, "yes"),
    AssertionError,
  );
});
