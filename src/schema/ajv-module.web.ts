/**
 * The web build's ajv loader (workerd, worker and browser export conditions): ajv compiles each
 * schema into JavaScript with `new Function`, which Workers and pages under a strict CSP
 * refuse, so there the ajv engine says so at its first compile instead of failing mid-request.
 */
import type { loadAjv as nodeLoadAjv } from "./ajv-module.js";
import { SchemaError } from "./validator.js";

export const loadAjv: typeof nodeLoadAjv = () => {
  throw new SchemaError(
    "ajvValidator needs code generation (new Function), which this runtime's build of mcpwire " +
      "does not use: pass cfworkerValidator() (the default here) instead",
  );
};
