// Copyright 2026 the taskpack authors. MIT license.
// What a home keeps of the packs that came and went (landed_packs, the outbox sent_packs, who
// signed an answer) never travels: a pack made from a passport carries none of it, and
// everything else of the passport is carried as it is.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import {
  ANSWERED_BY_VERIFIED,
  LANDED_PACKS,
  SENT_PACKS,
  withoutHomeRecords,
} from "../app/landings.ts";
import { buildPackObject, type PassportState } from "../lib/format/mod.ts";

const signature = fc.record({
  status: fc.constantFrom("signed", "unknown-key", "unsigned"),
  fingerprint: fc.string(),
});
const record = fc.record({ digest: fc.string(), at: fc.string(), signature });
const ask = fc.record(
  {
    id: fc.string({ minLength: 1 }),
    what: fc.string(),
    answered_by: fc.string(),
    [ANSWERED_BY_VERIFIED]: signature,
  },
  { requiredKeys: ["id", "what"], noNullPrototype: true },
);
const state = fc.record(
  {
    id: fc.constant("TP-AAAA-BBBB"),
    version: fc.nat(),
    goal: fc.string(),
    asks: fc.array(ask),
    [LANDED_PACKS]: fc.array(record),
    [SENT_PACKS]: fc.array(record),
    other: fc.jsonValue(),
  },
  { requiredKeys: ["id", "version"], noNullPrototype: true },
);

Deno.test("home records: withoutHomeRecords drops every home record and keeps everything else", () => {
  fc.assert(
    fc.property(state, (s) => {
      const out = withoutHomeRecords(s as PassportState);
      assert.equal(LANDED_PACKS in out, false);
      assert.equal(SENT_PACKS in out, false);
      for (const a of out.asks ?? []) assert.equal(ANSWERED_BY_VERIFIED in a, false);
      // Everything else is as it was.
      const { [LANDED_PACKS]: _l, [SENT_PACKS]: _s, asks, ...rest } = s;
      const { asks: outAsks, ...outRest } = out;
      assert.deepEqual(outRest, rest);
      assert.deepEqual(
        outAsks,
        asks?.map(({ [ANSWERED_BY_VERIFIED]: _v, ...q }) => q),
      );
      // Nothing of them reaches a pack.
      const packed = JSON.stringify(
        buildPackObject(out, { packedAt: new Date(0), machine: "m" }),
      );
      assert.doesNotMatch(packed, /landed_packs|sent_packs|answered_by_verified/);
    }),
  );
});

Deno.test("home records: a state without them is returned as it is", () => {
  const plain: PassportState = { id: "TP-AAAA-BBBB", version: 1, asks: [] };
  assert.equal(withoutHomeRecords(plain), plain);
});
