// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * OpenSSH public keys: the five types this library verifies, read from their wire form or from
 * a line as `ssh-keygen` writes it (`ssh-ed25519 AAAA... comment`), and their fingerprint as
 * `ssh-keygen -l` prints it.
 *
 * @module
 */
import { bytesEqual, decodeBase64Strict, encodeBase64, Sha256 } from "../bytes/mod.ts";
import { SignatureError, type SignatureErrorCode } from "./errors.ts";
import { WireReader } from "./wire.ts";

/** The key types this library verifies. */
export type SshKeyType =
  | "ssh-ed25519"
  | "ecdsa-sha2-nistp256"
  | "ssh-rsa"
  | "sk-ssh-ed25519@openssh.com"
  | "sk-ecdsa-sha2-nistp256@openssh.com";

/** Every key type the library knows the name of, verified or not (a trust list may hold any). */
export const KNOWN_KEY_TYPES: ReadonlySet<string> = new Set([
  "ssh-ed25519",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "ssh-rsa",
  "ssh-dss",
  "ssh-xmss@openssh.com",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
  "webauthn-sk-ecdsa-sha2-nistp256@openssh.com",
  "ssh-ed25519-cert-v01@openssh.com",
  "ecdsa-sha2-nistp256-cert-v01@openssh.com",
  "ecdsa-sha2-nistp384-cert-v01@openssh.com",
  "ecdsa-sha2-nistp521-cert-v01@openssh.com",
  "ssh-rsa-cert-v01@openssh.com",
  "ssh-dss-cert-v01@openssh.com",
  "sk-ssh-ed25519-cert-v01@openssh.com",
  "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
]);

/** The name `ssh-keygen` prints for each type, as in `256 SHA256:... (ED25519)`. */
const LABELS: Record<SshKeyType, string> = {
  "ssh-ed25519": "ED25519",
  "ecdsa-sha2-nistp256": "ECDSA",
  "ssh-rsa": "RSA",
  "sk-ssh-ed25519@openssh.com": "ED25519-SK",
  "sk-ecdsa-sha2-nistp256@openssh.com": "ECDSA-SK",
};

/** The smallest and largest RSA modulus accepted, in bits. */
export const RSA_MIN_BITS = 2048;
/** OpenSSH's own limit. */
export const RSA_MAX_BITS = 16384;

/** An OpenSSH public key. */
export interface SshPublicKey {
  /** Its type, as on the wire. */
  readonly type: SshKeyType;
  /** The name `ssh-keygen -l` prints: `ED25519`, `ECDSA`, `RSA`, `ED25519-SK`, `ECDSA-SK`. */
  readonly label: string;
  /** Its size in bits (256 for the elliptic curves, the modulus for RSA). */
  readonly bits: number;
  /** `SHA256:` and the unpadded base64 of the SHA-256 of its wire form. */
  readonly fingerprint: string;
  /** The security key's application (`ssh:` unless chosen), for the `sk-` types. */
  readonly application?: string;
  /** Its wire form (the base64 of an `authorized_keys` line, decoded). */
  readonly blob: Uint8Array;
}

/** The material a verifier needs, by family. */
export type KeyMaterial =
  | { readonly kind: "ed25519"; readonly publicKey: Uint8Array }
  | { readonly kind: "ecdsa-p256"; readonly point: Uint8Array }
  | { readonly kind: "rsa"; readonly n: Uint8Array; readonly e: Uint8Array };

const material = new WeakMap<SshPublicKey, KeyMaterial>();

/** The verifier's material of a key this module made. */
export function keyMaterial(key: SshPublicKey): KeyMaterial {
  const found = material.get(key);
  if (found) return found;
  return decodeKey(key.blob, "key-format", "public key").material;
}

/**
 * `SHA256:` and the unpadded base64 of the SHA-256 of a key's wire form, as `ssh-keygen -l`
 * prints it.
 *
 * @param blob The key's wire form.
 * @returns The fingerprint.
 *
 * @example Usage
 * ```ts
 * import { parsePublicKey, sshFingerprint } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * // RFC 8032's first test key, as OpenSSH writes it.
 * const key = parsePublicKey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea test");
 * assertEquals(sshFingerprint(key.blob), "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8");
 * ```
 */
export function sshFingerprint(blob: Uint8Array): string {
  const hash = new Sha256();
  hash.update(blob);
  return `SHA256:${encodeBase64(hash.digest()).replace(/=+$/, "")}`;
}

/**
 * Reads a public key from its wire form.
 *
 * @param blob The wire form.
 * @param where What it is, for an error's message.
 * @param code The code of the error a fault raises.
 * @returns The key.
 * @throws {SignatureError} When the bytes are not a key of a supported type.
 *
 * @example Usage
 * ```ts
 * import { parsePublicKey, publicKeyFromBlob } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const { blob } = parsePublicKey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea");
 * assertEquals(publicKeyFromBlob(blob).type, "ssh-ed25519");
 * ```
 */
export function publicKeyFromBlob(
  blob: Uint8Array,
  where = "public key",
  code: SignatureErrorCode = "key-format",
): SshPublicKey {
  return decodeKey(blob, code, where).key;
}

function decodeKey(
  blob: Uint8Array,
  code: SignatureErrorCode,
  where: string,
): { key: SshPublicKey; material: KeyMaterial } {
  const r = new WireReader(blob, code, where);
  const type = r.text("key type");
  let keyMaterial: KeyMaterial;
  let bits = 256;
  let application: string | undefined;
  switch (type) {
    case "ssh-ed25519":
    case "sk-ssh-ed25519@openssh.com": {
      const publicKey = r.string("Ed25519 key");
      if (publicKey.length !== 32) r.fail("Ed25519 key", "it is not 32 bytes long");
      keyMaterial = { kind: "ed25519", publicKey };
      break;
    }
    case "ecdsa-sha2-nistp256":
    case "sk-ecdsa-sha2-nistp256@openssh.com": {
      if (r.text("curve") !== "nistp256") r.fail("curve", "it is not nistp256");
      const point = r.string("ECDSA point");
      if (point.length !== 65 || point[0] !== 4) {
        r.fail("ECDSA point", "it is not an uncompressed P-256 point");
      }
      keyMaterial = { kind: "ecdsa-p256", point };
      break;
    }
    case "ssh-rsa": {
      const e = r.mpint("RSA exponent");
      const n = r.mpint("RSA modulus");
      bits = n.length ? n.length * 8 - Math.clz32(n[0]!) + 24 : 0;
      if (bits < RSA_MIN_BITS || bits > RSA_MAX_BITS) {
        throw new SignatureError(
          "sig-unsupported",
          where,
          `an RSA key of ${bits} bits is outside the ${RSA_MIN_BITS} to ${RSA_MAX_BITS} this library accepts`,
        );
      }
      if (!e.length || !(e[e.length - 1]! & 1) || (e.length === 1 && e[0]! < 3)) {
        r.fail("RSA exponent", "it is not an odd number of at least 3");
      }
      keyMaterial = { kind: "rsa", n, e };
      break;
    }
    default:
      throw new SignatureError(
        "sig-unsupported",
        where,
        KNOWN_KEY_TYPES.has(type)
          ? `the key type ${type} is not one this library verifies`
          : `"${type.slice(0, 60)}" is not a key type`,
      );
  }
  if (type.startsWith("sk-")) application = r.text("application");
  r.end("public key");
  const key: SshPublicKey = {
    type: type as SshKeyType,
    label: LABELS[type as SshKeyType],
    bits,
    fingerprint: sshFingerprint(blob),
    ...(application === undefined ? {} : { application }),
    blob,
  };
  material.set(key, keyMaterial);
  return { key, material: keyMaterial };
}

/**
 * Reads a public key from a line as `ssh-keygen` writes it (`<type> <base64> [comment]`), the
 * format of `~/.ssh/id_ed25519.pub` and `authorized_keys` (without options).
 *
 * @param line The line.
 * @param where Where it came from, for an error's message.
 * @returns The key.
 * @throws {SignatureError} When the line is not a key of a supported type.
 *
 * @example Usage
 * ```ts
 * import { parsePublicKey } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const key = parsePublicKey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea alice@laptop");
 * assertEquals([key.label, key.bits, key.fingerprint], ["ED25519", 256, "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8"]);
 * ```
 */
export function parsePublicKey(line: string, where = "public key"): SshPublicKey {
  const [type, base64] = line.trim().split(/\s+/);
  if (!type || !base64) {
    throw new SignatureError("key-format", where, "a public key line is a type and base64");
  }
  let blob: Uint8Array;
  try {
    blob = decodeBase64Strict(base64);
  } catch {
    throw new SignatureError("key-format", where, "the key is not valid base64");
  }
  const key = publicKeyFromBlob(blob, where);
  if (key.type !== type) {
    throw new SignatureError(
      "key-format",
      where,
      `the line says ${type.slice(0, 60)} but the key is ${key.type}`,
    );
  }
  return key;
}

/**
 * A key as one line, `<type> <base64>`, as `ssh-keygen` writes it (without a comment).
 *
 * @param key The key.
 * @returns The line.
 *
 * @example Usage
 * ```ts
 * import { formatPublicKey, parsePublicKey } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(formatPublicKey(parsePublicKey("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea a comment")), "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea");
 * ```
 */
export function formatPublicKey(key: SshPublicKey): string {
  return `${key.type} ${encodeBase64(key.blob)}`;
}

/** Whether two keys are the same key. */
export function sameKey(a: SshPublicKey, b: SshPublicKey): boolean {
  return bytesEqual(a.blob, b.blob);
}
