// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * Signed packs with the SSH keys people already have: OpenSSH's signature format
 * (PROTOCOL.sshsig) read and verified on WebCrypto (`ssh-ed25519`, `ecdsa-sha2-nistp256`,
 * `ssh-rsa` with `rsa-sha2-256`/`rsa-sha2-512`, and the security-key forms
 * `sk-ssh-ed25519@openssh.com`, `sk-ecdsa-sha2-nistp256@openssh.com`), git's `allowed_signers`
 * trust list, and signing with an in-memory Ed25519 key.
 *
 * A pack's signature signs its digest as one line (`<64 hex>\n`) in the namespace `taskpack`,
 * so `ssh-keygen -Y verify -n taskpack` checks it too. It uses `bytes/` only, and does no I/O:
 * people sign with their own `ssh-keygen`, which a shell runs.
 *
 * @example Usage
 * ```ts
 * import { packSignatureMessage, parseAllowedSigners, sshFingerprint } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(new TextDecoder().decode(packSignatureMessage("ab".repeat(32))), "ab".repeat(32) + "\n");
 * assertEquals(parseAllowedSigners("# nobody yet\n").signers.length, 0);
 * assertEquals(sshFingerprint(new Uint8Array(0)), "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU");
 * ```
 *
 * @module
 */

export {
  type AllowedSigner,
  type AllowedSigners,
  findPrincipals,
  matchPatternList,
  parseAllowedSigners,
  type SignerMatch,
} from "./allowed_signers.ts";
export { SignatureError, type SignatureErrorCode } from "./errors.ts";
export {
  formatPublicKey,
  parsePublicKey,
  publicKeyFromBlob,
  sshFingerprint,
  type SshKeyType,
  type SshPublicKey,
} from "./keys.ts";
export {
  describePackSignature,
  PACK_SIGNATURE_NAMESPACE,
  type PackSignature,
  packSignatureMessage,
  signPackDigest,
  type VerifyPackOptions,
  verifyPackSignature,
} from "./pack.ts";
export { ed25519PublicKey, signWithEd25519 } from "./sign.ts";
export {
  armorSshSignature,
  parseSshSignature,
  parseSshSignatureBytes,
  signedData,
  type SshSigHash,
  type SshSignature,
  sshSignatureBytes,
} from "./sshsig.ts";
export { type SecurityKeySigning, verifySshSignature } from "./verify.ts";
