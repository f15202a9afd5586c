export * from "./classify.js";
export * from "./errors.js";
export * from "./types.js";
