/**
 * Calls forwarded to the gateway's child that outlive one HTTP round.
 *
 * A modern HTTP client answers questions in rounds (multi round-trip): its request ends with an
 * InputRequiredResult and it retries with the answers. The child's call must not fail in
 * between: a legacy child would see its elicitation or roots request fail (and log it), then be
 * asked the whole call again. So the child's call stays open and its question pending, parked,
 * until the retry comes. The retry finds its call through the input keys it answers (they name
 * the parked call), and must repeat the same request from the same principal. A parked call the
 * client never comes back for is cancelled on the child after a while; only so many are kept.
 */
import { randomUUID } from "node:crypto";
import { ErrorCode, isPlainObject, JsonRpcError, LocalError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import { type AbortSource, LazyAbort, listenForAbort } from "../../protocol/lazy-abort.js";
import type { Progress } from "../../protocol/outgoing.js";
import type { ClientRequestMethod, HandlerContext } from "../../server/context.js";
import { InputRequiredSignal } from "../../server/mrtr/round.js";

/** How long a parked call waits for its client's retry (a person may be filling a form). */
export const PARKED_CALL_MS = 5 * 60_000;
/** Parked calls kept at once; the oldest is given up beyond this. */
export const MAX_PARKED_CALLS = 1000;

const KEY_PREFIX = "gateway-";

interface Question {
  key: string;
  method: ClientRequestMethod;
  params: JsonObject;
  resolve(answer: JsonObject): void;
  reject(error: Error): void;
  /** The round it was last put to (a modern round answers it or asks the client). */
  askedIn: HandlerContext | undefined;
  /** Routed here for want of a better guess (a legacy child's request names no call). */
  guessed: boolean;
}

type Outcome = { result: JsonObject } | { error: unknown };

/**
 * One call on the child and the questions it asked, across the HTTP client's rounds. Its
 * timeout counts only the child's own time: it stops while a question waits for the client's
 * answer (a person may take minutes) and restarts with every answer and progress notification.
 */
export class ChildCall {
  /** Made when first asked for: only a call that asks or parks needs a name. */
  private ownId: string | undefined;
  /** Worked out when first asked for (a retry's lookup), most calls never are: see `binding`. */
  private readonly bindingOf: () => string;
  private ownBinding: string | undefined;
  private readonly timeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  /** No AbortSignal unless something needs one: on Node 20 each costs more than the call. */
  private readonly cancellation = new LazyAbort();
  private readonly questions: Question[] = [];
  /** The child's answer once it came (the round waiting on it is woken). */
  private outcome: Outcome | undefined;
  private asked = 0;
  private context: HandlerContext | undefined;
  private wake: (() => void) | undefined;
  private settled = false;

  constructor(binding: () => string, timeoutMs: number) {
    this.bindingOf = binding;
    this.timeoutMs = timeoutMs;
  }

  get id(): string {
    this.ownId ??= randomUUID();
    return this.ownId;
  }

  /** Its id if it has one yet (a call never asked for it was never parked). */
  get idIfNamed(): string | undefined {
    return this.ownId;
  }

  /** What a retry must repeat to resume it: principal, method and forwarded params. */
  get binding(): string {
    this.ownBinding ??= this.bindingOf();
    return this.ownBinding;
  }

  /** Cancels the child's call (its client left, or never came back): RequestOptions.abort. */
  get abort(): AbortSource {
    return this.cancellation;
  }

  /** The call on the child, made once (with no timeout of its own: this one replaces it). */
  begin(request: () => Promise<JsonObject>, onSettled: () => void): void {
    this.arm();
    const settle = (outcome: Outcome) => {
      this.outcome = outcome;
      this.settled = true;
      clearTimeout(this.timer);
      // Questions still open belong to a call that is over.
      for (const question of this.questions.splice(0)) {
        question.reject(new JsonRpcError(ErrorCode.InternalError, "the call has ended"));
      }
      onSettled();
      this.wake?.();
    };
    request().then(
      (result) => settle({ result }),
      (error: unknown) => settle({ error }),
    );
  }

  /** Progress from the child, for the round running now (none while parked). */
  progress(progress: Progress): void {
    this.arm();
    void this.context?.progress(progress.progress, progress.total, progress.message);
  }

  /**
   * The child asks its client something: answered in this round or a later one. `guessed`:
   * the question names no call and was routed here because this is the only call open.
   */
  ask(
    method: ClientRequestMethod,
    params: JsonObject,
    guessed = false,
    /** The child's own key for it (a modern child's input request), kept for the client. */
    childKey?: string,
  ): Promise<JsonObject> {
    if (this.settled) {
      return Promise.reject(new JsonRpcError(ErrorCode.InternalError, "the call has ended"));
    }
    return new Promise((resolve, reject) => {
      this.asked += 1;
      const key = childKey ?? `${KEY_PREFIX}${this.id}-${this.asked}`;
      this.questions.push({ key, method, params, resolve, reject, askedIn: undefined, guessed });
      this.arm();
      this.wake?.();
    });
  }

  /**
   * One HTTP round of the call: resolves with the child's result, or throws the stop signal
   * after parking when a question needs the client's next round.
   */
  async round(context: HandlerContext): Promise<JsonObject> {
    this.context = context;
    const cancel = (reason: unknown) => this.cancellation.abort(reason);
    const stopWatching = context.whenAborted
      ? context.whenAborted(cancel)
      : listenForAbort(context.signal, cancel);
    try {
      for (;;) {
        // Most calls ask nothing: no round of questions to await then.
        const stop = this.hasFresh(context) ? await this.putQuestions(context) : undefined;
        if (stop) throw stop;
        // Woken by the child's answer or by a question, whichever comes first.
        if (this.outcome === undefined && !this.hasFresh(context)) await this.woken();
        const next = this.outcome;
        if (next === undefined) continue;
        if ("error" in next) throw next.error;
        return next.result;
      }
    } finally {
      stopWatching();
      this.context = undefined;
      this.wake = undefined;
    }
  }

  /** Whether the retry answers one of this call's questions. */
  answeredBy(keys: readonly string[]): boolean {
    return this.questions.some((question) => keys.includes(question.key));
  }

  /** Gives up on the call: its questions fail and the child is told to stop. */
  abandon(reason: string): void {
    for (const question of this.questions.splice(0)) {
      question.reject(new JsonRpcError(ErrorCode.InternalError, reason));
    }
    clearTimeout(this.timer);
    this.cancellation.abort(new Error(reason));
  }

  /** (Re)starts the child's clock, unless a question waits for the client. */
  private arm(): void {
    clearTimeout(this.timer);
    // A call the gateway runs as a task has no clock of its own: the task's TTL bounds it.
    if (this.settled || this.questions.length > 0 || !Number.isFinite(this.timeoutMs)) return;
    this.timer = setTimeout(() => {
      const seconds = this.timeoutMs / 1000;
      this.cancellation.abort(
        new LocalError("timeout", `the server did not answer within ${seconds} s (--timeout)`),
      );
    }, this.timeoutMs);
    this.timer.unref();
  }

  /** Questions not yet put to this round (one may have come while the last ones were put). */
  private hasFresh(context: HandlerContext): boolean {
    return this.questions.some((question) => question.askedIn !== context);
  }

  private woken(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /**
   * Puts every question not yet asked in this round to the round's client. A modern round
   * answers at once from the retry's inputResponses, or stops to ask; a legacy session sends
   * real requests, answered whenever its client answers.
   */
  private async putQuestions(context: HandlerContext): Promise<InputRequiredSignal | undefined> {
    const fresh = this.questions.filter((question) => question.askedIn !== context);
    if (fresh.length === 0) return undefined;
    const asks = fresh.map(async (question) => {
      question.askedIn = context;
      try {
        const answer = await askOf(context, question);
        this.forget(question);
        question.resolve(answer);
        return undefined;
      } catch (error) {
        // Stays pending: the client answers it in its next round.
        if (error instanceof InputRequiredSignal) return error;
        this.forget(question);
        question.reject(error as Error);
        return undefined;
      }
    });
    if (context.era !== "modern") return undefined;
    const outcomes = await Promise.all(asks);
    return outcomes.find((outcome) => outcome !== undefined);
  }

  private forget(question: Question): void {
    const index = this.questions.indexOf(question);
    if (index !== -1) this.questions.splice(index, 1);
    this.arm();
  }
}

function askOf(context: HandlerContext, question: Question): Promise<JsonObject> {
  // A client without roots has none to give; the question (a legacy child's, maybe asked for
  // no call at all) is no reason to fail this call. Known to be the call's own, it gets -32021.
  if (question.method === "roots/list" && question.guessed && !context.clientCapabilities.roots) {
    return Promise.resolve({ roots: [] });
  }
  const options = { key: question.key };
  if (question.method === "elicitation/create") return context.elicit(question.params, options);
  if (question.method === "sampling/createMessage") {
    return context.sample(question.params, options);
  }
  return context.listRoots(options);
}

/** The calls parked between rounds, found again by the retry that answers them. */
export class ParkedCalls {
  private readonly parked = new Map<string, { call: ChildCall; timer: NodeJS.Timeout }>();
  private readonly waitMs: number;
  private readonly limit: number;

  constructor(waitMs = PARKED_CALL_MS, limit = MAX_PARKED_CALLS) {
    this.waitMs = waitMs;
    this.limit = limit;
  }

  get size(): number {
    return this.parked.size;
  }

  park(call: ChildCall): void {
    if (this.parked.size >= this.limit) {
      const oldest = this.parked.keys().next().value!;
      this.giveUp(oldest, "too many calls wait for their clients' answers");
    }
    const timer = setTimeout(
      () => this.giveUp(call.id, "its client did not come back with the answers"),
      this.waitMs,
    );
    timer.unref();
    this.parked.set(call.id, { call, timer });
  }

  /** The parked call a retry resumes: one whose question it answers, with the same binding. */
  resume(params: JsonObject, bindingOf: () => string): ChildCall | undefined {
    if (params.requestState === undefined || !isPlainObject(params.inputResponses)) {
      return undefined;
    }
    const binding = bindingOf();
    const keys = Object.keys(params.inputResponses);
    const found = (id: string) => {
      const entry = this.parked.get(id);
      if (!entry || entry.call.binding !== binding || !entry.call.answeredBy(keys))
        return undefined;
      clearTimeout(entry.timer);
      this.parked.delete(id);
      return entry.call;
    };
    // The gateway's own keys name their call.
    for (const key of keys) {
      if (!key.startsWith(KEY_PREFIX)) continue;
      const call = found(key.slice(KEY_PREFIX.length, key.lastIndexOf("-")));
      if (call) return call;
    }
    // A modern child's keys are its own: the call is the oldest parked one of this principal,
    // method and params that asked them.
    for (const [id, entry] of this.parked) {
      if (entry.call.binding === binding && entry.call.answeredBy(keys)) return found(id);
    }
    return undefined;
  }

  /** The call ended while parked (the child answered anyway, or the connection closed). */
  remove(call: ChildCall): void {
    const id = call.idIfNamed;
    const entry = id === undefined ? undefined : this.parked.get(id);
    if (entry?.call !== call) return;
    clearTimeout(entry.timer);
    this.parked.delete(id!);
  }

  private giveUp(id: string, reason: string): void {
    const entry = this.parked.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.parked.delete(id);
    entry.call.abandon(reason);
  }
}
