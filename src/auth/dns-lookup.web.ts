/**
 * The web build's resolver: none (workerd and browsers resolve names inside fetch, with no
 * hook), so a name resolves to nothing here and only literal addresses are judged.
 */
import type * as node from "./dns-lookup.js";

export const defaultLookup: typeof node.defaultLookup = (hostname, _options, callback) => {
  const error = Object.assign(new Error(`no name resolution in this runtime: ${hostname}`), {
    code: "ENOTSUP",
  });
  callback(error, "", 4);
};
