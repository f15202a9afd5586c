/**
 * Loads ajv for the ajv engine, on Node (and Bun, Deno): ajv (one dialect class at a time) and
 * ajv-formats load on the first compile, not at import. Loading them was about half of a stdio
 * server's start-up in the cold-start profile, and a server answers initialize and tools/list
 * without them. Both are CommonJS, so require() loads them synchronously where compile() needs
 * them. The web build swaps this file for ajv-module.web.ts.
 */
import { createRequire } from "node:module";
import type { Ajv, Options } from "ajv";
import type { SchemaDialect } from "./validator.js";

const require = createRequire(import.meta.url);

export type AjvEngine = Ajv;

export interface AjvModule {
  /** A new ajv instance for the dialect, with ajv-formats added. */
  create(dialect: SchemaDialect, options: Options): AjvEngine;
  /** ajv's error for an unresolvable $ref, to tell it from the rest. */
  MissingRefError: typeof import("ajv").MissingRefError;
}

export function loadAjv(): AjvModule {
  return {
    create(dialect, options) {
      const engine = new (engineClass(dialect))(options);
      // ajv-formats is CommonJS with its plugin as the module's export.
      (require("ajv-formats") as typeof import("ajv-formats").default)(engine);
      return engine;
    },
    MissingRefError: (require("ajv") as typeof import("ajv")).MissingRefError,
  };
}

function engineClass(dialect: SchemaDialect): new (options: Options) => AjvEngine {
  if (dialect === "2020-12")
    return (require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020;
  if (dialect === "2019-09")
    return (require("ajv/dist/2019.js") as typeof import("ajv/dist/2019.js")).Ajv2019;
  return (require("ajv") as typeof import("ajv")).Ajv;
}
