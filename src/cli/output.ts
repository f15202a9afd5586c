/**
 * How results reach the user: readable text by default, the result's JSON with `--json`.
 * JSON is the wire result unchanged (pretty-printed), so scripts see exactly what the server
 * sent; readable output renders content blocks and leaves out protocol bookkeeping.
 */
import type { JsonObject } from "../jsonrpc/types.js";

type Block = Record<string, unknown>;

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printText(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** One content block (tool results, prompt messages) as text. */
export function renderBlock(block: Block): string {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "image":
    case "audio":
      return `[${block.type} ${String(block.mimeType ?? "?")}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[link ${String(block.uri)}${block.name ? ` ${String(block.name)}` : ""}]`;
    case "resource": {
      const resource = (block.resource ?? {}) as Block;
      return renderContents(resource);
    }
    default:
      return JSON.stringify(block);
  }
}

function renderContents(contents: Block): string {
  const head = `[resource ${String(contents.uri ?? "?")}${contents.mimeType ? ` ${String(contents.mimeType)}` : ""}]`;
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
    parts.push(JSON.stringify(result.structuredContent, null, 2));
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
  if (typeof result.description === "string") lines.push(`# ${result.description}`);
  const messages = Array.isArray(result.messages) ? (result.messages as Block[]) : [];
  for (const message of messages) {
    lines.push(`${String(message.role)}: ${renderBlock((message.content ?? {}) as Block)}`);
  }
  return lines.join("\n");
}
