/** The resources, resource template and prompts the conformance suite reads. */
import type { McpServer } from "../../src/server/index.js";
import { PNG_BASE64 } from "./media.js";

const NAME_FORM = {
  mode: "form",
  message: "Who is the prompt for?",
  requestedSchema: {
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
  },
};

export function registerResources(server: McpServer): void {
  server.resource(
    { uri: "test://static-text", name: "static-text", mimeType: "text/plain" },
    (uri) => [
      { uri, mimeType: "text/plain", text: "This is the content of the static text resource." },
    ],
  );
  server.resource(
    { uri: "test://static-binary", name: "static-binary", mimeType: "image/png" },
    (uri) => [{ uri, mimeType: "image/png", blob: PNG_BASE64 }],
  );
  server.resource(
    { uri: "test://watched-resource", name: "watched-resource", mimeType: "text/plain" },
    (uri) => [{ uri, mimeType: "text/plain", text: "A resource to subscribe to." }],
  );
  server.resourceTemplate(
    {
      uriTemplate: "test://template/{id}/data",
      name: "template",
      description: "Data for any id",
      mimeType: "application/json",
    },
    (uri, variables) => [
      {
        uri,
        mimeType: "application/json",
        text: JSON.stringify({
          id: variables.id,
          templateTest: true,
          data: `Data for ID: ${variables.id}`,
        }),
      },
    ],
  );
}

export function registerPrompts(server: McpServer): void {
  server.prompt({ name: "test_simple_prompt", description: "A prompt without arguments" }, () => ({
    messages: [
      { role: "user", content: { type: "text", text: "This is a simple prompt for testing." } },
    ],
  }));
  server.prompt(
    {
      name: "test_prompt_with_arguments",
      description: "A prompt with two arguments",
      arguments: [
        { name: "arg1", description: "First argument", required: true },
        { name: "arg2", description: "Second argument", required: true },
      ],
    },
    (args) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`,
          },
        },
      ],
    }),
    {
      complete: {
        arg1: (value) => ["test", "testing", "tested"].filter((v) => v.startsWith(value)),
      },
    },
  );
  server.prompt(
    {
      name: "test_prompt_with_embedded_resource",
      description: "A prompt that embeds a resource",
      arguments: [{ name: "resourceUri", description: "The resource to embed", required: true }],
    },
    (args) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: args.resourceUri!,
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        {
          role: "user",
          content: { type: "text", text: "Please process the embedded resource above." },
        },
      ],
    }),
  );
  server.prompt({ name: "test_prompt_with_image", description: "A prompt with an image" }, () => ({
    messages: [
      { role: "user", content: { type: "image", data: PNG_BASE64, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  }));
  server.prompt(
    {
      name: "test_input_required_result_prompt",
      description: "Asks the user for a name before building the prompt",
    },
    async (_args, context) => {
      const answer = await context.elicit(NAME_FORM, { key: "user_name" });
      const name = String((answer.content as { name?: unknown } | undefined)?.name ?? "friend");
      return {
        messages: [{ role: "user", content: { type: "text", text: `Write a note to ${name}.` } }],
      };
    },
  );
}
