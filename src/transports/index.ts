/**
 * Every transport: stdio, sockets, Streamable HTTP (client and server), in-memory pairs, ndjson framing.
 *
 * @module mcpwire/transports
 */

export * from "../protocol/transport.js";
export * from "./http/index.js";
export * from "./memory.js";
export * from "./ndjson.js";
export * from "./socket/index.js";
export * from "./stdio/index.js";
export * from "./stream.js";
