import { createRequire } from "node:module";
import type * as HeaderAnnotations from "../transports/http/header-annotations.js";
import type * as CacheHints from "./cache-hints.js";
import type * as ClusterCheck from "./cluster-check.js";
import type * as TaskManager from "./tasks/manager.js";
import type * as TaskOwner from "./tasks/owner.js";
import type * as TaskCall from "./tasks/task-call.js";
import type * as TaskView from "./tasks/task-view.js";

/**
 * Features most servers never use, loaded when first needed rather than with mcp-server.js:
 * every module is ~0.5 ms of a cold start (spawn → first tools/list), and the tasks extension
 * alone is eight of them. Synchronous (require of an ES module, Node >= 20.19 / 22.12) because
 * their callers are: tool registration and the server's constructor. The module instance is
 * the one `import` gives, so classes and instanceof stay the same.
 */
const load = createRequire(import.meta.url);

export const taskManagerModule = (): typeof TaskManager => load("./tasks/manager.js");
export const taskViewModule = (): typeof TaskView => load("./tasks/task-view.js");
export const taskOwnerModule = (): typeof TaskOwner => load("./tasks/owner.js");
export const taskCallModule = (): typeof TaskCall => load("./tasks/task-call.js");
export const cacheHintsModule = (): typeof CacheHints => load("./cache-hints.js");
export const clusterCheckModule = (): typeof ClusterCheck => load("./cluster-check.js");
export const headerAnnotationsModule = (): typeof HeaderAnnotations =>
  load("../transports/http/header-annotations.js");
