// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Signing with an Ed25519 key held in memory as a WebCrypto key pair, into the same armored SSH
 * signature `ssh-keygen -Y sign` writes (for edge functions and tests; people sign with their
 * own OpenSSH).
 *
 * @module
 */
import { concatBytes } from "../bytes/mod.ts";
import { SignatureError } from "./errors.ts";
import { publicKeyFromBlob, type SshPublicKey } from "./keys.ts";
import { armorSshSignature, signedData, type SshSigHash, sshSignatureBytes } from "./sshsig.ts";
import { sshHash } from "./verify.ts";
import { wireString } from "./wire.ts";

/**
 * The OpenSSH public key of a WebCrypto Ed25519 key.
 *
 * @param publicKey The public half of an Ed25519 key pair.
 * @returns The key, as OpenSSH names it.
 *
 * @example Usage
 * ```ts
 * import { ed25519PublicKey } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const keys = await crypto.subtle.generateKey("Ed25519", false, ["sign", "verify"]) as CryptoKeyPair;
 * assertEquals((await ed25519PublicKey(keys.publicKey)).label, "ED25519");
 * ```
 */
export async function ed25519PublicKey(publicKey: CryptoKey): Promise<SshPublicKey> {
  if (publicKey.algorithm.name !== "Ed25519" || publicKey.type !== "public") {
    throw new SignatureError(
      "sig-unsupported",
      "signing key",
      "the key is not an Ed25519 public key",
    );
  }
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", publicKey));
  return publicKeyFromBlob(concatBytes([wireString("ssh-ed25519"), wireString(raw)]));
}

/**
 * Signs `message` for `namespace` with an Ed25519 key pair, as `ssh-keygen -Y sign -n
 * <namespace>` would with the same key (Ed25519 is deterministic: the same bytes).
 *
 * @param message The message.
 * @param namespace The namespace (for packs: `taskpack`).
 * @param keyPair An Ed25519 key pair (`crypto.subtle.generateKey("Ed25519", ...)`, or imported).
 * @param hashAlgorithm The hash of the message (`ssh-keygen`'s default: sha512).
 * @returns The armored signature.
 *
 * @example Usage
 * ```ts
 * import { signWithEd25519 } from "./mod.ts";
 * import { assertMatch } from "@std/assert";
 *
 * const keys = await crypto.subtle.generateKey("Ed25519", false, ["sign", "verify"]) as CryptoKeyPair;
 * const armored = await signWithEd25519(new TextEncoder().encode("hello\n"), "file", keys);
 * assertMatch(armored, /^-----BEGIN SSH SIGNATURE-----\n/);
 * ```
 */
export async function signWithEd25519(
  message: Uint8Array,
  namespace: string,
  keyPair: CryptoKeyPair,
  hashAlgorithm: SshSigHash = "sha512",
): Promise<string> {
  if (keyPair.privateKey.algorithm.name !== "Ed25519") {
    throw new SignatureError("sig-unsupported", "signing key", "the key is not an Ed25519 key");
  }
  const key = await ed25519PublicKey(keyPair.publicKey);
  const data = signedData(namespace, hashAlgorithm, await sshHash(hashAlgorithm, message));
  const raw = new Uint8Array(
    await crypto.subtle.sign("Ed25519", keyPair.privateKey, data as Uint8Array<ArrayBuffer>),
  );
  const signature = concatBytes([wireString("ssh-ed25519"), wireString(raw)]);
  return armorSshSignature(sshSignatureBytes(key.blob, namespace, hashAlgorithm, signature));
}
