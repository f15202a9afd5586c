import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";

/**
 * The 2025-11-25 schema.json (a copy of the spec's, test/fixtures/spec), compiled once: every
 * message a legacy tasks test sees is checked against the definition it claims to be.
 */
const schema = JSON.parse(
  readFileSync(
    new URL("../../../test/fixtures/spec/2025-11-25.schema.json", import.meta.url),
    "utf8",
  ),
) as { $defs?: object; definitions?: object };

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ ...schema, $id: "mcp-2025-11-25" });

/** Throws unless `value` is a valid `definition` (e.g. "CreateTaskResult") of 2025-11-25. */
export function assertLegacyShape(definition: string, value: unknown): void {
  const key = schema.$defs ? "$defs" : "definitions";
  const validate = ajv.getSchema(`mcp-2025-11-25#/${key}/${definition}`);
  if (!validate) throw new Error(`no definition ${definition} in the 2025-11-25 schema`);
  if (!validate(value)) {
    throw new Error(
      `not a valid ${definition}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`,
    );
  }
}
