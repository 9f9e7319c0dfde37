// Copyright 2026 the taskpack authors. MIT license.
/**
 * `taskpack sign <pack> [--key <file>] [--json]`: signs a pack's digest with the user's own
 * `ssh-keygen -Y sign -n taskpack` and writes the armored signature to `<pack>.sig`, beside the
 * pack (replacing one there). The key is `--key`, else git's `user.signingKey` when
 * `gpg.format` is `ssh`, else `~/.ssh/id_ed25519`; ssh-agent, passphrases and security keys
 * work as they do for git, and no private key passes through this process.
 *
 * @module
 */
import { packSignatureMessage, SignatureError, verifyPackSignature } from "../lib/sign/mod.ts";
import { writeFileAtomic } from "../shell/host/files.ts";
import { findSigningKey, SigningError, sshKeygenSign } from "../shell/host/ssh_keygen.ts";
import type { ReadLimits } from "../lib/format/mod.ts";
import { EXIT, type Io } from "./io.ts";
import { readPackDigest, signaturePathOf } from "./signature.ts";

/** Options of `taskpack sign`. */
export interface SignOptions {
  /** `--key`: the key file (private, or public with the private half in ssh-agent). */
  key?: string | undefined;
  /** `--json`. */
  json: boolean;
  /** `--limit`. */
  limits?: Partial<ReadLimits>;
  /** `--store`: where the passport that made the pack keeps its outbox. */
  store?: string | undefined;
}

/**
 * Signs a pack.
 *
 * @param path The pack.
 * @param options The key, `--json`, reader limits.
 * @param io Output.
 * @returns The exit code: 0 signed, 1 no key or `ssh-keygen` failed, 2 the pack is not whole.
 */
export async function runSign(path: string, options: SignOptions, io: Io): Promise<number> {
  const pack = await readPackDigest(path, {
    ...(options.limits ? { limits: options.limits } : {}),
    quiet: options.json,
  });
  const key = await findSigningKey(options.key);
  let armored: string;
  try {
    armored = await sshKeygenSign(packSignatureMessage(pack.digest), key.key, {
      // A security key's prompts are shown as they come; what else ssh-keygen says is kept for
      // the one sentence a failure gets.
      onMessage: (text) => {
        for (const line of text.split(/\r?\n/)) {
          if (/^(Confirm user presence|User presence confirmed)/.test(line)) io.err(`${line}\n`);
        }
      },
    });
  } catch (error) {
    if (!(error instanceof SigningError)) throw error;
    io.err(`taskpack: ${error.message} (key from ${key.from})\n`);
    if (options.json) io.out(JSON.stringify({ ok: false, error: error.message }) + "\n");
    return EXIT.usage;
  }
  // What ssh-keygen wrote is checked before it is kept: it must sign this pack.
  let signed;
  try {
    signed = await verifyPackSignature(pack.digest, armored, { where: "ssh-keygen's output" });
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    throw new Error(`ssh-keygen wrote a signature taskpack cannot use: ${error.message}`);
  }
  const out = signaturePathOf(path);
  await writeFileAtomic(out, armored);
  // The outbox of the passport that made this pack, if it is in this store, says it is signed.
  const outbox = await (async () => {
    const { openWorkplace, recordSignature, summaryOf } = await import("../app/mod.ts");
    const work = await openWorkplace({ store: options.store });
    return await recordSignature(work, pack.digest, summaryOf(signed));
  })().catch(() => null);
  if (options.json) {
    io.out(
      JSON.stringify(
        {
          ok: true,
          pack: path,
          signature: out,
          digest: pack.digest,
          keyType: signed.keyType,
          fingerprint: signed.fingerprint,
          publicKey: signed.publicKey,
          key: key.key,
          keyFrom: key.from,
          outbox,
        },
        null,
        2,
      ) + "\n",
    );
    return EXIT.ok;
  }
  io.out(
    [
      `signed ${path} -> ${out} (${signed.keyType} ${signed.fingerprint})`,
      `  key: ${key.key} (${key.from})`,
      ...(outbox ? [`  recorded as signed in the outbox of ${outbox}`] : []),
      `  receivers who trust you add a line to their allowed_signers:`,
      `    <your-email> ${signed.publicKey}`,
    ].join("\n") + "\n",
  );
  return EXIT.ok;
}
