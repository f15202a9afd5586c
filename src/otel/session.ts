/**
 * `mcp.client.session.duration`: how long a client's connection lasted, from the call (made
 * once connected) to the connection's close, from either side. The middleware sees requests,
 * not connections, so this is a call of its own.
 */
import type { Attributes } from "@opentelemetry/api";
import type { McpClient } from "../client/mcp-client.js";
import { ATTR } from "./conventions.js";
import { instruments } from "./instruments.js";

/** Records the connected `client`'s session duration when its connection closes. */
export function recordClientSession(client: McpClient): void {
  const started = performance.now();
  // Read now: a closed client no longer knows its version.
  const attributes: Attributes = {};
  if (client.protocolVersion !== undefined) {
    attributes[ATTR.protocolVersion] = client.protocolVersion;
  }
  void client.closed.then(() => {
    instruments().clientSession?.record((performance.now() - started) / 1000, attributes);
  });
}
