import { isPlainObject, MissingRequiredClientCapabilityError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { ClientCapabilities } from "../protocol/mcp-types.js";

/**
 * Client capabilities a tool needs, declared when it is registered (e.g. `{ elicitation: {},
 * sampling: { tools: {} } }`): checked before its handler runs, so a client without them gets
 * -32021 before anything is streamed (2026-07-28 basic/index.mdx: a server MUST return
 * MissingRequiredClientCapabilityError; on HTTP with status 400, which a stream already opened
 * with 200 can no longer give).
 */
export type RequiredClientCapabilities = ClientCapabilities;

/** Refuses a requirement that is not capabilities-shaped (objects all the way down). */
export function checkRequiredCapabilities(required: unknown, where: string): void {
  if (!isPlainObject(required)) {
    throw new Error(`${where}: requiredClientCapabilities must be an object of capabilities`);
  }
  for (const [name, value] of Object.entries(required)) {
    if (!isPlainObject(value)) {
      throw new Error(
        `${where}: requiredClientCapabilities.${name} must be an object (e.g. {} or { tools: {} })`,
      );
    }
    checkRequiredCapabilities(value, `${where}: ${name}`);
  }
}

/**
 * What of `required` the client did not declare, in the shape of -32021's
 * data.requiredCapabilities; undefined when it declared everything.
 */
function missingCapabilities(
  required: JsonObject,
  declared: unknown,
  name?: string,
): JsonObject | undefined {
  if (!isPlainObject(declared)) return required;
  // Elicitation as `{}` means form mode, required or declared alike (2025-11-25 and
  // 2026-07-28 client/elicitation.mdx): a URL-only client lacks it.
  const formOnly = (value: JsonObject) =>
    name === "elicitation" && Object.keys(value).length === 0 ? { form: {} } : value;
  const effective = formOnly(declared);
  let missing: JsonObject | undefined;
  for (const [key, value] of Object.entries(formOnly(required))) {
    const lacking = missingCapabilities(value as JsonObject, effective[key], key);
    if (lacking !== undefined) {
      missing ??= {};
      missing[key] = lacking;
    }
  }
  return missing;
}

/** The -32021 to answer with when the client lacks any of `required`. */
export function requirementError(
  required: JsonObject | undefined,
  declared: ClientCapabilities,
): MissingRequiredClientCapabilityError | undefined {
  if (required === undefined) return undefined;
  const missing = missingCapabilities(required, declared);
  return missing === undefined ? undefined : new MissingRequiredClientCapabilityError(missing);
}
