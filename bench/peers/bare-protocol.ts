/**
 * The "limit" row: what a program with no library does for the same echo work. Plain objects,
 * JSON.parse/JSON.stringify, one answer per request. Shared by the bare stdio and HTTP servers
 * and the bare Worker; no Node module.
 */
export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";
export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

/** Parsed JSON as the bare peers use it: unchecked, like a program with no library. */
// biome-ignore lint/suspicious/noExplicitAny: the limit row deliberately does no validation
export type Untyped = any;

const ECHO_TOOL = {
  name: "echo",
  description: "Returns its text argument.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};
const SERVER_INFO = { name: "bare-bench-echo", version: "1.0.0" };

type Message = { jsonrpc: "2.0"; id?: string | number; method?: string; params?: Untyped };

/** The reply to one parsed message, or undefined for notifications. */
export function answer(message: Message): object | undefined {
  if (message.id === undefined || typeof message.method !== "string") return undefined;
  const modern = message.params?._meta?.[PROTOCOL_VERSION_KEY] !== undefined;
  const result = resultFor(message.method, message.params ?? {});
  if (result === undefined) {
    return {
      jsonrpc: "2.0",
      id: message.id,
      error: { code: -32601, message: `Method not found: ${message.method}` },
    };
  }
  if (modern) (result as { resultType?: string }).resultType = "complete";
  return { jsonrpc: "2.0", id: message.id, result };
}

function resultFor(method: string, params: Untyped): object | undefined {
  switch (method) {
    case "tools/call": {
      const text = params.arguments?.text;
      if (params.name !== "echo" || typeof text !== "string") {
        return { isError: true, content: [{ type: "text", text: "bad echo call" }] };
      }
      return { content: [{ type: "text", text }] };
    }
    case "tools/list":
      return { tools: [ECHO_TOOL] };
    case "initialize":
      return { protocolVersion: LEGACY, capabilities: { tools: {} }, serverInfo: SERVER_INFO };
    case "server/discover":
      return { supportedVersions: [MODERN], capabilities: { tools: {} }, serverInfo: SERVER_INFO };
    case "ping":
      return {};
    default:
      return undefined;
  }
}

/** The modern JSON echo as a plain fetch handler (Bun.serve, Deno.serve, a Worker's fetch). */
export async function answerRequest(request: Request): Promise<Response> {
  if (request.method !== "POST") return new Response(null, { status: 405 });
  const reply = answer((await request.json()) as Untyped);
  if (!reply) return new Response(null, { status: 202 });
  return new Response(JSON.stringify(reply), { headers: { "content-type": "application/json" } });
}
