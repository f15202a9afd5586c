/**
 * MCP protocol types and versions, `_meta` keys, and the Session that runs JSON-RPC over a transport.
 *
 * @module mcpwire/protocol
 */
export * from "./caching.js";
export * from "./canonical-json.js";
export * from "./mcp-types.js";
export * from "./meta.js";
export type { Progress } from "./outgoing.js";
export * from "./session.js";
export * from "./subscription-filter.js";
export * from "./versions.js";
