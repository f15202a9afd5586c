export { LiveTask } from "./live-task.js";
export { TaskManager, type TasksOptions, type TaskTimes } from "./manager.js";
export { InMemoryTaskStore, type InMemoryTaskStoreOptions } from "./memory-store.js";
export { taskOwner, taskQuotaOwner } from "./owner.js";
export {
  type TaskQuota,
  TaskQuotaError,
  type TaskRecord,
  type TaskRelay,
  type TaskRelayMessage,
  type TaskRunners,
  type TaskStore,
  TaskStoreFullError,
} from "./store.js";
export type { ToolTaskOptions } from "./task-call.js";
export { createTaskResult, detailedTask, taskNotification } from "./task-view.js";
export {
  declaresTasks,
  isTerminal,
  TASK_METHODS,
  TASKS_EXTENSION,
  type TaskStatus,
} from "./wire.js";
