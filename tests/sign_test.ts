// Copyright 2026 the taskpack authors. MIT license.
// Signed packs: the core against Debian's own ssh-keygen both ways, the security-key forms from a
// software authenticator written here, the trust list, and properties (fast-check) that any
// change to the message, the signature, the namespace or the key is refused. Every key is made
// at test time; none is committed.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import {
  armorSshSignature,
  describePackSignature,
  findPrincipals,
  matchPatternList,
  PACK_SIGNATURE_NAMESPACE,
  packSignatureMessage,
  parseAllowedSigners,
  parsePublicKey,
  parseSshSignature,
  publicKeyFromBlob,
  SignatureError,
  signedData,
  signPackDigest,
  signWithEd25519,
  sshSignatureBytes,
  verifyPackSignature,
} from "../lib/sign/mod.ts";
import { wireMpint, WireReader, wireString, wireUint32 } from "../lib/sign/wire.ts";
import { concatBytes, decodeBase64Strict, encodeBase64, Sha256, utf8 } from "../lib/bytes/mod.ts";
import { judge, luggageFromBytes } from "../mod.ts";
import { convert, inTempDir, packBoth, SAMPLE_OPTIONS } from "./_helpers.ts";

const decoder = new TextDecoder();
/** Bytes as WebCrypto's types want them. */
const buf = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;

// --- ssh-keygen, run as a user runs it ----------------------------------------------------------

async function run(
  args: string[],
  stdin?: Uint8Array,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command("ssh-keygen", {
    args,
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const out = await child.output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

type KeyKind = "ed25519" | "ecdsa" | "rsa";
const KEYGEN_ARGS: Record<KeyKind, string[]> = {
  ed25519: ["-t", "ed25519"],
  ecdsa: ["-t", "ecdsa", "-b", "256"],
  rsa: ["-t", "rsa", "-b", "3072"],
};

/** A new key pair in `dir`, made by ssh-keygen; returns the private key's path. */
async function keygen(dir: string, kind: KeyKind): Promise<string> {
  const path = `${dir}/id_${kind}`;
  const made = await run([...KEYGEN_ARGS[kind], "-N", "", "-q", "-C", `${kind}@test`, "-f", path]);
  assert.equal(made.code, 0, made.stderr);
  return path;
}

async function sshSign(key: string, message: Uint8Array, extra: string[] = []): Promise<string> {
  const signed = await run(["-Y", "sign", "-n", "taskpack", "-f", key, ...extra], message);
  assert.equal(signed.code, 0, signed.stderr);
  return signed.stdout;
}

async function sshVerify(
  dir: string,
  allowed: string,
  principal: string,
  signature: string,
  message: Uint8Array,
  namespace = "taskpack",
): Promise<{ code: number; stdout: string; stderr: string }> {
  await Deno.writeTextFile(`${dir}/allowed`, allowed);
  await Deno.writeTextFile(`${dir}/msg.sig`, signature);
  return await run(
    [
      "-Y",
      "verify",
      "-f",
      `${dir}/allowed`,
      "-I",
      principal,
      "-n",
      namespace,
      "-s",
      `${dir}/msg.sig`,
    ],
    message,
  );
}

const DIGEST = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const OTHER_DIGEST = "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed";

async function newEd25519(): Promise<CryptoKeyPair> {
  return await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]) as CryptoKeyPair;
}

async function refusal(promise: Promise<unknown>, code: string): Promise<SignatureError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SignatureError, String(error));
    assert.equal(error.code, code, error.message);
    assert.ok(!error.message.includes("\n"), "one sentence, one line");
    return error;
  }
  assert.fail(`expected a ${code} refusal`);
}

// --- interop with ssh-keygen ---------------------------------------------------------------------

for (const kind of ["ed25519", "ecdsa", "rsa"] as const) {
  Deno.test(`a ${kind} signature made by ssh-keygen -Y sign verifies in the core, with the fingerprint ssh-keygen prints`, async () => {
    await inTempDir(async (dir) => {
      const key = await keygen(dir, kind);
      const pub = (await Deno.readTextFile(`${key}.pub`)).trim();
      const message = packSignatureMessage(DIGEST);
      const hashes = kind === "rsa" ? [[], ["-O", "hashalg=sha256"]] : [[]];
      for (const extra of hashes) {
        const sig = await sshSign(key, message, extra);
        const allowed = `alice@example.com ${pub}\n`;
        const result = await verifyPackSignature(DIGEST, sig, { allowedSigners: allowed });
        assert.equal(result.status, "signed");
        assert.equal(result.principal, "alice@example.com");
        assert.equal(result.hashAlgorithm, extra.length ? "sha256" : "sha512");
        const printed = await run(["-l", "-f", `${key}.pub`]);
        // "256 SHA256:... ed25519@test (ED25519)"
        const [bits, fingerprint] = printed.stdout.split(" ");
        assert.equal(result.fingerprint, fingerprint);
        assert.ok(printed.stdout.trim().endsWith(`(${result.keyType})`), printed.stdout);
        assert.equal(parsePublicKey(pub).bits, Number(bits));
        assert.equal(
          describePackSignature(result),
          `signed by alice@example.com (${result.keyType} ${fingerprint})`,
        );
        // The same signature over another digest is refused.
        await refusal(verifyPackSignature(OTHER_DIGEST, sig), "sig-mismatch");
        // ssh-keygen agrees with itself over the message we say is signed.
        const checked = await sshVerify(dir, allowed, "alice@example.com", sig, message);
        assert.equal(checked.code, 0, checked.stderr);
      }
    });
  });
}

Deno.test("a signature made by the library verifies with ssh-keygen -Y verify, and not over another digest", async () => {
  await inTempDir(async (dir) => {
    const keys = await newEd25519();
    const sig = await signPackDigest(DIGEST, keys);
    const { publicKey } = await verifyPackSignature(DIGEST, sig);
    const allowed = `bob@example.com namespaces="taskpack" ${publicKey}\n`;
    const message = packSignatureMessage(DIGEST);
    const good = await sshVerify(dir, allowed, "bob@example.com", sig, message);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /Good "taskpack" signature for bob@example.com with ED25519 key/);
    const bad = await sshVerify(
      dir,
      allowed,
      "bob@example.com",
      sig,
      packSignatureMessage(OTHER_DIGEST),
    );
    assert.notEqual(bad.code, 0);
    const wrongNamespace = await sshVerify(dir, allowed, "bob@example.com", sig, message, "git");
    assert.notEqual(wrongNamespace.code, 0);
  });
});

/** The 32-byte seed of an unencrypted OpenSSH Ed25519 private key file (openssh-key-v1). */
function ed25519Seed(pem: string): Uint8Array {
  const body = pem.split("\n").filter((l) => l && !l.startsWith("-----")).join("");
  const bytes = decodeBase64Strict(body);
  const magic = utf8("openssh-key-v1\0");
  assert.deepEqual(bytes.subarray(0, magic.length), magic);
  const r = new WireReader(bytes.subarray(magic.length), "key-format", "private key");
  assert.equal(r.text("cipher"), "none");
  r.string("kdf");
  r.string("kdf options");
  assert.equal(r.uint32("keys"), 1);
  r.string("public key");
  const p = new WireReader(r.string("private"), "key-format", "private key");
  p.uint32("check");
  p.uint32("check");
  assert.equal(p.text("type"), "ssh-ed25519");
  p.string("public");
  return p.string("private").slice(0, 32);
}

Deno.test("with the same Ed25519 key, the library writes exactly what ssh-keygen writes", async () => {
  await inTempDir(async (dir) => {
    const key = await keygen(dir, "ed25519");
    const pkcs8 = concatBytes([
      new Uint8Array([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70]),
      new Uint8Array([0x04, 0x22, 0x04, 0x20]),
      ed25519Seed(await Deno.readTextFile(key)),
    ]);
    const privateKey = await crypto.subtle.importKey("pkcs8", buf(pkcs8), "Ed25519", true, [
      "sign",
    ]);
    const pub = parsePublicKey(await Deno.readTextFile(`${key}.pub`));
    const publicKey = await crypto.subtle.importKey(
      "raw",
      buf(pub.blob.slice(pub.blob.length - 32)),
      "Ed25519",
      true,
      ["verify"],
    );
    const ours = await signPackDigest(DIGEST, { privateKey, publicKey });
    const theirs = await sshSign(key, packSignatureMessage(DIGEST));
    assert.equal(ours, theirs);
  });
});

// --- security keys, from a software authenticator -------------------------------------------------

function sha256(bytes: Uint8Array): Uint8Array {
  const h = new Sha256();
  h.update(bytes);
  return h.digest();
}

interface SoftAuthenticator {
  /** The OpenSSH public key line. */
  line: string;
  /** Signs `message` as `ssh-keygen -Y sign` would with this key. */
  sign(
    message: Uint8Array,
    options?: { flags?: number; counter?: number; namespace?: string },
  ): Promise<string>;
}

/**
 * A security key in software: it signs sha256(application) || flags || counter ||
 * sha256(data), and OpenSSH's signature carries flags and counter after the signature bytes.
 */
async function softAuthenticator(
  kind: "ed25519" | "ecdsa",
  application = "ssh:",
): Promise<SoftAuthenticator> {
  const type = kind === "ed25519"
    ? "sk-ssh-ed25519@openssh.com"
    : "sk-ecdsa-sha2-nistp256@openssh.com";
  const pair = kind === "ed25519"
    ? await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]) as CryptoKeyPair
    : await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]) as CryptoKeyPair;
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const blob = concatBytes(
    kind === "ed25519"
      ? [wireString(type), wireString(raw), wireString(application)]
      : [wireString(type), wireString("nistp256"), wireString(raw), wireString(application)],
  );
  return {
    line: `${type} ${encodeBase64(blob)}`,
    async sign(message, options = {}) {
      const flags = options.flags ?? 0x01;
      const counter = options.counter ?? 7;
      const namespace = options.namespace ?? "taskpack";
      const data = signedData(
        namespace,
        "sha512",
        new Uint8Array(await crypto.subtle.digest("SHA-512", buf(message))),
      );
      const signed = concatBytes([
        sha256(utf8(application)),
        new Uint8Array([flags]),
        wireUint32(counter),
        sha256(data),
      ]);
      let sigBytes: Uint8Array;
      if (kind === "ed25519") {
        sigBytes = wireString(
          new Uint8Array(await crypto.subtle.sign("Ed25519", pair.privateKey, buf(signed))),
        );
      } else {
        const rs = new Uint8Array(
          await crypto.subtle.sign(
            { name: "ECDSA", hash: "SHA-256" },
            pair.privateKey,
            buf(signed),
          ),
        );
        sigBytes = wireString(
          concatBytes([wireMpint(rs.subarray(0, 32)), wireMpint(rs.subarray(32))]),
        );
      }
      const signature = concatBytes([
        wireString(type),
        sigBytes,
        new Uint8Array([flags]),
        wireUint32(counter),
      ]);
      return armorSshSignature(sshSignatureBytes(blob, namespace, "sha512", signature));
    },
  };
}

for (const kind of ["ed25519", "ecdsa"] as const) {
  Deno.test(`a ${kind} security-key signature verifies in the core and in ssh-keygen; flags and counter are reported and signed`, async () => {
    await inTempDir(async (dir) => {
      const authenticator = await softAuthenticator(kind);
      const message = packSignatureMessage(DIGEST);
      const sig = await authenticator.sign(message, { counter: 42 });
      const allowed = `carol@example.com ${authenticator.line}\n`;
      const result = await verifyPackSignature(DIGEST, sig, { allowedSigners: allowed });
      assert.equal(result.status, "signed");
      assert.equal(result.keyType, kind === "ed25519" ? "ED25519-SK" : "ECDSA-SK");
      assert.deepEqual(result.securityKey, { flags: 1, counter: 42, userPresent: true });
      // OpenSSH reads the software authenticator's signature as its own.
      const checked = await sshVerify(dir, allowed, "carol@example.com", sig, message);
      assert.equal(checked.code, 0, checked.stderr);
      const fingerprint = (await run(["-l", "-f", "/dev/stdin"], utf8(authenticator.line + "\n")))
        .stdout.split(" ")[1];
      assert.equal(result.fingerprint, fingerprint);
      // A key not touched says so.
      const untouched = await verifyPackSignature(
        DIGEST,
        await authenticator.sign(message, { flags: 0 }),
      );
      assert.equal(untouched.securityKey?.userPresent, false);
      // Flags and counter are signed: changing either after the fact is refused.
      const bytes = sigBytesOf(sig);
      for (const at of [bytes.length - 5, bytes.length - 1]) {
        const changed = bytes.slice();
        changed[at]! ^= 0x04;
        await refusal(verifyPackSignature(DIGEST, armorSshSignature(changed)), "sig-mismatch");
      }
      // Another application is another key.
      const elsewhere = await softAuthenticator(kind, "ssh:elsewhere");
      assert.equal(
        (await verifyPackSignature(DIGEST, await elsewhere.sign(message))).status,
        "unknown-key",
      );
    });
  });
}

// --- the trust list --------------------------------------------------------------------------

function sigBytesOf(armored: string): Uint8Array {
  return decodeBase64Strict(
    armored.split("\n").filter((l) => l && !l.startsWith("-----")).join(""),
  );
}

Deno.test("allowed_signers: principals, quotes, options, namespaces, time windows, cert-authority, comments", async () => {
  const keys = await newEd25519();
  const sig = await signPackDigest(DIGEST, keys);
  const { publicKey } = await verifyPackSignature(DIGEST, sig);
  const other =
    (await verifyPackSignature(DIGEST, await signPackDigest(DIGEST, await newEd25519())))
      .publicKey;
  const text = [
    "# the team",
    "",
    `  alice@example.com ${publicKey} alice's laptop`,
    `"bob@example.com,b@example.org" namespaces="git,taskpack" ${publicKey}`,
    `carol@example.com namespaces="git" ${publicKey}`,
    `dave@example.com valid-after="20260101Z",valid-before="20261231235959Z" ${publicKey}`,
    `erin@example.com valid-before="20250101" ${publicKey}`,
    `ca@example.com cert-authority ${publicKey}`,
    `frank@example.com ${other}`,
    `gina@example.com NAMESPACES="*,!git" ${publicKey}\r`,
    "old@example.com ssh-dss AAAAB3NzaC1kc3MAAAA=",
  ].join("\n");
  const list = parseAllowedSigners(text, "signers");
  assert.equal(list.signers.length, 8);
  const at = Date.UTC(2026, 5, 1);
  const result = await verifyPackSignature(DIGEST, sig, { allowedSigners: list, at: new Date(at) });
  assert.deepEqual(result.principals, [
    "alice@example.com",
    "bob@example.com,b@example.org",
    "dave@example.com",
    "gina@example.com",
  ]);
  assert.deepEqual(result.notes, [
    'signers:5 lists the key for the namespaces "git" only',
    'signers:7: valid-before="20250101" is a local time, which taskpack does not read (end it with Z for UTC)',
    "signers:8 lists the key as a certificate authority, which taskpack does not use",
  ]);
  const key = parsePublicKey(publicKey);
  assert.deepEqual(
    findPrincipals(list, key, "taskpack", Date.UTC(2027, 0, 1)).notes.filter((n) =>
      n.includes(":6")
    ),
    ["signers:6 lists the key until 2026-12-31T23:59:59Z only"],
  );
  assert.deepEqual(
    findPrincipals(list, key, "taskpack", Date.UTC(2025, 0, 1)).notes.filter((n) =>
      n.includes(":6")
    ),
    ["signers:6 lists the key from 2026-01-01T00:00:00Z only"],
  );
  assert.deepEqual(
    findPrincipals(list, key, "taskpack").notes.filter((n) => n.includes(":6")),
    ["signers:6 lists the key for a time window, and no time was given"],
  );
  assert.equal(matchPatternList("taskpack", "*,!git"), true);
  assert.equal(matchPatternList("git", "*,!git"), false);
  assert.equal(matchPatternList("taskpack", "task?ack"), true);
  assert.equal(matchPatternList("taskpack", "git,file"), false);
});

Deno.test("allowed_signers: each broken line is refused in one sentence naming the file and line", async () => {
  const { publicKey } = await verifyPackSignature(
    DIGEST,
    await signPackDigest(DIGEST, await newEd25519()),
  );
  const [type, base64] = publicKey.split(" ");
  const cases: [string, RegExp][] = [
    ["alice@example.com", /the line has no key/],
    [`alice@example.com ${type}`, /base64 is missing/],
    [`alice@example.com ${type} ${base64!.slice(1)}`, /not valid base64/],
    [`alice@example.com ssh-rsa ${base64}`, /says ssh-rsa but the key is ssh-ed25519/],
    [`alice@example.com bogus="1" ${publicKey}`, /"bogus" is not an allowed_signers option/],
    [
      `alice@example.com valid-after="2026" ${publicKey}`,
      /is not a YYYYMMDD\[HHMM\[SS\]\]\[Z\] time/,
    ],
    [`alice@example.com valid-after="20260230Z" ${publicKey}`, /is not a YYYYMMDD/],
    [`alice@example.com namespaces="taskpack ${publicKey}`, /quote is not closed/],
    [`alice@example.com namespaces ${publicKey}`, /namespaces needs a value/],
    [`alice@example.com cert-authority=1 ${publicKey}`, /cert-authority takes no value/],
    [`alice@example.com nokey AAAA`, /"AAAA" is not a key type/],
  ];
  for (const [line, pattern] of cases) {
    assert.throws(
      () => parseAllowedSigners(`# ok\n${line}\n`, "team"),
      (error: unknown) =>
        error instanceof SignatureError && error.code === "allowed-signers" &&
        pattern.test(error.message) && error.message.endsWith("(team:2)"),
      line,
    );
  }
});

// --- refusals, one sentence each ----------------------------------------------------------------

Deno.test("a signature that cannot be read, or is for something else, is refused in one sentence", async () => {
  const keys = await newEd25519();
  const sig = await signPackDigest(DIGEST, keys);
  await refusal(verifyPackSignature(DIGEST, "hello"), "sig-armor");
  await refusal(
    verifyPackSignature(DIGEST, sig.replace("SSH SIGNATURE", "PGP SIGNATURE")),
    "sig-armor",
  );
  await refusal(verifyPackSignature(DIGEST, sig.replace(/\n[A-Za-z0-9+/]/, "\n!")), "sig-armor");
  await refusal(verifyPackSignature("sha256:zz", sig), "digest");
  // With CRLF line ends and a sha256: prefix, the same signature verifies.
  assert.equal(
    (await verifyPackSignature(`sha256:${DIGEST}`, sig.replace(/\n/g, "\r\n"))).status,
    "unknown-key",
  );
  const git = await signWithEd25519(packSignatureMessage(DIGEST), "git", keys);
  const e = await refusal(verifyPackSignature(DIGEST, git, { where: "x.sig" }), "sig-namespace");
  assert.equal(e.message, 'the signature was made for the namespace "git", not "taskpack" (x.sig)');
  const bytes = sigBytesOf(sig);
  const truncated = await refusal(
    verifyPackSignature(DIGEST, armorSshSignature(bytes.subarray(0, 40))),
    "sig-format",
  );
  assert.match(truncated.message, /ends early/);
  const version = bytes.slice();
  version[9] = 2;
  await refusal(verifyPackSignature(DIGEST, armorSshSignature(version)), "sig-unsupported");
  const trailing = await refusal(
    verifyPackSignature(DIGEST, armorSshSignature(concatBytes([bytes, new Uint8Array(1)]))),
    "sig-format",
  );
  assert.match(trailing.message, /1 bytes follow the last field/);
});

Deno.test("an RSA key under 2048 bits and a SHA-1 ssh-rsa signature are refused", async () => {
  await inTempDir(async (dir) => {
    const path = `${dir}/small`;
    assert.equal((await run(["-t", "rsa", "-b", "1024", "-N", "", "-q", "-f", path])).code, 0);
    const sig = await sshSign(path, packSignatureMessage(DIGEST));
    const e = await refusal(verifyPackSignature(DIGEST, sig), "sig-unsupported");
    assert.match(e.message, /RSA key of 1024 bits/);
    // An rsa-sha2-512 signature relabelled as ssh-rsa (SHA-1) is refused as such.
    const big = await keygen(dir, "rsa");
    const bytes = sigBytesOf(await sshSign(big, packSignatureMessage(DIGEST)));
    const parsed = parseSshSignature(armorSshSignature(bytes));
    const r = new WireReader(parsed.signature, "sig-format", "s");
    r.text("alg");
    const raw = r.string("raw");
    const relabelled = sshSignatureBytes(
      parsed.publicKey.blob,
      "taskpack",
      parsed.hashAlgorithm,
      concatBytes([wireString("ssh-rsa"), wireString(raw)]),
    );
    const sha1 = await refusal(
      verifyPackSignature(DIGEST, armorSshSignature(relabelled)),
      "sig-unsupported",
    );
    assert.match(sha1.message, /SHA-1/);
  });
});

// --- properties ----------------------------------------------------------------------------------

const RUNS = 40;
const digest = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) =>
  [...b].map((x) => x.toString(16).padStart(2, "0")).join("")
);

Deno.test("property: a signature verifies its digest and no other", async () => {
  const keys = await newEd25519();
  await fc.assert(
    fc.asyncProperty(digest, digest, async (a, b) => {
      fc.pre(a !== b);
      const sig = await signPackDigest(a, keys);
      assert.equal((await verifyPackSignature(a, sig)).status, "unknown-key");
      await refusal(verifyPackSignature(b, sig), "sig-mismatch");
    }),
    { numRuns: RUNS },
  );
});

Deno.test("property: any change to a signature's bytes is refused", async () => {
  const keys = await newEd25519();
  const sig = await signPackDigest(DIGEST, keys);
  const bytes = sigBytesOf(sig);
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: bytes.length - 1 }),
      fc.integer({ min: 1, max: 255 }),
      async (at, xor) => {
        const changed = bytes.slice();
        changed[at]! ^= xor;
        try {
          await verifyPackSignature(DIGEST, armorSshSignature(changed));
        } catch (error) {
          assert.ok(error instanceof SignatureError, String(error));
          return;
        }
        assert.fail(`a change at byte ${at} was accepted`);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("property: a signature for any other namespace is refused, and re-labelling the namespace breaks it", async () => {
  const keys = await newEd25519();
  const message = packSignatureMessage(DIGEST);
  await fc.assert(
    fc.asyncProperty(fc.string({ minLength: 1, maxLength: 20 }), async (namespace) => {
      fc.pre(namespace !== PACK_SIGNATURE_NAMESPACE);
      const sig = await signWithEd25519(message, namespace, keys);
      await refusal(verifyPackSignature(DIGEST, sig), "sig-namespace");
      const parsed = parseSshSignature(sig);
      const relabelled = sshSignatureBytes(
        parsed.publicKey.blob,
        "taskpack",
        "sha512",
        parsed.signature,
      );
      await refusal(verifyPackSignature(DIGEST, armorSshSignature(relabelled)), "sig-mismatch");
    }),
    { numRuns: RUNS },
  );
});

Deno.test("property: a signature carried under another key is refused", async () => {
  const keys = await newEd25519();
  const sig = parseSshSignature(await signPackDigest(DIGEST, keys));
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), async (other) => {
      const key = concatBytes([wireString("ssh-ed25519"), wireString(other)]);
      fc.pre(encodeBase64(key) !== encodeBase64(sig.publicKey.blob));
      const swapped = sshSignatureBytes(key, "taskpack", sig.hashAlgorithm, sig.signature);
      await refusal(verifyPackSignature(DIGEST, armorSshSignature(swapped)), "sig-mismatch");
    }),
    { numRuns: RUNS },
  );
  // A real other key, listed in the trust list, gains nothing from it either.
  const eve = await newEd25519();
  const eveKey = (await verifyPackSignature(DIGEST, await signPackDigest(DIGEST, eve))).publicKey;
  const swapped = sshSignatureBytes(
    parsePublicKey(eveKey).blob,
    "taskpack",
    sig.hashAlgorithm,
    sig.signature,
  );
  await refusal(
    verifyPackSignature(DIGEST, armorSshSignature(swapped), { allowedSigners: `eve ${eveKey}` }),
    "sig-mismatch",
  );
});

Deno.test("an ECDSA signature whose r is not minimally encoded is refused", async () => {
  const authenticator = await softAuthenticator("ecdsa");
  const sig = sigBytesOf(await authenticator.sign(packSignatureMessage(DIGEST)));
  const parsed = parseSshSignature(armorSshSignature(sig));
  const blob = parsed.signature;
  // A leading zero before a positive integer is not minimal.
  const r = new WireReader(blob, "sig-format", "s");
  r.text("alg");
  const inner = new WireReader(r.string("sig"), "sig-format", "s");
  const rr = inner.mpint("r");
  const ss = inner.mpint("s");
  const padded = concatBytes([
    wireString(concatBytes([new Uint8Array(rr[0]! & 0x80 ? 2 : 1), rr])),
    wireMpint(ss),
  ]);
  const rebuilt = concatBytes([
    wireString(parsed.algorithm),
    wireString(padded),
    blob.subarray(blob.length - 5),
  ]);
  const e = await refusal(
    verifyPackSignature(
      DIGEST,
      armorSshSignature(sshSignatureBytes(parsed.publicKey.blob, "taskpack", "sha512", rebuilt)),
    ),
    "sig-format",
  );
  assert.match(e.message, /not minimally encoded/);
});

Deno.test("property: the same signature verifies a pack, its conversion and back, and no changed pack", async () => {
  const keys = await newEd25519();
  await fc.assert(
    fc.asyncProperty(
      fc.string({ minLength: 1, maxLength: 30 }),
      fc.uint8Array({ maxLength: 200 }),
      fc.boolean(),
      async (goal, file, startFlat) => {
        const { prepared, bag, flat } = await packBoth(
          { id: "TP-9CB7-J5MK", version: 1, title: "signed", goal: goal.trim() || "x" },
          SAMPLE_OPTIONS,
          [luggageFromBytes("data.bin", file)],
        );
        const first = startFlat ? flat : bag;
        const other = await convert(first, startFlat ? "bag" : "flat");
        const back = await convert(other, startFlat ? "flat" : "bag");
        const sig = await signPackDigest(prepared.digest, keys);
        const list = `alice@example.com ${
          (await verifyPackSignature(prepared.digest, sig)).publicKey
        }`;
        for (const bytes of [first, other, back]) {
          const report = await judge(bytes);
          assert.equal(report.ok, true);
          const verdict = await verifyPackSignature(report.digest!, sig, { allowedSigners: list });
          assert.equal(verdict.status, "signed");
        }
        // One more byte in the luggage is another pack: the signature is refused.
        const { prepared: changed } = await packBoth(
          { id: "TP-9CB7-J5MK", version: 1, title: "signed", goal: goal.trim() || "x" },
          SAMPLE_OPTIONS,
          [luggageFromBytes("data.bin", concatBytes([file, new Uint8Array(1)]))],
        );
        await refusal(verifyPackSignature(changed.digest, sig), "sig-mismatch");
      },
    ),
    { numRuns: 10 },
  );
});

Deno.test("keys: each supported type is read; others are refused in one sentence", () => {
  assert.throws(() => parsePublicKey("ssh-ed25519"), /a public key line is a type and base64/);
  const dss = concatBytes([wireString("ssh-dss"), wireString(new Uint8Array(4))]);
  assert.throws(
    () => publicKeyFromBlob(dss),
    (e: unknown) =>
      e instanceof SignatureError && e.code === "sig-unsupported" &&
      /ssh-dss is not one/.test(e.message),
  );
  const short = concatBytes([wireString("ssh-ed25519"), wireString(new Uint8Array(31))]);
  assert.throws(() => publicKeyFromBlob(short), /not 32 bytes long/);
  const p384 = concatBytes([
    wireString("ecdsa-sha2-nistp256"),
    wireString("nistp384"),
    wireString(new Uint8Array(65)),
  ]);
  assert.throws(() => publicKeyFromBlob(p384), /curve: it is not nistp256/);
});
