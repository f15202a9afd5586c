import {
  ErrorCode,
  InternalError,
  isPlainObject,
  JsonRpcError,
  MissingRequiredClientCapabilityError,
} from "../jsonrpc/errors.js";
import type { JsonObject, JsonRpcId } from "../jsonrpc/types.js";
import { keepLatest } from "../platform/keep-latest.js";
import { listenForAbort } from "../protocol/lazy-abort.js";
import type { ClientCapabilities, Implementation, LoggingLevel } from "../protocol/mcp-types.js";
import { LOGGING_LEVELS } from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";
import type { InputRequest, InputRound } from "./mrtr/round.js";
import { requirementError } from "./required-capabilities.js";

export type LogFunction = (data: unknown, logger?: string) => Promise<void>;
export type RequestLogger = Record<LoggingLevel, LogFunction>;

/** What is known about a request before its handler runs. */
interface RequestFacts {
  requestId: JsonRpcId;
  method: string;
  /** Aborted when the client cancels, disconnects, or the server shuts down. */
  signal: AbortSignal;
  /**
   * Calls `listener` once when `signal` would abort (at once if it has); returns the way to stop
   * listening. Unlike reading `signal`, makes no AbortSignal (costly on Node 20). Absent on
   * contexts that have nothing but the signal.
   */
  whenAborted?(listener: (reason: unknown) => void): () => void;
  era: Era;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  /** Whoever the transport authenticated (HTTP auth), if anyone. */
  principal: unknown;
  /** The request's `_meta`, as sent. */
  meta: JsonObject;
}

/** Everything a tool, resource, prompt or completion handler may know about its request. */
export interface HandlerContext extends RequestFacts {
  /**
   * Reports progress when the client asked for it (a progressToken); otherwise does nothing.
   * `progress` must increase with every call of one request: a value that is not greater than
   * the last one sent (or not a finite number) is dropped, never sent.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Request-scoped log: sent only at or above the level this request (or legacy session) asked for. */
  log: RequestLogger;
  /** The least severe level `log` sends; undefined when this request gets no logs at all. */
  logLevel?: LoggingLevel;
  /**
   * Throws -32021 (MissingRequiredClientCapability) unless the client declared all of these,
   * nested ones included (`{ sampling: { tools: {} } }`). For needs known up front, prefer
   * `server.tool(..., { requiredClientCapabilities })`: checked before anything streams.
   */
  requireClientCapabilities(required: Record<string, JsonObject>): void;
  /**
   * Asks the user through the client (`elicitation/create`); resolves with the ElicitResult.
   * Throws -32021 when the client did not declare `elicitation`.
   *
   * Era-independent. Legacy: a real server-to-client request. Modern (multi round-trip): the
   * request ends with an InputRequiredResult and the handler is re-run from the start when the
   * client retries with the answer, so everything a handler does before its input calls must be
   * safe to repeat (idempotent). Input calls are matched to answers by key: `options.key`, or
   * "input-1", "input-2"... by call order, so a handler must ask in the same order every time.
   */
  elicit(params: JsonObject, options?: InputOptions): Promise<JsonObject>;
  /** Asks the client's model (`sampling/createMessage`); see elicit() for how. */
  sample(params: JsonObject, options?: InputOptions): Promise<JsonObject>;
  /** Asks for the client's roots (`roots/list`); see elicit() for how. */
  listRoots(options?: InputOptions): Promise<JsonObject>;
  /**
   * Asks several things at once (one round on modern connections, concurrent requests on legacy
   * ones) and resolves with the answers by key. Inputs the client has no capability for are left
   * out (never sent) and absent from the answers; only when none is possible does it throw -32021.
   */
  input(requests: Record<string, InputRequest>): Promise<Record<string, JsonObject>>;
  /**
   * Turns this tools/call into a task (the tasks extension), for tools registered with
   * `task: { support, start: "handler" }`: resolves true once the task is stored and the client
   * has its CreateTaskResult; from then on input calls park the task (tasks/update answers
   * them) and `signal` follows tasks/cancel. Resolves false where no task can be made (another
   * method or tool, or a client without the extension): the handler simply carries on.
   */
  startTask(): Promise<boolean>;
}

export interface InputOptions {
  /** The input request id on the wire (modern); default "input-N" by call order. */
  key?: string;
}

export type { InputRequest } from "./mrtr/round.js";

/**
 * The client capabilities a server-to-client request needs and the client did not declare, in
 * the shape of -32021's data.requiredCapabilities; undefined when it may be sent. Elicitation
 * has two modes: `{}` declares form only, `{ url: {} }` (alone) URL only.
 */
function missingCapability(
  request: InputRequest,
  declared: ClientCapabilities,
): Record<string, JsonObject> | undefined {
  switch (request.method) {
    case "sampling/createMessage":
      return missingSamplingCapability(request.params, declared.sampling as JsonObject | undefined);
    case "roots/list":
      return declared.roots === undefined ? { roots: {} } : undefined;
    case "elicitation/create": {
      const elicitation = declared.elicitation as JsonObject | undefined;
      const urlMode = request.params?.mode === "url";
      if (elicitation === undefined) return { elicitation: urlMode ? { url: {} } : {} };
      if (urlMode) return elicitation.url === undefined ? { elicitation: { url: {} } } : undefined;
      const formDeclared = Object.keys(elicitation).length === 0 || elicitation.form !== undefined;
      return formDeclared ? undefined : { elicitation: { form: {} } };
    }
    default:
      throw new InternalError(`Cannot ask the client for ${String(request.method)}`);
  }
}

/**
 * Sampling needs more than `sampling` for two kinds of request (2026-07-28
 * client/sampling.mdx, Capabilities; the same in 2025-11-25): tool use (`tools` or
 * `toolChoice`) MUST NOT go to a client without `sampling.tools`, and `includeContext` other
 * than "none" SHOULD NOT go to one without `sampling.context`. The stricter reading for both:
 * refused with -32021 naming exactly the sub-capabilities missing.
 */
function missingSamplingCapability(
  params: JsonObject | undefined,
  declared: JsonObject | undefined,
): Record<string, JsonObject> | undefined {
  const needs: JsonObject = {};
  if (params?.tools !== undefined || params?.toolChoice !== undefined) {
    if (!isPlainObject(declared?.tools)) needs.tools = {};
  }
  const context = params?.includeContext;
  if (context !== undefined && context !== "none" && !isPlainObject(declared?.context)) {
    needs.context = {};
  }
  if (declared === undefined || Object.keys(needs).length > 0) return { sampling: needs };
  return undefined;
}

/** Adds `missing` to `into`, one level deep: two inputs that lack sampling.tools and
 * sampling.context need `{ sampling: { tools, context } }`, not the last one alone. */
function addRequirement(into: Record<string, JsonObject>, missing: Record<string, JsonObject>) {
  for (const [name, value] of Object.entries(missing)) {
    into[name] = Object.assign({}, into[name], value);
  }
}

export type ClientRequestMethod = InputRequest["method"];

export interface ContextInputs extends Omit<RequestFacts, "signal" | "whenAborted"> {
  /**
   * Where the request's AbortSignal comes from. Read only when the handler reads `signal`: the
   * session makes a request's AbortController on first use (costly on Node 20, rarely needed).
   * `whenAborted`, where the request has it, tells of the abort without making one.
   */
  request: {
    readonly signal: AbortSignal;
    whenAborted?(listener: (reason: unknown) => void): () => void;
  };
  /** Minimum level to emit, or undefined to emit no logs at all. */
  logLevel: LoggingLevel | undefined;
  notify(method: string, params: JsonObject): Promise<void>;
  /**
   * Sends a request to the client on behalf of this request: a real server-to-client request
   * on legacy connections. Absent where the era has no such channel (modern: multi round-trip
   * requests take that role).
   */
  requestClient?(method: ClientRequestMethod, params: JsonObject): Promise<JsonObject>;
  /** Modern requests that may ask for input: the multi round-trip state of this execution. */
  inputRound?: InputRound;
  /** Set for tool calls that may become a task (see HandlerContext.startTask). */
  startTask?(): Promise<boolean>;
  /**
   * Legacy: the connection carrying the session (lives as long as it, a second `initialize`
   * included), for per-session limits such as the tasks quota.
   */
  legacyConnection?: LegacyConnectionRef;
}

/** A legacy connection as per-session bookkeeping sees it. */
export interface LegacyConnectionRef {
  /** The session's id where it outlives the connection (see Transport.sessionId). */
  readonly sessionId?: string;
}

/** The legacy connection `context` runs on (see ContextInputs.legacyConnection), if any. */
export function legacyConnectionOf(context: HandlerContext): LegacyConnectionRef | undefined {
  return context instanceof RequestHandlerContext ? context.inputs.legacyConnection : undefined;
}

export function createHandlerContext(inputs: ContextInputs): HandlerContext {
  return new RequestHandlerContext(inputs);
}

/**
 * A context for the same request with some inputs replaced, and those inputs, which the caller
 * may change later (a tool call that becomes a task switches where input and signal go).
 */
export function deriveHandlerContext(
  context: HandlerContext,
  overrides: Partial<ContextInputs>,
): { context: HandlerContext; inputs: ContextInputs } {
  if (!(context instanceof RequestHandlerContext)) {
    throw new InternalError("a task can only be made from a context this server created");
  }
  const inputs: ContextInputs = Object.assign({}, context.inputs, overrides);
  return { context: new RequestHandlerContext(inputs), inputs };
}

// Kept so that V8 keeps this class's maps (keep-latest.ts).
const keepContext = keepLatest();

/**
 * A class rather than an object literal: `signal`, `log` and the methods are getters on the
 * prototype, so no AbortSignal, log functions or method closures are made for a request whose
 * handler never uses them (most use none: the closures were ~300 bytes per request). (Getters
 * in an object literal were tried: they made V8 keep more of every request alive across
 * scavenges.) A getter hands back a function that needs no `this`, so destructuring
 * (`const { progress } = context`) still works.
 */
class RequestHandlerContext implements HandlerContext {
  readonly requestId: JsonRpcId;
  readonly method: string;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  readonly principal: unknown;
  readonly meta: JsonObject;
  readonly logLevel: LoggingLevel | undefined;
  readonly inputs: ContextInputs;
  private logger: RequestLogger | undefined;
  private methods: ContextMethods | undefined;

  constructor(inputs: ContextInputs) {
    keepContext(this);
    this.inputs = inputs;
    this.requestId = inputs.requestId;
    this.method = inputs.method;
    this.era = inputs.era;
    this.protocolVersion = inputs.protocolVersion;
    this.clientCapabilities = inputs.clientCapabilities;
    this.clientInfo = inputs.clientInfo;
    this.principal = inputs.principal;
    this.meta = inputs.meta;
    this.logLevel = inputs.logLevel;
  }

  get signal(): AbortSignal {
    return this.inputs.request.signal;
  }

  whenAborted(listener: (reason: unknown) => void): () => void {
    const { request } = this.inputs;
    if (request.whenAborted) return request.whenAborted(listener);
    return listenForAbort(request.signal, listener);
  }

  get log(): RequestLogger {
    this.logger ??= makeLogger(this.inputs);
    return this.logger;
  }

  get requireClientCapabilities(): HandlerContext["requireClientCapabilities"] {
    return this.made().requireClientCapabilities;
  }

  get input(): HandlerContext["input"] {
    return this.made().input;
  }

  get elicit(): HandlerContext["elicit"] {
    return this.made().elicit;
  }

  get sample(): HandlerContext["sample"] {
    return this.made().sample;
  }

  get listRoots(): HandlerContext["listRoots"] {
    return this.made().listRoots;
  }

  get progress(): HandlerContext["progress"] {
    return this.made().progress;
  }

  get startTask(): HandlerContext["startTask"] {
    return this.inputs.startTask ?? notATask;
  }

  /** The methods, all made on the first read of any (they share their helpers). */
  private made(): ContextMethods {
    this.methods ??= makeMethods(this.inputs);
    return this.methods;
  }
}

const notATask = (): Promise<boolean> => Promise.resolve(false);

type ContextMethods = Pick<
  HandlerContext,
  "requireClientCapabilities" | "input" | "elicit" | "sample" | "listRoots" | "progress"
>;

function makeMethods(inputs: ContextInputs): ContextMethods {
  const token = inputs.meta.progressToken;
  const hasToken = typeof token === "string" || typeof token === "number";
  let lastProgress = Number.NEGATIVE_INFINITY;
  const input = (requests: Record<string, InputRequest>) => askClient(inputs, requests);
  const askOne = async (
    method: ClientRequestMethod,
    params: JsonObject | undefined,
    options: InputOptions | undefined,
  ): Promise<JsonObject> => {
    const request: InputRequest = params === undefined ? { method } : { method, params };
    const missing = missingCapability(request, inputs.clientCapabilities);
    if (missing) throw new MissingRequiredClientCapabilityError(missing);
    const key = options?.key ?? inputs.inputRound?.nextKey() ?? "input";
    const answers = await input({ [key]: request });
    return answers[key]!;
  };
  return {
    requireClientCapabilities: (required) => {
      // Nested too: { sampling: { tools: {} } } is not met by a bare `sampling`.
      const lacking = requirementError(required as JsonObject, inputs.clientCapabilities);
      if (lacking) throw lacking;
    },
    input,
    elicit: (params, options) => askOne("elicitation/create", params, options),
    sample: (params, options) => askOne("sampling/createMessage", params, options),
    listRoots: (options) => askOne("roots/list", undefined, options),
    progress: (progress, total, message) => {
      // "The progress value MUST increase with each notification" (2026-07-28
      // basic/patterns/progress.mdx): a repeat or a step back would break that promise.
      if (!hasToken || !(progress > lastProgress) || !Number.isFinite(progress)) {
        return Promise.resolve();
      }
      lastProgress = progress;
      const params: JsonObject = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      return inputs.notify("notifications/progress", params);
    },
  };
}

function makeLogger(inputs: ContextInputs): RequestLogger {
  const threshold =
    inputs.logLevel === undefined
      ? Number.POSITIVE_INFINITY
      : LOGGING_LEVELS.indexOf(inputs.logLevel);
  const log = {} as RequestLogger;
  for (const [rank, level] of LOGGING_LEVELS.entries()) {
    log[level] = (data, logger) => {
      if (rank < threshold) return Promise.resolve();
      const params: JsonObject = { level, data };
      if (logger !== undefined) params.logger = logger;
      return inputs.notify("notifications/message", params);
    };
  }
  return log;
}

/** Asks for every input the client can answer: legacy by real requests, modern by MRTR. */
async function askClient(
  inputs: ContextInputs,
  requests: Record<string, InputRequest>,
): Promise<Record<string, JsonObject>> {
  const possible: Record<string, InputRequest> = {};
  const lacking: Record<string, JsonObject> = {};
  for (const [key, request] of Object.entries(requests)) {
    const missing = missingCapability(request, inputs.clientCapabilities);
    if (missing) addRequirement(lacking, missing);
    else possible[key] = request;
  }
  if (Object.keys(possible).length === 0) {
    if (Object.keys(lacking).length > 0) throw new MissingRequiredClientCapabilityError(lacking);
    return {};
  }
  const { requestClient, inputRound } = inputs;
  if (requestClient) {
    const entries = await Promise.all(
      Object.entries(possible).map(
        async ([key, request]) =>
          [key, await requestClient(request.method, request.params ?? {})] as const,
      ),
    );
    return Object.fromEntries(entries);
  }
  if (inputRound) return inputRound.ask(possible);
  throw new JsonRpcError(
    ErrorCode.InternalError,
    `Asking the client for input is only possible while handling tools/call, prompts/get or resources/read (not ${inputs.method})`,
  );
}
