import { randomBytes } from "node:crypto";

/** An id for this process among the instances of a cluster (random: no coordination needed). */
export function newInstanceId(): string {
  return randomBytes(9).toString("base64url");
}
