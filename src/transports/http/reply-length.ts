/**
 * The Content-Length header of a JSON reply, where one is worth setting. On Node it is: with it
 * node:http sends a reply in one write without chunked framing, whichever path wrote it. The web
 * build has its own file (reply-length.web.ts).
 */
import { utf8Length } from "../../platform/utf8-length.js";

export function replyLength(text: string): readonly [string, string] | undefined {
  return ["content-length", String(utf8Length(text))];
}
