// Copyright 2026 the taskpack authors. MIT license.
// This module is browser compatible.
/**
 * The flat encoding, `.taskpack.json` (TaskPack 0.1 §2.2): one JSON object that any AI or
 * editor can open with no tooling. Its text is a pure function of the pack object and the
 * luggage bytes, which is what lets it convert to the bag and back byte for byte (C9).
 *
 * @module
 */
import { canonicalJson, decodeUtf8Strict, encodeBase64 } from "../bytes/mod.ts";
import { FLAT_VERSION, type FlatAttachment, NOTE_TO_READER } from "./model.ts";

/**
 * How an attachment is inlined: `utf8` when the bytes are valid UTF-8 with no NUL and no C0
 * control other than TAB, LF, VT, FF and CR (so they survive a JSON round trip as readable
 * text), otherwise `base64`.
 *
 * @param bytes The attachment's bytes.
 * @returns The encoding to use.
 *
 * @example Usage
 * ```ts
 * import { attachmentEncoding } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * assertEquals(attachmentEncoding(new TextEncoder().encode("中文 ✓\n")), "utf8");
 * assertEquals(attachmentEncoding(new Uint8Array([0x89, 0x50, 0x4e, 0x47])), "base64");
 * ```
 */
export function attachmentEncoding(bytes: Uint8Array): "utf8" | "base64" {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte < 0x20 && (byte < 0x09 || byte > 0x0d)) return "base64";
  }
  try {
    decodeUtf8Strict(bytes);
    return "utf8";
  } catch {
    return "base64";
  }
}

/**
 * Builds one flat attachment.
 *
 * @param name The path under `data/files/`.
 * @param bytes The bytes.
 * @param sha256 Their lower-case hex SHA-256.
 * @returns The attachment, keys in the canonical order.
 *
 * @example Usage
 * ```ts
 * import { flatAttachment } from "@taskpack/cli";
 * import { assertEquals } from "@std/assert";
 *
 * const a = flatAttachment("n.md", new TextEncoder().encode("nested note\n"), "d4e7");
 * assertEquals(a, { name: "n.md", encoding: "utf8", sha256: "d4e7", bytes: 12, data: "nested note\n" });
 * ```
 */
export function flatAttachment(name: string, bytes: Uint8Array, sha256: string): FlatAttachment {
  const encoding = attachmentEncoding(bytes);
  const data = encoding === "utf8" ? decodeUtf8Strict(bytes) : encodeBase64(bytes);
  return { name, encoding, sha256, bytes: bytes.length, data };
}

/**
 * The canonical text of a flat pack: 2-space JSON, keys `taskpack`, `encoding`,
 * `note_to_reader`, `passport`, `attachments`, one trailing line feed.
 *
 * @param pack The pack object, already sealed.
 * @param attachments The luggage, in manifest order.
 * @returns The `.taskpack.json` text.
 *
 * @example Usage
 * ```ts
 * import { flatText } from "@taskpack/cli";
 * import { assert, assertEquals } from "@std/assert";
 *
 * const text = flatText({ spec: "task-passport-bag/0.1" }, []);
 * assertEquals(Object.keys(JSON.parse(text)), [
 *   "taskpack",
 *   "encoding",
 *   "note_to_reader",
 *   "passport",
 *   "attachments",
 * ]);
 * assert(text.endsWith("}\n"));
 * ```
 */
export function flatText(pack: unknown, attachments: readonly FlatAttachment[]): string {
  return canonicalJson({
    taskpack: FLAT_VERSION,
    encoding: "flat",
    note_to_reader: NOTE_TO_READER,
    passport: pack,
    attachments,
  });
}

/**
 * Whether `text` is exactly {@linkcode flatText} of `pack` and the attachments, compared piece
 * by piece: each attachment is asked for in turn and dropped once compared, so neither the
 * whole list nor a second copy of the text is ever held. Stops at the first difference.
 *
 * @param text The text as written.
 * @param pack The pack object.
 * @param count How many attachments there are.
 * @param attachment Gives the attachment at an index (asked once each, in order).
 * @returns True when `text` is the canonical text.
 *
 * @example Usage
 * ```ts
 * import { flatAttachment, flatText, flatTextMatches } from "./flat.ts";
 * import { assertEquals } from "@std/assert";
 *
 * const a = flatAttachment("n.md", new TextEncoder().encode("note\n"), "d4e7");
 * const text = flatText({ spec: "task-passport-bag/0.1" }, [a]);
 * assertEquals(await flatTextMatches(text, { spec: "task-passport-bag/0.1" }, 1, () => a), true);
 * assertEquals(await flatTextMatches(text + " ", { spec: "task-passport-bag/0.1" }, 1, () => a), false);
 * ```
 */
export async function flatTextMatches(
  text: string,
  pack: unknown,
  count: number,
  attachment: (index: number) => FlatAttachment | Promise<FlatAttachment>,
): Promise<boolean> {
  // The text with no attachments ends `"attachments": []` then `\n}\n`; with some, the list
  // opens after the same prefix and holds each attachment indented by four spaces.
  const empty = flatText(pack, []);
  const closing = "[]\n}\n";
  let at = empty.length - closing.length;
  if (!text.startsWith(empty.slice(0, at))) return false;
  const expect = (piece: string): boolean => {
    if (!text.startsWith(piece, at)) return false;
    at += piece.length;
    return true;
  };
  if (count === 0) return expect(closing) && at === text.length;
  for (let i = 0; i < count; i++) {
    const item = JSON.stringify(await attachment(i), null, 2).replaceAll("\n", "\n    ");
    if (!expect(i === 0 ? "[\n    " : ",\n    ") || !expect(item)) return false;
  }
  return expect("\n  ]\n}\n") && at === text.length;
}
