/** The web build's @cfworker/json-schema loader: a static import the runtime's bundler resolves. */
import * as cfworker from "@cfworker/json-schema";
import type { loadCfworker as nodeLoadCfworker } from "./cfworker-module.js";

export const loadCfworker: typeof nodeLoadCfworker = () => cfworker;
