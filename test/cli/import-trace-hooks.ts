/**
 * Module hooks (registered by import-trace.ts) that append the URL of every module Node loads
 * to a file, one per line: how a test sees which of our modules a command needed.
 */
import { appendFileSync } from "node:fs";
import type { InitializeHook, LoadHook } from "node:module";

let traceFile = "";

export const initialize: InitializeHook<{ traceFile: string }> = (data) => {
  traceFile = data.traceFile;
};

export const load: LoadHook = (url, context, nextLoad) => {
  appendFileSync(traceFile, `${url}\n`);
  return nextLoad(url, context);
};
