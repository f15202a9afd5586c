export * from "./ndjson.js";
export * from "./stream.js";
export * from "./transport.js";
