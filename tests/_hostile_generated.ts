// Copyright 2026 the taskpack authors. MIT license.
/**
 * The hostile cases that are built at test time instead of committed: every one carries a
 * secret-shaped token, and the repository must hold no literal secret. Tokens are put together
 * from fragments and seeded pseudo-random bodies, so no line of this file matches a detector.
 *
 * Run as a script, it is the memory probe of `hostile_test.ts`: it reads deflate bombs far
 * larger than the committed ones in a fresh process and prints how much its RSS grew.
 *
 * @module
 */
import {
  bagParts,
  BASE_LUGGAGE,
  baseObject,
  clone,
  declaring,
  deflated,
  type Expectation,
  flat,
  forgeBag,
  patch,
  seeded,
} from "../tools/make_hostile_corpus.ts";
import { extraRecord, forgeZip } from "./_zip_forge.ts";
import type { PackObject } from "../lib/format/model.ts";

/** A case made at test time. */
export interface GeneratedCase extends Expectation {
  /** `<class>/<case>`, as in `expected.json`. */
  id: string;
  /** `.taskpack` or `.taskpack.json`. */
  ext: ".taskpack" | ".taskpack.json";
  /** The file's bytes. */
  bytes: Uint8Array;
  /** The detector that must fire (credential cases). */
  kind?: string;
}

const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text);
const j = (...parts: string[]) => parts.join("");

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const B64 = ALNUM + "+/";
const URLSAFE = ALNUM + "_-";

/** One token per detector kind, built from fragments with a seeded body. */
export function tokens(): { kind: string; token: string }[] {
  const random = seeded(20261202);
  const body = (length: number, alphabet: string) => {
    let out = "";
    // Start with a lower, an upper and a digit where the alphabet has them, so every
    // "looks random" rule holds whatever the seed gives.
    for (const c of ["q", "Z", "7"]) if (out.length < length && alphabet.includes(c)) out += c;
    while (out.length < length) out += alphabet[Math.floor(random() * alphabet.length)];
    return out;
  };
  const digits = (length: number) => "1" + body(length - 1, "0123456789").replace(/\D/g, "8");
  return [
    {
      kind: "private-key",
      token: j("-----BEGIN ", "RSA PRIVATE", " KEY-----\n", body(64, B64), "\n", body(64, B64)),
    },
    { kind: "anthropic-key", token: j("sk", "-ant-", "api03-", body(60, URLSAFE)) },
    { kind: "openai-key", token: j("sk", "-proj-", body(56, URLSAFE)) },
    { kind: "openai-key", token: j("sk", "-", body(48, ALNUM)) },
    { kind: "google-api-key", token: j("AI", "za", body(35, URLSAFE)) },
    { kind: "huggingface-token", token: j("hf", "_", body(34, ALNUM)) },
    { kind: "groq-key", token: j("gs", "k_", body(52, ALNUM)) },
    { kind: "replicate-token", token: j("r8", "_", body(40, ALNUM)) },
    { kind: "xai-key", token: j("xa", "i-", body(80, ALNUM)) },
    { kind: "perplexity-key", token: j("pp", "lx-", body(48, ALNUM)) },
    { kind: "github-token", token: j("gh", "p_", body(36, ALNUM)) },
    { kind: "github-token", token: j("git", "hub_pat_", body(82, ALNUM + "_")) },
    { kind: "gitlab-token", token: j("gl", "pat-", body(20, URLSAFE)) },
    { kind: "npm-token", token: j("np", "m_", body(36, ALNUM)) },
    { kind: "pypi-token", token: j("py", "pi-", "AgEI", body(70, URLSAFE)) },
    { kind: "aws-access-key", token: j("AK", "IA", body(16, UPPER_DIGITS)) },
    { kind: "aws-secret-key", token: j("aws_secret", "_access_key = ", body(40, B64)) },
    { kind: "google-oauth-token", token: j("ya", "29.", body(60, URLSAFE)) },
    { kind: "google-oauth-token", token: j("GOC", "SPX-", body(28, URLSAFE)) },
    { kind: "digitalocean-token", token: j("do", "p_v1_", body(64, HEX)) },
    { kind: "azure-key", token: j("Account", "Key=", body(86, B64), "==") },
    { kind: "slack-token", token: j("xo", "xb-", digits(12), "-", body(24, ALNUM)) },
    {
      kind: "slack-webhook",
      token: j(
        "https://hooks.",
        "slack.com/services/T",
        body(9, UPPER_DIGITS),
        "/B",
        body(9, UPPER_DIGITS),
        "/",
        body(24, ALNUM),
      ),
    },
    {
      kind: "discord-webhook",
      token: j("https://discord", ".com/api/webhooks/", digits(18), "/", body(68, URLSAFE)),
    },
    { kind: "telegram-bot-token", token: j(digits(10), ":A", "A", body(33, URLSAFE)) },
    { kind: "stripe-key", token: j("sk", "_live_", body(24, ALNUM)) },
    { kind: "square-token", token: j("sq0", "atp-", body(22, URLSAFE)) },
    { kind: "sendgrid-key", token: j("S", "G.", body(22, URLSAFE), ".", body(43, URLSAFE)) },
    { kind: "twilio-key", token: j("S", "K", body(32, HEX)) },
    { kind: "shopify-token", token: j("shp", "at_", body(32, HEX)) },
  ];
}

const credential = (why: string): Expectation => ({
  judge: ["C7"],
  land: "credential",
  cli: 2,
  why,
});

function withState(base: PackObject, edit: (object: PackObject) => void): PackObject {
  const object = clone(base);
  edit(object);
  return object;
}

/** UTF-16LE with a byte order mark. */
function utf16le(text: string): Uint8Array {
  const all = "\ufeff" + text;
  const bytes = new Uint8Array(all.length * 2);
  for (let i = 0; i < all.length; i++) {
    bytes[2 * i] = all.charCodeAt(i) & 0xff;
    bytes[2 * i + 1] = all.charCodeAt(i) >> 8;
  }
  return bytes;
}

let built: Promise<GeneratedCase[]> | null = null;

/** Every generated case (built once per process: one of them holds 100,001 attachments). */
export function generatedCases(): Promise<GeneratedCase[]> {
  built ??= buildGeneratedCases();
  return built;
}

async function buildGeneratedCases(): Promise<GeneratedCase[]> {
  const base = await baseObject();
  const out: GeneratedCase[] = [];
  const bag = (id: string, expect: Expectation, bytes: Uint8Array, kind?: string) =>
    out.push({ id, ext: ".taskpack", bytes, ...expect, ...(kind ? { kind } : {}) });
  const json = (id: string, expect: Expectation, bytes: Uint8Array, kind?: string) =>
    out.push({ id, ext: ".taskpack.json", bytes, ...expect, ...(kind ? { kind } : {}) });

  // Every credential shape, in a passport string (alternating the encodings).
  tokens().forEach(({ kind, token }, i) => {
    const object = withState(base, (o) => {
      o.passport.current_state = `Deploy with\n${token}\nthen publish.`;
    });
    const id = `content/credential-${kind}-${i}`;
    const expect = credential(`a ${kind} in a passport string`);
    if (i % 2 === 0) json(id, expect, utf8(flat(object)), kind);
    else bag(id, expect, forgeBag(bagParts({ object }, base)), kind);
  });

  // One token in every place a pack can carry it.
  const all = tokens();
  const github = all.find((t) => t.kind === "github-token")!.token;
  const key = all.find((t) => t.kind === "private-key")!.token;
  const aws = all.find((t) => t.kind === "aws-access-key")!.token;
  const zeroWidth = github.slice(0, 6) + "\u200b" + github.slice(6, 20) + "\u2060" +
    github.slice(20);

  json(
    "content/credential-in-note",
    credential("a token in the note"),
    utf8(flat(withState(base, (o) => (o.note = `use ${github} to publish`)))),
  );
  json(
    "content/credential-in-key",
    credential("a token as a field name"),
    utf8(flat(withState(base, (o) => {
      (o.passport as Record<string, unknown>)[github] = "publish token";
    }))),
  );
  json(
    "content/credential-in-landing-check",
    credential("a token in a landing check's how"),
    utf8(flat(withState(base, (o) => {
      o.landing_checks[0]!.how = `curl -H "Authorization: token ${github}" https://example.invalid`;
    }))),
  );
  json(
    "content/credential-in-ask",
    credential("a token in an ask's accept"),
    utf8(flat(withState(base, (o) => (o.asks[0]!.accept = `reply with ${aws}`)))),
  );
  json(
    "content/credential-zero-width-string",
    credential("a token split by zero-width characters in a string"),
    utf8(flat(withState(base, (o) => (o.passport.current_state = `token: ${zeroWidth}`)))),
  );
  json(
    "content/credential-in-origin",
    credential("a token as the sender's machine name"),
    utf8(flat(withState(base, (o) => (o.origin.machine = github)))),
  );
  bag(
    "content/credential-luggage-name-bag",
    credential("a token as a luggage name"),
    forgeBag(bagParts({ luggage: [...BASE_LUGGAGE, [`${github}.txt`, utf8("x\n")]] }, base)),
  );
  json(
    "content/credential-luggage-name-flat",
    credential("a token as an attachment name"),
    utf8(flat(base, [...BASE_LUGGAGE, [`keys/${github}`, utf8("x\n")]])),
  );
  bag(
    "content/credential-luggage-byte-0",
    credential("a private key at byte 0 of a luggage file"),
    forgeBag(bagParts({ luggage: [...BASE_LUGGAGE, ["id_rsa", utf8(key + "\n")]] }, base)),
  );
  {
    const filler = "ordinary build log line, nothing to see here\n".repeat(2000);
    const parts = bagParts(
      { luggage: [...BASE_LUGGAGE, ["build.log", utf8(filler + `TOKEN=${github}\n`)]] },
      base,
    );
    bag(
      "content/credential-luggage-past-64k",
      credential("a token after 88 KiB of ordinary text"),
      forgeZip(await Promise.all(parts.map((p) => deflated(p)))),
    );
  }
  {
    // 900 KB of zero-width spaces inside the token, over every chunk boundary a reader uses
    // (the whole-file scan steps at 1 MiB): the window must keep the token's start.
    const filler = "ordinary build log line, nothing to see here\n".repeat(14_000);
    const split = `TOKEN=${github.slice(0, 9)}${"\u200b".repeat(300_000)}${github.slice(9)}\n`;
    const parts = bagParts(
      { luggage: [...BASE_LUGGAGE, ["build.log", utf8(filler + split)]] },
      base,
    );
    bag(
      "content/credential-luggage-zero-width-run",
      credential(
        "a token split by 300,000 zero-width spaces across the scanner's chunk boundaries",
      ),
      // Stored, so that the reader hands the scanner the file in pieces.
      forgeBag(parts),
    );
  }
  json(
    "content/credential-luggage-utf16",
    credential("a token in UTF-16 luggage"),
    utf8(flat(base, [...BASE_LUGGAGE, ["env.txt", utf16le(`TOKEN=${github}\r\n`)]])),
  );
  bag(
    "content/credential-luggage-zero-width",
    credential("a token split by zero-width characters in luggage"),
    forgeBag(
      bagParts({ luggage: [...BASE_LUGGAGE, ["env.txt", utf8(`TOKEN=${zeroWidth}\n`)]] }, base),
    ),
  );
  {
    const binary = new Uint8Array(4096);
    const random = seeded(99);
    for (let i = 0; i < binary.length; i++) binary[i] = Math.floor(random() * 256);
    binary.set(utf8(`\nAWS_ACCESS_KEY_ID=${aws}\n`), 2000);
    json(
      "content/credential-luggage-binary",
      credential("a token inside a binary attachment (base64 in the flat form)"),
      utf8(flat(base, [...BASE_LUGGAGE, ["blob.bin", binary]])),
    );
  }
  // The bytes a ZIP carries besides the pack and its luggage travel too (C7).
  {
    const parts = bagParts({}, base);
    const brief = "data/files/brief.txt";
    bag(
      "content/credential-zip-archive-comment",
      credential("a token in the archive comment"),
      forgeBag(parts, undefined, { comment: utf8(`publish with ${github}`) }),
    );
    bag(
      "content/credential-zip-entry-comment",
      credential("a token in an entry's comment"),
      forgeBag(parts, (e) => patch(e, brief, { comment: utf8(`token ${aws}`) })),
    );
    bag(
      "content/credential-zip-extra-field",
      credential("a token in an unknown central extra field record (0xCAFE)"),
      forgeBag(parts, (e) => patch(e, brief, { extra: extraRecord(0xcafe, utf8(github)) })),
    );
    bag(
      "content/credential-zip-local-extra-field",
      credential("a private key in an unknown local extra field record, binary around it"),
      forgeBag(parts, (e) =>
        patch(e, brief, {
          localExtra: extraRecord(0xcafe, new Uint8Array([0, 0xff, ...utf8(key), 0xfe, 0])),
        })),
    );
    bag(
      "content/credential-zip-directory-name",
      credential("a token as the name of a directory entry under data/files (no luggage lists it)"),
      forgeBag(parts, (e) => [...e, { name: `data/files/${github}/` }]),
    );
    bag(
      "content/credential-zip-directory-name-root",
      credential("a token as the name of a directory entry at the root of the bag"),
      forgeBag(parts, (e) => [...e, { name: `${aws}/` }]),
    );
    bag(
      "content/credential-zip-comment-zero-width",
      credential("a token split by zero-width characters in an entry's comment"),
      forgeBag(parts, (e) => patch(e, brief, { comment: utf8(zeroWidth) })),
    );
  }
  // §4.1: a private key block at any length, and however indented.
  {
    const begin = j("-----BEGIN ", "PRIVATE", " KEY-----");
    const end = j("-----END ", "PRIVATE", " KEY-----");
    json(
      "content/credential-private-key-short",
      credential("a private key block whose body is six base64 characters"),
      utf8(flat(withState(base, (o) => (o.passport.current_state = `${begin}\nMIIBqZ\n${end}`)))),
    );
    bag(
      "content/credential-private-key-yaml-indented",
      credential("a private key in a YAML block scalar indented 20 spaces, in luggage"),
      forgeBag(bagParts({
        luggage: [...BASE_LUGGAGE, [
          "deploy.yaml",
          utf8(
            `deploy:\n  ssh:\n    key: |\n${" ".repeat(20)}${begin}\n${" ".repeat(20)}MIIBqZ7\n${
              " ".repeat(20)
            }${end}\n`,
          ),
        ]],
      }, base)),
    );
  }
  json(
    "content/credential-luggage-deep-name",
    credential("a token in a file nested in folders"),
    utf8(flat(base, [...BASE_LUGGAGE, ["a/b/c/.env", utf8(`KEY=${aws}\n`)]])),
  );
  // Every tag file travels too (C7): a token on an extra line is found and named by its line.
  {
    const derived = bagParts({}, base);
    const tag = (name: string) =>
      new TextDecoder().decode(derived.find((p) => p.name === name)!.bytes);
    bag(
      "content/credential-tag-bag-info",
      credential("a token added as an extra line of bag-info.txt"),
      forgeBag(
        bagParts({ bagInfo: utf8(`${tag("bag-info.txt")}Contact-Token: ${github}\n`) }, base),
      ),
    );
    bag(
      "content/credential-tag-bagit",
      credential("a token added as an extra line of bagit.txt"),
      forgeBag(bagParts({ bagit: utf8(`${tag("bagit.txt")}Upload-Key: ${aws}\n`) }, base)),
    );
    bag(
      "content/credential-tag-bag-info-base64",
      credential("a base64-encoded token on an extra line of bag-info.txt"),
      forgeBag(
        bagParts({ bagInfo: utf8(`${tag("bag-info.txt")}Contact-Blob: ${btoa(github)}\n`) }, base),
      ),
    );
    // A line a manifest cannot parse: the bag is broken (C1), and the line is a secret (C7).
    bag(
      "content/credential-tag-manifest",
      {
        judge: ["C1", "C7"],
        land: "bag-manifest",
        cli: 2,
        why: "a token as a line of manifest-sha256.txt",
      },
      forgeBag(bagParts({ manifest: utf8(`${tag("manifest-sha256.txt")}${github}\n`) }, base)),
    );
    bag(
      "content/credential-tag-tagmanifest",
      {
        judge: ["C1", "C7"],
        land: "bag-manifest",
        cli: 2,
        why: "a private key as lines of tagmanifest-sha256.txt",
      },
      forgeBag(
        bagParts({ tagManifest: utf8(`${tag("tagmanifest-sha256.txt")}${key}\n`) }, base),
      ),
    );
  }
  // One limit for both encodings: 100,001 flat attachments, as a bag of 100,001 entries.
  {
    const many: [string, Uint8Array][] = [];
    for (let i = 0; i < 100_001; i++) many.push([`f/${i}.txt`, utf8(`${i}\n`)]);
    json(
      "flat/attachments-over-max-entries",
      {
        judge: ["C1"],
        land: "limit",
        cli: 2,
        why: "100,001 flat attachments, over maxEntries as a bag with as many entries is",
      },
      utf8(flat(base, many)),
    );
  }
  // Secrets in base64, as files hold them (C7).
  {
    const awsSecret = all.find((t) => t.kind === "aws-secret-key")!.token.split("= ")[1]!;
    const slack = all.find((t) => t.kind === "slack-token")!.token;
    const secret = (data: Record<string, string>) =>
      utf8(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: deploy\ntype: Opaque\ndata:\n" +
          Object.entries(data).map(([k, v]) => `  ${k}: ${btoa(v)}\n`).join(""),
      );
    bag(
      "content/credential-base64-k8s-secret",
      credential("a Kubernetes Secret whose data: value is a base64 token"),
      forgeBag(
        bagParts({
          luggage: [...BASE_LUGGAGE, [
            "k8s/secret.yaml",
            secret({ user: "deploy", token: github }),
          ]],
        }, base),
      ),
    );
    json(
      "content/credential-base64-k8s-secret-by-key",
      credential(
        "a Kubernetes Secret whose data: value is a bare AWS secret key, known by its key's name",
      ),
      utf8(flat(base, [
        ...BASE_LUGGAGE,
        ["k8s/aws.yaml", secret({ aws_access_key_id: "deploy", aws_secret_access_key: awsSecret })],
      ])),
    );
    json(
      "content/credential-base64-run",
      credential("a base64 run in a JSON config that decodes to a Slack token"),
      utf8(flat(base, [
        ...BASE_LUGGAGE,
        ["config.json", utf8(`{"name":"bot","blob":"${btoa(`{"token":"${slack}"}`)}"}\n`)],
      ])),
    );
    json(
      "content/credential-base64-urlsafe-string",
      credential("a URL-safe base64 token, unpadded, in a passport string"),
      utf8(flat(withState(base, (o) => {
        const encoded = btoa(`key=${github}`).replace(/\+/g, "-").replace(/\//g, "_")
          .replace(/=+$/, "");
        o.passport.current_state = `The deploy blob is ${encoded}.`;
      }))),
    );
    bag(
      "content/credential-base64-past-64k",
      credential("a base64 private key after 100 KiB of ordinary base64"),
      forgeBag(bagParts({
        luggage: [...BASE_LUGGAGE, [
          "bundle.txt",
          utf8(btoa("ordinary bytes ".repeat(7000)) + "\n" + btoa(key) + "\n"),
        ]],
      }, base)),
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The memory probe

/**
 * Bombs far larger than the committed ones, built in memory from `mib` MiB of zeros (about
 * `mib` KiB deflated). Two lie about their size; the honest one declares it (its ratio, about
 * 1030, is within the limit, since DEFLATE cannot do better) and is inflated to the end, where
 * its CRC-32 fails.
 */
export async function bigBombs(
  mib: number,
): Promise<{ name: string; honest: boolean; bytes: Uint8Array }[]> {
  const base = await baseObject();
  const zeros = new Uint8Array(1 << 20);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < mib) controller.enqueue(zeros);
      else controller.close();
    },
  });
  const bomb = new Uint8Array(
    await new Response(
      stream.pipeThrough(
        new CompressionStream("deflate-raw") as unknown as TransformStream<Uint8Array, Uint8Array>,
      ),
    ).arrayBuffer(),
  );
  const spec = { luggage: [...BASE_LUGGAGE, ["zeros.bin", new Uint8Array(4096)] as const] };
  const withSize = (size: number) =>
    forgeBag(
      declaring(spec, base, { "data/files/zeros.bin": size }),
      (e) => patch(e, "data/files/zeros.bin", { data: bomb, method: 8, size, crc32: 0 }),
    );
  return [
    { name: `declares 4 KiB, inflates to ${mib} MiB`, honest: false, bytes: withSize(4096) },
    {
      name: `declares its compressed size, inflates to ${mib} MiB`,
      honest: false,
      bytes: withSize(bomb.length),
    },
    { name: `declares and inflates to ${mib} MiB`, honest: true, bytes: withSize(mib << 20) },
  ];
}

if (import.meta.main) {
  // deno run -A --v8-flags=--expose-gc tests/_hostile_generated.ts <MiB> [bomb files...]
  //
  // Lying bombs (these and the committed ones) must be stopped before they cost memory: RSS
  // is measured as it is. The honest bomb is inflated to the end; to show what the reader
  // holds rather than what the collector has yet to free, a collection runs after every
  // inflated chunk, and the RSS without that is reported too. Both with the platform's
  // inflater (the library's default) and with the CLI's.
  const { judge } = await import("../lib/format/conformance.ts");
  const { land } = await import("../lib/format/land.ts");
  const { nativeDigests } = await import("../shell/host/node_digests.ts");
  const { nativeInflater } = await import("../shell/host/native_inflater.ts");
  type Inflater = import("../lib/zip/deflate.ts").Inflater;
  const gc = (globalThis as { gc?: () => void }).gc;
  const mib = Number(Deno.args[0] ?? 256);
  const bombs = await bigBombs(mib);
  for (const path of Deno.args.slice(1)) {
    bombs.push({ name: path, honest: false, bytes: await Deno.readFile(path) });
  }
  const Native = globalThis.DecompressionStream;
  let collect = false;
  class Collecting {
    readonly readable: ReadableStream<Uint8Array>;
    readonly writable: WritableStream<Uint8Array>;
    constructor(format: CompressionFormat) {
      const inner = new Native(format) as unknown as TransformStream<Uint8Array, Uint8Array>;
      this.writable = inner.writable;
      this.readable = inner.readable.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            if (collect) gc?.();
            controller.enqueue(chunk);
          },
        }),
      );
    }
  }
  globalThis.DecompressionStream = Collecting as unknown as typeof DecompressionStream;
  // The CLI's inflater (node:zlib), with the same collection hook on its output.
  const native = nativeInflater()!;
  const shellInflater: Inflater = {
    inflate: native.inflate,
    inflateStream: () => {
      const inner = native.inflateStream!();
      return {
        writable: inner.writable,
        readable: inner.readable.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              if (collect) gc?.();
              controller.enqueue(chunk);
            },
          }),
        ),
      };
    },
  };
  const measure = async (honest: boolean, collecting: boolean, inflater?: Inflater) => {
    const options = { digests: nativeDigests, ...(inflater ? { inflater } : {}) };
    collect = collecting;
    gc?.();
    const before = Deno.memoryUsage().rss;
    let peak = before;
    const results: Record<string, unknown>[] = [];
    for (const { name, bytes } of bombs.filter((b) => b.honest === honest)) {
      const t0 = performance.now();
      const report = await judge(bytes, options);
      peak = Math.max(peak, Deno.memoryUsage().rss);
      let landed = "accept";
      try {
        await land(bytes, options);
      } catch (error) {
        landed = (error as { code?: string }).code ?? String(error);
      }
      peak = Math.max(peak, Deno.memoryUsage().rss);
      const ms = Math.round(performance.now() - t0);
      results.push({ name, size: bytes.length, judged: report.ok, land: landed, ms });
    }
    return { growth: peak - before, results };
  };
  const lying = await measure(false, false);
  const honest = await measure(true, gc !== undefined);
  const honestUncollected = (await measure(true, false)).growth;
  const lyingShell = await measure(false, false, shellInflater);
  const honestShell = await measure(true, gc !== undefined, shellInflater);
  console.log(JSON.stringify({ lying, honest, honestUncollected, lyingShell, honestShell }));
}
