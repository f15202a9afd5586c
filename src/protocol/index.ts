export * from "./meta.js";
export * from "./session.js";
export * from "./versions.js";
