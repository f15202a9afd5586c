/**
 * The web build's serveStdio (mcpwire/server re-exports it): workerd and browsers have no
 * process stdin/stdout, so it says so; serve over HTTP there (createHttpHandler).
 */
import type { serveStdio as nodeServeStdio } from "./serve.js";

export const serveStdio: typeof nodeServeStdio = async () => {
  throw new Error(
    "serveStdio needs a process with stdin and stdout (Node, Bun or Deno); in a Worker or a page serve over HTTP with createHttpHandler",
  );
};
