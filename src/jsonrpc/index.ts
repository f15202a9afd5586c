/**
 * JSON-RPC 2.0 messages: types, parsing and classification, and the error classes with their codes.
 *
 * @module mcpwire/jsonrpc
 */
export * from "./classify.js";
export * from "./errors.js";
export * from "./types.js";
