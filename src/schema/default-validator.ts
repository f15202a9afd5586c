/**
 * The engine a server or client uses when given none: ajv on Node, Bun and Deno. The web build
 * (workerd, worker and browser export conditions) swaps this file for default-validator.web.ts.
 */
import { ajvValidator } from "./ajv.js";
import type { SchemaValidator } from "./validator.js";

export function defaultValidator(): SchemaValidator {
  return ajvValidator();
}
