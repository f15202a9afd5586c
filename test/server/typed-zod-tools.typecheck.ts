/**
 * Compile-time checks for typed tools: this file is part of the build (tsconfig includes test/),
 * so every `@ts-expect-error` below must meet an error and every other line must typecheck.
 * It registers tools but never runs them; typed-zod-tools.test.ts covers the wire behaviour.
 */
import { z } from "zod";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import type { McpServer } from "../../src/server/index.js";

export function registerTypedTools(server: McpServer): void {
  server.tool(
    {
      name: "forecast",
      inputSchema: z.object({
        city: z.string(),
        days: z.number().default(3),
        units: z.string().transform((text) => text.length),
        note: z.string().optional(),
      }),
    },
    (args) => {
      const city: string = args.city;
      const days: number = args.days; // defaulted: never undefined in the handler
      const units: number = args.units; // transformed: the schema's output type
      const note: string | undefined = args.note;
      // @ts-expect-error days is a number, not a string (args is not `any`)
      const wrong: string = args.days;
      // @ts-expect-error no such argument in the schema
      const missing = args.country;
      // @ts-expect-error an optional argument may be undefined
      const required: string = args.note;
      return `${city} ${days} ${units} ${note} ${wrong} ${missing} ${required}`;
    },
  );

  const output = z.object({ count: z.number(), label: z.string().default("n") });
  server.tool({ name: "counted", outputSchema: output }, () => ({
    content: [],
    structuredContent: { count: 1 }, // label may be left to the default
  }));
  server.tool({ name: "miscounted", outputSchema: output }, () => ({
    content: [],
    // @ts-expect-error structuredContent must match the outputSchema's input type
    structuredContent: { count: "one" },
  }));
  server.tool(
    { name: "async", inputSchema: z.object({ n: z.number() }) },
    async (args) => `${args.n + 1}`,
  );
  const wantsMore = (args: { s: string }) => args.s;
  // @ts-expect-error a handler that wants more than the schema gives
  server.tool({ name: "mismatch", inputSchema: z.object({ n: z.number() }) }, wantsMore);

  // A Standard Schema that declares no types: args is unknown, to be narrowed, never `any`.
  const untyped = {
    "~standard": {
      version: 1 as const,
      vendor: "untyped",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => ({ type: "object" }), output: () => ({ type: "object" }) },
    },
  };
  server.tool({ name: "untyped", inputSchema: untyped }, (args) => {
    // @ts-expect-error unknown (not never, not any) is not a string
    const text: string = args;
    return text;
  });

  // Plain JSON Schema keeps today's types: args is a JSON object.
  server.tool(
    { name: "plain", inputSchema: { type: "object", properties: { n: { type: "number" } } } },
    (args) => {
      const copy: JsonObject = args;
      return JSON.stringify(copy);
    },
  );
  server.tool({ name: "bare" }, (args) => JSON.stringify(args satisfies JsonObject));
}
