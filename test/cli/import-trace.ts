/**
 * Preloaded with `node --import` (and MCPWIRE_IMPORT_TRACE=<file>): registers the hooks that
 * write every loaded module's URL to that file.
 */
import { register } from "node:module";

const traceFile = process.env.MCPWIRE_IMPORT_TRACE;
if (traceFile) register("./import-trace-hooks.js", import.meta.url, { data: { traceFile } });
