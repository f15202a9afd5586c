/** The web build's FileEventStore: no file system; legacy resumability needs a shared store. */
import { nodeOnlyClass } from "../../../platform/node-only.js";

export const FileEventStore = nodeOnlyClass(
  "FileEventStore",
  "use InMemoryEventStore, or an EventStore of your own on the runtime's storage",
);
