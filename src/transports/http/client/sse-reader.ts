/**
 * Reads a `text/event-stream` response body with eventsource-parser and hands on each event.
 * Comments (keep-alives) are ignored by the parser; `retry` and `id` are reported so a legacy
 * stream can be resumed.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseHandlers {
  event(event: EventSourceMessage): void;
  /** An event id, reported even for events without data (priming events). */
  id?(id: string): void;
  /** The server's reconnection delay in ms (`retry:` field). */
  retry?(ms: number): void;
  /** Reading stops early when this returns true (the awaited reply has arrived, say). */
  done?(): boolean;
}

/**
 * Resolves when the stream ends or `done()` turns true; rejects when the body breaks
 * (network error, abort). The reader is always released.
 */
export async function readSse(body: ReadableStream<Uint8Array>, handlers: SseHandlers) {
  const parser = createParser({
    onEvent: (event) => handlers.event(event),
    onRetry: (ms) => handlers.retry?.(ms),
    onId: (id) => handlers.id?.(id),
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    while (!handlers.done?.()) {
      const { value, done } = await reader.read();
      if (done) {
        // An event cut off before its blank line is discarded, as the SSE spec says.
        parser.feed(decoder.decode());
        return;
      }
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    // Stop the underlying connection when we leave early; harmless once it has ended.
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
