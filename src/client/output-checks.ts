/**
 * The client's check of structuredContent against the outputSchema a server listed for the
 * tool (McpClientOptions.validator): a result that does not match is refused, not handed on
 * (tools.mdx: clients SHOULD validate structured results against the output schema). Only
 * tools seen in a tools/list answer are checked; the schema comes from the server, so the
 * size and depth limits of CompiledSchemas apply to it.
 */
import type { JsonObject } from "../jsonrpc/types.js";
import type { CallToolResult, Tool } from "../protocol/mcp-types.js";
import { CompiledSchemas, type CompiledValidator } from "../schema/compiled-schemas.js";
import { SchemaError, type SchemaValidator } from "../schema/validator.js";
import { InvalidResultError } from "./results.js";

export class OutputSchemaChecks {
  private readonly schemas = new Map<string, JsonObject>();
  private readonly compiled: CompiledSchemas;

  constructor(engine: SchemaValidator) {
    this.compiled = new CompiledSchemas(() => engine, { rootName: "structuredContent" });
  }

  /** Takes note of the listed tools' output schemas (the latest listing wins). */
  remember(tools: readonly Tool[]): void {
    for (const tool of tools) {
      if (tool.outputSchema) this.schemas.set(tool.name, tool.outputSchema as JsonObject);
      else this.schemas.delete(tool.name);
    }
  }

  /** Throws InvalidResultError when `result` breaks the tool's outputSchema. */
  check(name: string, result: CallToolResult): void {
    const schema = this.schemas.get(name);
    if (schema === undefined || result.isError) return;
    const refuse = (why: string) =>
      new InvalidResultError("tools/call", result as unknown as JsonObject, `tool ${name} ${why}`);
    if (result.structuredContent === undefined) {
      throw refuse("declares an outputSchema but returned no structuredContent");
    }
    let validate: CompiledValidator;
    try {
      validate = this.compiled.compile(schema);
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      throw refuse(`has an outputSchema that cannot be used: ${error.message}`);
    }
    const outcome = validate(result.structuredContent);
    if (!outcome.ok)
      throw refuse(
        `returned structuredContent that does not match its outputSchema: ${outcome.message}`,
      );
  }
}
