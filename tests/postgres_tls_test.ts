// Copyright 2026 the taskpack authors. MIT license.
// The PostgreSQL store over TLS, against a PostgreSQL of its own (tests/_postgres.ts) that
// accepts TCP sign-ins over TLS only, with certificates made at run time by openssl:
// sslmode=require encrypts; verify-full checks the chain to the CA file and the host name;
// verify-ca checks the chain only; every refusal is one sentence naming host and port.
import assert from "node:assert/strict";
import { PostgresStore } from "../shell/stores/postgres_store.ts";
import { startPostgres } from "./_postgres.ts";

const decoder = new TextDecoder();

async function openssl(cwd: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command("openssl", { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!output.success) throw new Error(`openssl ${args[0]}: ${decoder.decode(output.stderr)}`);
}

/** A CA, and a server certificate it signs for `san` (e.g. `IP:127.0.0.1`). */
async function makeCa(dir: string, name: string): Promise<void> {
  await openssl(
    dir,
    ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
    ...["-keyout", `${name}.key`, "-out", `${name}.crt`, "-days", "2", "-subj", `/CN=${name}`],
  );
}

async function makeServerCert(dir: string, ca: string, out: string, san: string): Promise<void> {
  await openssl(
    dir,
    ...["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
    ...["-keyout", `${out}.key`, "-out", `${out}.csr`, "-subj", "/CN=taskpack-test-server"],
  );
  await Deno.writeTextFile(`${dir}/${out}.ext`, `subjectAltName=${san}\n`);
  await openssl(
    dir,
    ...["x509", "-req", "-in", `${out}.csr`, "-CA", `${ca}.crt`, "-CAkey", `${ca}.key`],
    ...["-CAcreateserial", "-out", `${out}.crt`, "-days", "2", "-extfile", `${out}.ext`],
  );
}

Deno.test("postgres over TLS: require, verify-full and verify-ca; refusals in one sentence", async () => {
  const dir = await Deno.makeTempDir({ prefix: "taskpack-pgtls-" });
  try {
    await makeCa(dir, "ca");
    await makeCa(dir, "stranger");
    await makeServerCert(dir, "ca", "by_ip", "IP:127.0.0.1");
    await makeServerCert(dir, "ca", "by_name", "DNS:db.test");
    const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
    const server = await startPostgres({
      tls: { cert: await read("by_ip.crt"), key: await read("by_ip.key") },
    });
    const env = { PGPASSWORD: server.password };
    const at = `PostgreSQL at 127\\.0\\.0\\.1:${server.port}`;
    const attempt = async (query: string) => {
      const store = new PostgresStore(server.url("postgres", { query }), { env });
      try {
        return await store.list().then(() => null, (e: Error) => e);
      } finally {
        await store.close();
      }
    };
    const refusedWith = async (query: string, pattern: RegExp) => {
      const error = await attempt(query);
      assert.ok(error, `${query}: expected a refusal`);
      assert.match(error.message, pattern, query);
      assert.ok(!error.message.includes("\n"), error.message);
      assert.ok(!error.message.includes(server.password));
    };
    try {
      // Without TLS the server turns the client away (hostssl only).
      await refusedWith(
        "sslmode=disable",
        new RegExp(`^Cannot sign in to ${at} as taskpack: .*no encryption`),
      );
      assert.equal(await attempt("sslmode=require"), null);
      assert.equal(await attempt(`sslmode=verify-full&sslrootcert=${dir}/ca.crt`), null);
      assert.equal(await attempt(`sslmode=verify-ca&sslrootcert=${dir}/ca.crt`), null);
      await refusedWith(
        `sslmode=verify-full&sslrootcert=${dir}/stranger.crt`,
        new RegExp(`^Cannot connect securely to ${at}: `),
      );
      // No CA file: the runtime's trusted CAs, which do not know this one.
      await refusedWith("sslmode=verify-full", new RegExp(`^Cannot connect securely to ${at}: `));
      await refusedWith(
        `sslmode=verify-full&sslrootcert=${dir}/missing.crt`,
        /cannot read the CA file .*missing\.crt/,
      );

      // A certificate for another name: verify-full refuses it, verify-ca takes it.
      await server.stop();
      await Deno.writeTextFile(`${server.dir}/data/server.crt`, await read("by_name.crt"));
      await Deno.writeTextFile(`${server.dir}/data/server.key`, await read("by_name.key"));
      await server.start();
      await refusedWith(
        `sslmode=verify-full&sslrootcert=${dir}/ca.crt`,
        new RegExp(`^Cannot connect securely to ${at}: .*(127\\.0\\.0\\.1|altnames|match)`, "i"),
      );
      assert.equal(await attempt(`sslmode=verify-ca&sslrootcert=${dir}/ca.crt`), null);
      assert.equal(await attempt("sslmode=require"), null);
    } finally {
      await server.destroy();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
