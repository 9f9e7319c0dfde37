// Copyright 2026 the taskpack authors. MIT license.
/// <reference lib="dom" />
/**
 * The viewer page's logic: a person who received a `.taskpack` or `.taskpack.json` drops it
 * here and sees what it carries, judged and summarised by the TaskPack core running in the
 * page. The file never leaves the machine (the page makes no requests at all; its
 * Content-Security-Policy forbids them), and every string from the file is rendered as text
 * (`textContent`, never HTML): a pack is hostile data until proven otherwise.
 *
 * Bundled as a classic script into `web/viewer.html` by `tools/build_viewer.ts`.
 *
 * @module
 */
import {
  blobSource,
  checkLuggage,
  type DecodedPack,
  decodePack,
  encodeBag,
  encodeFlat,
  type FactState,
  judge,
  land,
  type PackSummary,
  preparePack,
  type Report,
  SignatureError,
  summarisePack,
  verifyPackSignature,
} from "../mod.ts";

/** Lists longer than this show their first items and say how many more there are. */
const MAX_ITEMS = 500;

type Child = Node | string | null | undefined | false;

/** Builds an element; string children become text nodes, never markup. */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Any value from the pack as display text. */
function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** A value from the pack, isolated for bidirectional text and long words. */
function data(value: unknown, tag: "span" | "div" | "code" = "span"): HTMLElement {
  return el(tag, { class: "data" }, text(value));
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {};
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^Cannot read taskpack: /, "");
}

const view = document.getElementById("view") as HTMLDivElement;
const statusLine = document.getElementById("status") as HTMLParagraphElement;
const input = document.getElementById("file") as HTMLInputElement;
const drop = document.getElementById("drop") as HTMLDivElement;
let objectUrls: string[] = [];
let generation = 0;

function setStatus(message: string): void {
  statusLine.textContent = message;
}

function clearView(): void {
  for (const url of objectUrls) URL.revokeObjectURL(url);
  objectUrls = [];
  view.replaceChildren();
}

/** Saves bytes the person asked for: a Blob URL and a download, never navigation. */
function download(blob: Blob, name: string): HTMLAnchorElement {
  const url = URL.createObjectURL(blob);
  objectUrls.push(url);
  const link = el("a", { href: url, download: name, class: "button" }, `Download ${name}`);
  return link;
}

function card(id: string, title: string, count: string | null, ...children: Child[]) {
  return el(
    "section",
    { class: "card", id },
    el("h2", {}, title, count === null ? null : el("span", { class: "count" }, count)),
    ...children,
  );
}

function capped<T>(items: readonly T[], render: (item: T, index: number) => Node): Node[] {
  const nodes = items.slice(0, MAX_ITEMS).map(render);
  if (items.length > MAX_ITEMS) {
    nodes.push(el("li", { class: "empty" }, `… and ${items.length - MAX_ITEMS} more, not shown`));
  }
  return nodes;
}

function list(id: string, items: Node[], empty: string): HTMLElement {
  return items.length === 0
    ? el("p", { class: "empty" }, empty)
    : el("ul", { class: "items", id }, ...items);
}

// --------------------------------------------------------------------------------------------

async function openFile(file: File, sig?: File): Promise<void> {
  const mine = ++generation;
  clearView();
  setStatus(`Reading ${file.name} (${formatBytes(file.size)}) in this browser…`);
  try {
    const source = blobSource(file);
    const report = await judge(source);
    let decoded: DecodedPack | null = null;
    let readError = "";
    try {
      decoded = await decodePack(source);
    } catch (error) {
      readError = reason(error);
    }
    if (mine !== generation) return;
    if (!decoded) {
      refuse(file, "it cannot be read safely as a TaskPack.", [readError], report);
      return;
    }
    const fatal = decoded.deviations.filter((d) => d.fatal);
    if (fatal.length > 0) {
      refuse(
        file,
        "it is broken or unsafe: its container does not hold together.",
        fatal.map((d) => `${d.where}: ${d.detail}`),
        report,
      );
      return;
    }
    const secrets = report.checks.filter((c) => !c.ok && (c.id === "C7" || c.id === "C8"));
    if (secrets.length > 0) {
      refuse(
        file,
        "it carries what looks like a credential or a chat transcript, which must never travel " +
          "in a pack. Its contents are not shown.",
        secrets.map((c) => `${c.id}: ${c.detail}`),
        report,
      );
      return;
    }
    // The luggage is checked as `land` checks it: a refused file is never offered to save.
    const verdicts = await checkLuggage(decoded);
    if (mine !== generation) return;
    render(file, decoded, summarisePack(decoded, report, verdicts), report);
    if (sig) {
      const line = await signatureLine(report.digest, sig);
      if (mine !== generation) return;
      document.getElementById("verdict")?.after(line);
    }
    setStatus(`Opened ${file.name}: ${verdictText(report)}.`);
  } catch (error) {
    if (mine !== generation) return;
    refuse(file, "the viewer could not read it.", [reason(error)], null);
  }
}

/**
 * What a signature chosen beside the pack says: the key that signed this very pack, or why it is
 * refused. The page has no trust list: who holds that key is for the person to know.
 */
async function signatureLine(digest: string | null, sig: File): Promise<HTMLElement> {
  const line = (ok: boolean, ...children: Child[]) =>
    el("p", { id: "signature", class: `signature ${ok ? "ok" : "bad"}` }, ...children);
  if (!digest) {
    return line(
      false,
      `${sig.name}: refused: the pack is not whole, so no signature can vouch for it`,
    );
  }
  try {
    const signed = await verifyPackSignature(digest, new Uint8Array(await sig.arrayBuffer()), {
      where: sig.name,
    });
    return line(
      true,
      `${sig.name}: signed by the key ${signed.keyType} ${signed.fingerprint}. `,
      el("span", { class: "sub" }, "This page keeps no trust list: check whose key that is."),
    );
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    return line(false, `${sig.name}: refused: ${error.message}`);
  }
}

/** The pack and its signature among the files chosen or dropped (a `.sig` is the signature). */
function chosen(files: FileList | null | undefined): { pack?: File; sig?: File } {
  const all = [...(files ?? [])];
  const pack = all.find((f) => !f.name.endsWith(".sig"));
  const sig = all.find((f) => f.name.endsWith(".sig"));
  return { ...(pack ? { pack } : {}), ...(sig ? { sig } : {}) };
}

function verdictText(report: Report): string {
  return `${report.ok ? "conformant" : "not conformant"} ${report.passed}/${report.total}`;
}

function refuse(file: File, why: string, details: string[], report: Report | null): void {
  clearView();
  setStatus(`Refused ${file.name}.`);
  view.append(
    el(
      "div",
      { class: "banner refused", id: "refusal", role: "alert" },
      el("h2", {}, "Refused: this file is not shown"),
      el("p", {}, el("span", { class: "data" }, file.name), ` was refused because ${why}`),
      el(
        "ul",
        {},
        ...details.slice(0, 20).map((detail) => el("li", {}, data(detail))),
      ),
      el("p", {}, "Nothing from it was opened, run or saved. Ask the sender for a new pack."),
    ),
  );
  if (report) view.append(reportCard(report));
}

// --------------------------------------------------------------------------------------------

const FACT_LABELS: Record<FactState, string> = {
  verified: "✓ verified",
  sealed: "⚠ re-verify on this machine",
  unverified: "○ unverified",
  "machine-verified": "✗ machine-scoped, yet marked verified",
};

function render(file: File, decoded: DecodedPack, summary: PackSummary, report: Report): void {
  const origin = record(summary.origin);
  const lineage = record(summary.lineage);
  const passport = summary.passport;
  const encodingName = decoded.encoding === "bag"
    ? ".taskpack (ZIP)"
    : decoded.encoding === "flat"
    ? ".taskpack.json"
    : "retired .tpx";

  view.append(
    el(
      "section",
      { class: "card", id: "overview" },
      el(
        "div",
        { class: "headline" },
        el(
          "div",
          {},
          el("h2", { class: "data" }, text(passport.title) || "(untitled task)"),
          el(
            "p",
            { class: "meta" },
            "passport ",
            data(passport.id),
            ` v${text(passport.version)} · `,
            data(summary.kind),
            ` · ${encodingName} · packed `,
            data(summary.packed_at),
            " by ",
            origin.actor ? data(origin.actor) : el("span", { class: "empty" }, "unknown sender"),
            " on ",
            origin.machine
              ? data(origin.machine)
              : el("span", { class: "empty" }, "unknown machine"),
          ),
        ),
        el(
          "span",
          { class: `verdict ${report.ok ? "ok" : "bad"}`, id: "verdict" },
          verdictText(report),
        ),
      ),
      summary.note
        ? el("p", {}, el("span", { class: "sub" }, "Sender's note: "), data(summary.note))
        : null,
    ),
    el(
      "div",
      { class: "banner info" },
      "Everything below comes from the sender's file. It is data, not instructions: nothing " +
        "in it runs, and no link in it is followed.",
    ),
  );
  const found = summary.instructions_found;
  if (found.length > 0) {
    view.append(
      el(
        "div",
        { class: "banner warn", id: "instructions-found" },
        el("h2", {}, `Instruction-like text: ${found.length}`),
        el(
          "p",
          {},
          "These passages read like orders to whoever opens the pack. They are the sender's " +
            "data: do not follow them; ask the sender if they matter.",
        ),
        el(
          "ul",
          { id: "instructions" },
          ...capped(found, (item) =>
            el(
              "li",
              { "data-where": item.where, "data-kind": item.kind },
              el("span", { class: "badge suggestion" }, item.kind),
              el("span", { class: "mono" }, item.where),
              ": ",
              data(item.excerpt),
            )),
        ),
      ),
    );
  }
  if (!report.ok) {
    view.append(
      el(
        "div",
        { class: "banner warn", id: "not-conformant" },
        el("h2", {}, "Not conformant as written"),
        el(
          "ul",
          { id: "failed-checks" },
          ...report.checks.filter((check) => !check.ok).map((check) =>
            el(
              "li",
              { "data-check": check.id },
              el("b", {}, check.id),
              ` ${check.requirement}: `,
              el("span", { class: "data" }, check.detail),
            )
          ),
        ),
        el(
          "p",
          {},
          "Landing it would repair what can be repaired and refuse the rest; the conformance " +
            "report at the end has every check.",
        ),
      ),
    );
  }

  if (report.warnings.length) {
    view.append(
      el(
        "div",
        { class: "banner warn", id: "portability" },
        el("h2", {}, "Names some systems or readers cannot hold"),
        el(
          "p",
          {},
          "Conformance is not affected. Landing on such a system refuses these files unless " +
            "asked to rename them (taskpack land --rename-unportable); a .git folder is refused " +
            "everywhere, and a field name is only a caution.",
        ),
        el(
          "ul",
          {},
          ...report.warnings.map((w) =>
            el(
              "li",
              {},
              data(w.field ? w.name : `data/files/${w.name}`),
              ` (${w.systems}): `,
              data(w.reason),
            )
          ),
        ),
      ),
    );
  }

  view.append(
    card(
      "task",
      "The task",
      null,
      el(
        "dl",
        { class: "fields" },
        el("dt", {}, "Goal"),
        el("dd", { id: "goal" }, data(passport.goal, "div")),
        el("dt", {}, "Current state"),
        el("dd", { id: "current-state" }, data(passport.current_state, "div")),
      ),
    ),
  );

  // Landing checks come first after the task (TaskPack 0.1 §4.4): check before continuing.
  view.append(
    card(
      "checks-card",
      "Landing checks",
      String(summary.landing_checks.length),
      el(
        "p",
        { class: "sub" },
        "The sender suggests checking these on your machine before continuing. They are " +
          "suggestions: nothing here runs, and nothing should run without your say-so.",
      ),
      list(
        "checks",
        capped(summary.landing_checks, (check) =>
          el(
            "li",
            { class: "check" },
            el("span", { class: "badge suggestion" }, "sender's suggestion"),
            check.required === false ? null : el("span", { class: "badge required" }, "required"),
            data(check.check),
            check.how
              ? el(
                "div",
                { class: "how" },
                el("b", {}, "How the sender would check (not run): "),
                data(check.how, "code"),
              )
              : null,
          )),
        "No landing checks.",
      ),
    ),
  );

  const facts = summary.facts;
  const sealed = facts.filter((f) => f.state === "sealed").length;
  view.append(
    card(
      "facts-card",
      "Facts",
      `${facts.length} · ${sealed} to re-verify on this machine`,
      list(
        "facts",
        capped(facts, (fact) =>
          el(
            "li",
            { class: `fact ${fact.state}`, "data-state": fact.state },
            el("span", { class: "badge" }, FACT_LABELS[fact.state]),
            data(fact.claim),
            el(
              "div",
              { class: "sub" },
              `scope: ${fact.scope === undefined ? "none (counts as machine)" : text(fact.scope)}`,
              fact.verified_by ? ` · proven by ${text(fact.verified_by)}` : "",
              fact.verified_on ? ` · proven on ${text(fact.verified_on)}` : "",
              fact.source ? ` · source: ${text(fact.source)}` : "",
            ),
          )),
        "No facts.",
      ),
    ),
  );

  view.append(
    card(
      "decisions-card",
      "Decisions",
      String(summary.decisions.length),
      list(
        "decisions",
        capped(summary.decisions, (decision) =>
          el(
            "li",
            {},
            data(decision.what),
            decision.why ? el("div", { class: "sub" }, "why: ", data(decision.why)) : null,
          )),
        "No decisions.",
      ),
    ),
  );

  view.append(
    card(
      "next-card",
      "The sender's next steps",
      String(summary.next_steps.length),
      summary.next_steps.length === 0 ? el("p", { class: "empty" }, "None.") : el(
        "ol",
        { class: "plain", id: "next-steps" },
        ...capped(summary.next_steps, (step) => el("li", {}, data(step))),
      ),
    ),
  );

  view.append(
    card(
      "asks-card",
      "Asks",
      String(summary.asks.length),
      list(
        "asks",
        capped(summary.asks, (ask) =>
          el(
            "li",
            { class: "ask" },
            el("span", { class: "badge required" }, text(ask.status ?? "open")),
            data(ask.what),
            el(
              "div",
              { class: "sub" },
              `${text(ask.id)} · to ${text(ask.to ?? "peer")} · ${text(ask.status ?? "open")}`,
              ask.why ? ` · why: ${text(ask.why)}` : "",
            ),
            el(
              "div",
              { class: "accept" },
              el("b", {}, "Answered when: "),
              ask.accept === undefined ? el("span", { class: "empty" }, "(no accept rule)") : data(
                ask.accept,
              ),
            ),
            ask.answer !== undefined && ask.answer !== null
              ? el(
                "div",
                { class: "sub" },
                "answer: ",
                data(ask.answer),
                ask.answered_by ? ` — by ${text(ask.answered_by)}` : "",
                ask.answered_at ? `, ${text(ask.answered_at)}` : "",
              )
              : null,
          )),
        "No asks.",
      ),
    ),
  );

  const chain = Array.isArray(lineage.chain) ? lineage.chain : [];
  view.append(
    card(
      "lineage-card",
      "Lineage",
      `${chain.length} hop${chain.length === 1 ? "" : "s"}`,
      el(
        "div",
        { class: "chain", id: "lineage" },
        ...capped(chain, (hop, i) =>
          el(
            "span",
            {},
            i === 0 ? null : el("span", { class: "arrow" }, "→ "),
            el("span", { class: "hop data" }, text(hop)),
          )),
      ),
      el(
        "p",
        { class: "sub" },
        "root ",
        data(lineage.root_id),
        ` · sent from version ${text(lineage.from_version)} · the last hop is the sender`,
      ),
    ),
  );

  const luggage = decoded.luggage;
  const rows = summary.luggage;
  const refused = rows.filter((row) => row.ok !== true);
  view.append(
    card(
      "luggage-card",
      "Luggage",
      `${luggage.length} file${luggage.length === 1 ? "" : "s"}` +
        (refused.length ? ` · ${refused.length} refused` : ""),
      luggage.length === 0 ? el("p", { class: "empty" }, "No files attached.") : el(
        "table",
        { id: "luggage" },
        el(
          "thead",
          {},
          el(
            "tr",
            {},
            el("th", {}, "file"),
            el("th", {}, "size"),
            el("th", {}, "sha256"),
            el("th"),
          ),
        ),
        el(
          "tbody",
          {},
          ...capped(luggage, (file, index) => {
            const row = rows[index];
            const name = el("td", { class: "mono data name" }, `data/files/${file.name}`);
            const size = el("td", { class: "size" }, formatBytes(file.size));
            const digest = el(
              "td",
              { class: "mono digest", title: text(file.declaredSha256) },
              text(file.declaredSha256).slice(0, 12) + "…",
            );
            if (row?.ok !== true) {
              // Landing refuses this file: say why, and offer nothing to save.
              return el(
                "tr",
                { class: "luggage-file refused", "data-name": file.name },
                name,
                size,
                digest,
                el(
                  "td",
                  { class: "refusal" },
                  el("b", {}, `Refused (${row?.reason ?? "unchecked"}): `),
                  data(row?.detail ?? "not checked"),
                  el(
                    "div",
                    { class: "mono sub" },
                    `should be sha256:${file.declaredSha256 ?? "(none declared)"}`,
                  ),
                  el(
                    "div",
                    { class: "mono sub" },
                    `is sha256:${row?.actual_sha256 ?? "(unreadable)"}`,
                  ),
                ),
              );
            }
            const button = el("button", { type: "button" }, "Download");
            const cell = el("td", {}, button);
            button.addEventListener("click", async () => {
              button.disabled = true;
              try {
                const bytes = await new Response(file.open()).arrayBuffer();
                const name = file.name.split("/").pop() || "file";
                const link = download(
                  new Blob([bytes], { type: "application/octet-stream" }),
                  name,
                );
                cell.replaceChildren(link);
                link.click();
              } catch (error) {
                cell.replaceChildren(el("span", { class: "data" }, `refused: ${reason(error)}`));
              }
            });
            return el(
              "tr",
              { class: "luggage-file", "data-name": file.name },
              name,
              size,
              digest,
              cell,
            );
          }),
        ),
      ),
    ),
  );

  view.append(reportCard(report));
  view.append(convertCard(file, decoded.encoding, report, refused.map((row) => row.name)));
}

function reportCard(report: Report): HTMLElement {
  return card(
    "report-card",
    "Conformance report",
    `${report.passed}/${report.total} checks, TaskPack 0.1 §6`,
    el(
      "table",
      { id: "report" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th"),
          el("th", {}, "check"),
          el("th", {}, "requirement"),
          el("th", {}, "detail"),
        ),
      ),
      el(
        "tbody",
        {},
        ...report.checks.map((check) =>
          el(
            "tr",
            {
              class: check.ok
                ? "check-ok"
                : check.detail.startsWith("not evaluated")
                ? "check-bad check-skip"
                : "check-bad",
              "data-check": check.id,
            },
            el(
              "td",
              { class: "mark" },
              check.ok ? "✓" : check.detail.startsWith("not evaluated") ? "–" : "✗",
            ),
            el("td", {}, check.id),
            el("td", {}, check.requirement),
            el("td", { class: "detail data" }, check.ok ? "" : check.detail),
          )
        ),
      ),
    ),
    report.digest
      ? el(
        "p",
        { class: "sub" },
        "pack digest: ",
        el("span", { class: "mono" }, `sha256:${report.digest}`),
      )
      : null,
  );
}

function convertCard(
  file: File,
  encoding: string,
  report: Report,
  refused: readonly string[],
): HTMLElement {
  const toFlat = encoding !== "flat";
  const target = toFlat ? ".taskpack.json" : ".taskpack";
  const base = file.name.replace(/(\.taskpack\.json|\.taskpack|\.tpx\.json|\.json)$/i, "") ||
    "pack";
  const outName = base + target;
  const button = el(
    "button",
    { type: "button", class: "primary", id: "convert" },
    `Convert to ${target}`,
  );
  const result = el("div", { id: "convert-result" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    result.replaceChildren(el("span", { class: "sub" }, "Converting in this browser…"));
    try {
      const landed = await land(blobSource(file));
      const pack = await preparePack(landed.object, landed.luggage);
      const blob = toFlat
        ? new Blob([await encodeFlat(pack)], { type: "application/vnd.taskpack+json" })
        : new Blob([await new Response(encodeBag(pack)).arrayBuffer()], {
          type: "application/vnd.taskpack+zip",
        });
      const link = download(blob, outName);
      const repairs = [...landed.repairs, ...pack.repairs];
      result.replaceChildren(
        ...[
          el(
            "p",
            {},
            `Converted to ${outName} (${formatBytes(blob.size)}). `,
            pack.digest === report.digest
              ? "Same pack digest: the content is unchanged."
              : `New pack digest sha256:${pack.digest}.`,
          ),
          repairs.length
            ? el(
              "ul",
              { class: "sub" },
              ...repairs.map((r) =>
                el("li", {}, data(`repaired (${r.check}) ${r.where}: ${r.detail}`))
              ),
            )
            : null,
          link,
        ].filter((node) => node !== null),
      );
      link.click();
    } catch (error) {
      result.replaceChildren(
        el("p", { class: "banner refused" }, "Cannot convert: ", data(reason(error))),
      );
    } finally {
      button.disabled = false;
    }
  });
  if (refused.length > 0) {
    // Converting lands the pack first, and landing refuses it: say so before anyone tries.
    button.disabled = true;
    result.replaceChildren(
      el(
        "p",
        { class: "sub" },
        "Cannot convert: landing refuses ",
        data(refused.slice(0, 5).join(", ")),
        refused.length > 5 ? ` and ${refused.length - 5} more` : "",
        " (see the luggage above).",
      ),
    );
  }
  return card(
    "convert-card",
    "Convert",
    null,
    el(
      "p",
      { class: "sub" },
      `This file is ${encoding === "flat" ? "a .taskpack.json" : "a .taskpack (ZIP)"}. ` +
        `Converting makes the ${target} form of the same pack, here in the browser.`,
    ),
    button,
    result,
  );
}

// --------------------------------------------------------------------------------------------

input.addEventListener("change", () => {
  const { pack, sig } = chosen(input.files);
  if (pack) void openFile(pack, sig);
});
drop.addEventListener("dragover", (event) => {
  event.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (event) => {
  event.preventDefault();
  drop.classList.remove("over");
  const { pack, sig } = chosen(event.dataTransfer?.files);
  if (pack) void openFile(pack, sig);
});
// A file dropped anywhere else must not make the browser open it.
globalThis.addEventListener("dragover", (event) => event.preventDefault());
globalThis.addEventListener("drop", (event) => event.preventDefault());
