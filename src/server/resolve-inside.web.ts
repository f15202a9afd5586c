/** The web build's resolveInside: workerd and browsers have no file system to resolve into. */
import type { resolveInside as nodeResolveInside } from "./resolve-inside.js";

export const resolveInside: typeof nodeResolveInside = () => {
  throw new Error("resolveInside needs a file system (Node, Bun or Deno); use safePathSegments");
};
