/**
 * Loads @cfworker/json-schema for the cfworker engine on Node: on the first compile, through
 * require() (its CommonJS build), so a server that never picks this engine never loads it. The
 * web build swaps this file for cfworker-module.web.ts, a plain import.
 */
import { createRequire } from "node:module";

export type CfworkerModule = typeof import("@cfworker/json-schema");

export function loadCfworker(): CfworkerModule {
  return createRequire(import.meta.url)("@cfworker/json-schema") as CfworkerModule;
}
