/**
 * Reads a `text/event-stream` response body with eventsource-parser and hands on each event.
 * Comments (keep-alives) are ignored by the parser; `retry` and `id` are reported so a legacy
 * stream can be resumed. `sseFeed` is the push half (text in, events out), shared by the fetch
 * body reader below and the node:http carrier, which gets its body as `data` events.
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

interface SseFeed {
  /** Decoded text of the next chunk of the body. */
  push(text: string): void;
  /** The body ended: an event cut off before its blank line is discarded (the SSE spec). */
  end(): void;
}

export function sseFeed(handlers: SseHandlers): SseFeed {
  const parser = createParser({
    onEvent: (event) => handlers.event(event),
    onRetry: (ms) => handlers.retry?.(ms),
    onId: (id) => handlers.id?.(id),
  });
  return {
    push: (text) => parser.feed(text),
    end: () => parser.reset({ consume: false }),
  };
}

/**
 * Resolves when the stream ends or `done()` turns true; rejects when the body breaks
 * (network error, abort). The reader is always released.
 */
export async function readSse(body: ReadableStream<Uint8Array>, handlers: SseHandlers) {
  const feed = sseFeed(handlers);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    while (!handlers.done?.()) {
      const { value, done } = await reader.read();
      if (done) {
        feed.push(decoder.decode());
        feed.end();
        return;
      }
      feed.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    // Stop the underlying connection when we leave early; harmless once it has ended.
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
