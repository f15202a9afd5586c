/**
 * A task's background run as a trace of its own (issue 28): the tools/call that made the task
 * ends at once with a CreateTaskResult, while the tool keeps working, maybe for hours. Its work
 * then belongs under a span of its own, an INTERNAL root span `tools/call {tool}` that links to
 * the request that made the task, not under a SERVER span that has long ended.
 *
 *   new McpServer({ ..., tasks: { runTask: otelTaskRuns() } })
 */
import { context, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import type { JsonObject } from "../jsonrpc/types.js";
import type { TaskRunner } from "../server/tasks/manager.js";
import { ATTR, OPERATION } from "./conventions.js";
import { instruments } from "./instruments.js";
import { errorOutcome, type Outcome, resultOutcome } from "./outcome.js";

/** TasksOptions.runTask: each task's run in a root span linked to its creating request. */
export function otelTaskRuns(): TaskRunner {
  return async (run, task) => {
    const { tracer } = instruments();
    if (tracer === undefined) return run();
    const creating = trace.getSpanContext(context.active());
    const span = tracer.startSpan(
      task.tool === undefined ? "tools/call" : `tools/call ${task.tool}`,
      {
        kind: SpanKind.INTERNAL,
        root: true,
        links: creating === undefined ? [] : [{ context: creating }],
        attributes: {
          [ATTR.methodName]: "tools/call",
          [ATTR.operationName]: OPERATION.executeTool,
          [ATTR.taskId]: task.taskId,
          ...(task.tool === undefined ? {} : { [ATTR.toolName]: task.tool }),
        },
      },
      ROOT_CONTEXT,
    );
    const end = (outcome: Outcome) => {
      span.setAttributes(outcome.attributes);
      if (outcome.status !== undefined) span.setStatus(outcome.status);
      span.end();
    };
    let result: JsonObject;
    try {
      result = await context.with(trace.setSpan(ROOT_CONTEXT, span), run);
    } catch (error) {
      end(errorOutcome(error, "server"));
      throw error;
    }
    end(resultOutcome("tools/call", result));
    return result;
  };
}
