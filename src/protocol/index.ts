export * from "./caching.js";
export * from "./canonical-json.js";
export * from "./mcp-types.js";
export * from "./meta.js";
export * from "./session.js";
export * from "./subscription-filter.js";
export * from "./versions.js";
