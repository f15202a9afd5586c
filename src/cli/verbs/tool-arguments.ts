import { readFile } from "node:fs/promises";
import { isPlainObject } from "../../jsonrpc/errors.js";
import { printableLine } from "../../text/printable.js";
import { parseJsonObject } from "../core/args.js";
import { UsageError } from "../core/errors.js";

/** The most a JSON argument read from stdin may hold: a mistake, not a use, beyond that. */
const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/**
 * The arguments after a tool's (or prompt's, or method's) name, the ways a shell user writes
 * them: one JSON object, `@file.json`, `-` for JSON on stdin, or `key=value` pairs.
 */
type ArgumentWords =
  | { kind: "none" }
  | { kind: "json"; value: Record<string, unknown> }
  | { kind: "pairs"; pairs: [string, string][] };

export async function readArgumentWords(words: string[], what: string): Promise<ArgumentWords> {
  if (words.length === 0) return { kind: "none" };
  const [first] = words;
  if (words.length === 1 && first === "-") {
    return { kind: "json", value: parseJsonObject(await readStdin(), `${what} on stdin`)! };
  }
  if (words.length === 1 && first!.startsWith("@")) {
    const path = first!.slice(1);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new UsageError(`cannot read ${what} from ${printableLine(path)} (${reason})`);
    }
    return { kind: "json", value: parseJsonObject(text, `${what} in ${printableLine(path)}`)! };
  }
  if (words.length === 1 && !/^[^={}[\]"\s]+=/.test(first!)) {
    // A bare word (`hello`) is neither: say what is expected rather than how JSON failed on it.
    if (!first!.includes("=") && !/^\s*([{["\d-]|true\b|false\b|null\b)/.test(first!)) {
      throw new UsageError(
        `${what}: expected key=value or JSON, got ${JSON.stringify(printableLine(first!))}`,
      );
    }
    return { kind: "json", value: parseJsonObject(first, what)! };
  }
  const pairs = words.map((word): [string, string] => {
    const equals = word.indexOf("=");
    if (equals <= 0) {
      throw new UsageError(
        `${what}: expected key=value pairs, one JSON object, @file.json or -; got ${JSON.stringify(printableLine(word))}`,
      );
    }
    return [word.slice(0, equals), word.slice(equals + 1)];
  });
  return { kind: "pairs", pairs };
}

/**
 * Types `key=value` pairs by a JSON Schema's properties: numbers, integers and booleans are
 * parsed, objects and arrays read as JSON; strings (and properties the schema does not
 * describe) stay exactly as typed, so `zip=01234` is never the number 1234.
 */
export function typePairs(
  pairs: [string, string][],
  schema: unknown,
  what: string,
): Record<string, unknown> {
  const properties =
    isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {};
  const result: Record<string, unknown> = {};
  for (const [key, text] of pairs) {
    const property = properties[key];
    const declared = isPlainObject(property) ? property.type : undefined;
    const types = Array.isArray(declared) ? declared : declared === undefined ? [] : [declared];
    result[key] = typeValue(text, types as unknown[], (expected) => {
      throw new UsageError(
        `${what}: ${printableLine(key)}=${JSON.stringify(printableLine(text))} is not ${expected}`,
      );
    });
  }
  return result;
}

function typeValue(text: string, types: unknown[], fail: (expected: string) => never): unknown {
  if (types.length === 0 || types.includes("string")) return text;
  if (types.includes("null") && text === "null") return null;
  if (types.includes("boolean") && (text === "true" || text === "false")) return text === "true";
  if (types.includes("integer") || types.includes("number")) {
    const value = text.trim() === "" ? Number.NaN : Number(text);
    const integer = !types.includes("number");
    if (Number.isFinite(value) && (!integer || Number.isInteger(value))) return value;
    if (!types.includes("object") && !types.includes("array") && !types.includes("boolean")) {
      fail(integer ? "an integer" : "a number");
    }
  }
  if (types.includes("object") || types.includes("array")) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return fail(`JSON (${types.join(" or ")})`);
    }
    return value;
  }
  return fail(types.join(" or "));
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_STDIN_BYTES) {
      throw new UsageError(`JSON on stdin is over ${MAX_STDIN_BYTES / 1024 / 1024} MB`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
