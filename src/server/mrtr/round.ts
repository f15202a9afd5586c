import { InvalidParamsError, isPlainObject } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { keepLatest } from "../../platform/keep-latest.js";
import type { RequestStateCodec, StateBinding } from "./request-state.js";

/** A server-to-client request a handler needs answered: elicitation, sampling or roots. */
export interface InputRequest {
  method: "elicitation/create" | "sampling/createMessage" | "roots/list";
  params?: JsonObject;
}

/** The methods whose handlers may ask for input (2026-07-28 MRTR "Supported Requests"). */
export const INPUT_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);

/**
 * Thrown into a handler to stop it when it asked for input that has not arrived yet. Not an
 * error: the request ends with an InputRequiredResult. Handlers must let it propagate; one that
 * swallows it still ends with input_required, since the round remembers what was asked.
 */
export class InputRequiredSignal extends Error {
  override name = "InputRequiredSignal";
  constructor() {
    super("input required: the handler is stopped and re-run when the client answers");
  }
}

/** The binding of a request: method plus tool/prompt name and arguments, or resource URI. */
function stateBinding(method: string, params: JsonObject, principal: unknown): StateBinding {
  if (method === "resources/read") {
    return { method, target: typeof params.uri === "string" ? params.uri : "", principal };
  }
  const target = typeof params.name === "string" ? params.name : "";
  return { method, target, principal, arguments: params.arguments };
}

// Kept so that V8 keeps this class's maps (keep-latest.ts).
const keepRound = keepLatest();

/**
 * One execution of a handler on a modern request (re-execution model). The handler runs from
 * the start on every retry; each input call gets the answer recorded for its key (from earlier
 * rounds, carried in the signed requestState, or from this retry's inputResponses). A call
 * without an answer is recorded as pending and stops the handler.
 */
export class InputRound {
  private readonly codec: RequestStateCodec;
  private readonly binding: StateBinding;
  private readonly round: number;
  /** Answers usable in this execution: recorded ones and newly accepted ones. */
  private readonly answers: Record<string, JsonObject>;
  private readonly responses: Record<string, unknown>;
  /** Keys the previous round asked for: the only ones this retry may answer (any on round 0). */
  private readonly answerable: Set<string> | undefined;
  private readonly pending: Record<string, InputRequest> = {};
  private failure: Error | undefined;
  private autoKey = 0;

  /** Reads requestState and inputResponses from a request; throws -32602 for bad ones. */
  constructor(codec: RequestStateCodec, method: string, params: JsonObject, principal: unknown) {
    keepRound(this);
    this.codec = codec;
    this.binding = stateBinding(method, params, principal);
    const responses = params.inputResponses;
    if (responses !== undefined && !isPlainObject(responses)) {
      throw new InvalidParamsError("inputResponses must be an object keyed by input request id");
    }
    this.responses = responses ?? {};
    if (params.requestState === undefined) {
      // A first request may carry answers up front (a client that knows what will be asked):
      // they are taken for whatever keys the handler asks. This grants nothing a round trip
      // would not, since every answer is the client's word either way.
      this.round = 0;
      this.answers = {};
      this.answerable = undefined;
    } else {
      const state = codec.open(params.requestState, this.binding);
      this.round = state.round;
      this.answers = { ...state.answers };
      this.answerable = new Set(state.asked);
    }
  }

  /** A key for an input call that did not name one: stable by call order across re-runs. */
  nextKey(): string {
    this.autoKey += 1;
    return `input-${this.autoKey}`;
  }

  /** Answers for every key, or stops the handler after recording what is still missing. */
  ask(requests: Record<string, InputRequest>): Promise<Record<string, JsonObject>> {
    const found: Record<string, JsonObject> = {};
    let missing = false;
    for (const [key, request] of Object.entries(requests)) {
      const answer = this.answerFor(key, request);
      if (answer) found[key] = answer;
      else {
        this.pending[key] = request;
        missing = true;
      }
    }
    if (this.failure) return Promise.reject(this.failure);
    if (missing) return Promise.reject(new InputRequiredSignal());
    return Promise.resolve(found);
  }

  /**
   * How the request ends, whatever the handler did: a validation failure, or the input still
   * needed, or undefined when the handler's own outcome stands.
   */
  outcome(): { error: Error } | { result: JsonObject } | undefined {
    if (this.failure) return { error: this.failure };
    const asked = Object.keys(this.pending);
    if (asked.length === 0) return undefined;
    const requestState = this.codec.seal(this.binding, {
      round: this.round + 1,
      answers: this.answers,
      asked,
    });
    return {
      result: { resultType: "input_required", inputRequests: { ...this.pending }, requestState },
    };
  }

  private answerFor(key: string, request: InputRequest): JsonObject | undefined {
    const recorded = this.answers[key];
    if (recorded) return recorded;
    if (this.answerable?.has(key) === false || !(key in this.responses)) return undefined;
    const value = this.responses[key];
    const problem = validateResponse(request.method, value);
    if (problem) {
      this.failure ??= new InvalidParamsError(`inputResponses.${key}: ${problem}`, { key });
      return undefined;
    }
    const answer = value as JsonObject;
    this.answers[key] = answer;
    return answer;
  }
}

/** Why a value is not a valid result for the method, or undefined if it is. */
export function validateResponse(
  method: InputRequest["method"],
  value: unknown,
): string | undefined {
  if (!isPlainObject(value)) return `expected a ${resultName(method)} object`;
  switch (method) {
    case "elicitation/create":
      if (value.action !== "accept" && value.action !== "decline" && value.action !== "cancel") {
        return 'an ElicitResult needs "action": "accept", "decline" or "cancel"';
      }
      if (value.content !== undefined && !isPlainObject(value.content)) {
        return "ElicitResult content must be an object";
      }
      return undefined;
    case "sampling/createMessage":
      if (
        typeof value.role !== "string" ||
        (!isPlainObject(value.content) && !Array.isArray(value.content))
      ) {
        return 'a CreateMessageResult needs "role" and "content"';
      }
      return undefined;
    case "roots/list":
      if (
        !Array.isArray(value.roots) ||
        !value.roots.every((root) => isPlainObject(root) && typeof root.uri === "string")
      ) {
        return 'a ListRootsResult needs "roots": [{ uri }]';
      }
      return undefined;
  }
}

function resultName(method: InputRequest["method"]): string {
  if (method === "elicitation/create") return "ElicitResult";
  if (method === "sampling/createMessage") return "CreateMessageResult";
  return "ListRootsResult";
}
