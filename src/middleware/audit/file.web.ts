/** The web build's audit file: no file system in workerd or a page; write lines elsewhere. */
import { nodeOnly } from "../../platform/node-only.js";
import type * as node from "./file.js";

export type { AuditFile } from "./file.js";

export const auditFile: typeof node.auditFile = () => {
  throw nodeOnly(
    "auditFile",
    "pass audit({ write }) a function of your own (a log binding, fetch)",
  );
};
