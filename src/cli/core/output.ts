/**
 * How results reach the user: readable text by default, the result's JSON with `--json`.
 * JSON is the wire result unchanged (pretty-printed), so scripts see exactly what the server
 * sent; readable output renders content blocks and leaves out protocol bookkeeping.
 */
import type { JsonObject } from "../../jsonrpc/types.js";
import { printableLine } from "../../text/printable.js";
import { jsonText, writeJson, writeOut } from "./terminal.js";

type Block = Record<string, unknown>;

export function printJson(value: unknown): void {
  writeJson(value);
}

/** Readable output; the server's text in it is made printable (see terminal.ts). */
export function printText(text: string): void {
  writeOut(text);
}

/** A single-line field of the peer's (a name, a URI, a MIME type). */
const field = (value: unknown): string => printableLine(String(value));

/** One content block (tool results, prompt messages) as text. */
function renderBlock(block: Block): string {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "image":
    case "audio":
      return `[${block.type} ${field(block.mimeType ?? "?")}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[link ${field(block.uri)}${block.name ? ` ${field(block.name)}` : ""}]`;
    case "resource": {
      const resource = (block.resource ?? {}) as Block;
      return renderContents(resource);
    }
    default:
      return jsonText(block);
  }
}

function renderContents(contents: Block): string {
  const head = `[resource ${field(contents.uri ?? "?")}${contents.mimeType ? ` ${field(contents.mimeType)}` : ""}]`;
  if (typeof contents.text === "string") return `${head}\n${contents.text}`;
  if (typeof contents.blob === "string")
    return `${head} ${base64Bytes(contents.blob)} bytes of binary`;
  return head;
}

function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  return Buffer.byteLength(data, "base64");
}

export function renderCallResult(result: JsonObject): string {
  const blocks = Array.isArray(result.content) ? (result.content as Block[]) : [];
  const parts = blocks.map(renderBlock);
  if (result.structuredContent !== undefined && blocks.length === 0) {
    parts.push(jsonText(result.structuredContent, 2));
  }
  if (result.isError === true) parts.unshift("tool error:");
  return parts.join("\n");
}

export function renderReadResult(result: JsonObject): string {
  const contents = Array.isArray(result.contents) ? (result.contents as Block[]) : [];
  // One text resource prints as just its text, so it can be piped into other tools.
  if (contents.length === 1 && typeof contents[0]!.text === "string") return contents[0]!.text;
  return contents.map(renderContents).join("\n");
}

export function renderPromptResult(result: JsonObject): string {
  const lines: string[] = [];
  if (typeof result.description === "string") lines.push(`# ${field(result.description)}`);
  const messages = Array.isArray(result.messages) ? (result.messages as Block[]) : [];
  for (const message of messages) {
    lines.push(`${field(message.role)}: ${renderBlock((message.content ?? {}) as Block)}`);
  }
  return lines.join("\n");
}
