/**
 * A size limit on tool results, as the client receives them (UTF-8 bytes of the JSON). Over it,
 * the result is refused (a tool error naming both sizes, so a model learns why) or truncated:
 * content kept in order while it fits, a text cut at a character boundary, and a note saying so.
 * Structured content cannot be cut without breaking its schema, so such a result is refused.
 * Input-required rounds and task handles pass untouched.
 */
import type { JsonObject } from "../../jsonrpc/types.js";
import { utf8Length } from "../../platform/utf8-length.js";
import type { Middleware } from "../../protocol/middleware.js";

export interface ResponseSizeOptions {
  /** The most a tools/call result may take, in UTF-8 bytes of its JSON. */
  maxBytes: number;
  /** "refuse" (default) or "truncate". */
  mode?: "refuse" | "truncate";
}

/** Room kept for the truncation note. */
const NOTE_ROOM = 160;

function sizeOf(value: unknown): number {
  return utf8Length(JSON.stringify(value));
}

function refusal(size: number, maxBytes: number): JsonObject {
  const text = `The tool's result was too large to return: ${size} bytes, over this server's limit of ${maxBytes}.`;
  return { content: [{ type: "text", text }], isError: true };
}

/** The longest prefix of `item.text` (whole code points) whose item fits in `room` bytes. */
function cutText(item: JsonObject, room: number): JsonObject | undefined {
  const text = item.text as string;
  const points = Array.from(text);
  let low = 0;
  let high = points.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (sizeOf({ ...item, text: points.slice(0, middle).join("") }) <= room) low = middle;
    else high = middle - 1;
  }
  if (low === 0) return undefined;
  return { ...item, text: points.slice(0, low).join("") };
}

function truncate(result: JsonObject, size: number, maxBytes: number): JsonObject {
  const content = result.content as unknown[];
  const kept: unknown[] = [];
  let used = sizeOf({ ...result, content: [] }) + NOTE_ROOM;
  let dropped = 0;
  for (const item of content) {
    const itemSize = sizeOf(item) + 1; // and its comma
    if (dropped === 0 && used + itemSize <= maxBytes) {
      kept.push(item);
      used += itemSize;
      continue;
    }
    const isText =
      typeof item === "object" && item !== null && (item as JsonObject).type === "text";
    const cut =
      dropped === 0 && isText && typeof (item as JsonObject).text === "string"
        ? cutText(item as JsonObject, maxBytes - used - 1)
        : undefined;
    if (cut !== undefined) {
      kept.push(cut);
      used += sizeOf(cut) + 1;
    }
    dropped++;
  }
  const note = `[truncated: the full result was ${size} bytes, over this server's limit of ${maxBytes}]`;
  kept.push({ type: "text", text: note });
  return { ...result, content: kept };
}

/** The middleware: `server.use("tools/call", responseSize({ maxBytes: 100_000 }))`. */
export function responseSize(options: ResponseSizeOptions): Middleware {
  const { maxBytes } = options;
  const mode = options.mode ?? "refuse";
  if (!Number.isSafeInteger(maxBytes) || maxBytes < NOTE_ROOM * 2) {
    throw new TypeError(`responseSize: maxBytes must be an integer of at least ${NOTE_ROOM * 2}`);
  }
  if (mode !== "refuse" && mode !== "truncate") {
    throw new TypeError('responseSize: mode must be "refuse" or "truncate"');
  }
  return async (ctx, next) => {
    const result = await next();
    if (ctx.method !== "tools/call" || ctx.notification) return result;
    if (result.resultType !== undefined && result.resultType !== "complete") return result;
    if (!Array.isArray(result.content)) return result; // a task handle, not a tool result
    const size = sizeOf(result);
    if (size <= maxBytes) return result;
    if (mode === "refuse" || result.structuredContent !== undefined) return refusal(size, maxBytes);
    return truncate(result, size, maxBytes);
  };
}
