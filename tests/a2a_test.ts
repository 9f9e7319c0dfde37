// Copyright 2026 the taskpack authors. MIT license.
// deno-lint-ignore-file no-explicit-any -- the report is checked field by field
// The A2A binding (spec §5): our JSON is what the official A2A 1.0 codecs read and write,
// the mappings round-trip exactly, and a pack built from a task's artifacts judges conformant.
import assert from "node:assert/strict";
import fc from "npm:fast-check@4.11.0";
import {
  AgentCard,
  Artifact,
  HTTP_EXTENSION_HEADER,
  type Part,
  Role,
  Task,
  type Task as SdkTask,
  TaskState,
} from "@a2a-js/sdk";
import {
  A2A_EXTENSIONS_HEADER,
  type A2AAgentExtension,
  type A2AArtifact,
  artifactsToLuggage,
  buildPackObject,
  encodeBag,
  encodeFlat,
  judge,
  land,
  type Lineage,
  lineageToTask,
  luggageFromBytes,
  luggageToArtifacts,
  negotiateExtensions,
  preparePack,
  TASKPACK_A2A_EXTENSION,
  TASKPACK_A2A_EXTENSION_URI,
  taskToLineage,
  withTaskPackExtension,
} from "../mod.ts";
import { streamBytes } from "./_helpers.ts";

/** The official codec's view of a JSON value: parse it as A2A 1.0, write it back. */
function throughSdk<T>(codec: { fromJSON(o: never): T; toJSON(m: T): unknown }, json: unknown) {
  return codec.toJSON(codec.fromJSON(json as never));
}

Deno.test("the header name is the SDK's", () => {
  assert.equal(A2A_EXTENSIONS_HEADER, HTTP_EXTENSION_HEADER);
});

Deno.test("withTaskPackExtension() gives a card the A2A 1.0 codec reads back unchanged", () => {
  const card = {
    name: "release bot",
    description: "ships plugins",
    version: "1.0.0",
    supportedInterfaces: [],
    capabilities: { streaming: true, extensions: [] as A2AAgentExtension[] },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  };
  const frozen = structuredClone(card);
  const declared = withTaskPackExtension(card);
  assert.deepEqual(card, frozen, "the input is not mutated");
  const extension = declared.capabilities.extensions[0] as typeof TASKPACK_A2A_EXTENSION;
  assert.equal(declared.capabilities.extensions.length, 1);
  assert.equal(extension.uri, TASKPACK_A2A_EXTENSION_URI);
  assert.equal(extension.required, false);
  assert.deepEqual(extension.params.media_types, [
    "application/vnd.taskpack+zip",
    "application/vnd.taskpack+json",
  ]);
  const back = throughSdk(AgentCard, declared) as typeof declared;
  // proto3 JSON leaves out defaults (required: false, empty lists); everything else survives.
  assert.deepEqual(back.capabilities.extensions[0], {
    uri: extension.uri,
    description: extension.description,
    params: extension.params,
  });
  // A card with no capabilities at all, and one that already declares it.
  const bare = withTaskPackExtension({ name: "x" });
  assert.equal(bare.capabilities?.extensions?.length, 1);
  const twice = withTaskPackExtension(withTaskPackExtension(bare));
  assert.equal(twice.capabilities?.extensions?.length, 1);
  // The result is the caller's to change: the shared descriptor stays frozen.
  twice.capabilities!.extensions![0]!.description = "changed";
  assert.notEqual(TASKPACK_A2A_EXTENSION.description, "changed");
  assert.ok(Object.isFrozen(TASKPACK_A2A_EXTENSION.params.media_types));
});

Deno.test("negotiateExtensions() echoes the URI only when it was requested", async (t) => {
  const cases: [string | null, boolean][] = [
    [null, false],
    ["", false],
    [" , ,", false],
    [TASKPACK_A2A_EXTENSION_URI, true],
    [`  ${TASKPACK_A2A_EXTENSION_URI}  `, true],
    [`"${TASKPACK_A2A_EXTENSION_URI}"`, true],
    [`https://example.com/a,${TASKPACK_A2A_EXTENSION_URI.toUpperCase()},https://b`, true],
    [`https://example.com/a, https://example.com/b`, false],
    [`${TASKPACK_A2A_EXTENSION_URI}/v2`, false],
    ["https://taskpack.org/a2a/ext/taskpack", false],
  ];
  for (const [header, activated] of cases) {
    await t.step(JSON.stringify(header), () => {
      assert.deepEqual(negotiateExtensions(header), {
        activated,
        responseHeader: activated ? TASKPACK_A2A_EXTENSION_URI : null,
      });
    });
  }
});

const chainEntry = fc.tuple(
  // An id holding "@" splits two ways, so no well-formed lineage has one (issue 39, §3).
  fc.string({ minLength: 1, maxLength: 12 }).filter((id) => !id.includes("@")),
  fc.integer({ min: 0, max: 10_000 }),
).map(([id, version]) => ({ id, version }));

Deno.test("lineageToTask() and taskToLineage() round-trip every well-formed lineage", () => {
  fc.assert(
    fc.property(fc.array(chainEntry, { minLength: 1, maxLength: 6 }), (entries) => {
      const chain = entries.map((e) => `${e.id}@${e.version}`);
      const lineage: Lineage = {
        root_id: entries[0]!.id,
        from_version: entries[entries.length - 1]!.version,
        chain,
      };
      const task = lineageToTask(lineage);
      assert.equal(task.id, lineage.root_id);
      const back = taskToLineage(task);
      assert.equal(back.problem, null);
      assert.deepEqual(back.lineage, lineage);
      assert.deepEqual(back.ignored, []);
    }),
    { numRuns: 500 },
  );
  // The chain's separator and the escape character inside ids survive.
  const odd: Lineage = { root_id: "a,b%2C", from_version: 3, chain: ["a,b%2C@1", "%25@3"] };
  assert.equal(lineageToTask(odd).contextId, "a%2Cb%252C@1,%2525@3");
  assert.deepEqual(taskToLineage(lineageToTask(odd)).lineage, odd);
});

Deno.test("taskToLineage() ignores messages and says so; foreign tasks get a problem", () => {
  const json = {
    id: "TP-9CB7-J5MK",
    contextId: "TP-9CB7-J5MK@2,TP-2222-3333@4",
    status: {
      state: "TASK_STATE_INPUT_REQUIRED",
      message: { messageId: "m2", role: "ROLE_AGENT", parts: [{ text: "which palette?" }] },
    },
    history: [
      { messageId: "m1", role: "ROLE_USER", parts: [{ text: "make a cover" }] },
      { messageId: "m2", role: "ROLE_AGENT", parts: [{ text: "which palette?" }] },
    ],
  };
  // What the official codec reads is what we map.
  const task = throughSdk(Task, json) as typeof json;
  assert.deepEqual(task.history, json.history);
  const mapped = taskToLineage(task);
  assert.deepEqual(mapped.lineage, {
    root_id: "TP-9CB7-J5MK",
    from_version: 4,
    chain: ["TP-9CB7-J5MK@2", "TP-2222-3333@4"],
  });
  assert.equal(mapped.ignored.length, 2);
  assert.match(mapped.ignored[0]!, /^history: 2 messages not mapped; .*transcripts/);
  assert.match(mapped.ignored[1]!, /^status\.message/);

  for (
    const [contextId, why] of [
      ["6f1c2b1e-5b43-4f0e-9d51-2f0b5f1b8c11", /not a TaskPack chain/],
      ["TP-2222-3333@1", /does not start at root_id/],
      ["TP-9CB7-J5MK@x", /not a TaskPack chain/],
      ["", /no contextId/],
    ] as const
  ) {
    const foreign = taskToLineage({ id: "TP-9CB7-J5MK", contextId });
    assert.equal(foreign.lineage, null, contextId);
    assert.match(foreign.problem!, why);
  }
  assert.throws(
    () => lineageToTask({ root_id: "", from_version: 1, chain: ["x@1"] }),
    /Cannot map lineage to an A2A task: lineage.root_id is missing/,
  );
});

const ARTIFACTS: A2AArtifact[] = [
  {
    artifactId: "release-notes",
    name: "Release notes",
    description: "what changed in 1.2.0",
    parts: [
      { text: "# 1.2.0\n\n- faster landing\n", filename: "notes.md", mediaType: "text/markdown" },
      { url: "https://example.com/builds/42", mediaType: "text/html" },
      { data: { build: 42, green: true }, mediaType: "application/json" },
    ],
    metadata: { origin: "ci" },
    extensions: [TASKPACK_A2A_EXTENSION_URI],
  },
  {
    artifactId: "cover/../../etc", // not a safe folder name: mapped to artifact-2
    parts: [
      { raw: "iVBORw0KGgoAAAANSUhEUg==", filename: "cover.png", mediaType: "image/png" },
      { raw: "AAEC", filename: "COVER.png" }, // clashes with cover.png on macOS and Windows
      { raw: "AQID", filename: "../evil" },
      { text: "loose text" },
    ],
  },
];

Deno.test("artifacts survive the A2A codec, a pack in both encodings, and come back equal", async () => {
  for (const artifact of ARTIFACTS) {
    assert.deepEqual(throughSdk(Artifact, artifact), artifact, "our JSON is A2A 1.0 JSON");
  }
  const mapped = artifactsToLuggage(ARTIFACTS);
  assert.deepEqual(mapped.luggage.map((f) => f.name), [
    "a2a.json",
    "a2a/release-notes/notes.md",
    "a2a/artifact-2/cover.png",
    "a2a/artifact-2/part-2.bin",
    "a2a/artifact-2/part-3.bin",
    "a2a/artifact-2/part-4.txt",
  ]);
  assert.deepEqual(mapped.artifacts, [
    "data/files/a2a/release-notes/notes.md",
    "https://example.com/builds/42",
    "data/files/a2a/artifact-2/cover.png",
    "data/files/a2a/artifact-2/part-2.bin",
    "data/files/a2a/artifact-2/part-3.bin",
    "data/files/a2a/artifact-2/part-4.txt",
  ]);

  const lineage = taskToLineage({ id: "TP-9CB7-J5MK", contextId: "TP-9CB7-J5MK@2" }).lineage!;
  const state = {
    id: "TP-9CB7-J5MK",
    version: 2,
    goal: "ship the plugin",
    artifacts: mapped.artifacts,
  };
  const pack = buildPackObject(state, { packedAt: "2026-12-02T16:46:10Z", machine: "vm" });
  assert.deepEqual(pack.lineage, lineage);
  const extra = luggageFromBytes("brief.txt", "Release brief\n");
  const ready = await preparePack(pack, [...mapped.luggage, extra]);
  const bag = await streamBytes(encodeBag(ready));
  const flat = new TextEncoder().encode(await encodeFlat(ready));
  for (const bytes of [bag, flat]) {
    const report = await judge(bytes);
    assert.equal(report.ok, true, JSON.stringify(report.checks.filter((c) => !c.ok)));
    const landed = await land(bytes);
    assert.deepEqual(lineageToTask(landed.object.lineage), {
      id: "TP-9CB7-J5MK",
      contextId: "TP-9CB7-J5MK@2",
    });
    const back = await luggageToArtifacts(landed.luggage);
    assert.deepEqual(back.artifacts.slice(0, 2), ARTIFACTS);
    assert.deepEqual(back.unindexed, ["brief.txt"]);
    assert.deepEqual(back.artifacts[2], {
      artifactId: "brief.txt",
      parts: [{ raw: "UmVsZWFzZSBicmllZgo=", filename: "brief.txt" }],
    });
  }
});

Deno.test("artifactsToLuggage() round-trips arbitrary text and bytes", async () => {
  const part = fc.oneof(
    fc.record({ text: fc.string({ unit: "grapheme", maxLength: 40 }) }),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ raw: btoa(String.fromCharCode(...bytes)) })),
    fc.record({ url: fc.webUrl() }),
  );
  const artifact = fc.record({
    artifactId: fc.string({ minLength: 1, maxLength: 10 }),
    parts: fc.array(
      fc.tuple(part, fc.option(fc.string({ maxLength: 10 }), { nil: undefined })).map((
        [p, filename],
      ) => (filename === undefined ? p : { ...p, filename })),
      { minLength: 1, maxLength: 4 },
    ),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(artifact, { maxLength: 4 }), async (generated) => {
      const artifacts: A2AArtifact[] = JSON.parse(JSON.stringify(generated)); // plain objects
      const { luggage } = artifactsToLuggage(artifacts);
      const back = await luggageToArtifacts(luggage);
      assert.deepEqual(back.artifacts, artifacts);
      assert.deepEqual(back.unindexed, []);
    }),
    { numRuns: 200 },
  );
});

Deno.test("raw parts in URL-safe or unpadded base64 come back canonical; bad ones are refused", async () => {
  const { luggage } = artifactsToLuggage([{ artifactId: "a", parts: [{ raw: "-_8" }] }]);
  const back = await luggageToArtifacts(luggage);
  assert.deepEqual(back.artifacts[0]!.parts, [{ raw: "+/8=" }]);
  assert.throws(
    () => artifactsToLuggage([{ artifactId: "a", parts: [{ raw: "not base64!" }] }]),
    /artifacts\[0\]\.parts\[0\]\.raw is not base64/,
  );
  assert.throws(
    () => artifactsToLuggage([{ artifactId: "a", parts: "x" } as unknown as A2AArtifact]),
    TypeError,
  );
});

Deno.test("luggageToArtifacts() reads a hostile index strictly", async () => {
  const index = (text: string) => [luggageFromBytes("a2a.json", text)];
  await assert.rejects(
    luggageToArtifacts(
      index('{"artifacts":[{"parts":[{"taskpack_luggage":"missing","taskpack_content":"raw"}]}]}'),
    ),
    /names "missing", which is not in the pack/,
  );
  await assert.rejects(
    luggageToArtifacts(index('{"artifacts":[],"artifacts":[]}')),
    /appears twice/,
  );
  await assert.rejects(luggageToArtifacts(index('{"__proto__":{}}')), /__proto__|forbidden/);
  await assert.rejects(luggageToArtifacts(index('{"artifacts":{}}')), /lists no artifacts/);
});

Deno.test({
  name: "the SDK's ClientFactory builds a client from the judge's card and gets reports back",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { ClientFactory, ClientFactoryOptions } = await import("@a2a-js/sdk/client");
    const { createJudgeHandler } = await import("../serve.ts");
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen() {} },
      createJudgeHandler({ viewerHtml: "<!doctype html>" }),
    );
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      // Asking for the TaskPack extension: the response must say it was activated.
      const activated: string[] = [];
      const fetchImpl: typeof fetch = async (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set(HTTP_EXTENSION_HEADER, TASKPACK_A2A_EXTENSION_URI);
        const response = await fetch(input, { ...init, headers });
        const echoed = response.headers.get(HTTP_EXTENSION_HEADER);
        if (echoed) activated.push(echoed);
        return response;
      };
      const factory = new ClientFactory(ClientFactoryOptions.createFrom(
        ClientFactoryOptions.default,
        {
          transports: [
            new (await import("@a2a-js/sdk/client")).JsonRpcTransportFactory({ fetchImpl }),
          ],
        },
      ));
      const client = await factory.createFromUrl(base);
      const send = async (parts: Part[]) => {
        const result = await client.sendMessage({
          tenant: "",
          message: {
            messageId: crypto.randomUUID(),
            contextId: "",
            taskId: "",
            role: Role.ROLE_USER,
            parts,
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          },
          configuration: undefined,
          metadata: undefined,
        });
        assert.ok("artifacts" in result, `a task, not a message: ${JSON.stringify(result)}`);
        return result as SdkTask;
      };
      const reportOf = (task: SdkTask) => {
        assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
        const content = task.artifacts[0]?.parts[0]?.content;
        assert.equal(content?.$case, "data");
        return (content as { value: any }).value;
      };
      /** A bag sent as one file part. */
      const bagPart = (bytes: Uint8Array, filename: string): Part => ({
        content: { $case: "raw", value: bytes as never },
        metadata: undefined,
        filename,
        mediaType: "application/vnd.taskpack+zip",
      });

      const pack = await preparePack(
        buildPackObject({ id: "TP-9CB7-J5MK", version: 1, goal: "judge me" }, {
          packedAt: "2026-12-02T16:46:10Z",
          machine: "vm",
        }),
        [],
      );
      const good = await streamBytes(encodeBag(pack));
      const goodReport = reportOf(
        await send([bagPart(good, "good.taskpack")]),
      );
      assert.equal(goodReport.ok, true);
      assert.equal(goodReport.digest, (await judge(good)).digest);

      const bad = await Deno.readFile(
        new URL("../testdata/hostile/bagit/manifest-wrong-digest.taskpack", import.meta.url),
      );
      const badReport = reportOf(
        await send([bagPart(bad, "bad.taskpack")]),
      );
      assert.equal(badReport.ok, false);
      assert.deepEqual(
        badReport.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { id: string }) => c.id),
        ["C1", "C9"],
      );
      // A flat pack may travel as text.
      const flat = await encodeFlat(pack);
      assert.equal(
        reportOf(
          await send([{
            content: { $case: "text", value: flat },
            metadata: undefined,
            filename: "good.taskpack.json",
            mediaType: "application/vnd.taskpack+json",
          }]),
        ).ok,
        true,
      );
      // No file part: the task is rejected, with a sentence saying what to send.
      const none = await send([{
        content: { $case: "text", value: "please judge" },
        metadata: undefined,
        filename: "",
        mediaType: "text/plain",
      }]);
      assert.equal(none.status?.state, TaskState.TASK_STATE_REJECTED);
      assert.ok(activated.length >= 4);
      for (const header of activated) assert.match(header, /taskpack\.org\/a2a\/ext\/taskpack/);
    } finally {
      await server.shutdown();
    }
  },
});
