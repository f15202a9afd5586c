/**
 * The everything example as a Cloudflare Worker: mcpwire/server and the web handler of
 * mcpwire/transports/http, modern era (2026-07-28), stateless. See README.md beside this file.
 *
 * Built from the package under the `workerd` export condition, it validates tool arguments
 * with @cfworker/json-schema (ajv's code generation is refused in Workers) and uses no Node
 * module. test/worker/worker.test.ts bundles it from the packed package and runs it in workerd.
 */
import { McpServer } from "mcpwire/server";
import { createHttpHandler, type HttpHandler } from "mcpwire/transports/http";
import { registerPrompts, registerResources } from "../everything-server/catalog.js";
import { registerDiagnosticTools } from "../everything-server/diagnostics.js";
import { registerBasicTools, registerInputTools } from "../everything-server/tools.js";

/** What the Worker reads from its environment (wrangler secrets and vars). */
export interface WorkerEnv {
  /**
   * Seals multi round-trip `requestState` (HMAC): every isolate must share it, or a state one
   * isolate issued is refused by the next. At least 16 bytes.
   */
  MRTR_SECRET?: string;
  /** Host names the endpoint answers to (comma-separated), beside localhost. */
  ALLOWED_HOSTS?: string;
}

function createWorkerServer(env: WorkerEnv): HttpHandler {
  const server = new McpServer({
    serverInfo: { name: "mcpwire-everything-worker", version: "1.0.0" },
    instructions: "The mcpwire everything example, served by a Cloudflare Worker.",
    // Stateless: no request relies on an earlier one reaching the same isolate.
    eras: "modern",
    ...(env.MRTR_SECRET ? { mrtr: { secret: env.MRTR_SECRET } } : {}),
  });
  registerBasicTools(server);
  registerInputTools(server);
  registerDiagnosticTools(server);
  registerResources(server);
  registerPrompts(server);
  const hosts = env.ALLOWED_HOSTS?.split(",").map((host) => host.trim()) ?? [];
  return createHttpHandler(server, {
    legacy: false,
    ...(hosts.length > 0 ? { allowedHosts: ["localhost", "127.0.0.1", "[::1]", ...hosts] } : {}),
  });
}

// Made on the first request: Workers refuse timers and random numbers at start-up (global
// scope), and the environment is known only then. One per isolate after that.
let handler: HttpHandler | undefined;

export default {
  fetch(request: Request, env: WorkerEnv): Promise<Response> {
    handler ??= createWorkerServer(env);
    return handler.handle(request);
  },
};
