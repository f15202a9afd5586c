/**
 * One logical SSE stream of a legacy session (a POST's reply stream, or the standalone GET
 * stream). Every event gets an id `<streamId>:<seq>` and goes to the event store before the
 * live connection, so the stream outlives its HTTP connections: a client that lost one (or that
 * the server disconnected on purpose, for polling) resumes with `Last-Event-ID` and gets exactly
 * the events after its cursor, then the live rest.
 */
import type { JsonRpcId, JsonRpcMessage } from "../../../jsonrpc/types.js";
import { ignoring } from "../../../text/ignored-error.js";
import type { EventSink } from "../exchange.js";
import { formatPrimingEvent, formatSseEvent } from "../sse.js";
import type { EventStore, StoredEvent } from "./event-store.js";
import { type StreamTarget, WebStreamTarget } from "./stream-target.js";

interface ResumableStreamOptions {
  sessionId: string;
  streamId: string;
  /** The request whose reply ends this stream; undefined for the standalone GET stream. */
  requestId?: JsonRpcId;
  store: EventStore;
  keepAliveMs: number;
  /**
   * What a connection may hold for a client that does not read it (bytes). Past it the
   * connection closes, not the stream: its events are in the store, and the client resumes
   * from its last event id whenever it reads again.
   */
  maxBacklogBytes: number;
  /** Called when a connection was closed for that (`backlog` bytes were waiting). */
  onUnread?(backlog: number): void;
  /** The `retry` field of the priming event (ms). */
  retryMs: number;
  /** Whether to send the priming event (clients before 2025-11-25 choke on empty data). */
  priming: boolean;
  /** Called when the stream has ended and no connection is attached any more. */
  onFinished?(): void;
  /** The last sequence number already used (a stream rebuilt after a restart). Default 0. */
  initialSeq?: number;
  /**
   * Records the stream's end after its last event (a cluster: tails on other instances end
   * there). Default: nothing is recorded.
   */
  markEnd?(): Promise<void>;
  /**
   * Set in a cluster, where the store is another process: resolves once the stream is
   * registered there. Nothing reaches the client before it, and every event reaches the client
   * only once it is stored, so that an instance killed at any moment never leaves a client
   * holding a cursor the store does not know (another instance could not resume it).
   */
  registered?: Promise<void>;
}

/** Writes one replayed event (of another stream) on a connection; `origin`: SendOptions.origin. */
export type ReplaySend = (message: JsonRpcMessage, id: string, origin?: string) => Promise<void>;

/** A write that waits for a takeover's replay to end (see openAfter). */
interface HeldWrite {
  message: JsonRpcMessage;
  origin: string | undefined;
  done: () => void;
}

export class ResumableStream {
  readonly id: string;
  readonly requestId: JsonRpcId | undefined;
  private readonly options: ResumableStreamOptions;
  private seq = 0;
  private connection: EventSink | undefined;
  /** Set while a resumed connection replays; live writes wait here meanwhile. */
  private pending: StoredEvent[] | undefined;
  /** Set while openAfter's prelude runs: writes wait here, not yet numbered nor stored. */
  private held: HeldWrite[] | undefined;
  /** Origins the prelude's stream carried: not written again here (see openAfter). */
  private carried: Set<string> | undefined;
  private ended = false;
  private reportedFinished = false;
  private written: Promise<void> = Promise.resolve();
  /** Write-through (see ResumableStreamOptions.registered). */
  private readonly durable: boolean;

  constructor(options: ResumableStreamOptions) {
    this.id = options.streamId;
    this.requestId = options.requestId;
    this.options = options;
    this.seq = options.initialSeq ?? 0;
    this.durable = options.registered !== undefined;
    if (options.registered) {
      this.written = options.registered.catch(ignoring("registering a stream in the event store"));
    }
  }

  /** True while an HTTP connection carries this stream. */
  get connected(): boolean {
    return this.connection !== undefined;
  }

  get finished(): boolean {
    return this.ended;
  }

  /** The first connection as a web Response: a priming event (id and retry, empty data) opens it. */
  open(headers: Headers): Response {
    const target = new WebStreamTarget(headers);
    this.openOn(target);
    return target.opened!;
  }

  /** The first connection, wherever `target` puts it (see open). */
  openOn(target: StreamTarget): void {
    const connection = this.attach(target);
    if (this.options.priming) {
      const priming = formatPrimingEvent(`${this.id}:0`, this.options.retryMs);
      this.afterStored(() => {
        if (this.connection === connection) void connection.writeText(priming);
      });
    }
  }

  /**
   * A later connection resuming after `afterSeq`: replays what the store has, then goes live
   * (or ends, when the stream already has). The caller checked that nothing else is connected.
   */
  async resume(afterSeq: number, headers: Headers): Promise<Response> {
    const target = new WebStreamTarget(headers);
    const connection = this.attach(target);
    const pending: StoredEvent[] = [];
    this.pending = pending;
    const response = target.opened!;
    try {
      // Writes already handed to the store must be in it before we ask.
      await this.written;
      const stored =
        (await this.options.store.eventsAfter(this.options.sessionId, this.id, afterSeq)) ?? [];
      let last = afterSeq;
      for (const event of stored) {
        void this.send(connection, event.message, event.id);
        last = Math.max(last, event.seq);
      }
      for (const event of pending) {
        if (event.seq > last) void this.send(connection, event.message, event.id);
      }
    } finally {
      if (this.pending === pending) this.pending = undefined;
    }
    if (this.ended) this.closeConnection(this.onDelivered());
    return response;
  }

  /**
   * The first connection, carrying what `prelude` writes (another stream's rest until its end:
   * a standalone stream taken over from another instance) before this stream's own events.
   * Both instances may hear the same message while the other one has not yet let its stream
   * go; it must reach the client once (one message, one stream), so this stream's writes wait,
   * unstored, until the prelude is over, and a message whose origin the prelude carried is not
   * written here, then or later. The response is returned at once.
   */
  openAfter(headers: Headers, prelude: (send: ReplaySend) => Promise<void>): Response {
    const target = new WebStreamTarget(headers);
    const connection = this.attach(target);
    const held: HeldWrite[] = [];
    const carried = new Set<string>();
    this.held = held;
    this.carried = carried;
    const response = target.opened!;
    const send: ReplaySend = (message, id, origin) => {
      if (origin !== undefined) carried.add(origin);
      return this.send(connection, message, id);
    };
    void prelude(send)
      .catch(ignoring("replaying a stream's stored events"))
      .finally(() => {
        if (this.held === held) this.held = undefined;
        for (const write of held) void this.write(write.message, write.origin).then(write.done);
        if (this.ended) this.closeConnection();
      });
    return response;
  }

  /**
   * Stores one message and sends it on the live connection, if any. `origin`: its name on
   * every instance (SendOptions.origin), kept with it.
   */
  write(message: JsonRpcMessage, origin?: string): Promise<void> {
    if (this.ended) return Promise.resolve();
    const held = this.held;
    if (held) return new Promise((done) => held.push({ message, origin, done }));
    // Carried by the stream this one took over from: already on its way to the client. Each
    // origin is heard once here, so its entry goes.
    if (origin !== undefined && this.carried?.delete(origin)) return Promise.resolve();
    const seq = ++this.seq;
    const event: StoredEvent =
      origin === undefined
        ? { id: `${this.id}:${seq}`, seq, message }
        : { id: `${this.id}:${seq}`, seq, message, origin };
    if (this.durable) return this.writeThrough(event);
    const stored = this.options.store.append(this.options.sessionId, this.id, event);
    // Chained, so that awaiting it means every earlier append has landed too. A synchronous
    // store has landed it already: no two promises and closures per event for nothing.
    if (stored !== undefined) {
      this.written = this.written.then(() => stored).catch(ignoring("storing an event"));
    }
    if (this.pending) {
      this.pending.push(event);
      return Promise.resolve();
    }
    const connection = this.connection;
    return connection ? this.send(connection, message, event.id) : Promise.resolve();
  }

  /** Durable: stored first (in order), then sent (or queued for a replay in progress). */
  private writeThrough(event: StoredEvent): Promise<void> {
    const { store, sessionId } = this.options;
    let sent: Promise<void> = Promise.resolve();
    const stored = this.written.then(() => store.append(sessionId, this.id, event));
    // Sent even when storing failed: the client still gets it live (a resume would miss it).
    this.written = stored.then(
      () => this.deliver(event, (sending) => (sent = sending)),
      () => this.deliver(event, (sending) => (sent = sending)),
    );
    return this.written.then(() => sent);
  }

  private deliver(event: StoredEvent, sending: (sent: Promise<void>) => void): void {
    if (this.pending) {
      this.pending.push(event);
      return;
    }
    const connection = this.connection;
    if (connection) sending(this.send(connection, event.message, event.id));
  }

  /** Runs `step` at once, or (durable) after every store and send before it. */
  private afterStored(step: () => void): void {
    if (!this.durable) {
      step();
      return;
    }
    this.written = this.written.then(step);
  }

  /**
   * The stream is complete (its reply was written): the live connection ends after it.
   * `quiet`: the session is ending, so its end is not recorded (its events are going).
   */
  end(quiet = false): void {
    if (this.ended) return;
    this.ended = true;
    const { markEnd } = this.options;
    if (markEnd && !quiet) {
      this.written = this.written.then(markEnd).catch(ignoring("recording a stream's end"));
    }
    this.afterStored(() => {
      if (!this.pending && !this.held) this.closeConnection(this.onDelivered());
      this.reportIfFinished();
    });
  }

  /**
   * What tells the store that the connection being ended took the rest of this ended stream
   * (every event after its client's cursor: live ones, and a resume's replay) to the OS.
   */
  private onDelivered(): (() => void) | undefined {
    const { store, sessionId } = this.options;
    if (!store.delivered) return undefined;
    // Held by the connection until its next request: the ids, not the whole stream.
    const streamId = this.id;
    return () => store.delivered!(sessionId, streamId);
  }

  /**
   * Server-initiated disconnect: closes the HTTP connection but not the stream, so the client
   * polls (reconnects after `retry`) and resumes. `retryMs` is sent first as the delay to wait
   * (the spec asks for a `retry` field before such a close), to clients that know priming.
   */
  disconnect(retryMs?: number): void {
    const connection = this.connection;
    this.afterStored(() => {
      if (!connection || this.connection !== connection) return;
      if (retryMs !== undefined && this.options.priming && !this.pending && !this.held) {
        void connection.writeText(`retry: ${Math.max(0, Math.round(retryMs))}\n\n`);
      }
      this.closeConnection();
    });
  }

  /** Resolves when every event written so far is in the store. */
  settled(): Promise<void> {
    return this.written;
  }

  /** Writes one event, unless the connection's client is too far behind: then it closes. */
  private send(connection: EventSink, message: JsonRpcMessage, id: string): Promise<void> {
    const backlog = connection.backlog;
    if (backlog <= this.options.maxBacklogBytes) {
      return connection.writeText(formatSseEvent(message, id));
    }
    if (this.connection === connection) this.closeConnection();
    else connection.end();
    this.options.onUnread?.(backlog);
    return Promise.resolve();
  }

  private attach(target: StreamTarget): EventSink {
    this.closeConnection();
    let connection: EventSink | undefined;
    // A client going away is no cancellation on legacy HTTP; the stream waits for a resume.
    connection = target.stream(this.options.keepAliveMs, () => {
      if (connection) this.detach(connection);
    });
    this.connection = connection;
    return connection;
  }

  private detach(connection: EventSink): void {
    if (this.connection !== connection) return;
    this.connection = undefined;
    this.reportIfFinished();
  }

  private reportIfFinished(): void {
    if (!this.ended || this.connection || this.reportedFinished) return;
    this.reportedFinished = true;
    this.options.onFinished?.();
  }

  /** `onDelivered`: see EventSink.end (only when the stream has ended). */
  private closeConnection(onDelivered?: () => void): void {
    const connection = this.connection;
    if (!connection) return;
    this.connection = undefined;
    connection.end(onDelivered);
    this.reportIfFinished();
  }
}
