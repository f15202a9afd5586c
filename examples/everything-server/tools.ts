/**
 * The tools the conformance suite calls (see ../../../shared/conformance/SCENARIOS.md §1),
 * registered on an McpServer through its public API only.
 */
import type { JsonObject } from "../../src/jsonrpc/types.js";
import type { HandlerContext, McpServer } from "../../src/server/index.js";
import { PNG_BASE64, WAV_BASE64 } from "./media.js";
import { sleep } from "./sleep.js";

const NO_ARGS = { type: "object", properties: {} } as const;
const EMBEDDED = {
  type: "resource",
  resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "Embedded text" },
} as const;

const NAME_FORM: JsonObject = {
  mode: "form",
  message: "Please provide your name",
  requestedSchema: {
    type: "object",
    properties: { name: { type: "string", description: "Your name" } },
    required: ["name"],
  },
};
const CAPITAL_QUESTION: JsonObject = {
  messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
  maxTokens: 100,
};

/** Summarises what the client answered, as the tool's text. */
function answered(answers: Record<string, JsonObject>): string {
  return `Received input: ${JSON.stringify(answers)}`;
}

/** The 2025-11-25 content, error, progress, logging, sampling and elicitation tools. */
export function registerBasicTools(server: McpServer): void {
  server.tool(
    {
      name: "test_simple_text",
      description: "Returns one text item",
      inputSchema: NO_ARGS,
    },
    () => "This is a simple text response for testing.",
  );
  server.tool(
    { name: "test_image_content", description: "Returns one image item", inputSchema: NO_ARGS },
    () => ({ content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }] }),
  );
  server.tool(
    { name: "test_audio_content", description: "Returns one audio item", inputSchema: NO_ARGS },
    () => ({ content: [{ type: "audio", data: WAV_BASE64, mimeType: "audio/wav" }] }),
  );
  server.tool(
    {
      name: "test_embedded_resource",
      description: "Returns an embedded text resource",
      inputSchema: NO_ARGS,
    },
    () => ({ content: [EMBEDDED] }),
  );
  server.tool(
    {
      name: "test_multiple_content_types",
      description: "Returns text, image and an embedded resource",
      inputSchema: NO_ARGS,
    },
    () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG_BASE64, mimeType: "image/png" },
        EMBEDDED,
      ],
    }),
  );
  server.tool(
    {
      name: "test_error_handling",
      description: "Always fails with a tool error (isError), not a protocol error",
      inputSchema: NO_ARGS,
    },
    () => ({
      isError: true,
      content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
    }),
  );
  server.tool(
    {
      name: "test_tool_with_progress",
      description: "Reports progress 0, 50, 100 of 100",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      // Three notifications (0, 50, 100 of 100), each saying where the work is.
      const said = { 0: "Starting", 50: "Halfway there", 100: "Done" };
      for (const step of [0, 50, 100] as const) {
        await context.progress(step, 100, said[step]);
        if (step < 100) await sleep(50);
      }
      return "Progress test completed";
    },
  );
  server.tool(
    {
      name: "test_tool_with_logging",
      description: "Sends three log messages, 50 ms apart",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      await context.log.info("Tool execution started", "everything-server");
      await sleep(50);
      await context.log.info("Tool processing data", "everything-server");
      await sleep(50);
      await context.log.info("Tool execution completed", "everything-server");
      return "Logging test completed";
    },
  );
  server.tool(
    {
      name: "test_sampling",
      description: "Asks the client's model (sampling/createMessage)",
      inputSchema: {
        type: "object",
        properties: { prompt: { type: "string", description: "What to ask the model" } },
        required: ["prompt"],
      },
    },
    async (args, context) => {
      const sampled = await context.sample({
        messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }],
        maxTokens: 100,
      });
      const content = sampled.content as JsonObject | undefined;
      const text = typeof content?.text === "string" ? content.text : JSON.stringify(sampled);
      return `LLM response: ${text}`;
    },
  );
  server.tool(
    {
      name: "test_elicitation",
      description: "Asks the user for a username and email (elicitation/create)",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string", description: "What to tell the user" } },
        required: ["message"],
      },
    },
    async (args, context) => {
      const result = await context.elicit({
        mode: "form",
        message: String(args.message),
        requestedSchema: {
          type: "object",
          properties: {
            username: { type: "string", description: "Your username" },
            email: { type: "string", description: "Your email address" },
          },
          required: ["username", "email"],
        },
      });
      return `User response: action=${String(result.action)}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );
  server.tool(
    {
      name: "test_elicitation_url",
      description: "Asks the user to finish a step in the browser (URL-mode elicitation)",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      const result = await context.elicit({
        mode: "url",
        message: "Sign in to the demo service to continue",
        url: "https://example.com/mcpwire-demo/sign-in",
        elicitationId: "demo-sign-in",
      });
      return `User response: action=${String(result.action)}`;
    },
  );
  server.tool(
    {
      name: "test_elicitation_sep1034_defaults",
      description: "Elicits a form whose fields carry defaults (SEP-1034)",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      const result = await context.elicit({
        mode: "form",
        message: "Please review your profile (defaults provided)",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "Name", default: "John Doe" },
            age: { type: "integer", description: "Age", default: 30 },
            score: { type: "number", description: "Score", default: 95.5 },
            status: {
              type: "string",
              description: "Status",
              enum: ["active", "inactive", "pending"],
              default: "active",
            },
            verified: { type: "boolean", description: "Verified", default: true },
          },
        },
      });
      return `Elicitation completed: action=${String(result.action)}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );
  server.tool(
    {
      name: "test_elicitation_sep1330_enums",
      description: "Elicits every enum shape of SEP-1330",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      const result = await context.elicit({
        mode: "form",
        message: "Please pick some options",
        requestedSchema: {
          type: "object",
          properties: {
            untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
            titledSingle: {
              type: "string",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: {
              type: "string",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              items: { type: "string", enum: ["option1", "option2", "option3"] },
            },
            titledMulti: {
              type: "array",
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
        },
      });
      return `Elicitation completed: action=${String(result.action)}, content=${JSON.stringify(result.content ?? {})}`;
    },
  );
  server.tool(
    {
      name: "json_schema_2020_12_tool",
      description: "Its inputSchema uses JSON Schema 2020-12 keywords that must survive verbatim",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: {
          address: {
            $anchor: "addressDef",
            type: "object",
            properties: { street: { type: "string" }, city: { type: "string" } },
          },
        },
        properties: {
          name: { type: "string" },
          address: { $ref: "#/$defs/address" },
          contactMethod: { type: "string", enum: ["phone", "email"] },
          phone: { type: "string" },
          email: { type: "string" },
        },
        allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
        if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
        // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, never awaited
        then: { required: ["phone"] },
        else: { required: ["email"] },
        additionalProperties: false,
      },
    },
    (args) => `Received: ${JSON.stringify(args)}`,
  );
}

/** Multi round-trip (2026-07-28) tools; on legacy sessions the same calls are real requests. */
export function registerInputTools(server: McpServer): void {
  const simple = (
    name: string,
    description: string,
    ask: (c: HandlerContext) => Promise<unknown>,
  ) =>
    server.tool({ name, description, inputSchema: NO_ARGS }, async (_args, context) => {
      const answer = await ask(context);
      return `Received input: ${JSON.stringify(answer)}`;
    });
  simple("test_input_required_result_elicitation", "Asks for the user's name", (context) =>
    context.input({ user_name: { method: "elicitation/create", params: NAME_FORM } }),
  );
  simple("test_input_required_result_sampling", "Asks the client's model a question", (context) =>
    context.input({ capital: { method: "sampling/createMessage", params: CAPITAL_QUESTION } }),
  );
  simple("test_input_required_result_list_roots", "Asks for the client's roots", (context) =>
    context.input({ roots: { method: "roots/list" } }),
  );
  simple(
    "test_input_required_result_request_state",
    "Asks for the user's name; the round carries a requestState",
    (context) => context.input({ user_name: { method: "elicitation/create", params: NAME_FORM } }),
  );
  simple(
    "test_input_required_result_tampered_state",
    "Asks for the user's name; a tampered requestState is refused",
    (context) => context.input({ user_name: { method: "elicitation/create", params: NAME_FORM } }),
  );
  server.tool(
    {
      name: "test_input_required_result_multiple_inputs",
      description: "Asks for elicitation, sampling and roots in one round",
      inputSchema: NO_ARGS,
    },
    async (_args, context) =>
      answered(
        await context.input({
          user_name: { method: "elicitation/create", params: NAME_FORM },
          capital: { method: "sampling/createMessage", params: CAPITAL_QUESTION },
          roots: { method: "roots/list" },
        }),
      ),
  );
  server.tool(
    {
      name: "test_input_required_result_multi_round",
      description: "Asks twice; the second question depends on the first answer",
      inputSchema: NO_ARGS,
    },
    async (_args, context) => {
      const first = await context.elicit(NAME_FORM, { key: "user_name" });
      const name = String((first.content as JsonObject | undefined)?.name ?? "friend");
      const second = await context.elicit(
        {
          mode: "form",
          message: `Hello ${name}, what is your favourite colour?`,
          requestedSchema: {
            type: "object",
            properties: { colour: { type: "string" } },
            required: ["colour"],
          },
        },
        { key: "favourite_colour" },
      );
      return `Rounds complete: ${JSON.stringify({ first, second })}`;
    },
  );
  server.tool(
    {
      name: "test_input_required_result_capabilities",
      description: "Asks only for what the client declared (elicitation and/or sampling)",
      inputSchema: NO_ARGS,
    },
    // Inputs the client cannot answer are left out by context.input().
    async (_args, context) =>
      answered(
        await context.input({
          user_name: { method: "elicitation/create", params: NAME_FORM },
          capital: { method: "sampling/createMessage", params: CAPITAL_QUESTION },
        }),
      ),
  );
}
