// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack verify <pack> [--sig <file>] [--allowed-signers <file>] [--json]`: who signed a
 * pack, by the trust list (git's `allowed_signers` format: `--allowed-signers`, else taskpack's
 * own file, else git's `gpg.ssh.allowedSignersFile`).
 *
 * Exit codes: 0 signed by a key the trust list vouches for; 3 not vouched for (unsigned, or
 * signed by a key you do not list); 2 refused (the signature does not match the pack, was made
 * for something else, or the pack is not whole); 1 usage, a missing file, a broken trust list.
 *
 * `--message` prints the exact bytes a pack's signature signs (its digest and a line feed), to
 * pipe into `ssh-keygen -Y verify -n taskpack`.
 *
 * @module
 */
import {
  describePackSignature,
  type PackSignature,
  packSignatureMessage,
  parseAllowedSigners,
  SignatureError,
  verifyPackSignature,
} from "../lib/sign/mod.ts";
import type { ReadLimits } from "../lib/format/mod.ts";
import { readTextFile } from "../shell/host/host_fs.ts";
import { findAllowedSigners } from "../shell/host/ssh_keygen.ts";
import { EXIT, type Io } from "./io.ts";
import { readPackDigest, signaturePathOf } from "./signature.ts";

/** `verify`'s exit code when no key the trust list vouches for signed the pack. */
export const EXIT_NOT_VOUCHED = 3;

/** Options of `taskpack verify`. */
export interface VerifyOptions {
  /** `--sig`: the signature (default: `<pack>.sig`, where its absence means unsigned). */
  sig?: string | undefined;
  /** `--allowed-signers`: the trust list. */
  allowedSigners?: string | undefined;
  /** `--json`. */
  json: boolean;
  /** `--message`: print the signed message instead. */
  message?: boolean | undefined;
  /** `--limit`. */
  limits?: Partial<ReadLimits>;
  /** When the signature is checked (for trust-list lines with a time window). Default: now. */
  at?: Date;
}

/**
 * Verifies a pack's signature.
 *
 * @param path The pack.
 * @param options The signature, the trust list, `--json`, `--message`.
 * @param io Output.
 * @returns The exit code (see the module's documentation).
 */
export async function runVerify(path: string, options: VerifyOptions, io: Io): Promise<number> {
  const pack = await readPackDigest(path, {
    ...(options.limits ? { limits: options.limits } : {}),
    quiet: options.json || options.message === true,
  });
  if (options.message) {
    io.out(new TextDecoder().decode(packSignatureMessage(pack.digest)));
    return EXIT.ok;
  }
  const sigPath = options.sig ?? signaturePathOf(path);
  const armored = await readTextFile(sigPath).catch((error) => {
    if (options.sig === undefined && (error as { code?: string })?.code === "ENOENT") return null;
    throw error;
  });
  const trust = await findAllowedSigners(options.allowedSigners);
  let list;
  try {
    list = trust ? parseAllowedSigners(trust.text, trust.path) : undefined;
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    throw new Error(`The trust list cannot be read: ${error.message}`);
  }
  const base = {
    pack: path,
    encoding: pack.encoding,
    digest: pack.digest,
    conformant: pack.conformant,
    allowedSigners: trust ? { path: trust.path, from: trust.from } : null,
  };
  if (armored === null) {
    say(io, options.json, { ok: false, status: "unsigned", ...base, signature: null }, [
      `${path}: unsigned (no ${sigPath})`,
    ]);
    return EXIT_NOT_VOUCHED;
  }
  let signed: PackSignature;
  try {
    signed = await verifyPackSignature(pack.digest, armored, {
      ...(list ? { allowedSigners: list } : {}),
      at: options.at ?? new Date(),
      where: sigPath,
    });
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    io.err(`taskpack: refused: ${error.message}\n`);
    if (options.json) {
      io.out(
        JSON.stringify({
          ok: false,
          status: "refused",
          ...base,
          signature: sigPath,
          error: error.message,
          reason: error.code,
        }) + "\n",
      );
    }
    return EXIT.refused;
  }
  const lines = [`${path}: ${describePackSignature(signed)}`];
  for (const note of signed.notes) lines.push(`  note: ${note}`);
  if (signed.securityKey && !signed.securityKey.userPresent) {
    lines.push("  note: the security key was not touched to sign (no user presence)");
  }
  if (signed.status === "unknown-key") {
    lines.push(
      trust
        ? `  not in ${trust.path} (${trust.from}); to trust this key, add a line there:`
        : "  no trust list: name one with --allowed-signers, or add this line to taskpack's own (see docs/signing.md):",
      `    <who> ${signed.publicKey}`,
    );
  }
  if (!pack.conformant) {
    lines.push(`  note: the pack is not conformant (taskpack conformance ${path} says why)`);
  }
  const ok = signed.status === "signed";
  say(io, options.json, { ok, ...base, signature: sigPath, ...signed }, lines);
  return ok ? EXIT.ok : EXIT_NOT_VOUCHED;
}

function say(io: Io, json: boolean, value: Record<string, unknown>, lines: string[]): void {
  io.out(json ? JSON.stringify(value, null, 2) + "\n" : lines.join("\n") + "\n");
}
