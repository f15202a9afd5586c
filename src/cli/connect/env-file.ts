import { readFileSync } from "node:fs";
import { printableLine } from "../../text/printable.js";
import { UsageError } from "../core/errors.js";

/** A variable name as shells and dotenv files spell it. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads a dotenv-style file: `KEY=VALUE` lines, optionally `export KEY=VALUE`; blank lines and
 * `#` comments skipped; values bare (a ` #` starts a comment, spaces trimmed), in single quotes
 * (literal) or in double quotes (`\n`, `\t`, `\"`, `\\` escapes). Errors name the file and line
 * but never quote the line: its value is likely a secret.
 */
export function readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`--env-from: cannot read ${printableLine(path)} (${reason})`);
  }
  return parseEnvText(text, printableLine(path));
}

function parseEnvText(text: string, where: string): Record<string, string> {
  const result: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.forEach((raw, index) => {
    const fail = (what: string): never => {
      throw new UsageError(`${where}:${index + 1}: ${what}`);
    };
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const body = line.startsWith("export ") ? line.slice(7).trimStart() : line;
    const equals = body.indexOf("=");
    if (equals === -1) fail("expected KEY=VALUE");
    const name = body.slice(0, equals).trim();
    if (!ENV_NAME.test(name)) fail("the name before = must be letters, digits and _");
    result[name] = parseValue(body.slice(equals + 1).trim(), (what) => fail(`${name}: ${what}`));
  });
  return result;
}

function parseValue(text: string, fail: (what: string) => never): string {
  const quote = text[0];
  if (quote !== '"' && quote !== "'") {
    const comment = text.search(/\s#/);
    return (comment === -1 ? text : text.slice(0, comment)).trim();
  }
  let value = "";
  for (let i = 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === quote) {
      const after = text.slice(i + 1).trim();
      if (after !== "" && !after.startsWith("#")) fail("unexpected text after the closing quote");
      return value;
    }
    if (quote === '"' && char === "\\" && i + 1 < text.length) {
      const next = text[++i]!;
      value += next === "n" ? "\n" : next === "t" ? "\t" : next === "r" ? "\r" : next;
      continue;
    }
    value += char;
  }
  return fail(`unterminated ${quote === '"' ? "double" : "single"} quote`);
}
