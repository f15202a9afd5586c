/**
 * Answers to what a server asks while a verb's request runs (elicitation, sampling, roots):
 * multi round-trip input requests on modern connections, server-to-client requests on legacy
 * ones. They come from flags when given, from the user on a terminal for elicitation, and
 * otherwise fail with a line that names the flag that would have answered.
 */
import { readFileSync } from "node:fs";
import { capabilitiesFromHandlers } from "../../client/server-requests.js";
import type { ClientHandlers, Root, ServerRequestHandler } from "../../client/types.js";
import { isPlainObject } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { ClientCapabilities } from "../../protocol/mcp-types.js";
import { isPlainHttpUrl, printableLine } from "../../text/printable.js";
import type { OptionKind, ParsedArgs } from "../core/args.js";
import { CliError, UsageError } from "../core/errors.js";
import { jsonText, writeErr } from "../core/terminal.js";
import { promptElicitation } from "./input-prompts.js";

/** The options of the verbs whose request may need input (call, read, prompt). */
export const INPUT_OPTIONS: Record<string, OptionKind> = {
  elicit: "value",
  decline: "flag",
  "sample-text": "value",
  "sample-file": "value",
  root: "list",
};

/** The lines the verbs' --help adds for INPUT_OPTIONS. */
export const INPUT_USAGE = `
When the server asks for input (elicitation, sampling, roots):
  --elicit <json|file>   accept every elicitation with this content (inline JSON or a file)
  --decline              decline every elicitation
  --sample-text <text>   answer sampling/createMessage with this assistant text
  --sample-file <file>   answer sampling/createMessage with this CreateMessageResult (JSON)
  --root <uri>           expose a root (repeatable); without it no roots are declared
On a terminal, elicitation forms are asked field by field when neither flag is given.
`;

/** Whether the user can be asked: prompts read stdin and are drawn on stderr. */
export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/**
 * Builds the handlers for one command from its options. Flags are read (and files loaded) up
 * front, so a mistake in them is a usage error before anything is sent.
 */
export function inputHandlers(
  options: ParsedArgs["options"],
  interactive = isInteractive(),
): ClientHandlers {
  const handlers: ClientHandlers = {
    elicitation: elicitationHandler(options, interactive),
    sampling: samplingHandler(options),
  };
  const roots = rootsFrom(options);
  // Without --root the capability is not declared, so servers know not to ask.
  if (roots) handlers.roots = () => roots;
  return handlers;
}

/**
 * What the CLI declares for those handlers: both elicitation modes, since a form is asked field
 * by field and a URL is shown to the user to open (or answered by --elicit / --decline).
 */
export function inputCapabilities(handlers: ClientHandlers): ClientCapabilities {
  const capabilities = capabilitiesFromHandlers(handlers);
  if (handlers.elicitation) capabilities.elicitation = { form: {}, url: {} };
  return capabilities;
}

/**
 * A URL-mode elicitation asks the user to open a link. Only a plain http(s) URL is shown (or
 * accepted by --elicit): anything else (javascript:, file:, a link with escape sequences that
 * would show one address and open another) is declined, and the user is told why. Declining,
 * not cancelling: the user's agent refuses this request, and the server may offer another.
 */
function elicitationHandler(
  options: ParsedArgs["options"],
  interactive: boolean,
): ServerRequestHandler {
  const answer = answerElicitation(options, interactive);
  return (params, context) => {
    if (params.mode === "url" && !(typeof params.url === "string" && isPlainHttpUrl(params.url))) {
      const shown = printableLine(String(params.url)).slice(0, 200);
      writeErr(
        `mcpwire: the server asked to open a link that is not a plain http(s) URL (${shown}); declined`,
      );
      return { action: "decline" };
    }
    return answer(params, context);
  };
}

function answerElicitation(
  options: ParsedArgs["options"],
  interactive: boolean,
): ServerRequestHandler {
  if (options.decline === true && options.elicit !== undefined) {
    throw new UsageError("give --elicit or --decline, not both");
  }
  if (options.decline === true) return () => ({ action: "decline" });
  if (typeof options.elicit === "string") {
    const content = readJsonObject(options.elicit, "--elicit");
    // URL mode asks the user to visit a page; there is no content to send back.
    return (params) =>
      params.mode === "url" ? { action: "accept" } : { action: "accept", content };
  }
  if (interactive) return (params, context) => promptElicitation(params, context.signal);
  return (params) => {
    const message = typeof params.message === "string" ? `: ${jsonText(params.message)}` : "";
    throw new CliError(
      `the server asked for user input (elicitation/create)${message}, and mcpwire cannot ` +
        "answer it (not interactive); answer with --elicit <json|file> or --decline",
    );
  };
}

function samplingHandler(options: ParsedArgs["options"]): ServerRequestHandler {
  if (options["sample-text"] !== undefined && options["sample-file"] !== undefined) {
    throw new UsageError("give --sample-text or --sample-file, not both");
  }
  if (typeof options["sample-text"] === "string") {
    const text = options["sample-text"];
    return () => ({
      role: "assistant",
      content: { type: "text", text },
      model: "mcpwire-cli",
      stopReason: "endTurn",
    });
  }
  if (typeof options["sample-file"] === "string") {
    const result = readJsonObject(
      readFile(options["sample-file"], "--sample-file"),
      "--sample-file",
    );
    if (!("content" in result) || typeof result.role !== "string") {
      throw new UsageError(
        "--sample-file must hold a CreateMessageResult ({role, content, model})",
      );
    }
    return () => result;
  }
  return () => {
    throw new CliError(
      "the server asked for a model completion (sampling/createMessage), and mcpwire cannot " +
        "answer it (not interactive); answer with --sample-text <text> or --sample-file <file>",
    );
  };
}

function rootsFrom(options: ParsedArgs["options"]): Root[] | undefined {
  const uris = options.root as string[] | undefined;
  if (uris === undefined || uris.length === 0) return undefined;
  return uris.map((uri) => {
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) {
      throw new UsageError(`--root must be a URI like file:///home/me/project, not ${uri}`);
    }
    return { uri };
  });
}

/** Inline JSON when the text looks like an object, otherwise the name of a file holding it. */
function readJsonObject(text: string, flag: string): JsonObject {
  const source = text.trimStart().startsWith("{") ? text : readFile(text, flag);
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new UsageError(`${flag} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(value)) throw new UsageError(`${flag} must be a JSON object`);
  return value;
}

function readFile(path: string, flag: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path}: ${(error as Error).message}`);
  }
}
