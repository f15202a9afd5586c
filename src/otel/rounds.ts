/**
 * Multi round-trip requests in one trace. A modern server that needs input answers
 * `input_required` with a `requestState`; the client retries with it as a new request (a new id,
 * a new CLIENT span). Without an active span around the whole call, each round would start a
 * trace of its own, so the client side remembers each round's span by the `requestState` it
 * received and hangs the next round under it. Bounded: a round never retried is forgotten once
 * MAX_ROUNDS newer ones came.
 */
import type { SpanContext } from "@opentelemetry/api";
import type { JsonObject } from "../jsonrpc/types.js";

const MAX_ROUNDS = 1024;

export class RoundTrail {
  /** requestState → the span of the round that received it, oldest first. */
  private readonly spans = new Map<string, SpanContext>();

  /** The span of the round whose requestState `params` carries (and forgets it: used once). */
  previous(params: JsonObject): SpanContext | undefined {
    const state = params.requestState;
    if (typeof state !== "string") return undefined;
    const span = this.spans.get(state);
    if (span !== undefined) this.spans.delete(state);
    return span;
  }

  /** Notes `span` as the round that got `result`, when the result asks for another round. */
  note(result: unknown, span: SpanContext | undefined): void {
    if (span === undefined || typeof result !== "object" || result === null) return;
    const { resultType, requestState } = result as { resultType?: unknown; requestState?: unknown };
    if (resultType !== "input_required" || typeof requestState !== "string") return;
    if (this.spans.size >= MAX_ROUNDS) {
      const oldest = this.spans.keys().next().value;
      if (oldest !== undefined) this.spans.delete(oldest);
    }
    this.spans.set(requestState, span);
  }
}
