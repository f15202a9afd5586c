/**
 * The carrier a client transport uses when not given a fetch: node:http, a fraction of fetch's
 * cost per request (node-carrier.ts). The web build swaps this file for default-carrier.web.ts.
 */
import { NodeCarrier } from "./node-carrier.js";
import type { PostCarrier } from "./post-carrier.js";

export function defaultCarrier(options: { maxSockets?: number | undefined }): PostCarrier {
  return new NodeCarrier({ maxSockets: options.maxSockets });
}
