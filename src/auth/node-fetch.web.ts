/**
 * The web build's default fetch for the OAuth client: the runtime's own, redirects never
 * followed. The resolver is not used: workerd and browsers resolve names themselves and offer
 * no hook, so there only literal addresses are checked (address-scope.ts), and browsers apply
 * their own rules to private-network requests.
 */
import type * as node from "./node-fetch.js";

/** Statuses whose Response must not have a body (the Fetch standard's null body statuses). */
export const NULL_BODY: typeof node.NULL_BODY = new Set([101, 103, 204, 205, 304]);

export const nodeFetch: typeof node.nodeFetch = () => (input, init) =>
  globalThis.fetch(input, { ...init, redirect: "manual" });
