/**
 * The web build sets no Content-Length on a JSON reply: a Response computes it from a string
 * body itself, and workerd spends about as much on a given one as on all of MCP's header checks
 * (~33k instructions a request, measured under callgrind).
 */
import type { replyLength as nodeReplyLength } from "./reply-length.js";

export const replyLength: typeof nodeReplyLength = () => undefined;
