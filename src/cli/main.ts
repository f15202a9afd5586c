#!/usr/bin/env node
/** The `mcpwire` bin: the command (run.ts) on this process's arguments and streams. */
import { run } from "./run.js";

process.exitCode = await run(process.argv.slice(2));
