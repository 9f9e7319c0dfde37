// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Signatures over a pack: what is signed (the pack digest as one line of text), signing it with
 * an in-memory key, and verifying a `<pack>.sig` against a trust list.
 *
 * @module
 */
import { utf8 } from "../bytes/mod.ts";
import { type AllowedSigners, findPrincipals, parseAllowedSigners } from "./allowed_signers.ts";
import { SignatureError } from "./errors.ts";
import { formatPublicKey } from "./keys.ts";
import { signWithEd25519 } from "./sign.ts";
import { parseSshSignature, type SshSigHash } from "./sshsig.ts";
import { type SecurityKeySigning, verifySshSignature } from "./verify.ts";

/** The SSH signature namespace of a pack's signature (`ssh-keygen -Y ... -n taskpack`). */
export const PACK_SIGNATURE_NAMESPACE = "taskpack";

/**
 * The message a pack's signature signs: its digest (the SHA-256 of `tagmanifest-sha256.txt`,
 * 64 lowercase hex digits, the same for the bag and the flat file) and one line feed; 65 bytes
 * of ASCII, what `sha256sum | cut -d' ' -f1` prints.
 *
 * @param digest The pack digest (with or without a `sha256:` prefix).
 * @returns The bytes signed.
 * @throws {SignatureError} `digest` when it is not 64 hex digits.
 *
 * @example Usage
 * ```ts
 * import { packSignatureMessage } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const digest = "ab".repeat(32);
 * assertEquals(new TextDecoder().decode(packSignatureMessage(`sha256:${digest}`)), `${digest}\n`);
 * ```
 */
export function packSignatureMessage(digest: string): Uint8Array {
  const hex = digest.startsWith("sha256:") ? digest.slice("sha256:".length) : digest;
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw new SignatureError("digest", "pack digest", "a pack digest is 64 lowercase hex digits");
  }
  return utf8(`${hex}\n`);
}

/** A pack's signature, verified. */
export interface PackSignature {
  /**
   * `signed`: by a key the trust list vouches for; `unknown-key`: it matches the pack, but the
   * key is not on the trust list (or no list was given).
   */
  readonly status: "signed" | "unknown-key";
  /** Who the trust list says holds the key: each vouching line's principals, as written. */
  readonly principals: readonly string[];
  /** The principals joined by commas (`alice@example.com`), when `signed`. */
  readonly principal?: string;
  /** The key's type as `ssh-keygen -l` names it: `ED25519`, `ECDSA`, `RSA`, `ED25519-SK`, ... */
  readonly keyType: string;
  /** `SHA256:` and the key's unpadded base64 hash, as `ssh-keygen -l` prints it. */
  readonly fingerprint: string;
  /** The key, as one line (`ssh-ed25519 AAAA...`), to add to a trust list. */
  readonly publicKey: string;
  /** The hash the signature used over the message. */
  readonly hashAlgorithm: SshSigHash;
  /** For a security key: its flags and counter. */
  readonly securityKey?: SecurityKeySigning;
  /** Lines of the trust list that hold the key but did not vouch for it here, and why. */
  readonly notes: readonly string[];
}

/** Options for {@linkcode verifyPackSignature}. */
export interface VerifyPackOptions {
  /** The trust list: an `allowed_signers` file's text, or one read with `parseAllowedSigners`. */
  allowedSigners?: AllowedSigners | string;
  /** When the signature is checked (for lines with `valid-after`/`valid-before`). */
  at?: Date;
  /** The signature's name in messages (its file name). Default: `signature`. */
  where?: string;
}

/**
 * Verifies a pack's detached signature (`<pack>.sig`) against the pack's digest, and says who
 * signed it by the trust list. It never throws for a signature that matches; whether to accept
 * an `unknown-key` is the caller's decision.
 *
 * @param digest The pack digest (`judge(...).digest`, 64 hex digits).
 * @param signature The armored signature.
 * @param options The trust list, the time, the signature's name.
 * @returns Who signed, and with which key.
 * @throws {SignatureError} When the signature does not match the pack (`sig-mismatch`), was made
 *   for another namespace (`sig-namespace`), cannot be read (`sig-armor`, `sig-format`), uses
 *   what this library does not verify (`sig-unsupported`); or the trust list cannot be read
 *   (`allowed-signers`).
 *
 * @example Sign in memory, verify against a trust list
 * ```ts
 * import { describePackSignature, signPackDigest, verifyPackSignature } from "./mod.ts";
 * import { assertEquals, assertMatch } from "@std/assert";
 *
 * const keys = await crypto.subtle.generateKey("Ed25519", false, ["sign", "verify"]) as CryptoKeyPair;
 * const digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
 * const sig = await signPackDigest(digest, keys);
 *
 * const unknown = await verifyPackSignature(digest, sig);
 * assertEquals(unknown.status, "unknown-key");
 *
 * const list = `alice@example.com ${unknown.publicKey}\n`;
 * const known = await verifyPackSignature(digest, sig, { allowedSigners: list });
 * assertEquals(known.principal, "alice@example.com");
 * assertMatch(describePackSignature(known), /^signed by alice@example\.com \(ED25519 SHA256:/);
 * ```
 */
export async function verifyPackSignature(
  digest: string,
  signature: string | Uint8Array,
  options: VerifyPackOptions = {},
): Promise<PackSignature> {
  const where = options.where ?? "signature";
  const message = packSignatureMessage(digest);
  const list = typeof options.allowedSigners === "string"
    ? parseAllowedSigners(options.allowedSigners)
    : options.allowedSigners;
  const parsed = parseSshSignature(signature, where);
  const sk = await verifySshSignature(parsed, message, PACK_SIGNATURE_NAMESPACE, where);
  const key = parsed.publicKey;
  const match = list
    ? findPrincipals(list, key, PACK_SIGNATURE_NAMESPACE, options.at?.getTime())
    : { principals: [], notes: [] };
  const signed = match.principals.length > 0;
  return {
    status: signed ? "signed" : "unknown-key",
    principals: match.principals,
    ...(signed ? { principal: match.principals.join(",") } : {}),
    keyType: key.label,
    fingerprint: key.fingerprint,
    publicKey: formatPublicKey(key),
    hashAlgorithm: parsed.hashAlgorithm,
    ...(sk ? { securityKey: sk } : {}),
    notes: match.notes,
  };
}

/**
 * Signs a pack's digest with an Ed25519 key held in memory; the result is what `ssh-keygen -Y
 * sign -n taskpack` writes for the same key and message, byte for byte.
 *
 * @param digest The pack digest.
 * @param keyPair An Ed25519 WebCrypto key pair.
 * @returns The armored signature, the content of `<pack>.sig`.
 *
 * @example Usage
 * ```ts
 * import { signPackDigest } from "./mod.ts";
 * import { assertMatch } from "@std/assert";
 *
 * const keys = await crypto.subtle.generateKey("Ed25519", false, ["sign", "verify"]) as CryptoKeyPair;
 * const sig = await signPackDigest("0".repeat(64), keys);
 * assertMatch(sig, /^-----BEGIN SSH SIGNATURE-----\n/);
 * ```
 */
export function signPackDigest(digest: string, keyPair: CryptoKeyPair): Promise<string> {
  return signWithEd25519(packSignatureMessage(digest), PACK_SIGNATURE_NAMESPACE, keyPair);
}

/**
 * One line a person reads: `signed by alice@example.com (ED25519 SHA256:...)`, or `signed by a
 * key you do not list (ED25519 SHA256:...)`.
 *
 * @param signature A verified signature.
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import { describePackSignature } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const line = describePackSignature({
 *   status: "unknown-key",
 *   principals: [],
 *   keyType: "ED25519",
 *   fingerprint: "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8",
 *   publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea",
 *   hashAlgorithm: "sha512",
 *   notes: [],
 * });
 * assertEquals(line, "signed by a key you do not list (ED25519 SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8)");
 * ```
 */
export function describePackSignature(signature: PackSignature): string {
  const key = `${signature.keyType} ${signature.fingerprint}`;
  return signature.status === "signed"
    ? `signed by ${signature.principal} (${key})`
    : `signed by a key you do not list (${key})`;
}
