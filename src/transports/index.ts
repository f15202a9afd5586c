export * from "./ndjson.js";
export * from "./stream.js";
export * from "./transport.js";
export * from "./memory.js";
export * from "./socket/index.js";
export * from "./stdio/index.js";
