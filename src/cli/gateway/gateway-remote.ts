/**
 * A remote server behind the gateway: a config file's `url` entry, reached over Streamable HTTP
 * (or the old HTTP+SSE transport for `"type": "sse"`) with the entry's headers and the tokens
 * `mcpwire auth login <url>` stored for it. There is no process to supervise: the upstream is
 * up while its connection is, and reported down once it is lost.
 */
import { LocalError } from "../../jsonrpc/errors.js";
import { HttpClientTransport } from "../../transports/http/client/client-transport.js";
import { endpointKey } from "../../transports/http/client/era.js";
import { httpAuthProvider } from "../connect/http-auth.js";
import { logLine } from "../connect/session.js";
import { CliError } from "../core/errors.js";
import { type GatewayUpstream, gatewayClient, type UpstreamSettings } from "./gateway-child.js";

export interface RemoteSettings extends UpstreamSettings {
  label: string;
  url: URL;
  headers: Record<string, string>;
  sse: boolean;
}

export async function startGatewayRemote(settings: RemoteSettings): Promise<GatewayUpstream> {
  const { label, url } = settings;
  const mark = (line: string) => `[${label}] ${line}`;
  const auth = await httpAuthProvider(url, { scopes: [], given: false }, settings.headers, (line) =>
    logLine(mark(line)),
  );
  const transport = () =>
    new HttpClientTransport(url, {
      headers: settings.headers,
      ...(auth ? { auth } : {}),
      // An "sse" entry goes straight to the old transport instead of probing first.
      flavourCache: settings.sse ? new Map([[endpointKey(url), "sse"]]) : undefined,
      onWarning: (message) => logLine(mark(`warning: ${message}`)),
    });
  const { client, server } = await gatewayClient(settings, mark, async (client) => {
    try {
      await client.connect(transport);
    } catch (error) {
      await client.close();
      const why =
        error instanceof LocalError || error instanceof Error ? error.message : String(error);
      throw new CliError(`${url.href} did not answer as an MCP server: ${why}`, 1);
    }
  });
  const startedAt = Date.now();
  let down = false;
  const lost = client.closed.then(() => {
    down = true;
    return "connection to the remote server lost";
  });
  return {
    label,
    client,
    server,
    running: `remote ${url.origin}${url.pathname}`,
    lost,
    health: () => ({
      ok: !down,
      details: {
        status: down ? "down" : "ok",
        era: client.era ?? null,
        restarts: 0,
        uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
      },
    }),
    close: () => client.close(),
  };
}
