/**
 * Resuming, on this instance, a stream another instance writes (or wrote): its events come from
 * the shared event store, replayed after the client's cursor and then followed until the
 * stream's end. A stream whose instance is dead (its lease ran out) can never end by itself: it
 * gets the RESTARTED_BEFORE_REPLY error reply, exactly once however many instances try at once
 * (the append is a compare-and-set on the sequence number).
 */
import { ErrorCode } from "../../../jsonrpc/errors.js";
import type { JsonRpcId } from "../../../jsonrpc/types.js";
import { ignoreError } from "../../../text/ignored-error.js";
import { SseStream } from "../sse.js";
import { AppendConflict, type ClusterEventStore } from "./cluster.js";
import { RESTARTED_BEFORE_REPLY } from "./legacy-responses.js";
import type { ReplaySend } from "./resumable-stream.js";

const FINISH_ATTEMPTS = 5;

/**
 * Ends a request stream nobody will finish: its error reply (unless its reply is in already),
 * then its end. Safe to run on several instances at once.
 */
export async function finishOrphan(
  events: ClusterEventStore,
  sessionId: string,
  streamId: string,
  requestId: JsonRpcId,
): Promise<void> {
  for (let attempt = 0; attempt < FINISH_ATTEMPTS; attempt++) {
    const { event, ended } = await events.last(sessionId, streamId);
    if (ended) return;
    const message = event?.message;
    const answered = message !== undefined && !("method" in message) && message.id === requestId;
    if (!answered) {
      const seq = (event?.seq ?? 0) + 1;
      const error = { code: ErrorCode.InternalError, message: RESTARTED_BEFORE_REPLY };
      try {
        await events.append(sessionId, streamId, {
          id: `${streamId}:${seq}`,
          seq,
          message: { jsonrpc: "2.0", id: requestId, error },
        });
      } catch (failure) {
        // Someone wrote first (another instance finishing it, or a late owner): look again.
        if (failure instanceof AppendConflict) continue;
        throw failure;
      }
    }
    await events.endStream(sessionId, streamId);
    return;
  }
}

interface TailOptions {
  events: ClusterEventStore;
  sessionId: string;
  streamId: string;
  afterSeq: number;
  keepAliveMs: number;
  headers: Headers;
  /** Aborted when the session ends on this instance. */
  signal: AbortSignal;
  /** Called once the connection is over (stream ended, client gone, session ended). */
  onDone(): void;
}

/** An SSE response carrying the stream's events after the cursor until its end. */
export function tailResponse(options: TailOptions): Response {
  const stop = new AbortController();
  const abort = () => stop.abort();
  options.signal.addEventListener("abort", abort, { once: true });
  const connection = new SseStream({ keepAliveMs: options.keepAliveMs, onCancel: abort });
  void (async () => {
    try {
      const { events, sessionId, streamId, afterSeq } = options;
      for await (const event of events.tail(sessionId, streamId, afterSeq, stop.signal)) {
        await connection.write(event.message, event.id);
      }
    } catch (error) {
      // The store failed: the connection ends, and the client resumes from its last event.
      ignoreError("replaying a stream from the event store", error);
    } finally {
      options.signal.removeEventListener("abort", abort);
      connection.end();
      options.onDone();
    }
  })();
  const headers = new Headers(options.headers);
  headers.set("Content-Type", "text/event-stream");
  headers.set("Cache-Control", "no-cache, no-transform");
  headers.set("X-Accel-Buffering", "no");
  return new Response(connection.body, { status: 200, headers });
}

/** Writes another stream's events after `afterSeq` until its end, through `send`. */
export async function replayUntilEnd(
  events: ClusterEventStore,
  sessionId: string,
  streamId: string,
  afterSeq: number,
  signal: AbortSignal,
  send: ReplaySend,
): Promise<void> {
  for await (const event of events.tail(sessionId, streamId, afterSeq, signal)) {
    await send(event.message, event.id, event.origin);
  }
}
