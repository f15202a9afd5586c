/**
 * What of a request's `_meta` the gateway passes on to its child. The 2026-07-28 `_meta` rules
 * (basic/index.mdx, General fields) reserve a few keys for the protocol itself; those belong to
 * the hop they travel on, so the gateway owns them: it sends its own protocol version, client
 * info, capabilities and log level in the child's era, maps progress tokens itself, and a
 * subscription id or server info names a stream or a server of the HTTP side. Every other key
 * is the client's business with the server and goes through untouched: W3C trace context
 * (`traceparent`, `tracestate`, `baggage`), the keys of extensions (`io.modelcontextprotocol/…`
 * ones such as MCP Apps' included) and vendor keys.
 */
import type { JsonObject } from "../../jsonrpc/types.js";
import { META } from "../../protocol/meta.js";

const OWNED: ReadonlySet<string> = new Set(Object.values(META));

/**
 * The keys of `meta` the gateway does not own, or undefined when there are none (the usual
 * modern request: only protocol keys), so that nothing is allocated then.
 */
export function relayedMeta(meta: unknown): JsonObject | undefined {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined;
  let relayed: JsonObject | undefined;
  for (const key in meta) {
    // "__proto__" is no valid key name (names begin with a letter or digit), and copying it
    // would set the copy's prototype instead.
    if (OWNED.has(key) || key === "__proto__") continue;
    relayed ??= {};
    relayed[key] = (meta as JsonObject)[key]!;
  }
  return relayed;
}
