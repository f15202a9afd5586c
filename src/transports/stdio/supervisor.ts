import { LocalError } from "../../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../../jsonrpc/types.js";
import type { CloseInfo, Transport, TransportReceiver } from "../../protocol/transport.js";
import { type StdioClientOptions, StdioClientTransport } from "./client.js";

export interface RestartOptions {
  /** Most restarts allowed within `windowMs` before giving up (default 5). */
  maxRestarts?: number;
  /** The sliding window the cap applies to (default 60 000 ms). */
  windowMs?: number;
  /** Delay before the first restart in a window; doubles with each further one (default 100 ms). */
  initialDelayMs?: number;
  /** Upper bound of the delay (default 5000 ms). */
  maxDelayMs?: number;
}

export type RestartDecision =
  | {
      restart: true;
      delayMs: number /** 1 for the first restart in the window. */;
      attempt: number;
    }
  | { restart: false; reason: string };

/**
 * When to restart a crashed server: after an exponentially growing, capped delay, at most
 * `maxRestarts` times per sliding window. The exponent is the number of restarts still inside
 * the window, so a server that has been quiet for a whole window starts again from the initial
 * delay. Pure arithmetic over an injected clock.
 */
export class RestartPolicy {
  readonly maxRestarts: number;
  readonly windowMs: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  private readonly now: () => number;
  /** Times of the restarts granted, oldest first. */
  private restarts: number[] = [];

  constructor(options: RestartOptions = {}, now: () => number = Date.now) {
    this.maxRestarts = nonNegative("maxRestarts", options.maxRestarts ?? 5);
    this.windowMs = nonNegative("windowMs", options.windowMs ?? 60_000);
    this.initialDelayMs = nonNegative("initialDelayMs", options.initialDelayMs ?? 100);
    this.maxDelayMs = nonNegative("maxDelayMs", options.maxDelayMs ?? 5000);
    this.now = now;
  }

  /** Restarts granted within the current window. */
  get recentRestarts(): number {
    this.forgetOld(this.now());
    return this.restarts.length;
  }

  /** Called once per unexpected exit: restart (after how long), or give up? */
  onFailure(): RestartDecision {
    const now = this.now();
    this.forgetOld(now);
    const recent = this.restarts.length;
    if (recent >= this.maxRestarts) {
      return {
        restart: false,
        reason: `${recent} restart${recent === 1 ? "" : "s"} within ${this.windowMs} ms already (maxRestarts ${this.maxRestarts})`,
      };
    }
    this.restarts.push(now);
    const delayMs = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** recent);
    return { restart: true, delayMs, attempt: recent + 1 };
  }

  private forgetOld(now: number): void {
    while (this.restarts.length > 0 && now - this.restarts[0]! >= this.windowMs) {
      this.restarts.shift();
    }
  }
}

export interface SupervisedStdioOptions extends StdioClientOptions {
  restart?: RestartOptions;
  /** The clock the restart policy reads (default Date.now). */
  now?: () => number;
}

type State = "idle" | "running" | "restarting" | "closing" | "closed";

/**
 * A stdio client transport that restarts its server when it exits unexpectedly, as the spec
 * recommends. The receiver hears `interrupted(error)` when the server dies (requests in flight
 * are lost) and `resumed()` once a fresh one runs; sends made in between wait for it. When the
 * restart cap is hit the channel closes with an error naming the cap.
 */
export class SupervisedStdioTransport implements Transport {
  readonly kind = "stdio" as const;
  readonly closed: Promise<CloseInfo>;
  private readonly options: SupervisedStdioOptions;
  private readonly policy: RestartPolicy;
  private receiver: TransportReceiver | undefined;
  private state: State = "idle";
  private current: StdioClientTransport | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Sends waiting for the state to move on from "restarting". */
  private waiters: Array<() => void> = [];
  /** Shutdowns of children that died, still releasing their process group and pipes. */
  private readonly retiring = new Set<Promise<void>>();
  private finalError: Error | undefined;
  private restartCount = 0;
  private closing: Promise<void> | undefined;
  private finished = false;
  private resolveClosed!: (info: CloseInfo) => void;

  constructor(options: SupervisedStdioOptions) {
    this.options = options;
    this.policy = new RestartPolicy(options.restart, options.now);
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** The current child's process id. */
  get pid(): number | undefined {
    return this.current?.pid;
  }

  /** "up" while a server runs, "restarting" between a crash and its successor, else "down". */
  get status(): "up" | "restarting" | "down" {
    if (this.state === "restarting") return "restarting";
    const child = this.current;
    return this.state === "running" && child && !child.hasExited ? "up" : "down";
  }

  /** How many times the server has been restarted so far. */
  get restarts(): number {
    return this.restartCount;
  }

  /** The current child's stderr tail. */
  stderrTail(): string {
    return this.current?.stderrTail() ?? "";
  }

  start(receiver: TransportReceiver): void {
    if (this.state !== "idle") throw new Error("transport already started");
    this.receiver = receiver;
    this.state = "running";
    this.launch();
  }

  async send(message: JsonRpcMessage): Promise<void> {
    for (;;) {
      const child = this.current;
      if (this.state === "running" && child && !child.hasExited) return child.send(message);
      if (this.state === "running" || this.state === "restarting") {
        // Between a crash and its report, or during the restart: wait for the next state.
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        continue;
      }
      if (this.finalError) throw this.finalError;
      throw new LocalError(
        "closed",
        this.state === "idle" ? "transport not started" : "transport closed",
      );
    }
  }

  /** Stops supervising and shuts the current server down. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.state !== "closed") this.state = "closing";
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.wakeWaiters();
    await this.current?.close();
    await Promise.all(this.retiring);
    this.state = "closed";
    this.finish({});
  }

  private launch(): void {
    const child = new StdioClientTransport(this.options);
    const receiver = this.receiver!;
    this.current = child;
    child.start({
      message: (message, context) => receiver.message(message, context),
      frameError: (error) => receiver.frameError?.(error),
      closed: (info) => this.onChildClosed(child, info),
    });
    if (this.state === "restarting") {
      void child.spawned.then((ok) => {
        if (ok && this.current === child && this.state === "restarting") this.resume();
      });
    }
  }

  private resume(): void {
    this.state = "running";
    // Before the waiting sends go out, so a re-handshake sent from resumed() goes first.
    this.receiver!.resumed?.();
    this.wakeWaiters();
  }

  private onChildClosed(child: StdioClientTransport, info: CloseInfo): void {
    if (child !== this.current || this.state === "closing" || this.state === "closed") return;
    this.retire(child);
    const error =
      info.error ?? new LocalError("exited", `MCP server "${this.options.command}" closed`);
    // A command that could not be started even once will not start on a retry.
    if (this.restartCount === 0 && !child.hasSpawned) {
      this.giveUp(error);
      return;
    }
    const decision = this.policy.onFailure();
    if (!decision.restart) {
      this.giveUp(
        new LocalError(
          "exited",
          `gave up restarting MCP server "${this.options.command}": ${decision.reason}; last failure: ${error.message}`,
          { cause: error },
        ),
      );
      return;
    }
    if (this.state === "running") {
      this.state = "restarting";
      this.receiver!.interrupted?.(error);
    }
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.state !== "restarting") return;
      this.restartCount += 1;
      this.launch();
    }, decision.delayMs);
  }

  /** Lets a dead child finish releasing its tree and pipes; close() waits for it. */
  private retire(child: StdioClientTransport): void {
    const done: Promise<void> = child.close().then(() => {
      this.retiring.delete(done);
    });
    this.retiring.add(done);
  }

  private giveUp(error: Error): void {
    this.state = "closed";
    this.finalError = error;
    this.wakeWaiters();
    this.finish({ error });
  }

  private wakeWaiters(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  private finish(info: CloseInfo): void {
    if (this.finished) return;
    this.finished = true;
    this.receiver?.closed?.(info);
    this.resolveClosed(info);
  }
}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0)) throw new RangeError(`${name} must be a non-negative number`);
  return value;
}
