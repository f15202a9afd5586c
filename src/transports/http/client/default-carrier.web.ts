/** The web build's default carrier: the runtime's fetch (no node:http there; maxSockets unused). */
import type { defaultCarrier as nodeDefault } from "./default-carrier.js";
import { FetchCarrier } from "./post-carrier.js";

export const defaultCarrier: typeof nodeDefault = () =>
  // Bound: workerd and browsers refuse a fetch called on another object ("Illegal invocation").
  new FetchCarrier(globalThis.fetch.bind(globalThis));
