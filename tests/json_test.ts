// Copyright 2026 the taskpack authors. MIT license.
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  canonicalJson,
  isPlainObject,
  parseJsonStrict,
  type StrictJsonOptions,
} from "../lib/bytes/json.ts";
import { type ReadErrorCode, TaskPackReadError } from "../lib/bytes/errors.ts";

/** Parses and expects a TaskPackReadError with `code`; returns it. */
function rejects(
  text: string,
  code: ReadErrorCode,
  options?: StrictJsonOptions,
): TaskPackReadError {
  let caught: unknown;
  try {
    parseJsonStrict(text, options);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof TaskPackReadError, `expected a TaskPackReadError, got ${caught}`);
  assert.equal(caught.code, code, caught.message);
  assertGoodMessage(caught);
  return caught;
}

/** One sentence, no trailing period, a line and column, never a long quote of the input. */
function assertGoodMessage(error: TaskPackReadError): void {
  assert.match(error.message, /^Cannot read taskpack: /);
  assert.match(error.message, / at line \d+, column \d+/);
  assert.ok(!error.message.endsWith("."), error.message);
  assert.ok(!error.message.includes("\n"), error.message);
  assert.ok(error.message.length < 400, `message too long: ${error.message.length}`);
}

/** The line and column a message reports. */
function position(error: TaskPackReadError): [number, number] {
  const match = / at line (\d+), column (\d+)/.exec(error.message);
  assert.ok(match, error.message);
  return [Number(match[1]), Number(match[2])];
}

/** True when a parsed JSON value holds a key the reader refuses. */
function hasForbiddenKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasForbiddenKey);
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([key, child]) =>
    key === "__proto__" || hasForbiddenKey(child)
  );
}

type Outcome = { ok: true; value: unknown } | { ok: false; code: ReadErrorCode | "json-parse" };

/** Checks parseJsonStrict against JSON.parse on one text; returns what the reader did. */
function agreeWithJsonParse(text: string): Outcome {
  let expected: Outcome;
  try {
    expected = { ok: true, value: JSON.parse(text) };
  } catch {
    expected = { ok: false, code: "json-parse" };
  }
  let actual: Outcome;
  try {
    actual = { ok: true, value: parseJsonStrict(text) };
  } catch (error) {
    assert.ok(error instanceof TaskPackReadError, `not a TaskPackReadError: ${error}`);
    assertGoodMessage(error);
    actual = { ok: false, code: error.code };
  }
  if (!expected.ok) assert.equal(actual.ok, false, `accepted what JSON.parse rejects: ${text}`);
  if (actual.ok) {
    assert.ok(expected.ok, `accepted what JSON.parse rejects: ${text}`);
    assert.deepEqual(actual.value, expected.value);
  }
  if (expected.ok && !actual.ok) {
    // Valid JSON may be refused only for the reader's own rules, never as a syntax error.
    assert.notEqual(actual.code, "json-syntax", `called valid JSON a syntax error: ${text}`);
  }
  return actual;
}

Deno.test("parseJsonStrict() returns what JSON.parse returns for valid JSON", async (t) => {
  for (const indent of [undefined, 2]) {
    await t.step(`JSON.stringify indent ${indent ?? "none"}`, () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const text = JSON.stringify(value, null, indent);
          if (hasForbiddenKey(JSON.parse(text))) {
            rejects(text, "json-forbidden-key");
          } else {
            assert.deepEqual(parseJsonStrict(text), JSON.parse(text));
          }
        }),
        { numRuns: 1000 },
      );
    });
  }
  await t.step("deep values within the limit", () => {
    fc.assert(
      fc.property(fc.jsonValue({ depthSize: "large", maxDepth: 40 }), (value) => {
        const text = JSON.stringify(value);
        if (!hasForbiddenKey(value)) assert.deepEqual(parseJsonStrict(text), JSON.parse(text));
      }),
      { numRuns: 200 },
    );
  });
});

/** Characters and snippets that matter to the grammar, plus a few that must never be accepted. */
const MUTATION_SNIPPETS = [
  ..."{}[],:\"\\/ \n\r\t0123456789-+.eEtrufalsnbx'u",
  "\u0000",
  "\u001f",
  "\u000c",
  "\u00a0",
  "\u2028",
  "\ufeff",
  "\ud800",
  "😀",
  ",]",
  ",}",
  "[,",
  ",,",
  "::",
  '""',
  '"a":',
  '"a":1,',
  "\\u",
  "\\ud800",
  "00",
  "-0",
  "1.",
  ".1",
  "e+",
  "true",
  "nul",
  "[]",
  "{}",
];

const mutatedJson = fc
  .tuple(
    fc.jsonValue({ maxDepth: 4 }),
    fc.boolean(),
    fc.array(
      fc.record({
        kind: fc.constantFrom("delete", "insert", "replace"),
        at: fc.nat(),
        char: fc.constantFrom(...MUTATION_SNIPPETS),
      }),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([value, pretty, mutations]) => {
    let text = JSON.stringify(value, null, pretty ? 2 : undefined);
    for (const { kind, at, char } of mutations) {
      const i = at % (text.length + 1);
      if (kind === "insert") text = text.slice(0, i) + char + text.slice(i);
      else if (kind === "delete") text = text.slice(0, i) + text.slice(i + 1);
      else text = text.slice(0, i) + char + text.slice(i + 1);
    }
    return text;
  });

const TOKENS = [
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  '"',
  '"a"',
  '"\\u0061"',
  '"\\ud800"',
  '"\\x"',
  '"\\u00"',
  "\\",
  "0",
  "1",
  "9",
  "-",
  ".",
  "e",
  "E",
  "+",
  "00",
  "12",
  "true",
  "false",
  "null",
  "tru",
  "nul",
  " ",
  "\n",
  "\r",
  "\t",
  "\f",
  "\u00a0",
  "\ufeff",
  "'",
  '"\u0001"',
  "NaN",
  "Infinity",
  "x",
  "/",
  "/**/",
  '"__proto__"',
];

Deno.test("parseJsonStrict() rejects whatever JSON.parse rejects", async (t) => {
  await t.step("mutated valid JSON", () => {
    fc.assert(fc.property(mutatedJson, (text) => void agreeWithJsonParse(text)), {
      numRuns: 5000,
    });
  });
  await t.step("sequences of grammar tokens", () => {
    const text = fc.array(fc.constantFrom(...TOKENS), { maxLength: 14 }).map((t) => t.join(""));
    fc.assert(fc.property(text, (text) => void agreeWithJsonParse(text)), { numRuns: 10000 });
  });
  await t.step("arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
        agreeWithJsonParse(text);
      }),
      { numRuns: 2000 },
    );
  });
  await t.step("numbers", () => {
    const number = fc
      .array(fc.constantFrom(..."-+.eE0123456789"), { minLength: 1, maxLength: 10 })
      .map((chars) => chars.join(""));
    fc.assert(fc.property(number, (text) => void agreeWithJsonParse(`[${text}]`)), {
      numRuns: 5000,
    });
  });
});

Deno.test("parseJsonStrict() refuses duplicate keys compared after decoding", async (t) => {
  const cases: [name: string, text: string, where: string][] = [
    ["plain", '{"a":1,"a":2}', "$.a"],
    ["escaped spelling", '{"a":1,"\\u0061":2}', "$.a"],
    ["upper-case hex escape", '{"\\u00E9":1,"é":2}', '$["é"]'],
    ["escaped solidus", '{"a/b":1,"a\\/b":2}', '$["a/b"]'],
    ["escaped surrogate pair", '{"😀":1,"\\ud83d\\ude00":2}', '$["😀"]'],
    ["escaped lone surrogate", '{"\\ud800":1,"\\uD800":2}', '$["\\ud800"]'],
    ["empty key", '{"":1,"":2}', '$[""]'],
    ["not adjacent", '{"a":1,"b":2,"c":3,"a":4}', "$.a"],
    ["nested", '{"x":{"y":{"z":1,"z":2}}}', "$.x.y.z"],
    ["in an array of objects", '[{"a":1},{"b":1,"b":2}]', "$[1].b"],
    ["after a nested object", '{"a":{"b":1},"a":2}', "$.a"],
    [
      "in a large object",
      `{${Array.from({ length: 100 }, (_, i) => `"k${i}":${i}`).join(",")},"k37":0}`,
      "$.k37",
    ],
  ];
  for (const [name, text, where] of cases) {
    await t.step(name, () => {
      const error = rejects(text, "json-duplicate-key");
      assert.equal(error.where, where);
    });
  }

  const allowed: [name: string, text: string][] = [
    ["same key in sibling objects", '[{"a":1},{"a":2}]'],
    ["same key in sibling members", '{"x":{"a":1},"y":{"a":1}}'],
    ["same key in parent and child", '{"a":{"a":{"a":1}}}'],
    ["keys differing in case", '{"a":1,"A":2}'],
    ["a pair versus its halves", '{"\\ud83d\\ude00":1,"\\ud83d":2,"\\ude00":3}'],
    ["same string as values", '{"a":"a","b":"a"}'],
    ["many distinct keys", `{${Array.from({ length: 1000 }, (_, i) => `"k${i}":0`).join(",")}}`],
  ];
  for (const [name, text] of allowed) {
    await t.step(`allowed: ${name}`, () => {
      assert.deepEqual(parseJsonStrict(text), JSON.parse(text));
    });
  }
});

Deno.test("parseJsonStrict() refuses __proto__ at any depth, the one key JSON readers read two ways", async (t) => {
  const cases: [name: string, text: string, where: string][] = [
    ["__proto__ at the top", '{"__proto__":{"polluted":true}}', "$.__proto__"],
    ["__proto__ nested", '{"a":[{"__proto__":1}]}', "$.a[0].__proto__"],
    ["escaped __proto__", '{"__proto\\u005f_":1}', "$.__proto__"],
    [
      "fully escaped __proto__",
      `{"${[..."__proto__"].map(escapeChar).join("")}":1}`,
      "$.__proto__",
    ],
    ["before a duplicate", '{"a":1,"__proto__":2,"a":3}', "$.__proto__"],
  ];
  for (const [name, text, where] of cases) {
    await t.step(name, () => {
      const error = rejects(text, "json-forbidden-key", { where: "data/passport.json" });
      assert.equal(error.where, `data/passport.json ${where}`);
    });
  }
  const allowed: [name: string, text: string][] = [
    ["as string values", '{"a":"__proto__","b":["constructor","prototype"]}'],
    ["as a top-level string", '"__proto__"'],
    ["near misses", '{"Constructor":1,"__proto":2,"prototypes":3," prototype":4,"proto":5}'],
    ["toString and valueOf", '{"toString":1,"valueOf":2,"hasOwnProperty":3}'],
    // Issue 39 family 9: every JSON reader reads these alike; the format warns, never refuses.
    ["constructor nested", '{"a":[{"constructor":1}]}'],
    ["prototype deep", '{"x":{"y":[[{"prototype":{}}]]}}'],
    ["fully escaped constructor", `{"${[..."constructor"].map(escapeChar).join("")}":1}`],
  ];
  for (const [name, text] of allowed) {
    await t.step(`allowed: ${name}`, () => {
      const value = parseJsonStrict(text);
      assert.deepEqual(value, JSON.parse(text));
    });
  }
  await t.step("the result has an ordinary prototype", () => {
    const value = parseJsonStrict('{"a":{"b":1}}');
    assert.ok(isPlainObject(value));
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

Deno.test("parseJsonStrict() limits nesting without recursion", async (t) => {
  const deep = 100_000;
  const cases: [name: string, text: string][] = [
    ["100,000 unclosed [", "[".repeat(deep)],
    ["100,000 closed []", "[".repeat(deep) + "]".repeat(deep)],
    ['100,000 unclosed {"a":', '{"a":'.repeat(deep)],
    ['100,000 closed {"a":', '{"a":'.repeat(deep) + "1" + "}".repeat(deep)],
    ["100,000 mixed", '[{"a":'.repeat(deep / 2) + "0" + "}]".repeat(deep / 2)],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const error = rejects(text, "json-too-deep");
      assert.match(error.message, /deeper than 256 levels/);
      assert.ok(error.where.length < 200, `where too long: ${error.where.length}`);
    });
  }
  await t.step("exactly 256 levels pass", () => {
    const arrays = "[".repeat(256) + "]".repeat(256);
    assert.deepEqual(parseJsonStrict(arrays), JSON.parse(arrays));
    const objects = '{"a":'.repeat(255) + "[]" + "}".repeat(255);
    assert.deepEqual(parseJsonStrict(objects), JSON.parse(objects));
  });
  await t.step("257 levels fail at the 257th opener", () => {
    const error = rejects("[".repeat(257) + "]".repeat(257), "json-too-deep");
    assert.deepEqual(position(error), [1, 257]);
    assert.equal(error.where, "$[0][0][0][0][0][0][0][0]…[0][0][0][0][0][0][0][0]");
  });
  await t.step("a custom maxDepth", () => {
    assert.deepEqual(parseJsonStrict("[[[]]]", { maxDepth: 3 }), [[[]]]);
    const error = rejects('{"a":[{"b":[]}]}', "json-too-deep", { maxDepth: 3, where: "x.json" });
    assert.equal(error.where, "x.json $.a[0].b");
    assert.equal(parseJsonStrict("7", { maxDepth: 0 }), 7);
    rejects("[]", "json-too-deep", { maxDepth: 0 });
  });
  await t.step("depth is the nesting, not the count of containers", () => {
    const wide = `[${Array.from({ length: 10_000 }, () => "[[]]").join(",")}]`;
    assert.equal((parseJsonStrict(wide, { maxDepth: 3 }) as unknown[]).length, 10_000);
  });
  await t.step("an invalid maxDepth is a programming error", () => {
    for (const maxDepth of [-1, 1.5, Number.NaN, Infinity]) {
      assert.throws(() => parseJsonStrict("1", { maxDepth }), RangeError);
    }
  });
});

Deno.test("parseJsonStrict() refuses syntax errors with their line and column", async (t) => {
  const cases: [name: string, text: string, line: number, column: number][] = [
    ["empty input", "", 1, 1],
    ["only whitespace", " \n\t", 2, 2],
    ["a leading byte order mark", "\ufeff{}", 1, 1],
    ["a byte order mark after whitespace", " \ufeff{}", 1, 2],
    ["a trailing comma in an array", "[1,2,]", 1, 6],
    ["a trailing comma in an object", '{"a":1,}', 1, 8],
    ["a leading comma", "[,1]", 1, 2],
    ["a double comma", "[1,,2]", 1, 4],
    ["a single-quoted string", "['x']", 1, 2],
    ["a single-quoted key", "{'a':1}", 1, 2],
    ["an unquoted key", "{a:1}", 1, 2],
    ["NaN", "NaN", 1, 1],
    ["Infinity", "[Infinity]", 1, 2],
    ["-Infinity", "-Infinity", 1, 2],
    ["a leading zero", "01", 1, 1],
    ["a negative leading zero", "[-01]", 1, 3],
    ["a double zero", "00", 1, 1],
    ["a leading plus", "+1", 1, 1],
    ["a bare decimal point", ".5", 1, 1],
    ["a trailing decimal point", "1.", 1, 3],
    ["a decimal point before an exponent", "1.e5", 1, 3],
    ["an empty exponent", "1e", 1, 3],
    ["an exponent sign alone", "1e+", 1, 4],
    ["a lone minus", "-", 1, 2],
    ["hexadecimal", "0x10", 1, 2],
    ["a raw control character in a string", '"a\u0001b"', 1, 3],
    ["a raw NUL in a string", '["\u0000"]', 1, 3],
    ["a raw newline in a string", '{"a":"x\ny"}', 1, 8],
    ["a raw tab in a string", '"\t"', 1, 2],
    ["a raw control character in a key", '{"a\u001fb":1}', 1, 4],
    ["an invalid escape", '"\\x41"', 1, 2],
    ["an escaped single quote", `"\\'"`, 1, 2],
    ["a short unicode escape", '"\\u12"', 1, 2],
    ["an upper-case U escape", '"\\U0041"', 1, 2],
    ["a non-hex unicode escape", '"\\u00g0"', 1, 2],
    ["an unterminated string", '["abc', 1, 2],
    ["a backslash at the end", '"abc\\', 1, 5],
    ["an unterminated array", "[1, 2", 1, 6],
    ["an unterminated object", '{"a":1', 1, 7],
    ["a missing value", '{"a":}', 1, 6],
    ["a missing colon", '{"a" 1}', 1, 6],
    ["a missing comma", "[1 2]", 1, 4],
    ["a mismatched bracket", "[1}", 1, 3],
    ["trailing garbage", "{} x", 1, 4],
    ["a second value", "1 2", 1, 3],
    ["an extra closer", "[]]", 1, 3],
    ["two strings", '"a""b"', 1, 4],
    ["a truncated literal", "tru", 1, 1],
    ["a capitalised literal", "True", 1, 1],
    ["a literal with extra letters", "nulll", 1, 5],
    ["a comment", "[1]//", 1, 4],
    ["a form feed as whitespace", "[\f1]", 1, 2],
    ["a no-break space as whitespace", "[\u00a01]", 1, 2],
    ["a line separator as whitespace", "[\u20281]", 1, 2],
    ["an error on a later line", '{\n  "a": 1,\n  "b": x\n}', 3, 8],
    ["CRLF lines", '{\r\n  "a": 1,\r\n  "b": ]\r\n}', 3, 8],
    ["columns count code points", '["😀😀", x]', 1, 8],
    ["columns after non-ASCII", '{"é":1 "b":2}', 1, 8],
  ];
  for (const [name, text, line, column] of cases) {
    await t.step(name, () => {
      assert.throws(() => JSON.parse(text), SyntaxError);
      const error = rejects(text, "json-syntax");
      assert.deepEqual(position(error), [line, column], error.message);
    });
  }
  await t.step("where names the label and the JSON path", () => {
    const text = '{"passport":{"asks":[{"what":"x","accept":}]}}';
    const error = rejects(text, "json-syntax", { where: "data/passport.json" });
    assert.equal(error.where, "data/passport.json $.passport.asks[0].accept");
    assert.equal(
      rejects('{"passport":{"facts":[1,2,3,x]}}', "json-syntax").where,
      "$.passport.facts[3]",
    );
  });
  await t.step("keys that are not identifiers are quoted in paths", () => {
    assert.equal(rejects('{"a b":{"é":[x]}}', "json-syntax").where, '$["a b"]["é"][0]');
    assert.equal(rejects('{"a\\u202eb":[x]}', "json-syntax").where, '$["a\\u202eb"][0]');
  });
  await t.step("long input is never quoted", () => {
    const longKey = "k".repeat(5000);
    const error = rejects(`{"${longKey}":1,"${longKey}":2}`, "json-duplicate-key");
    assert.ok(!error.message.includes("k".repeat(81)), error.message);
    assert.match(error.message, /a key of 5000 characters appears twice/);
    assert.ok(!error.where.includes("k".repeat(81)), error.where);
    const atEighty = "k".repeat(80);
    assert.match(
      rejects(`{"${atEighty}":1,"${atEighty}":2}`, "json-duplicate-key").message,
      /"k{80}"/,
    );
    const string = rejects(`["${"s".repeat(1_000_000)}\u0001"]`, "json-syntax");
    assert.deepEqual(position(string), [1, 1_000_003]);
    assert.match(string.message, /control character U\+0001/);
    const unterminated = rejects(`["${"s".repeat(1_000_000)}`, "json-syntax");
    assert.deepEqual(position(unterminated), [1, 2]);
  });
  await t.step("input that is not a string", () => {
    for (const input of [42, undefined, null, new Uint8Array([0x7b, 0x7d])]) {
      assert.throws(
        () => parseJsonStrict(input as unknown as string, { where: "data/x.json" }),
        (error) =>
          error instanceof TaskPackReadError && error.code === "wrong-type" &&
          error.where === "data/x.json",
      );
    }
  });
});

Deno.test("parseJsonStrict() accepts all of RFC 8259", async (t) => {
  const cases: [name: string, text: string][] = [
    ["a number", "1"],
    ["a negative fraction with exponent", "-0.5e-10"],
    ["exponent forms", "[1e5,1E5,1e+5,1E-5,0e0,-0,0.0]"],
    ["a huge exponent", "1e400"],
    ["a long integer", "123456789012345678901234567890"],
    ["a string", '"s"'],
    ["true", "true"],
    ["false", "false"],
    ["null", "null"],
    ["surrounding whitespace", " \t\r\n1 \t\r\n"],
    ["an empty object and array", '{"a":{},"b":[]}'],
    ["all simple escapes", '"\\" \\\\ \\/ \\b \\f \\n \\r \\t"'],
    ["unicode escapes", '"\\u0041\\u00e9\\u00E9\\uFFFF\\u0000"'],
    ["an escaped lone high surrogate", '"\\ud800"'],
    ["an escaped lone low surrogate", '"\\udc00"'],
    ["an escaped reversed pair", '"\\udc00\\ud800"'],
    ["a lone surrogate key", '{"\\ud800":1}'],
    ["a raw lone surrogate", '"\ud800"'],
    ["raw non-ASCII", '{"ключ":"значение 😀"}'],
    ["DEL and C1 controls raw", '"\u007f\u0080\u009f"'],
    ["a byte order mark inside a string", '"\ufeff"'],
    ["whitespace everywhere", ' { "a" : [ 1 , 2 ] , "b" : { } } '],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      assert.deepEqual(parseJsonStrict(text), JSON.parse(text));
    });
  }
  await t.step("the lone surrogate survives", () => {
    assert.equal(parseJsonStrict('"\\ud800"'), "\ud800");
  });
  await t.step("long strings with escapes and two-byte characters", () => {
    const value = [
      "x".repeat(100_000) + '"\\\n' + "é".repeat(100_000) + "😀",
      "\u0001".repeat(1000),
    ];
    const text = JSON.stringify(value);
    assert.deepEqual(parseJsonStrict(text), value);
  });
  await t.step("the reader is usable again after an error", () => {
    rejects('["abc', "json-syntax");
    assert.deepEqual(parseJsonStrict('["abc"]'), ["abc"]);
  });
});

Deno.test("parseJsonStrict() validates a ~20 MB document", () => {
  const base64 =
    "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw==";
  const blob = base64.slice(0, 84).repeat(Math.ceil(6_000_000 / 84));
  const document = {
    passport: { facts: Array.from({ length: 2000 }, (_, i) => ({ claim: `fact ${i}`, n: i })) },
    files: [
      { name: "a.bin", data: blob },
      { name: "b.bin", data: blob + "AA==" },
      { name: "c.bin", data: blob.slice(1000) },
    ],
  };
  const text = canonicalJson(document);
  assert.ok(text.length > 18_000_000, `${text.length}`);
  const value = parseJsonStrict(text, { where: "data/big.json" });
  assert.deepEqual(value, document);
  rejects(text.slice(0, -3) + "x}\n", "json-syntax");
});

Deno.test("canonicalJson() is two-space JSON with one trailing LF", async (t) => {
  await t.step("objects keep insertion order", () => {
    assert.equal(
      canonicalJson({ b: 1, a: [1, "x"], c: {} }),
      '{\n  "b": 1,\n  "a": [\n    1,\n    "x"\n  ],\n  "c": {}\n}\n',
    );
  });
  await t.step("scalars", () => {
    assert.equal(canonicalJson(null), "null\n");
    assert.equal(canonicalJson("é"), '"é"\n');
    assert.equal(canonicalJson([]), "[]\n");
  });
  await t.step("round trip through the strict reader", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        assert.ok(text.endsWith("\n") && !text.endsWith("\n\n"));
        if (!hasForbiddenKey(value)) {
          assert.equal(canonicalJson(parseJsonStrict(text)), text);
        }
      }),
    );
  });
  await t.step("values with no JSON form", () => {
    assert.throws(() => canonicalJson(undefined), TypeError);
    assert.throws(() => canonicalJson(() => 1), TypeError);
    assert.throws(() => canonicalJson(1n), TypeError);
  });
});

Deno.test("isPlainObject() is true for non-null, non-array objects", async (t) => {
  const cases: [name: string, value: unknown, expected: boolean][] = [
    ["an object", { a: 1 }, true],
    ["an empty object", {}, true],
    ["a null-prototype object", Object.create(null), true],
    ["an array", [], false],
    ["null", null, false],
    ["a string", "x", false],
    ["a number", 1, false],
    ["undefined", undefined, false],
    ["a function", () => {}, false],
  ];
  for (const [name, value, expected] of cases) {
    await t.step(name, () => assert.equal(isPlainObject(value), expected));
  }
});

Deno.test("parseJsonStrict({ wellFormed }) refuses a lone surrogate escape, as I-JSON does (RFC 7493 §2.1)", async (t) => {
  const refused: [name: string, text: string, where: string][] = [
    ["a lone high surrogate", '{"a":"x\\ud800y"}', "$.a"],
    ["a lone low surrogate", '{"a":"\\udc00"}', "$.a"],
    ["a high surrogate at the end", '["\\uDBFF"]', "$[0]"],
    ["two high surrogates", '{"a":"\\ud800\\ud800"}', "$.a"],
    ["reversed pair", '{"a":"\\udc00\\ud800"}', "$.a"],
    ["in a key", '{"k\\ud800":1}', "$"],
    ["a high surrogate then a plain letter escape", '{"a":"\\ud800\\u0041"}', "$.a"],
  ];
  for (const [name, text, where] of refused) {
    await t.step(`refused: ${name}`, () => {
      const error = rejects(text, "json-lone-surrogate", { wellFormed: true });
      assert.ok(error.where.startsWith(where), error.where);
      assert.match(error.message, /RFC 7493/);
      // Without the option the reader keeps its old reading (the home store's own files).
      assert.deepEqual(parseJsonStrict(text), JSON.parse(text));
    });
  }
  const allowed: [name: string, text: string][] = [
    ["an escaped pair", '{"a":"\\ud83d\\ude00"}'],
    ["an escaped pair in capitals", '{"a":"\\uD83D\\uDE00"}'],
    ["the character written out", '{"a":"\u{1F600}"}'],
    ["the last BMP letters", '{"a":"\\ud7ff\\ue000\\uffff"}'],
  ];
  for (const [name, text] of allowed) {
    await t.step(`allowed: ${name}`, () => {
      assert.deepEqual(parseJsonStrict(text, { wellFormed: true }), JSON.parse(text));
    });
  }
  await t.step(
    "every string JSON.stringify writes from well-formed text is allowed, and no other",
    () => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0xd7f0, max: 0xe010 }), { maxLength: 6 }),
          (units) => {
            const value = String.fromCharCode(...units);
            const text = JSON.stringify({ v: value });
            let ok = true;
            try {
              parseJsonStrict(text, { wellFormed: true });
            } catch {
              ok = false;
            }
            assert.equal(ok, value.isWellFormed(), text);
          },
        ),
        { numRuns: 2000 },
      );
    },
  );
});
