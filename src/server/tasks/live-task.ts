import { LocalError } from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { InputRequest } from "../mrtr/round.js";

interface Waiter {
  resolve(answer: JsonObject): void;
  reject(error: Error): void;
}

/**
 * A task whose handler runs in this process: its abort controller (cancel, shutdown) and the
 * input calls it is parked on, by the key the server minted for each.
 */
export class LiveTask {
  readonly controller = new AbortController();
  private readonly waiters = new Map<string, Waiter>();
  private minted = 0;

  constructor(
    readonly taskId: string,
    private readonly park: (key: string, request: InputRequest) => Promise<void>,
  ) {}

  /**
   * Parks the task on one server-to-client request and resolves with the client's answer
   * (tasks/update). Keys are minted here, never reused for the task's life, so an answer can
   * only ever match the request the client saw.
   */
  ask(method: InputRequest["method"], params: JsonObject): Promise<JsonObject> {
    const { signal } = this.controller;
    if (signal.aborted) return Promise.reject(stopped(signal));
    this.minted += 1;
    const key = `input-${this.minted}`;
    const request: InputRequest = Object.keys(params).length > 0 ? { method, params } : { method };
    return new Promise<JsonObject>((resolve, reject) => {
      this.waiters.set(key, { resolve, reject });
      this.park(key, request).catch((error: Error) => {
        this.waiters.delete(key);
        reject(error);
      });
    });
  }

  /** Whether an input call waits for its answer. */
  get waiting(): boolean {
    return this.waiters.size > 0;
  }

  /** Hands an accepted answer to the input call waiting on `key` (if it waits here). */
  answer(key: string, value: JsonObject): void {
    const waiter = this.waiters.get(key);
    if (!waiter) return;
    this.waiters.delete(key);
    waiter.resolve(value);
  }

  /** Fails the input call waiting on `key` (the client could not answer it). */
  fail(key: string, error: Error): void {
    const waiter = this.waiters.get(key);
    if (!waiter) return;
    this.waiters.delete(key);
    waiter.reject(error);
  }

  /** Aborts the handler's signal and fails every input call still waiting. */
  stop(reason: string): void {
    if (!this.controller.signal.aborted) {
      this.controller.abort(new LocalError("aborted", reason));
    }
    const error = stopped(this.controller.signal);
    for (const waiter of this.waiters.values()) waiter.reject(error);
    this.waiters.clear();
  }
}

function stopped(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new LocalError("aborted", "task stopped");
}
