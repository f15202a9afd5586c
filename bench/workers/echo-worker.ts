/**
 * mcpwire's echo server as a Worker: mcpwire/server and createHttpHandler of
 * mcpwire/transports/http, modern era, stateless, JSON replies (as examples/worker serves the
 * everything server). Bundled under the `workerd` condition and served by peers/workerd-server.ts.
 */
import { createHttpHandler, type HttpHandler } from "mcpwire/transports/http";
import { createEchoServer } from "../echo-tool.js";

// Made on the first request: Workers refuse timers and random numbers at start-up.
let handler: HttpHandler | undefined;

export default {
  fetch(request: Request): Promise<Response> {
    handler ??= createHttpHandler(createEchoServer({ eras: "modern" }), {
      legacy: false,
      responseMode: "json",
    });
    return handler.handle(request);
  },
};
