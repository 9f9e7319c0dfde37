// Copyright 2026 the taskpack authors. MIT license.
// `taskpack sign` and `taskpack verify` as a user runs them: a subprocess with its own HOME,
// XDG_CONFIG_HOME and git configuration, keys made by ssh-keygen at test time, and the README's
// one-liners run through a shell with stock OpenSSH.
import assert from "node:assert/strict";
import { cli, type CliResult } from "./_cli.ts";
import { inTempDir } from "./_helpers.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;

/** The environment of a user whose home is `dir`, with no ssh-agent and git's files there. */
function userEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: `${dir}/home`,
    XDG_CONFIG_HOME: `${dir}/config`,
    GIT_CONFIG_GLOBAL: `${dir}/gitconfig`,
    GIT_CONFIG_NOSYSTEM: "1",
    SSH_AUTH_SOCK: "",
    DENO_DIR,
    ...extra,
  };
}

async function sh(command: string, cwd: string, env: Record<string, string>) {
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

async function keygen(path: string, type: string[]): Promise<string> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  const made = await new Deno.Command("ssh-keygen", {
    args: [...type, "-N", "", "-q", "-C", "test", "-f", path],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(made.code, 0, new TextDecoder().decode(made.stderr));
  return (await Deno.readTextFile(`${path}.pub`)).trim();
}

/** Two packs made by `taskpack demo` (a bag and its flat twin) in `dir`. */
async function demoPacks(dir: string, env: Record<string, string>): Promise<[string, string]> {
  await Deno.mkdir(`${dir}/d`);
  const made = await cli(["demo", "--dir", "d"], { cwd: dir, env });
  assert.equal(made.code, 0, made.stderr);
  return ["d/release.taskpack", "d/release.taskpack.json"];
}

function oneSentence(result: CliResult): void {
  assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  assert.doesNotMatch(result.stderr, /\bat .*\.ts:\d+/, "no stack trace");
}

Deno.test("cli: sign with the default key; verify says unsigned, unknown key, or who, by each trust list in turn", async () => {
  await inTempDir(async (dir) => {
    const env = userEnv(dir);
    const pub = await keygen(`${dir}/home/.ssh/id_ed25519`, ["-t", "ed25519"]);
    const [bag, flat] = await demoPacks(dir, env);

    const unsigned = await cli(["verify", bag], { cwd: dir, env });
    assert.equal(unsigned.code, 3, unsigned.stderr);
    assert.equal(unsigned.stdout, `${bag}: unsigned (no ${bag}.sig)\n`);

    const signed = await cli(["sign", bag], { cwd: dir, env });
    assert.equal(signed.code, 0, signed.stderr);
    assert.match(
      signed.stdout,
      /^signed d\/release\.taskpack -> d\/release\.taskpack\.sig \(ED25519 SHA256:/,
    );
    assert.match(signed.stdout, /\(default\)/);
    assert.equal(signed.stderr, "");
    const sig = await Deno.readTextFile(`${dir}/${bag}.sig`);
    assert.match(sig, /^-----BEGIN SSH SIGNATURE-----\n/);

    const printed =
      (await sh(`ssh-keygen -l -f home/.ssh/id_ed25519.pub`, dir, env)).stdout.split(" ")[1];
    const unknown = await cli(["verify", bag], { cwd: dir, env });
    assert.equal(unknown.code, 3);
    assert.match(
      unknown.stdout,
      new RegExp(
        `^${bag}: signed by a key you do not list \\(ED25519 ${
          printed!.replace(/[+/]/g, "\\$&")
        }\\)\n`,
      ),
    );
    assert.ok(unknown.stdout.includes(pub.split(" ").slice(0, 2).join(" ")), "the line to add");

    // --allowed-signers, then taskpack's own file, then git's.
    await Deno.writeTextFile(`${dir}/team`, `alice@example.com ${pub}\n`);
    const byFlag = await cli(["verify", bag, "--allowed-signers", "team"], { cwd: dir, env });
    assert.equal(byFlag.code, 0, byFlag.stderr);
    assert.equal(byFlag.stdout, `${bag}: signed by alice@example.com (ED25519 ${printed})\n`);

    await Deno.writeTextFile(`${dir}/elsewhere`, `bob@example.com ${pub}\n`);
    await Deno.writeTextFile(
      `${dir}/gitconfig`,
      `[gpg "ssh"]\n\tallowedSignersFile = ${dir}/elsewhere\n`,
    );
    const byGit = await cli(["verify", bag, "--json"], { cwd: dir, env });
    assert.equal(byGit.code, 0, byGit.stderr);
    assert.equal(byGit.json().principal, "bob@example.com");
    assert.equal(byGit.json().allowedSigners.from, "git config gpg.ssh.allowedSignersFile");

    await Deno.mkdir(`${dir}/config/taskpack`, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/config/taskpack/allowed_signers`,
      `carol@example.com ${pub}\n`,
    );
    const byOwn = await cli(["verify", bag, "--json"], { cwd: dir, env });
    assert.equal(byOwn.json().principal, "carol@example.com");
    assert.equal(byOwn.json().allowedSigners.path, `${dir}/config/taskpack/allowed_signers`);

    // The bag's signature verifies its flat twin: the digest is one.
    const twin = await cli(["verify", flat, "--sig", `${bag}.sig`, "--json"], { cwd: dir, env });
    assert.equal(twin.code, 0, twin.stderr);
    assert.equal(twin.json().status, "signed");
    assert.equal(twin.json().encoding, "flat");
    assert.equal(twin.json().digest, byOwn.json().digest);
  });
});

Deno.test("cli: the README's one-liners verify with stock OpenSSH (unzip for a bag, verify --message for either)", async () => {
  await inTempDir(async (dir) => {
    const env = userEnv(dir);
    const pub = await keygen(`${dir}/home/.ssh/id_ed25519`, ["-t", "ed25519"]);
    const [bag, flat] = await demoPacks(dir, env);
    assert.equal((await cli(["sign", bag], { cwd: dir, env })).code, 0);
    assert.equal((await cli(["sign", flat], { cwd: dir, env })).code, 0);
    await Deno.writeTextFile(`${dir}/allowed_signers`, `alice@example.com ${pub}\n`);
    const taskpack = `${Deno.execPath()} run -A ${new URL("../cli.ts", import.meta.url).pathname}`;
    const verify = (pack: string) =>
      `ssh-keygen -Y verify -n taskpack -f allowed_signers -I alice@example.com -s ${pack}.sig`;
    const viaUnzip = await sh(
      `unzip -p ${bag} tagmanifest-sha256.txt | sha256sum | cut -d' ' -f1 | ${verify(bag)}`,
      dir,
      env,
    );
    assert.equal(viaUnzip.code, 0, viaUnzip.stderr);
    assert.match(viaUnzip.stdout, /Good "taskpack" signature for alice@example.com/);
    for (const pack of [bag, flat]) {
      const viaMessage = await sh(
        `${taskpack} verify ${pack} --message | ${verify(pack)}`,
        dir,
        env,
      );
      assert.equal(viaMessage.code, 0, viaMessage.stderr);
    }
    // Over another pack's digest, OpenSSH refuses it too.
    const wrong = await sh(`echo ${"0".repeat(64)} | ${verify(bag)}`, dir, env);
    assert.notEqual(wrong.code, 0);
    const who = await sh(
      `ssh-keygen -Y find-principals -s ${bag}.sig -f allowed_signers`,
      dir,
      env,
    );
    assert.equal(who.stdout, "alice@example.com\n");
  });
});

Deno.test("cli: the key follows git's user.signingKey when gpg.format is ssh, and --key over both", async () => {
  await inTempDir(async (dir) => {
    const env = userEnv(dir);
    await keygen(`${dir}/home/.ssh/id_ed25519`, ["-t", "ed25519"]);
    await keygen(`${dir}/keys/ecdsa`, ["-t", "ecdsa", "-b", "256"]);
    await keygen(`${dir}/keys/rsa`, ["-t", "rsa", "-b", "3072"]);
    const [bag] = await demoPacks(dir, env);
    await Deno.writeTextFile(
      `${dir}/gitconfig`,
      `[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ${dir}/keys/ecdsa\n`,
    );
    const byGit = await cli(["sign", bag, "--json"], { cwd: dir, env });
    assert.equal(byGit.code, 0, byGit.stderr);
    assert.equal(byGit.json().keyType, "ECDSA");
    assert.equal(byGit.json().keyFrom, "git config user.signingKey");
    const byFlag = await cli(["sign", bag, "--key", "keys/rsa", "--json"], { cwd: dir, env });
    assert.equal(byFlag.json().keyType, "RSA");
    const verified = await cli(["verify", bag, "--json"], { cwd: dir, env });
    assert.equal(verified.json().keyType, "RSA");
    assert.equal(verified.json().hashAlgorithm, "sha512");
    // With gpg.format unset, git's key is not used.
    await Deno.writeTextFile(`${dir}/gitconfig`, `[user]\n\tsigningKey = ${dir}/keys/ecdsa\n`);
    const byDefault = await cli(["sign", bag, "--json"], { cwd: dir, env });
    assert.equal(byDefault.json().keyType, "ED25519");
    assert.equal(byDefault.json().keyFrom, "default");
  });
});

Deno.test("cli: refusals — a signature that does not match (exit 2), no key (exit 1), a broken trust list (exit 1), each in one sentence", async () => {
  await inTempDir(async (dir) => {
    const env = userEnv(dir);
    const [bag, flat] = await demoPacks(dir, env);
    const noKey = await cli(["sign", bag], { cwd: dir, env });
    assert.equal(noKey.code, 1);
    assert.match(
      noKey.stderr,
      /There is no key at .*id_ed25519: make one with ssh-keygen -t ed25519, or name one with --key \(key from default\)/,
    );
    oneSentence(noKey);
    const pub = await keygen(`${dir}/home/.ssh/id_ed25519`, ["-t", "ed25519"]);
    assert.equal((await cli(["sign", bag], { cwd: dir, env })).code, 0);

    // A signature over another digest, laid beside this pack.
    const text = await Deno.readTextFile(`${dir}/${bag}.sig`);
    const other = await sh(
      `echo ${"0".repeat(64)} | ssh-keygen -Y sign -n taskpack -f home/.ssh/id_ed25519 > other.sig`,
      dir,
      env,
    );
    assert.equal(other.code, 0, other.stderr);
    const mismatch = await cli(["verify", bag, "--sig", "other.sig"], { cwd: dir, env });
    assert.equal(mismatch.code, 2, mismatch.stdout + mismatch.stderr);
    assert.match(
      mismatch.stderr,
      /^taskpack: refused: the signature does not match: the ED25519 key SHA256:\S+ did not sign this \(other\.sig\)\n$/,
    );
    assert.equal(mismatch.stdout, "");
    // Any changed character of the armored text is refused.
    const lines = text.split("\n");
    lines[2] = lines[2]!.slice(0, 10) + (lines[2]![10] === "A" ? "B" : "A") + lines[2]!.slice(11);
    await Deno.writeTextFile(`${dir}/bad.sig`, lines.join("\n"));
    const changed = await cli(["verify", bag, "--sig", "bad.sig", "--json"], { cwd: dir, env });
    assert.equal(changed.code, 2, changed.stderr);
    assert.equal(changed.json().status, "refused");
    assert.match(changed.json().reason, /^sig-/);
    oneSentence(changed);

    // A signature for git commits is not one for a pack.
    const message = (await cli(["verify", flat, "--message"], { cwd: dir, env })).stdout;
    const git = await sh(
      `printf '${message.trim()}\\n' | ssh-keygen -Y sign -n git -f home/.ssh/id_ed25519 > git.sig`,
      dir,
      env,
    );
    assert.equal(git.code, 0, git.stderr);
    const namespace = await cli(["verify", flat, "--sig", "git.sig"], { cwd: dir, env });
    assert.equal(namespace.code, 2);
    assert.match(namespace.stderr, /made for the namespace "git", not "taskpack"/);

    // A trust list that cannot be read is the user's to fix: exit 1, naming the line.
    await Deno.writeTextFile(`${dir}/team`, `# ok\nalice@example.com bogus="1" ${pub}\n`);
    const broken = await cli(["verify", bag, "--allowed-signers", "team"], { cwd: dir, env });
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /"bogus" is not an allowed_signers option \(team:2\)/);
    oneSentence(broken);
    const missing = await cli(["verify", bag, "--sig", "nope.sig"], { cwd: dir, env });
    assert.equal(missing.code, 1);
    oneSentence(missing);
  });
});

Deno.test("cli: a bag whose file no longer matches its manifest cannot be vouched for (exit 2)", async () => {
  await inTempDir(async (dir) => {
    const env = userEnv(dir);
    await keygen(`${dir}/home/.ssh/id_ed25519`, ["-t", "ed25519"]);
    const [bag] = await demoPacks(dir, env);
    assert.equal((await cli(["sign", bag], { cwd: dir, env })).code, 0);
    const bytes = await Deno.readFile(`${dir}/${bag}`);
    // Same length, one byte changed inside the stored text of data/files/brief.txt.
    const text = new TextDecoder("latin1").decode(bytes);
    const at = text.indexOf("brief", text.indexOf("data/files/brief.txt") + 25);
    assert.ok(at > 0);
    const changed = bytes.slice();
    changed[at] = changed[at]! ^ 0x20;
    await Deno.writeFile(`${dir}/${bag}`, changed);
    const result = await cli(["verify", bag], { cwd: dir, env });
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /no signature can vouch for it/);
    oneSentence(result);
  });
});

Deno.test("cli: git's user.signingKey given as the key itself (key::...) signs through ssh-agent, the private key gone from disk", async () => {
  await inTempDir(async (dir) => {
    const socket = `${dir}/agent.sock`;
    const agent = new Deno.Command("ssh-agent", {
      args: ["-D", "-a", socket],
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      for (let i = 0; i < 50; i++) {
        if (await Deno.stat(socket).then(() => true, () => false)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const env = userEnv(dir, { SSH_AUTH_SOCK: socket });
      const pub = await keygen(`${dir}/keys/agent_key`, ["-t", "ed25519"]);
      const added = await sh(`ssh-add -q keys/agent_key`, dir, env);
      assert.equal(added.code, 0, added.stderr);
      await Deno.remove(`${dir}/keys/agent_key`);
      const [bag] = await demoPacks(dir, env);
      await Deno.writeTextFile(
        `${dir}/gitconfig`,
        `[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = key::${pub}\n`,
      );
      const signed = await cli(["sign", bag, "--json"], { cwd: dir, env });
      assert.equal(signed.code, 0, signed.stderr);
      assert.equal(signed.json().keyFrom, "git config user.signingKey");
      assert.equal(signed.json().publicKey, pub.split(" ").slice(0, 2).join(" "));
      await Deno.writeTextFile(`${dir}/team`, `alice@example.com ${pub}\n`);
      const verified = await cli(["verify", bag, "--allowed-signers", "team"], { cwd: dir, env });
      assert.equal(verified.code, 0, verified.stderr);
      // Without the agent, the same key line cannot sign, and ssh-keygen's own words say why.
      const noAgent = await cli(["sign", bag], { cwd: dir, env: { ...env, SSH_AUTH_SOCK: "" } });
      assert.equal(noAgent.code, 1);
      assert.match(
        noAgent.stderr,
        /^taskpack: ssh-keygen could not sign with the ssh-ed25519 key \.\.\.\S{12}: Couldn't get agent socket \(key from git config user\.signingKey\)\n$/,
      );
    } finally {
      agent.kill();
      await agent.status;
    }
  });
});
