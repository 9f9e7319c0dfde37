// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Checking an SSH signature on WebCrypto: Ed25519, ECDSA P-256 (SSH's `mpint` r and s turned
 * into the 64 raw bytes WebCrypto reads), RSASSA-PKCS1-v1_5 with SHA-256 or SHA-512, and the
 * security-key forms, whose authenticator signs `sha256(application) || flags || counter ||
 * sha256(message)`.
 *
 * @module
 */
import { concatBytes, encodeBase64, Sha256, utf8 } from "../bytes/mod.ts";
import { SignatureError } from "./errors.ts";
import { keyMaterial, type SshPublicKey } from "./keys.ts";
import { signedData, type SshSigHash, type SshSignature } from "./sshsig.ts";
import { WireReader } from "./wire.ts";

/** What a security key said about the signing, besides the signature. */
export interface SecurityKeySigning {
  /** The authenticator's flags byte (0x01: a person touched it; 0x04: it verified them). */
  readonly flags: number;
  /** Its signature counter. */
  readonly counter: number;
  /** Whether the flags say a person touched the key (user presence). */
  readonly userPresent: boolean;
}

/** The signature algorithms each key type may sign with (SHA-1 `ssh-rsa` is not one). */
const ALGORITHMS: Record<SshPublicKey["type"], readonly string[]> = {
  "ssh-ed25519": ["ssh-ed25519"],
  "ecdsa-sha2-nistp256": ["ecdsa-sha2-nistp256"],
  "ssh-rsa": ["rsa-sha2-256", "rsa-sha2-512"],
  "sk-ssh-ed25519@openssh.com": ["sk-ssh-ed25519@openssh.com"],
  "sk-ecdsa-sha2-nistp256@openssh.com": ["sk-ecdsa-sha2-nistp256@openssh.com"],
};

/** The hash of `data` under a name PROTOCOL.sshsig allows. */
export async function sshHash(algorithm: SshSigHash, data: Uint8Array): Promise<Uint8Array> {
  if (algorithm === "sha256") return sha256(data);
  return new Uint8Array(await crypto.subtle.digest("SHA-512", data as Uint8Array<ArrayBuffer>));
}

function sha256(data: Uint8Array): Uint8Array {
  const hash = new Sha256();
  hash.update(data);
  return hash.digest();
}

/**
 * Checks that `signature` signs `message` in `namespace`.
 *
 * @param signature The signature, read.
 * @param message The message that should have been signed.
 * @param namespace The namespace it should have been signed for.
 * @param where What the signature is, for an error's message.
 * @returns What a security key said (for the `sk-` types), else null.
 * @throws {SignatureError} `sig-namespace`, `sig-unsupported`, `sig-format`, or `sig-mismatch`
 *   when it does not match.
 *
 * @example Usage
 * ```ts
 * import { parseSshSignature, SignatureError, signWithEd25519, verifySshSignature } from "./mod.ts";
 * import { assertEquals, assertRejects } from "@std/assert";
 *
 * const keys = await crypto.subtle.generateKey("Ed25519", false, ["sign", "verify"]) as CryptoKeyPair;
 * const message = new TextEncoder().encode("hello\n");
 * const sig = parseSshSignature(await signWithEd25519(message, "file", keys));
 * assertEquals(await verifySshSignature(sig, message, "file"), null);
 * await assertRejects(() => verifySshSignature(sig, new Uint8Array(1), "file"), SignatureError);
 * ```
 */
export async function verifySshSignature(
  signature: SshSignature,
  message: Uint8Array,
  namespace: string,
  where = "signature",
): Promise<SecurityKeySigning | null> {
  if (signature.namespace !== namespace) {
    throw new SignatureError(
      "sig-namespace",
      where,
      `the signature was made for the namespace "${
        signature.namespace.slice(0, 40)
      }", not "${namespace}"`,
    );
  }
  const key = signature.publicKey;
  if (!ALGORITHMS[key.type].includes(signature.algorithm)) {
    throw new SignatureError(
      signature.algorithm === "ssh-rsa" ? "sig-unsupported" : "sig-format",
      where,
      signature.algorithm === "ssh-rsa"
        ? "the signature uses SHA-1 (ssh-rsa), which is refused"
        : `a ${key.type} key cannot make a ${signature.algorithm.slice(0, 40)} signature`,
    );
  }
  const data = signedData(
    namespace,
    signature.hashAlgorithm,
    await sshHash(signature.hashAlgorithm, message),
  );
  const r = new WireReader(signature.signature, "sig-format", where);
  r.text("signature algorithm");
  const raw = r.string("signature bytes");
  let toVerify = data;
  let sk: SecurityKeySigning | null = null;
  if (key.type.startsWith("sk-")) {
    const flags = r.byte("security key flags");
    const counter = r.uint32("security key counter");
    sk = { flags, counter, userPresent: (flags & 1) === 1 };
    toVerify = concatBytes([
      sha256(utf8(key.application!)),
      new Uint8Array([flags]),
      signature.signature.subarray(signature.signature.length - 4),
      sha256(data),
    ]);
  }
  r.end("signature");
  const ok = await check(key, signature.algorithm, raw, toVerify, where);
  if (!ok) {
    throw new SignatureError(
      "sig-mismatch",
      where,
      `the signature does not match: the ${key.label} key ${key.fingerprint} did not sign this`,
    );
  }
  return sk;
}

async function check(
  key: SshPublicKey,
  algorithm: string,
  raw: Uint8Array,
  data: Uint8Array,
  where: string,
): Promise<boolean> {
  const m = keyMaterial(key);
  const subtle = crypto.subtle;
  const buf = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;
  try {
    if (m.kind === "ed25519") {
      if (raw.length !== 64) return false;
      const cryptoKey = await subtle.importKey("raw", buf(m.publicKey), "Ed25519", false, [
        "verify",
      ]);
      return await subtle.verify("Ed25519", cryptoKey, buf(raw), buf(data));
    }
    if (m.kind === "ecdsa-p256") {
      const rs = ecdsaRaw(raw, where);
      if (!rs) return false;
      const cryptoKey = await subtle.importKey(
        "raw",
        buf(m.point),
        { name: "ECDSA", namedCurve: "P-256" },
        false,
        ["verify"],
      );
      return await subtle.verify(
        { name: "ECDSA", hash: "SHA-256" },
        cryptoKey,
        buf(rs),
        buf(data),
      );
    }
    const modulusBytes = m.n.length;
    if (raw.length !== modulusBytes) return false;
    const cryptoKey = await subtle.importKey(
      "jwk",
      { kty: "RSA", n: base64url(m.n), e: base64url(m.e), ext: true },
      {
        name: "RSASSA-PKCS1-v1_5",
        hash: algorithm === "rsa-sha2-256" ? "SHA-256" : "SHA-512",
      },
      false,
      ["verify"],
    );
    return await subtle.verify("RSASSA-PKCS1-v1_5", cryptoKey, buf(raw), buf(data));
  } catch (error) {
    if (error instanceof SignatureError) throw error;
    // A runtime without the algorithm says so; a key WebCrypto refuses (not on the curve) cannot
    // have made any signature.
    if (error instanceof Error && error.name === "NotSupportedError") {
      throw new SignatureError(
        "sig-unsupported",
        where,
        `this runtime's WebCrypto cannot verify ${key.label} signatures`,
      );
    }
    return false;
  }
}

/** SSH's ECDSA signature (`mpint r`, `mpint s`) as the 64 bytes r || s, or null when invalid. */
function ecdsaRaw(blob: Uint8Array, where: string): Uint8Array | null {
  const r = new WireReader(blob, "sig-format", where);
  const rr = r.mpint("ECDSA r");
  const ss = r.mpint("ECDSA s");
  r.end("ECDSA signature");
  if (!rr.length || !ss.length || rr.length > 32 || ss.length > 32) return null;
  const out = new Uint8Array(64);
  out.set(rr, 32 - rr.length);
  out.set(ss, 64 - ss.length);
  return out;
}

function base64url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
