import { unref } from "../../platform/scheduling.js";
import type { LiveTask } from "./live-task.js";
import type { TaskRecord, TaskStore } from "./store.js";

/**
 * With a relay (several instances): answers that another instance accepted are kept in the
 * task's record (TaskRecord.answers) as well as relayed, since a relay message may be lost.
 * While a task running here waits for input, its record is read every `everyMs` and what it
 * holds is handed to the waiting handler (a key already answered is ignored); a record that
 * says cancelled stops it. Reads only tasks that wait, so a busy server pays nothing.
 */
export class AnswerWatch {
  private readonly watched = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly store: TaskStore,
    private readonly everyMs: number,
    private readonly stop: (taskId: string) => void,
    private readonly reportError: (error: Error) => void,
  ) {}

  /** The handler of `live` asked for input: its record is read until it waits no more. */
  watch(live: LiveTask): void {
    if (this.watched.has(live.taskId)) return;
    const timer = setInterval(() => {
      if (!live.waiting || live.controller.signal.aborted) {
        this.forget(live.taskId);
        return;
      }
      this.store.get(live.taskId).then(
        (record) => this.deliver(live, record),
        (error: Error) => this.reportError(error),
      );
    }, this.everyMs);
    unref(timer);
    this.watched.set(live.taskId, timer);
  }

  /** Hands `record`'s stored answers to `live` (the fast path's relay message may be lost). */
  deliver(live: LiveTask, record: TaskRecord | undefined): void {
    if (record?.status === "cancelled") {
      this.stop(live.taskId);
      return;
    }
    for (const [key, value] of Object.entries(record?.answers ?? {})) live.answer(key, value);
  }

  forget(taskId: string): void {
    clearInterval(this.watched.get(taskId));
    this.watched.delete(taskId);
  }

  close(): void {
    for (const timer of this.watched.values()) clearInterval(timer);
    this.watched.clear();
  }
}
