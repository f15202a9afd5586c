/**
 * Asks the user on the terminal for what an elicitation wants: a form field by field (typed,
 * checked, defaults in brackets), or a URL to visit. Prompts go to stderr so stdout keeps only
 * the result. Everything the server wrote (message, titles, descriptions, choices, defaults) is
 * made printable before it is shown: a hostile server must not be able to redraw the question
 * the user answers or hide what they type.
 */
import { createInterface, type Interface } from "node:readline/promises";
import { isPlainObject, LocalError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { printableLine } from "../../text/printable.js";
import { writeErr } from "../core/terminal.js";

type JsonValue = unknown;

// Two questions at once (several input requests in one round) would share the terminal
// line; they take turns instead.
let queue: Promise<unknown> = Promise.resolve();

export function promptElicitation(params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
  const turn = queue.then(() => withTerminal(signal, (ask) => converse(params, ask)));
  queue = turn.catch(() => {});
  return turn;
}

type Ask = (question: string) => Promise<string>;

async function withTerminal<T>(signal: AbortSignal, body: (ask: Ask) => Promise<T>): Promise<T> {
  const rl: Interface = createInterface({
    input: process.stdin,
    output: process.stderr,
    terminal: true,
  });
  const stop = new AbortController();
  const abort = () => stop.abort(signal.reason);
  signal.addEventListener("abort", abort, { once: true });
  // readline takes Ctrl-C from the terminal; hand it on to the command, which cancels.
  rl.on("SIGINT", () => {
    stop.abort(new LocalError("aborted", "interrupted (Ctrl-C)"));
    process.emit("SIGINT", "SIGINT");
  });
  try {
    // The question quotes the server (field titles, defaults): one printable line.
    return await body((question) => rl.question(printableLine(question), { signal: stop.signal }));
  } finally {
    signal.removeEventListener("abort", abort);
    rl.close();
  }
}

async function converse(params: JsonObject, ask: Ask): Promise<JsonObject> {
  const say = (line: string) => writeErr(line);
  const message = typeof params.message === "string" ? params.message : "The server asks:";
  say(`\n${message}`);
  if (params.mode === "url") {
    // input-answers.ts declines a link that is not a plain http(s) URL before it gets here.
    say(`Open: ${printableLine(String(params.url))}`);
    for (;;) {
      const answer = (await ask('Press Enter when done, or type "decline": ')).trim();
      if (answer === "") return { action: "accept" };
      if (/^(decline|n|no)$/i.test(answer)) return { action: "decline" };
      if (/^cancel$/i.test(answer)) return { action: "cancel" };
    }
  }
  const schema = isPlainObject(params.requestedSchema) ? params.requestedSchema : {};
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const content: JsonObject = {};
  for (const [name, field] of Object.entries(properties)) {
    if (!isPlainObject(field)) continue;
    const value = await askField(name, field, required.includes(name), ask, say);
    if (value !== undefined) content[name] = value;
  }
  for (;;) {
    const answer = (await ask("accept? [Y/n/cancel] ")).trim().toLowerCase();
    if (answer === "" || answer === "y" || answer === "yes") return { action: "accept", content };
    if (answer === "n" || answer === "no") return { action: "decline" };
    if (answer === "c" || answer === "cancel") return { action: "cancel" };
  }
}

/** One field: shown with its type, choices and default, asked until the answer fits. */
async function askField(
  name: string,
  field: JsonObject,
  required: boolean,
  ask: Ask,
  say: (line: string) => void,
): Promise<JsonValue | undefined> {
  const shownName = printableLine(name);
  const label =
    typeof field.title === "string" ? `${printableLine(field.title)} (${shownName})` : shownName;
  const description =
    typeof field.description === "string" ? ` — ${printableLine(field.description)}` : "";
  const choices = choicesOf(field);
  const type = describeType(field, choices);
  const fallback = "default" in field ? ` [${display(field.default as JsonValue)}]` : "";
  if (choices) {
    say(`${label}${description}`);
    choices.forEach((choice, index) => {
      const title = choice.title === choice.value ? "" : ` (${choice.title})`;
      say(`  ${index + 1}) ${printableLine(choice.value)}${printableLine(title)}`);
    });
  }
  const question = choices
    ? `${type}${required ? " *" : ""}${fallback}: `
    : `${label}${description} (${type})${required ? " *" : ""}${fallback}: `;
  for (;;) {
    const text = (await ask(question)).trim();
    if (text === "") {
      if ("default" in field) return field.default as JsonValue;
      if (!required) return undefined;
      say("  required");
      continue;
    }
    const parsed = parseValue(text, field, choices);
    if (typeof parsed === "object" && parsed !== null && "error" in parsed) {
      say(`  ${parsed.error}`);
      continue;
    }
    return parsed as JsonValue;
  }
}

interface Choice {
  value: string;
  title: string;
}

/** enum, oneOf/anyOf of consts, legacy enumNames; for arrays, those of `items`. */
function choicesOf(field: JsonObject): Choice[] | undefined {
  const source = field.type === "array" && isPlainObject(field.items) ? field.items : field;
  if (Array.isArray(source.enum)) {
    const names = Array.isArray(source.enumNames) ? source.enumNames : [];
    return source.enum.map((value, i) => ({
      value: String(value),
      title: typeof names[i] === "string" ? names[i] : String(value),
    }));
  }
  const options = Array.isArray(source.oneOf) ? source.oneOf : source.anyOf;
  if (!Array.isArray(options)) return undefined;
  const choices = options.filter(isPlainObject).filter((option) => "const" in option);
  if (choices.length === 0) return undefined;
  return choices.map((option) => ({
    value: String(option.const),
    title: typeof option.title === "string" ? option.title : String(option.const),
  }));
}

function describeType(field: JsonObject, choices: Choice[] | undefined): string {
  if (field.type === "array") return choices ? "pick numbers or values, comma-separated" : "array";
  if (choices) return "pick a number or a value";
  if (field.type === "boolean") return "boolean, y/n";
  const format = typeof field.format === "string" ? `, ${field.format}` : "";
  return `${typeof field.type === "string" ? field.type : "string"}${format}`;
}

type Parsed = JsonValue | { error: string };

function parseValue(text: string, field: JsonObject, choices: Choice[] | undefined): Parsed {
  if (field.type === "array") {
    const picked: string[] = [];
    for (const part of text
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean)) {
      const choice = choices ? pick(part, choices) : part;
      if (choice === undefined) return { error: `${part} is not one of the choices` };
      picked.push(choice);
    }
    return picked;
  }
  if (choices)
    return pick(text, choices) ?? { error: "pick one of the choices, by number or value" };
  switch (field.type) {
    case "boolean":
      if (/^(y|yes|true|1)$/i.test(text)) return true;
      if (/^(n|no|false|0)$/i.test(text)) return false;
      return { error: "answer y or n" };
    case "number":
    case "integer": {
      const number = Number(text);
      if (!Number.isFinite(number)) return { error: "not a number" };
      if (field.type === "integer" && !Number.isInteger(number)) return { error: "not an integer" };
      if (typeof field.minimum === "number" && number < field.minimum) {
        return { error: `must be at least ${field.minimum}` };
      }
      if (typeof field.maximum === "number" && number > field.maximum) {
        return { error: `must be at most ${field.maximum}` };
      }
      return number;
    }
    default:
      if (typeof field.minLength === "number" && text.length < field.minLength) {
        return { error: `at least ${field.minLength} characters` };
      }
      if (typeof field.maxLength === "number" && text.length > field.maxLength) {
        return { error: `at most ${field.maxLength} characters` };
      }
      return text;
  }
}

/** A choice by its 1-based number, its value or its title. */
function pick(text: string, choices: Choice[]): string | undefined {
  const index = Number(text);
  if (Number.isInteger(index) && index >= 1 && index <= choices.length) {
    return choices[index - 1]!.value;
  }
  const lower = text.toLowerCase();
  return choices.find((c) => c.value === text || c.title.toLowerCase() === lower)?.value;
}

function display(value: JsonValue): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "y" : "n";
  return JSON.stringify(value);
}
