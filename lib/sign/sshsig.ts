// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The SSH signature format of OpenSSH's PROTOCOL.sshsig: the armored text, the binary wrapper
 * (`SSHSIG`, version 1, public key, namespace, reserved, hash algorithm, signature), and the
 * blob that is really signed.
 *
 * @module
 */
import {
  concatBytes,
  decodeBase64Strict,
  decodeUtf8Strict,
  encodeBase64,
  utf8,
} from "../bytes/mod.ts";
import { SignatureError } from "./errors.ts";
import { publicKeyFromBlob, type SshPublicKey } from "./keys.ts";
import { WireReader, wireString, wireUint32 } from "./wire.ts";

// Marked pure so that a bundle that does not verify signatures leaves it out.
const MAGIC = /* @__PURE__ */ utf8("SSHSIG");
const BEGIN = "-----BEGIN SSH SIGNATURE-----";
const END = "-----END SSH SIGNATURE-----";
/** The longest armored signature read: an RSA-16384 one is about 5 KiB. */
const MAX_ARMORED = 65_536;

/** The hash algorithms PROTOCOL.sshsig allows. */
export type SshSigHash = "sha256" | "sha512";

/** An SSH signature, read. */
export interface SshSignature {
  /** The key that made it, as the signature names it. */
  readonly publicKey: SshPublicKey;
  /** The namespace it was made for (`taskpack`, `git`, `file`, ...). */
  readonly namespace: string;
  /** The hash of the message that was signed. */
  readonly hashAlgorithm: SshSigHash;
  /** The algorithm of the signature itself (`ssh-ed25519`, `rsa-sha2-512`, ...). */
  readonly algorithm: string;
  /** The signature's own wire form (algorithm, bytes, and for security keys flags and counter). */
  readonly signature: Uint8Array;
}

/**
 * Reads an armored SSH signature, as `ssh-keygen -Y sign` writes it.
 *
 * @param armored The text (or its bytes).
 * @param where What it is, for an error's message (a file name).
 * @returns The signature.
 * @throws {SignatureError} `sig-armor` when the text is not an armored signature, `sig-format`
 *   when its bytes are not one, `sig-unsupported` for a key type this library does not verify.
 *
 * @example Usage
 * ```ts
 * import { parseSshSignature, signWithEd25519 } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const keys = await crypto.subtle.generateKey("Ed25519", false, ["sign", "verify"]) as CryptoKeyPair;
 * const armored = await signWithEd25519(new TextEncoder().encode("hi\n"), "file", keys);
 * const sig = parseSshSignature(armored);
 * assertEquals([sig.namespace, sig.hashAlgorithm, sig.algorithm], ["file", "sha512", "ssh-ed25519"]);
 * ```
 */
export function parseSshSignature(armored: string | Uint8Array, where = "signature"): SshSignature {
  return parseSshSignatureBytes(dearmor(armored, where), where);
}

function dearmor(armored: string | Uint8Array, where: string): Uint8Array {
  if (armored.length > MAX_ARMORED) {
    throw new SignatureError("sig-armor", where, "the signature is longer than 64 KiB");
  }
  let text: string;
  try {
    text = typeof armored === "string" ? armored : decodeUtf8Strict(armored);
  } catch {
    throw new SignatureError("sig-armor", where, "the signature is not text");
  }
  const lines = text.replace(/^\ufeff/, "").split(/\r?\n/).map((line) => line.trimEnd());
  while (lines.length && lines[lines.length - 1] === "") lines.pop();
  while (lines.length && lines[0] === "") lines.shift();
  if (lines[0] !== BEGIN || lines[lines.length - 1] !== END || lines.length < 3) {
    throw new SignatureError(
      "sig-armor",
      where,
      `an SSH signature starts with "${BEGIN}" and ends with "${END}"`,
    );
  }
  try {
    return decodeBase64Strict(lines.slice(1, -1).join(""));
  } catch {
    throw new SignatureError("sig-armor", where, "the signature's body is not valid base64");
  }
}

/**
 * Reads the binary form of an SSH signature (what the armor holds).
 *
 * @param bytes The binary form.
 * @param where What it is, for an error's message.
 * @returns The signature.
 * @throws {SignatureError} As {@linkcode parseSshSignature}.
 *
 * @example Usage
 * ```ts
 * import { parseSshSignatureBytes, SignatureError } from "./mod.ts";
 * import { assertThrows } from "@std/assert";
 *
 * assertThrows(() => parseSshSignatureBytes(new TextEncoder().encode("SSHSIG")), SignatureError);
 * ```
 */
export function parseSshSignatureBytes(bytes: Uint8Array, where = "signature"): SshSignature {
  const r = new WireReader(bytes, "sig-format", where);
  const magic = r.raw(MAGIC.length, "preamble");
  if (!magic.every((b, i) => b === MAGIC[i])) r.fail("preamble", 'it is not "SSHSIG"');
  const version = r.uint32("version");
  if (version !== 1) {
    throw new SignatureError(
      "sig-unsupported",
      where,
      `the signature is version ${version}, and only version 1 is read`,
    );
  }
  const publicKey = publicKeyFromBlob(r.string("public key"), where, "sig-format");
  const namespace = r.text("namespace");
  if (namespace === "") r.fail("namespace", "it is empty");
  if (r.string("reserved").length !== 0) r.fail("reserved", "it is not empty");
  const hash = r.text("hash algorithm");
  if (hash !== "sha256" && hash !== "sha512") {
    throw new SignatureError(
      "sig-unsupported",
      where,
      `the hash algorithm "${hash.slice(0, 30)}" is neither sha256 nor sha512`,
    );
  }
  const signature = r.string("signature");
  r.end("signature");
  const algorithm = new WireReader(signature, "sig-format", where).text("signature algorithm");
  return { publicKey, namespace, hashAlgorithm: hash, algorithm, signature };
}

/**
 * The blob a key really signs (PROTOCOL.sshsig): the preamble, the namespace, an empty
 * reserved field, the hash algorithm and the hash of the message.
 *
 * @param namespace The namespace.
 * @param hashAlgorithm The hash's name.
 * @param messageHash The hash of the message.
 * @returns The bytes to sign.
 *
 * @example Usage
 * ```ts
 * import { signedData } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const blob = signedData("taskpack", "sha256", new Uint8Array(32));
 * assertEquals(new TextDecoder().decode(blob.subarray(0, 6)), "SSHSIG");
 * assertEquals(blob.length, 6 + 12 + 4 + 10 + 36);
 * ```
 */
export function signedData(
  namespace: string,
  hashAlgorithm: SshSigHash,
  messageHash: Uint8Array,
): Uint8Array {
  return concatBytes([
    MAGIC,
    wireString(namespace),
    wireString(new Uint8Array(0)),
    wireString(hashAlgorithm),
    wireString(messageHash),
  ]);
}

/**
 * The binary form of a signature, from its parts.
 *
 * @param publicKey The key's wire form.
 * @param namespace The namespace.
 * @param hashAlgorithm The hash's name.
 * @param signature The signature's wire form.
 * @returns The bytes the armor holds.
 *
 * @example Usage
 * ```ts
 * import { armorSshSignature, parseSshSignatureBytes, parsePublicKey, sshSignatureBytes } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const key = parsePublicKey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea");
 * const bytes = sshSignatureBytes(key.blob, "taskpack", "sha512", new Uint8Array([0, 0, 0, 1, 120]));
 * assertEquals(parseSshSignatureBytes(bytes).algorithm, "x");
 * assertEquals(armorSshSignature(bytes).split("\n")[0], "-----BEGIN SSH SIGNATURE-----");
 * ```
 */
export function sshSignatureBytes(
  publicKey: Uint8Array,
  namespace: string,
  hashAlgorithm: SshSigHash,
  signature: Uint8Array,
): Uint8Array {
  return concatBytes([
    MAGIC,
    wireUint32(1),
    wireString(publicKey),
    wireString(namespace),
    wireString(new Uint8Array(0)),
    wireString(hashAlgorithm),
    wireString(signature),
  ]);
}

/**
 * The armored text, as `ssh-keygen` writes it: base64 in lines of 70 characters between the
 * two markers, each line ending in a line feed.
 *
 * @param bytes The binary form.
 * @returns The text.
 *
 * @example Usage
 * ```ts
 * import { armorSshSignature } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(
 *   armorSshSignature(new Uint8Array(3)),
 *   "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n",
 * );
 * ```
 */
export function armorSshSignature(bytes: Uint8Array): string {
  const body = encodeBase64(bytes);
  const lines = [BEGIN];
  for (let at = 0; at < body.length; at += 70) lines.push(body.slice(at, at + 70));
  lines.push(END);
  return lines.join("\n") + "\n";
}
