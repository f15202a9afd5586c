/**
 * A health check beside the MCP endpoint, for load balancers and orchestrators: GET (or HEAD)
 * on its path answers 200 with a small JSON body while the service is up, 503 while it is not.
 * It takes no authentication, so what `check` returns must hold nothing secret; the Host and
 * Origin checks apply as to the MCP endpoint.
 */
import type { JsonObject } from "../../jsonrpc/types.js";

export interface HealthOptions {
  /** Where it is served. Default "/healthz". */
  path?: string;
  /** Whether the service is up, and the few public facts to report with it. */
  check(): HealthReport | Promise<HealthReport>;
}

export interface HealthReport {
  ok: boolean;
  /** Sent as the JSON body (`status` is added: "ok" or "unavailable", unless given). */
  details?: JsonObject;
}

export const DEFAULT_HEALTH_PATH = "/healthz";

/** The answer to a GET or HEAD on the health path. */
export async function healthResponse(
  options: HealthOptions,
  method: string,
  base: Headers,
): Promise<Response> {
  const report = await options.check();
  const body = JSON.stringify({ status: report.ok ? "ok" : "unavailable", ...report.details });
  const headers = new Headers(base);
  headers.set("Content-Type", "application/json");
  // A probe wants the state now, never a cached one.
  headers.set("Cache-Control", "no-store");
  return new Response(method === "HEAD" ? null : body, {
    status: report.ok ? 200 : 503,
    headers,
  });
}
