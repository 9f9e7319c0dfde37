// Copyright 2026 the taskpack authors. MIT license.
// Landing a signed pack, as the operation every door runs: whatever byte of the pack or of its
// signature is changed, the landing is refused and nothing is written, or what lands is the
// very pack that was signed (a change the digest does not see, such as the whitespace of a flat
// file, changes nothing that lands) with the signer the trust list names.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import { landPack, openWorkplace, refusalOf } from "../app/mod.ts";
import {
  buildPackObject,
  ed25519PublicKey,
  encodeFlat,
  preparePack,
  signPackDigest,
} from "../mod.ts";
import { formatPublicKey } from "../lib/sign/mod.ts";
import { tempDir } from "./_helpers.ts";

async function signedPack() {
  const ready = await preparePack(
    buildPackObject(
      { id: "TP-9CB7-J5MK", version: 3, title: "release", goal: "ship it", next_steps: ["go"] },
      { packedAt: new Date("2026-01-02T03:04:05Z"), machine: "edge", actor: "alice" },
    ),
    [],
  );
  const keys = await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]);
  const signature = await signPackDigest(ready.digest, keys as CryptoKeyPair);
  const publicKey = formatPublicKey(await ed25519PublicKey((keys as CryptoKeyPair).publicKey));
  return {
    bytes: new TextEncoder().encode(await encodeFlat(ready)),
    signature: new TextEncoder().encode(signature),
    digest: ready.digest,
    publicKey,
  };
}

async function storeFiles(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name)
      .filter((name) => !name.startsWith(".") && name !== "allowed_signers");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

Deno.test("land property: a changed byte in the pack or its signature is refused before anything is written, or lands the pack that was signed", async () => {
  const pack = await signedPack();
  const dir = await tempDir();
  const trust = `${dir}/allowed_signers`;
  await Deno.writeTextFile(trust, `alice@example.com ${pack.publicKey}\n`);
  let refusedOnce = false;
  await fc.assert(
    fc.asyncProperty(
      fc.boolean(),
      fc.nat(),
      fc.integer({ min: 1, max: 255 }),
      async (inSignature, at, xor) => {
        const bytes = pack.bytes.slice();
        const signature = pack.signature.slice();
        const target = inSignature ? signature : bytes;
        target[at % target.length]! ^= xor;
        const store = `${dir}/store-${crypto.randomUUID()}`;
        const work = await openWorkplace({ store });
        try {
          const landed = await landPack(work, {
            pack: { bytes, name: "the pack" },
            signature,
            allowedSigners: trust,
            requireSigned: true,
          });
          assert.equal(landed.signature.status, "signed");
          assert.equal(landed.signature.principal, "alice@example.com");
          const state = (await work.store.open(landed.passport_id))!;
          const [record] = state.landed_packs as { digest: string }[];
          assert.equal(record!.digest, pack.digest, "what lands is the pack that was signed");
        } catch (error) {
          if (error instanceof assert.AssertionError) throw error;
          refusedOnce = true;
          assert.equal(refusalOf(error).kind === "missing", false, String(error));
          assert.deepEqual(await storeFiles(store), [], "nothing written");
        }
      },
    ),
    { numRuns: 60 },
  );
  assert.ok(refusedOnce, "some change was refused");
  // The pack as signed lands, so the property is not passing by refusing everything.
  const work = await openWorkplace({ store: `${dir}/as-signed` });
  const landed = await landPack(work, {
    pack: { bytes: pack.bytes, name: "the pack" },
    signature: pack.signature,
    allowedSigners: trust,
    requireSigned: true,
  });
  assert.equal(landed.signature.principal, "alice@example.com");
});
