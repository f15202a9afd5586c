/**
 * The tasks extension's fixtures (io.modelcontextprotocol/tasks), as the conformance suite's
 * tasks-* scenarios call them: greet, slow_compute, failing_job, protocol_error_job,
 * confirm_delete, multi_input and test_tool_with_task.
 */
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import type { McpServer } from "../../src/server/index.js";
import { sleep } from "./sleep.js";

const CONFIRM_FORM = (message: string): JsonObject => ({
  mode: "form",
  message,
  requestedSchema: {
    type: "object",
    properties: { confirm: { type: "boolean", description: "Go ahead?" } },
    required: ["confirm"],
  },
});

const NAME_FORM = (message: string): JsonObject => ({
  mode: "form",
  message,
  requestedSchema: {
    type: "object",
    properties: { name: { type: "string", description: "A name" } },
    required: ["name"],
  },
});

function accepted(answer: JsonObject | undefined): JsonObject | undefined {
  return answer?.action === "accept" ? (answer.content as JsonObject | undefined) : undefined;
}

export function registerTaskTools(server: McpServer): void {
  server.tool(
    {
      name: "greet",
      description: "Says hello at once (never a task)",
      inputSchema: { type: "object", properties: { name: { type: "string" } } },
    },
    (args) => `Hello, ${typeof args.name === "string" ? args.name : "World"}!`,
  );

  server.tool(
    {
      name: "slow_compute",
      description: "Sleeps `seconds`, then answers; a task unless seconds is 0",
      inputSchema: {
        type: "object",
        properties: { seconds: { type: "number", minimum: 0 }, label: { type: "string" } },
      },
    },
    async (args, context) => {
      const seconds = typeof args.seconds === "number" ? args.seconds : 1;
      await sleep(seconds * 1000, context.signal);
      return `Computed ${String(args.label ?? "result")} after ${seconds} s`;
    },
    {
      task: {
        support: "optional",
        pollIntervalMs: 200,
        // The immediate-result shortcut: quick work answers at once.
        when: (args) => typeof args.seconds !== "number" || args.seconds > 0,
      },
    },
  );

  server.tool(
    { name: "failing_job", description: "Fails as a tool (isError) after about a second" },
    async (_args, context) => {
      await sleep(1000, context.signal);
      return {
        content: [{ type: "text", text: "The job failed: simulated failure" }],
        isError: true,
      };
    },
    { task: { support: "required", pollIntervalMs: 200 } },
  );

  server.tool(
    { name: "protocol_error_job", description: "Fails with a JSON-RPC error" },
    async (_args, context) => {
      await sleep(200, context.signal);
      throw new JsonRpcError(-32603, "Simulated internal failure in protocol_error_job");
    },
    { task: { support: "optional", pollIntervalMs: 200 } },
  );

  server.tool(
    {
      name: "confirm_delete",
      description: "Asks the user to confirm before deleting a file",
      inputSchema: { type: "object", properties: { filename: { type: "string" } } },
    },
    async (args, context) => {
      const filename = String(args.filename ?? "file");
      const answer = await context.elicit(CONFIRM_FORM(`Delete ${filename}?`));
      const confirmed = accepted(answer)?.confirm === true;
      return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
    },
    { task: { support: "optional", pollIntervalMs: 200 } },
  );

  server.tool(
    { name: "multi_input", description: "Asks two questions at once" },
    async (_args, context) => {
      const answers = await context.input({
        first: { method: "elicitation/create", params: NAME_FORM("First name?") },
        second: { method: "elicitation/create", params: CONFIRM_FORM("Proceed?") },
      });
      return `Received: ${JSON.stringify(answers)}`;
    },
    { task: { support: "optional", pollIntervalMs: 200 } },
  );

  server.tool(
    {
      name: "test_tool_with_task",
      description: "Asks for a name (multi round-trip), then carries on as a task",
    },
    async (_args, context) => {
      const answer = await context.elicit(NAME_FORM("What is your name?"), { key: "user_name" });
      const name = String(accepted(answer)?.name ?? "stranger");
      await context.startTask();
      await sleep(100, context.signal);
      return `Hello, ${name}! (finished as a task)`;
    },
    { task: { support: "required", start: "handler", pollIntervalMs: 200 } },
  );
}
