/**
 * Tools for the 2026-07-28 diagnostics (server-stateless), list-change triggers, the
 * `x-mcp-header` header-mirroring checks and SSE reconnection.
 */
import type { McpServer } from "../../src/server/index.js";
import { sleep } from "./sleep.js";

const NO_ARGS = { type: "object", properties: {} } as const;

export function registerDiagnosticTools(server: McpServer): void {
  server.tool(
    {
      name: "test_missing_capability",
      description: "Needs the client's sampling capability; fails with -32021 without it",
      inputSchema: NO_ARGS,
    },
    (_args, context) => {
      context.requireClientCapabilities({ sampling: {} });
      return "The client declared sampling";
    },
  );
  server.tool(
    {
      name: "test_streaming_elicitation",
      description: "Logs, then asks the user (an input_required result on modern requests)",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      await context.log.info("about to ask the user", "everything-server");
      await context.progress(0, 1);
      const answer = await context.elicit(
        {
          mode: "form",
          message: "Please confirm",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        },
        { key: "confirmation" },
      );
      return `Received input: ${JSON.stringify(answer)}`;
    },
  );
  server.tool(
    {
      name: "test_logging_tool",
      description: "Logs at info; silent unless the request asks for logs (logLevel)",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      await context.log.info("log message 1", "everything-server");
      await context.log.info("log message 2", "everything-server");
      return "Logged (if asked to)";
    },
  );
  server.tool(
    {
      name: "test_trigger_tool_change",
      description: "Adds and removes a temporary tool, which tells clients tools/list changed",
      inputSchema: NO_ARGS,
    },
    () => {
      const temporary = server.tool(
        { name: "temporary_tool", description: "Briefly registered", inputSchema: NO_ARGS },
        () => "temporary",
      );
      temporary.remove();
      return "Tool list changed";
    },
  );
  server.tool(
    {
      name: "test_update_resource",
      description:
        "Announces that the resource at uri changed: its subscribers (on every instance of a cluster) get notifications/resources/updated",
      inputSchema: {
        type: "object",
        properties: { uri: { type: "string", description: "The resource's URI" } },
        required: ["uri"],
      },
    },
    (args) => {
      server.resourceUpdated(String(args.uri));
      return "Resource update announced";
    },
  );
  server.tool(
    {
      name: "test_trigger_prompt_change",
      description: "Adds and removes a temporary prompt, which tells clients prompts/list changed",
      inputSchema: NO_ARGS,
    },
    () => {
      const remove = server.prompt(
        { name: "temporary_prompt", description: "Briefly registered" },
        () => ({ messages: [{ role: "user", content: { type: "text", text: "temporary" } }] }),
      );
      remove();
      return "Prompt list changed";
    },
  );
  server.tool(
    {
      name: "test_x_mcp_header",
      description: "Its region argument travels in the Mcp-Param-Region header too",
      inputSchema: {
        type: "object",
        properties: {
          region: { type: "string", description: "A region name", "x-mcp-header": "Region" },
        },
        required: ["region"],
      },
    },
    (args) => `Region: ${String(args.region)}`,
  );
  server.tool(
    {
      name: "test_reconnection",
      description: "Answers after a pause, long enough for an SSE stream to be resumed",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      await sleep(200, context.signal);
      return "Reconnection test completed";
    },
  );
}
