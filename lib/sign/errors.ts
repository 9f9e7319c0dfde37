// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The one error the signature core throws, with a stable code a caller can branch on.
 *
 * @module
 */

/** Why a signature, a public key or a trust list was refused. */
export type SignatureErrorCode =
  /** The text is not an armored SSH signature (`-----BEGIN SSH SIGNATURE-----`). */
  | "sig-armor"
  /** The signature's bytes are not the structure PROTOCOL.sshsig describes. */
  | "sig-format"
  /** A key type, signature algorithm or hash this library does not verify. */
  | "sig-unsupported"
  /** The signature was made for another namespace than the one asked for. */
  | "sig-namespace"
  /** Well formed, but it does not match the message and the key it names. */
  | "sig-mismatch"
  /** A public key that cannot be read. */
  | "key-format"
  /** A line of an `allowed_signers` file that cannot be read. */
  | "allowed-signers"
  /** A pack digest that is not 64 lowercase hex digits. */
  | "digest";

/**
 * A signature, key or trust list was refused. The message is one sentence: what is wrong, then
 * where in brackets (a file name and line, or the field of the signature).
 *
 * @example Usage
 * ```ts
 * import { SignatureError } from "./mod.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const error = new SignatureError("sig-mismatch", "x.sig", "the signature does not match");
 * assertEquals(error.code, "sig-mismatch");
 * assertEquals(error.message, "the signature does not match (x.sig)");
 * ```
 */
export class SignatureError extends Error {
  /** A stable, machine-readable code. */
  readonly code: SignatureErrorCode;
  /** Where: a file and line, or a field of the signature. */
  readonly where: string;

  /**
   * Creates the error.
   *
   * @param code The stable code.
   * @param where Where the problem is.
   * @param detail What is wrong, one sentence without the final stop.
   */
  constructor(code: SignatureErrorCode, where: string, detail: string) {
    super(`${detail}${where ? ` (${where})` : ""}`);
    this.name = "SignatureError";
    this.code = code;
    this.where = where;
  }
}
