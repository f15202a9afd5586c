/**
 * mcpwire's client and the official SDK v2 client behind the same BenchClient face, over stdio
 * (the client spawns the server) and Streamable HTTP.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport as SdkStdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { McpClient } from "mcpwire/client";
import { HttpClientTransport } from "mcpwire/transports/http";
import { StdioClientTransport } from "mcpwire/transports/stdio";
import type { BenchClient, ClientEra, Era, ServerCommand } from "./types.js";

const CLIENT_INFO = { name: "bench-client", version: "1.0.0" };
const MODERN = "2026-07-28";

function textOf(result: { content?: unknown }): string | undefined {
  const first = (result.content as Array<{ type: string; text?: string }> | undefined)?.[0];
  return first?.type === "text" ? first.text : undefined;
}

async function mcpwireClient(
  transport: StdioClientTransport | HttpClientTransport,
  era: ClientEra,
): Promise<BenchClient> {
  const client = new McpClient({ clientInfo: CLIENT_INFO, era });
  await client.connect(transport);
  return {
    serverPid: () => (transport instanceof StdioClientTransport ? transport.pid : undefined),
    echo: async (text) => textOf(await client.callTool("echo", { text })),
    listTools: async () => (await client.listTools()).tools.length,
    close: () => client.close(),
  };
}

export function mcpwireStdioClient(server: ServerCommand, era: ClientEra): Promise<BenchClient> {
  return mcpwireClient(
    new StdioClientTransport({ command: server.command, args: server.args, stderr: "inherit" }),
    era,
  );
}

export function mcpwireHttpClient(url: string, era: ClientEra): Promise<BenchClient> {
  return mcpwireClient(new HttpClientTransport(url), era);
}

async function sdkClient(
  transport: SdkStdioClientTransport | StreamableHTTPClientTransport,
  era: Era,
): Promise<BenchClient> {
  const client = new Client(
    CLIENT_INFO,
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  await client.connect(transport);
  return {
    serverPid: () =>
      transport instanceof SdkStdioClientTransport ? (transport.pid ?? undefined) : undefined,
    echo: async (text) => textOf(await client.callTool({ name: "echo", arguments: { text } })),
    listTools: async () => (await client.listTools()).tools.length,
    close: () => client.close(),
  };
}

export function sdkStdioClient(server: ServerCommand, era: Era): Promise<BenchClient> {
  return sdkClient(
    new SdkStdioClientTransport({ command: server.command, args: server.args, stderr: "inherit" }),
    era,
  );
}

export function sdkHttpClient(url: string, era: Era): Promise<BenchClient> {
  return sdkClient(new StreamableHTTPClientTransport(new URL(url)), era);
}
