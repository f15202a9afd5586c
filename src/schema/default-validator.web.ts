/** The web build's default engine: cfworker, which needs no code generation. */
import { cfworkerValidator } from "./cfworker.js";
import type { defaultValidator as nodeDefault } from "./default-validator.js";

export const defaultValidator: typeof nodeDefault = () => cfworkerValidator();
