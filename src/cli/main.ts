#!/usr/bin/env node
import { readFileSync } from "node:fs";

/**
 * The `mcpwire` command. The verbs (discover, call, shell, gateway, tap) arrive with the CLI
 * issue; until then it reports its version and what it is.
 */
const USAGE = `mcpwire — Model Context Protocol over stdio, sockets and Streamable HTTP

Usage:
  mcpwire --version   print the version
  mcpwire --help      print this help
`;

function version(): string {
  const packageJson = new URL("../../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
}

const [first] = process.argv.slice(2);
if (first === "--version" || first === "-V") {
  process.stdout.write(`${version()}\n`);
} else if (first === undefined || first === "--help" || first === "-h") {
  process.stdout.write(USAGE);
} else {
  process.stderr.write(`mcpwire: unknown command ${JSON.stringify(first)} (see mcpwire --help)\n`);
  process.exitCode = 2;
}
