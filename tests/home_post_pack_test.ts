// Copyright 2026 the taskpack authors. MIT license.
// A pack posted to the home's POST /p with its signature beside it lands as a new passport, the
// same landing as everywhere else: the signature checked against the pack, required with
// --require-signed, a retry answered with the passport it already landed as.
import assert from "node:assert/strict";
import { judge, signPackDigest } from "../mod.ts";
import { encodeBase64 } from "../lib/bytes/mod.ts";
import { startCliServer } from "./_cli.ts";
import { REFERENCE_DIR, tempDir } from "./_helpers.ts";

async function startHome(store: string, extra: string[] = []) {
  const env = Deno.env.toObject();
  delete env.TASKPACK_TEAM_TOKEN;
  delete env.TASKPACK_REQUIRE_SIGNED;
  const server = await startCliServer(
    ["serve-home", "--store", store, "--port", "0", "--json", ...extra],
    env,
  );
  const url = server.url;
  return {
    post: (body: Uint8Array, signature?: string) =>
      fetch(`${url}/p`, {
        method: "POST",
        body: body as Uint8Array<ArrayBuffer>,
        headers: {
          "content-type": "application/vnd.taskpack+zip",
          ...(signature ? { "x-taskpack-signature": signature } : {}),
        },
      }),
    list: async () => (await (await fetch(`${url}/p`)).json()).passports as unknown[],
    stop: server.stop,
  };
}

Deno.test("POST /p with a pack and its signature lands it; a forged or missing signature lands nothing", async () => {
  const dir = await tempDir();
  const pack = await Deno.readFile(new URL("handoff.taskpack", REFERENCE_DIR));
  const keys = await crypto.subtle.generateKey("Ed25519", false, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const digest = (await judge(pack)).digest!;
  const signature = encodeBase64(new TextEncoder().encode(await signPackDigest(digest, keys)));
  const other = (await judge(await Deno.readFile(new URL("minimal.taskpack", REFERENCE_DIR))))
    .digest!;
  const forged = encodeBase64(new TextEncoder().encode(await signPackDigest(other, keys)));

  const home = await startHome(`${dir}/home`);
  try {
    const refused = await home.post(pack, forged);
    assert.equal(refused.status, 400);
    const why = await refused.json();
    assert.match(why.error, /signature/i);
    assert.equal(why.reason, "sig-mismatch");
    assert.deepEqual(await home.list(), [], "a signature that does not match lands nothing");

    const landed = await home.post(pack, signature);
    assert.equal(landed.status, 201);
    const body = await landed.json();
    assert.match(body.token, /\S{20,}/);
    assert.match(body.state.id, /^TP-/);
    assert.equal(body.landed.signature.status, "unknown-key", "signed, by a key no list names");
    assert.equal(body.state.lineage.root_id, "TP-9CB7-J5MK");

    const again = await home.post(pack, signature);
    assert.equal(again.status, 200);
    const retried = await again.json();
    assert.equal(retried.state.id, body.state.id, "a retry answers with the same passport");
    assert.equal(retried.token, undefined, "and shows no token again");
    assert.equal((await home.list()).length, 1);
  } finally {
    await home.stop();
  }

  const strict = await startHome(`${dir}/strict`, ["--require-signed"]);
  try {
    const unsigned = await strict.post(pack);
    assert.equal(unsigned.status, 400);
    assert.match((await unsigned.json()).error, /unsigned|not signed|signature/i);
    assert.deepEqual(await strict.list(), []);
  } finally {
    await strict.stop();
  }
});
