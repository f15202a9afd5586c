export * from "./http/index.js";
export * from "./memory.js";
export * from "./ndjson.js";
export * from "./socket/index.js";
export * from "./stdio/index.js";
export * from "./stream.js";
export * from "./transport.js";
