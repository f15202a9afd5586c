/**
 * An audit trail: one JSON line per request a server answers (time, caller, method, name,
 * duration, outcome), never arguments or results unless asked. JSON encoding escapes control
 * characters, so a name chosen by a peer cannot forge or break a line.
 */
import { JsonRpcError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { Middleware, MiddlewareContext } from "../../protocol/middleware.js";

/** One line of the trail, before it is written as JSON. */
export interface AuditRecord {
  /** When the request arrived (ISO 8601, UTC). */
  time: string;
  /** Who asked: `principalName(ctx)`, by default the token's subject or client id. */
  principal?: string;
  method: string;
  /** The tool or prompt name, or the resource URI, when the method has one. */
  name?: string;
  durationMs: number;
  /**
   * "ok"; "error" (a JSON-RPC error, with `code`); "tool_error" (a tool result with `isError`);
   * "input_required" (a multi round-trip round); "task" (the call became a task).
   */
  outcome: "ok" | "error" | "tool_error" | "input_required" | "task";
  /** The JSON-RPC error code, for outcome "error". */
  code?: number;
  era?: string;
  transport?: string;
  sessionId?: string;
  /** The request's arguments, only with `arguments: true`. */
  arguments?: unknown;
  /** The result, only with `results: true`. */
  result?: unknown;
}

export interface AuditOptions {
  /** Receives each line (JSON, no newline). A writer that fails must not fail the request. */
  write: (line: string) => void;
  /** Record the request's arguments (tool arguments, prompt arguments). Default false. */
  arguments?: boolean;
  /** Record results. Default false. */
  results?: boolean;
  /** Which methods to record (default every request; notifications never). */
  methods?: readonly string[];
  /** The caller's name for the `principal` field. Default: the principal's subject, else client id. */
  principalName?: (ctx: MiddlewareContext) => string | undefined;
  /** Fixed fields added to every record (a gateway's `server`, say); they never replace ours. */
  labels?: Readonly<Record<string, string>>;
  /** Told when `write` throws (the request goes on regardless). */
  onWriteError?: (error: unknown) => void;
}

function defaultPrincipal(ctx: MiddlewareContext): string | undefined {
  const principal = ctx.principal;
  if (typeof principal === "string") return principal;
  if (typeof principal !== "object" || principal === null) return undefined;
  const { subject, clientId } = principal as { subject?: unknown; clientId?: unknown };
  if (typeof subject === "string") return subject;
  return typeof clientId === "string" ? clientId : undefined;
}

function subjectOf(params: JsonObject): string | undefined {
  if (typeof params.name === "string") return params.name;
  if (typeof params.uri === "string") return params.uri;
  return undefined;
}

function outcomeOf(result: JsonObject): AuditRecord["outcome"] {
  if (result.resultType === "input_required") return "input_required";
  if (typeof result.task === "object" && result.task !== null) return "task";
  return result.isError === true ? "tool_error" : "ok";
}

/** The middleware: `server.use(audit({ write: (line) => log.write(line + "\n") }))`. */
export function audit(options: AuditOptions): Middleware {
  const methods = options.methods === undefined ? undefined : new Set(options.methods);
  const principalName = options.principalName ?? defaultPrincipal;
  const labels = options.labels;
  const emit = (record: AuditRecord): void => {
    try {
      options.write(
        JSON.stringify(
          labels === undefined ? record : Object.assign({ time: record.time }, labels, record),
        ),
      );
    } catch (error) {
      options.onWriteError?.(error);
    }
  };
  return async (ctx, next) => {
    if (ctx.notification || (methods !== undefined && !methods.has(ctx.method))) return next();
    const started = Date.now();
    const clock = performance.now();
    const record: AuditRecord = {
      time: new Date(started).toISOString(),
      principal: principalName(ctx),
      method: ctx.method,
      name: subjectOf(ctx.params),
      durationMs: 0,
      outcome: "ok",
      era: ctx.era,
      transport: ctx.transport,
      sessionId: ctx.sessionId,
    };
    if (options.arguments === true && ctx.params.arguments !== undefined) {
      record.arguments = ctx.params.arguments;
    }
    try {
      const result = await next();
      record.outcome = outcomeOf(result);
      if (options.results === true) record.result = result;
      return result;
    } catch (error) {
      record.outcome = "error";
      record.code = error instanceof JsonRpcError ? error.code : -32603;
      throw error;
    } finally {
      record.durationMs = Math.round((performance.now() - clock) * 1000) / 1000;
      emit(record);
    }
  };
}
