// Copyright 2026 the taskpack authors. MIT license.
// A PostgreSQL of the test's own: Debian's server binaries (the `postgresql` package), a
// cluster in a temporary folder, a free port on 127.0.0.1, an unprivileged user (root cannot run
// postgres), password sign-in with a password made at run time. Stopped and removed after.
//
// Missing binaries are a failure, not a skip: `.ci/run` installs them.

/** A running PostgreSQL. */
export interface TestPostgres {
  /** The port on 127.0.0.1. */
  port: number;
  /** The superuser's name. */
  user: string;
  /** The superuser's password (made at run time). */
  password: string;
  /** The cluster's folder. */
  dir: string;
  /** A URL for `database` (default `postgres`); with the password in it when `withPassword`. */
  url(database?: string, options?: { withPassword?: boolean; query?: string }): string;
  /** Runs SQL as the superuser in `database` (default `postgres`) through psql; its output. */
  sql(text: string, database?: string): Promise<string>;
  /** Creates a database and returns its URL (with the password). */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown), keeping the cluster. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and removes the cluster. */
  destroy(): Promise<void>;
  /**
   * Stops it at once (immediate shutdown) and removes the cluster, synchronously: for an unload
   * handler, when a run ended before `destroy()` (a filtered run, a failure). Does nothing after
   * `destroy()`.
   */
  killNow(): void;
}

const USER = "taskpack";
const decoder = new TextDecoder();

/** The folder of Debian's PostgreSQL server binaries, or a sentence saying why there is none. */
export function postgresBinDir(): string {
  const override = Deno.env.get("TASKPACK_PG_BIN");
  if (override) return override;
  let versions: number[] = [];
  try {
    versions = [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => Number(entry.name))
      .filter((n) => Number.isInteger(n))
      .sort((a, b) => b - a);
  } catch {
    // none installed
  }
  for (const version of versions) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    try {
      Deno.statSync(`${dir}/postgres`);
      return dir;
    } catch {
      // not this one
    }
  }
  throw new Error(
    "The PostgreSQL tests need PostgreSQL's server binaries (initdb, postgres) under " +
      "/usr/lib/postgresql/<version>/bin, and there are none: apt-get install -y postgresql " +
      "(or set TASKPACK_PG_BIN to the folder holding them)",
  );
}

/** A free TCP port on 127.0.0.1. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Runs a command, as `runAs` when given (through runuser); fails with what it said. */
async function run(command: string, args: string[], runAs: RunAs | null): Promise<string> {
  const [program, list] = as(runAs, command, args);
  const output = await new Deno.Command(program, {
    args: list,
    cwd: "/",
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C.UTF-8" },
  }).output();
  if (!output.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed: ${decoder.decode(output.stderr)}${
        decoder.decode(output.stdout)
      }`,
    );
  }
  return decoder.decode(output.stdout);
}

/** Who the server runs as when the tests run as root. */
interface RunAs {
  uid: number;
  gid: number;
}

/** A command run as `runAs` (setpriv execs it: signals reach the program itself). */
function as(runAs: RunAs | null, command: string, args: string[]): [string, string[]] {
  if (!runAs) return [command, args];
  return ["setpriv", [
    `--reuid=${runAs.uid}`,
    `--regid=${runAs.gid}`,
    "--clear-groups",
    "--",
    command,
    ...args,
  ]];
}

/** The unprivileged user the server runs as when the tests run as root. */
async function serverUser(): Promise<RunAs | null> {
  if (Deno.uid() !== 0) return null;
  const name = "taskpack-pg";
  const known = await new Deno.Command("id", { args: ["-u", name], stdout: "null", stderr: "null" })
    .output();
  if (!known.success) {
    await run(
      "useradd",
      ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
      null,
    );
  }
  const uid = Number((await run("id", ["-u", name], null)).trim());
  const gid = Number((await run("id", ["-g", name], null)).trim());
  return { uid, gid };
}

/** Options for {@linkcode startPostgres}. */
export interface StartOptions {
  /**
   * Serve TLS with this certificate and key (PEM), and accept TCP sign-ins over TLS only
   * (`hostssl`), so a client that does not speak TLS is refused.
   */
  tls?: { cert: string; key: string };
  /** Flush to the disk as a production server does (default off: tests need no durability). */
  durable?: boolean;
}

/**
 * Starts a PostgreSQL of its own.
 *
 * @param options TLS.
 * @returns The running server; `destroy()` it when done.
 */
export async function startPostgres(options: StartOptions = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  const runAs = await serverUser();
  const dir = await Deno.makeTempDir({ prefix: "taskpack-pg-" });
  const data = `${dir}/data`;
  const sockets = `${dir}/sockets`;
  await Deno.mkdir(sockets);
  const password = [crypto.randomUUID(), crypto.randomUUID()].join("-").replaceAll("-", "");
  await Deno.writeTextFile(`${dir}/pwfile`, password + "\n");
  if (runAs) {
    for (const path of [dir, sockets, `${dir}/pwfile`]) {
      await Deno.chown(path, runAs.uid, runAs.gid);
    }
  }
  await run(`${bin}/initdb`, [
    "-D",
    data,
    "-U",
    USER,
    "--pwfile",
    `${dir}/pwfile`,
    "--auth-host=scram-sha-256",
    "--auth-local=trust",
    "-E",
    "UTF8",
    "--no-sync",
  ], runAs);
  await Deno.remove(`${dir}/pwfile`);
  const tlsArgs: string[] = [];
  if (options.tls) {
    await Deno.writeTextFile(`${data}/server.crt`, options.tls.cert, { mode: 0o600 });
    await Deno.writeTextFile(`${data}/server.key`, options.tls.key, { mode: 0o600 });
    await Deno.writeTextFile(
      `${data}/pg_hba.conf`,
      "local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n",
    );
    if (runAs) {
      for (const file of ["server.crt", "server.key", "pg_hba.conf"]) {
        await Deno.chown(`${data}/${file}`, runAs.uid, runAs.gid);
      }
    }
    tlsArgs.push("-c", "ssl=on", "-c", "ssl_cert_file=server.crt", "-c", "ssl_key_file=server.key");
  }
  const port = freePort();
  let child: Deno.ChildProcess | null = null;
  let destroyed = false;
  let log: Promise<string> = Promise.resolve("");

  const start = async () => {
    const args = [
      "-D",
      data,
      "-k",
      sockets,
      "-p",
      String(port),
      "-h",
      "127.0.0.1",
      "-c",
      `fsync=${options.durable ? "on" : "off"}`,
      "-c",
      "max_connections=200",
      ...tlsArgs,
    ];
    const [program, list] = as(runAs, `${bin}/postgres`, args);
    child = new Deno.Command(program, {
      args: list,
      cwd: "/",
      stdout: "null",
      stderr: "piped",
      env: { LC_ALL: "C.UTF-8" },
    }).spawn();
    log = new Response(child.stderr).text();
    const deadline = Date.now() + 30_000;
    while (true) {
      const ready = await new Deno.Command(`${bin}/pg_isready`, {
        args: ["-h", sockets, "-p", String(port), "-U", USER, "-d", "postgres"],
        stdout: "null",
        stderr: "null",
      }).output();
      if (ready.success) return;
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        throw new Error(`PostgreSQL did not start within 30 s: ${await log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const stop = async () => {
    const running = child;
    if (!running) return;
    child = null;
    try {
      // SIGINT is a fast shutdown: clients are disconnected, the cluster is left clean.
      running.kill("SIGINT");
    } catch {
      // ended already
    }
    await running.status;
    await log;
  };

  const sql = async (text: string, database = "postgres") =>
    await run(`${bin}/psql`, [
      "-h",
      sockets,
      "-p",
      String(port),
      "-U",
      USER,
      "-d",
      database,
      "-v",
      "ON_ERROR_STOP=1",
      "-tAc",
      text,
    ], runAs);

  const url = (
    database = "postgres",
    options: { withPassword?: boolean; query?: string } = {},
  ) =>
    `postgres://${USER}${options.withPassword ? `:${password}` : ""}@127.0.0.1:${port}/${database}${
      options.query ? `?${options.query}` : ""
    }`;

  await start();
  return {
    port,
    user: USER,
    password,
    dir,
    url,
    sql,
    async createDatabase(name: string) {
      await sql(`CREATE DATABASE ${name}`);
      return url(name, { withPassword: true });
    },
    stop,
    start,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await stop();
      await Deno.remove(dir, { recursive: true });
    },
    killNow() {
      if (destroyed) return;
      destroyed = true;
      if (child) {
        child = null;
        const [program, list] = as(runAs, `${bin}/pg_ctl`, ["stop", "-D", data, "-m", "immediate"]);
        new Deno.Command(program, { args: list, cwd: "/", stdout: "null", stderr: "null" })
          .outputSync();
      }
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch {
        // nothing to remove
      }
    },
  };
}
