/**
 * A tool's arguments as typed in the shell, the ways the command takes them: one JSON object,
 * `@file.json`, or `key=value` words typed by the tool's input schema. Words split at spaces;
 * "double" (with \" and \\) and 'single' quotes keep spaces in a value (`text="hi there"`).
 * `-` (JSON on stdin) has no meaning here: stdin is the shell's own.
 */
import type { JsonObject } from "../../jsonrpc/types.js";
import { parseJsonObject } from "../core/args.js";
import { UsageError } from "../core/errors.js";
import { readArgumentWords, typePairs } from "../verbs/tool-arguments.js";

const WHAT = "tool arguments";

export async function shellToolArguments(
  text: string,
  schema: () => Promise<unknown>,
): Promise<JsonObject | undefined> {
  if (text === "") return undefined;
  if (text.startsWith("{")) return parseJsonObject(text, WHAT) as JsonObject;
  const words = splitWords(text);
  if (words.length === 1 && words[0] === "-") {
    throw new UsageError(`${WHAT}: "-" reads stdin, which is the shell's; give JSON or key=value`);
  }
  const given = await readArgumentWords(words, WHAT);
  if (given.kind === "none") return undefined;
  if (given.kind === "json") return given.value as JsonObject;
  return typePairs(given.pairs, await schema(), WHAT) as JsonObject;
}

/** Splits at unquoted whitespace; quotes group and are removed. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && (text[i + 1] === '"' || text[i + 1] === "\\")) word += text[++i];
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new UsageError(`${WHAT}: a ${quote} quote is not closed`);
  if (inWord) words.push(word);
  return words;
}
