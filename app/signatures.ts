// Copyright 2026 the taskpack authors. MIT license.
/**
 * Who signed a pack, as every door reports it: the detached SSH signature beside a pack
 * (`<pack>.sig`, or bytes that came with it) checked against the pack digest and the trust list
 * (`allowed_signers`: the one named, else taskpack's own, else git's), and signing a pack just
 * written with the user's own `ssh-keygen`. A signature that does not match is refused whatever
 * the settings; `requireSigned` refuses an unsigned pack or one from a key the list does not
 * name.
 *
 * @module
 */
import {
  type AllowedSigners,
  describePackSignature,
  type PackSignature,
  packSignatureMessage,
  parseAllowedSigners,
  SignatureError,
  verifyPackSignature,
} from "../lib/sign/mod.ts";
import { writeFileAtomic } from "../shell/host/files.ts";
import { readFile } from "../shell/host/host_fs.ts";
import {
  findAllowedSigners,
  findSigningKey,
  SigningError,
  sshKeygenSign,
} from "../shell/host/ssh_keygen.ts";
import { OperationError } from "./refusal.ts";

/** Who signed a pack, as a reply and a home record carry it. */
export interface SignatureSummary {
  /**
   * `signed` (by a key the trust list names), `unknown-key` (the signature matches the pack,
   * but no line of the trust list vouches for its key), or `unsigned`.
   */
  status: "signed" | "unknown-key" | "unsigned";
  /** Who the trust list says holds the key (`alice@example.com`), when `signed`. */
  principal?: string;
  /** The key's type as `ssh-keygen -l` names it (`ED25519`, `ECDSA`, `RSA` ...). */
  key_type?: string;
  /** The key's fingerprint (`SHA256:...`). */
  fingerprint?: string;
}

/** How a door treats signatures: a person's or a server's settings, never a model's. */
export interface SigningSettings {
  /** Refuse a pack that is unsigned or signed by a key the trust list does not name. */
  requireSigned?: boolean | undefined;
  /** The trust list (`--allowed-signers`), else taskpack's own, else git's. */
  allowedSigners?: string | undefined;
  /** The key a server signs with when asked (`taskpack mcp --sign-key`). */
  key?: string | undefined;
}

/** The signature as a summary. */
export function summaryOf(signature: PackSignature): SignatureSummary {
  return {
    status: signature.status,
    ...(signature.principal ? { principal: signature.principal } : {}),
    key_type: signature.keyType,
    fingerprint: signature.fingerprint,
  };
}

/** A signature summary in words: `signed by alice@example.com (ED25519 SHA256:…)`. */
export function describeSummary(summary: SignatureSummary): string {
  if (summary.status === "unsigned") return "unsigned";
  const key = `${summary.key_type} ${summary.fingerprint}`;
  return summary.status === "signed"
    ? `signed by ${summary.principal} (${key})`
    : `signed by a key you do not list (${key})`;
}

/**
 * The signature beside a pack file (`<pack>.sig`), or null when there is none.
 *
 * @param path The pack's path.
 * @returns The signature's bytes, or null.
 */
export async function signatureBeside(path: string): Promise<Uint8Array | null> {
  try {
    return await readFile(`${path}.sig`);
  } catch (error) {
    if ((error as { code?: string })?.code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Checks a pack's signature against its digest and the trust list, before anything lands.
 *
 * @param digest The pack digest as received (null when the pack declares none).
 * @param signature The signature's text or bytes, or null when unsigned.
 * @param settings Whether a signature is required, and the trust list.
 * @param names The pack's and the signature's names, for sentences.
 * @param at When it is checked (trust-list lines with `valid-after`/`valid-before`).
 * @returns Who signed it.
 * @throws {OperationError} `refused` when the signature does not match (whatever the settings),
 *   or a required signature is missing or from a key the list does not name; `usage` when the
 *   trust list cannot be read.
 */
export async function checkPackSignature(
  digest: string | null,
  signature: string | Uint8Array | null,
  settings: SigningSettings,
  names: { pack: string; signature: string },
  at: Date = new Date(),
): Promise<SignatureSummary> {
  const required = settings.requireSigned === true;
  if (signature === null) {
    if (required) {
      throw new OperationError(
        "refused",
        "unsigned",
        `${names.pack} is unsigned and signatures are required here: ask the sender to sign it ` +
          `(taskpack sign) and send ${names.signature} with it`,
        names.pack,
      );
    }
    return { status: "unsigned" };
  }
  if (digest === null) {
    throw new OperationError(
      "refused",
      "sig-digest",
      `${names.pack} declares no digest, so its signature ${names.signature} cannot vouch for it`,
      names.pack,
    );
  }
  const trust = await findAllowedSigners(settings.allowedSigners);
  let list;
  try {
    list = trust ? parseAllowedSigners(trust.text, trust.path) : undefined;
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    throw new OperationError(
      "usage",
      "allowed-signers",
      `The trust list cannot be read: ${error.message}`,
    );
  }
  let verified: PackSignature;
  try {
    verified = await verifyPackSignature(digest, signature, {
      ...(list ? { allowedSigners: list } : {}),
      at,
      where: names.signature,
    });
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    throw new OperationError(
      "refused",
      error.code,
      `${names.pack} is refused: ${error.message}`,
      names.signature,
    );
  }
  if (required && verified.status !== "signed") {
    throw new OperationError(
      "refused",
      "unknown-key",
      `${names.pack} is ${describePackSignature(verified)}, and signatures are required ` +
        `from keys ${trust ? `listed in ${trust.path}` : "in a trust list (there is none)"}`,
      names.signature,
    );
  }
  return summaryOf(verified);
}

/**
 * Signs a pack just written with the user's own `ssh-keygen` and writes `<out>.sig` beside it.
 *
 * @param out The pack's path.
 * @param digest Its digest.
 * @param key The key (`--key`), else git's `user.signingKey`, else `~/.ssh/id_ed25519`.
 * @param allowedSigners The trust list to name the signer by, when it lists the key.
 * @returns Who signed it: by name when the trust list names the key, else `unknown-key`.
 * @throws {OperationError} `usage`, `sign-failed`, in one sentence, when no signature was made.
 */
export async function signPackFile(
  out: string,
  digest: string,
  key: string | undefined,
  allowedSigners?: string,
): Promise<SignatureSummary & { signature: string; key: string }> {
  const found = await findSigningKey(key);
  let armored: string;
  try {
    armored = await sshKeygenSign(packSignatureMessage(digest), found.key);
  } catch (error) {
    if (!(error instanceof SigningError)) throw error;
    throw new OperationError(
      "usage",
      "sign-failed",
      `${out} was written but not signed: ${error.message} (key from ${found.from})`,
      out,
    );
  }
  let signed: PackSignature;
  try {
    signed = await verifyPackSignature(digest, armored, {
      ...(await quietTrustList(allowedSigners)),
      at: new Date(),
      where: "ssh-keygen's output",
    });
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    throw new OperationError(
      "usage",
      "sign-failed",
      `${out} was written but not signed: ssh-keygen wrote a signature taskpack cannot use: ` +
        error.message,
      out,
    );
  }
  const path = `${out}.sig`;
  await writeFileAtomic(path, armored);
  return { ...summaryOf(signed), signature: path, key: found.key };
}

/** The trust list to name a signer by, when there is one that reads; nothing otherwise. */
async function quietTrustList(
  flag: string | undefined,
): Promise<{ allowedSigners?: AllowedSigners }> {
  try {
    const trust = await findAllowedSigners(flag);
    return trust ? { allowedSigners: parseAllowedSigners(trust.text, trust.path) } : {};
  } catch {
    // Naming the signer is a courtesy here: the signature is made and checked without it.
    return {};
  }
}
