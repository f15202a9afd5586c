/** The web build's FileSessionRecordStore: no file system here. */
import { nodeOnlyClass } from "../../../platform/node-only.js";

export const FileSessionRecordStore = nodeOnlyClass(
  "FileSessionRecordStore",
  "use InMemorySessionRecordStore, or a SessionRecordStore of your own on the runtime's storage",
);
