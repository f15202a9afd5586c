/**
 * Everything in one import: client, server, JSON-RPC, protocol types and every transport (mcpwire/auth stays separate).
 *
 * @module mcpwire
 */
export * from "./client/index.js";
export * from "./jsonrpc/index.js";
export * from "./protocol/index.js";
export * from "./server/index.js";
export * from "./transports/index.js";
