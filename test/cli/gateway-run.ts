/** Starts `mcpwire gateway` as a subprocess and connects our McpClient to it, for gateway tests. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { McpClient } from "../../src/client/index.js";
import type { McpClientOptions } from "../../src/client/types.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type Running, startCli, waitFor, whenListening } from "./run-cli.js";

const require = createRequire(import.meta.url);

/** The official server-everything, started in stdio mode (a legacy child). */
export const SERVER_EVERYTHING = [
  join(
    dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
    "dist/index.js",
  ),
  "stdio",
];
export const OUR_EVERYTHING = [
  new URL("../../examples/everything-server.js", import.meta.url).pathname,
  "--stdio",
];
export const fixture = (name: string): string =>
  new URL(`../fixtures/${name}.js`, import.meta.url).pathname;

export interface RunningGateway {
  gateway: Running;
  url: string;
}

/** `gateway --listen 127.0.0.1:0 [options] -- node <child…>`, once it listens. */
export async function startGateway(
  child: string[],
  options: string[] = [],
): Promise<RunningGateway> {
  const gateway = startCli([
    "gateway",
    "--listen",
    "127.0.0.1:0",
    ...options,
    "--",
    process.execPath,
    ...child,
  ]);
  const url = await whenListening(
    gateway,
    "the gateway to listen",
    () => /^listening on (\S+)$/m.exec(gateway.stderr())?.[1],
    30_000,
  );
  return { gateway, url };
}

/** `gateway --listen 127.0.0.1:0 --config <file> [options]`, once it listens (its origin). */
export async function startConfigGateway(
  config: string,
  options: string[] = [],
): Promise<{ gateway: Running; origin: string }> {
  const gateway = startCli(["gateway", "--listen", "127.0.0.1:0", "--config", config, ...options]);
  const origin = await whenListening(
    gateway,
    "the gateway to listen",
    () => /^listening on (\S+)$/m.exec(gateway.stderr())?.[1],
    60_000,
  );
  return { gateway, origin };
}

/** Our client over HTTP, in the era asked for; notifications are collected in `seen`. */
export async function connectClient(
  url: string,
  era: "modern" | "legacy",
  options: Partial<McpClientOptions> = {},
): Promise<{
  client: McpClient;
  seen: Array<{ method: string; params: Record<string, unknown> }>;
}> {
  const seen: Array<{ method: string; params: Record<string, unknown> }> = [];
  const client = new McpClient({
    clientInfo: { name: "gateway-test", version: "1" },
    era,
    cache: false,
    onNotification: (method, params) => seen.push({ method, params }),
    ...options,
  });
  // A fresh flavour cache per client: the process-wide one would remember the other era's answer.
  await client.connect(() => new HttpClientTransport(url, { flavourCache: new Map() }));
  return { client, seen };
}

/** How many lines of the gateway's --verbose wire log towards the child match `pattern`. */
export function sentToChild(gateway: Running, pattern: RegExp): number {
  return gateway
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("-> ") && pattern.test(line)).length;
}

/**
 * Waits until the gateway's wire log shows `count` matching messages sent to the child (the log
 * comes through the gateway's stderr pipe, so it may trail the HTTP answer that caused it), then
 * returns how many it shows, for an exact check.
 */
export async function sentToChildAtLeast(
  gateway: Running,
  pattern: RegExp,
  count: number,
): Promise<number> {
  await waitFor(`${count} sent to the child matching ${pattern}`, () =>
    sentToChild(gateway, pattern) >= count ? true : undefined,
  );
  return sentToChild(gateway, pattern);
}

/** A scratch folder holding `mcp.json` with these servers (stdio entries run by this node). */
export function configDir(
  label: string,
  servers: Record<string, string[]>,
): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), `mcpwire-${label}-`));
  const config = join(dir, "mcp.json");
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, args]) => [name, { command: process.execPath, args }]),
  );
  writeFileSync(config, JSON.stringify({ mcpServers }));
  return { dir, config };
}
