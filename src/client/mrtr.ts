import { isPlainObject } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type { AbortSource } from "../protocol/lazy-abort.js";
import { InputRequiredError, InvalidResultError } from "./results.js";
import type { ClientHandlers } from "./types.js";

/** How many input_required rounds one call may go through before the client gives up. */
export const DEFAULT_MAX_INPUT_ROUNDS = 8;

/** The server kept asking for input beyond `maxInputRounds`. */
export class InputRoundsExceededError extends Error {
  override name = "InputRoundsExceededError";
  readonly method: string;
  readonly rounds: number;
  /** The last InputRequiredResult received. */
  readonly result: JsonObject;

  constructor(method: string, rounds: number, result: JsonObject) {
    super(
      `${method}: the server still asked for input after ${rounds} rounds (maxInputRounds); giving up`,
    );
    this.method = method;
    this.rounds = rounds;
    this.result = result;
  }
}

export interface InputLoop {
  method: string;
  params: JsonObject | undefined;
  handlers: ClientHandlers;
  maxRounds: number;
  signal: AbortSignal | undefined;
  /** RequestOptions.abort: its signal is made only if the server asks for input. */
  abort?: AbortSource;
  /** CallOptions.origin, for the handlers. */
  origin?: unknown;
  /** Sends the method again with these params, as a new request (new JSON-RPC id). */
  send(params: JsonObject): Promise<JsonObject>;
}

/**
 * The client half of multi round-trip requests: while the server answers `input_required`,
 * answer its inputRequests through the handlers and retry with `inputResponses` and the
 * byte-exact `requestState` (only when the server sent one). Returns the final result and
 * whether any retry happened (retried results must not be cached).
 */
export async function resolveInputRequired(
  first: JsonObject,
  loop: InputLoop,
): Promise<{ result: JsonObject; retried: boolean }> {
  let result = first;
  let rounds = 0;
  while (result.resultType === "input_required") {
    if (rounds >= loop.maxRounds) throw new InputRoundsExceededError(loop.method, rounds, result);
    rounds += 1;
    const inputResponses = await answerInputRequests(
      loop.method,
      result,
      loop.handlers,
      loop.signal ?? loop.abort?.signal,
      loop.origin,
    );
    // Rebuilt from the caller's params each round, so no stale state or answers leak in.
    const { inputResponses: _answers, requestState: _state, ...base } = loop.params ?? {};
    const retry: JsonObject = { ...base, inputResponses };
    if (result.requestState !== undefined) {
      if (typeof result.requestState !== "string") {
        throw new InvalidResultError(loop.method, result, "requestState must be a string");
      }
      retry.requestState = result.requestState;
    }
    result = await loop.send(retry);
  }
  return { result, retried: rounds > 0 };
}

/**
 * Answers each input request with the matching handler: one after the other in key order, or all
 * at once with `handlers.concurrent`.
 */
export async function answerInputRequests(
  method: string,
  result: JsonObject,
  handlers: ClientHandlers,
  signal: AbortSignal | undefined,
  origin?: unknown,
): Promise<JsonObject> {
  const requests = result.inputRequests ?? {};
  if (!isPlainObject(requests)) {
    throw new InvalidResultError(method, result, "inputRequests must be an object");
  }
  const base = signal ?? new AbortController().signal;
  const answers: [string, () => Promise<JsonObject>][] = [];
  for (const [key, request] of Object.entries(requests)) {
    if (!isPlainObject(request) || typeof request.method !== "string") {
      throw new InvalidResultError(method, result, `inputRequests.${key} is not a request`);
    }
    const params = isPlainObject(request.params) ? request.params : {};
    const context = { signal: base, inputKey: key, origin };
    switch (request.method) {
      case "elicitation/create": {
        const elicitation = handlers.elicitation;
        if (!elicitation) throw missingHandler(method, result, request.method, "elicitation");
        answers.push([
          key,
          async () => withElicitationDefaults(params, await elicitation(params, context)),
        ]);
        break;
      }
      case "sampling/createMessage": {
        const sampling = handlers.sampling;
        if (!sampling) throw missingHandler(method, result, request.method, "sampling");
        answers.push([key, async () => sampling(params, context)]);
        break;
      }
      case "roots/list": {
        const roots = handlers.roots;
        if (!roots) throw missingHandler(method, result, request.method, "roots");
        answers.push([key, async () => ({ roots: await roots(context) })]);
        break;
      }
      default:
        throw new InputRequiredError(
          method,
          result,
          `unknown input request method ${JSON.stringify(request.method)} (inputRequests.${key})`,
        );
    }
  }
  const responses: JsonObject = {};
  if (handlers.concurrent === true) {
    const settled = await Promise.all(answers.map(([, answer]) => answer()));
    answers.forEach(([key], index) => {
      responses[key] = settled[index]!;
    });
  } else {
    for (const [key, answer] of answers) responses[key] = await answer();
  }
  return responses;
}

/**
 * An accepted form elicitation gets the schema's `default` for every property the user left
 * without a value, so servers see complete answers.
 */
export function withElicitationDefaults(params: JsonObject, answer: JsonObject): JsonObject {
  if (answer.action !== "accept" || params.mode === "url") return answer;
  const schema = params.requestedSchema;
  const properties = isPlainObject(schema) ? schema.properties : undefined;
  if (!isPlainObject(properties)) return answer;
  const content: JsonObject = isPlainObject(answer.content) ? { ...answer.content } : {};
  let filled = false;
  for (const [name, property] of Object.entries(properties)) {
    if (content[name] !== undefined || !isPlainObject(property)) continue;
    if (property.default === undefined) continue;
    content[name] = property.default;
    filled = true;
  }
  return filled ? { ...answer, content } : answer;
}

function missingHandler(
  method: string,
  result: JsonObject,
  inputMethod: string,
  option: string,
): InputRequiredError {
  return new InputRequiredError(
    method,
    result,
    `no ${option} handler configured for ${inputMethod}`,
  );
}
