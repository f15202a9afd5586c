import { errorResponseFor } from "../../jsonrpc/classify.js";
import type { JsonRpcId, JsonRpcMessage } from "../../jsonrpc/types.js";
import { ignoring } from "../../text/ignored-error.js";
import type { HttpAuthProvider } from "../../transports/http/client/auth.js";
import { HttpClientTransport } from "../../transports/http/client/client-transport.js";
import { StreamTransport } from "../../transports/stream.js";
import { explain, logLine } from "../connect/session.js";

export interface ReverseGatewayOptions {
  url: URL;
  headers: Record<string, string>;
  verbose: boolean;
  /** The upstream's authorization (see connect/http-auth.ts). */
  auth?: HttpAuthProvider;
}

/** How long, after the local client's EOF, replies still in flight may take to arrive. */
const DRAIN_AFTER_EOF_MS = 10_000;

/**
 * `mcpwire gateway --stdio <url>`: a remote Streamable HTTP server offered as a local stdio
 * server. A raw relay: JSON-RPC messages from our stdin go to the URL through one
 * HttpClientTransport, and everything the server sends (replies, SSE notifications, legacy
 * server-to-client requests) comes back on our stdout, unchanged.
 *
 * Eras are not translated, because HttpClientTransport already picks the HTTP flavour from the
 * message itself: the client's `initialize` opens a legacy session (Mcp-Session-Id, GET stream,
 * falling back to 2024-11-05 HTTP+SSE), while requests carrying per-request `_meta` are modern
 * POSTs. So a modern client's `server/discover` probe reaches the server as is, and its era
 * detection works against the remote exactly as it would over HTTP; a legacy-only remote
 * answers the probe with an error, which stdio clients read as "legacy" and retry with
 * `initialize`. Cancellation: on modern requests `notifications/cancelled` aborts the POST
 * (the server sees its stream close); on a legacy session it is forwarded.
 */
export async function runReverseGateway(options: ReverseGatewayOptions): Promise<number> {
  const log = (line: string) => {
    if (options.verbose) logLine(line);
  };
  const local = new StreamTransport(process.stdin, process.stdout, { endOutput: false });
  const remote = new HttpClientTransport(options.url, {
    headers: options.headers,
    ...(options.auth ? { auth: options.auth } : {}),
    // Our own cache: the era of this client decides the flavour, not another run's memory.
    flavourCache: new Map(),
    onWarning: (message) => logLine(`mcpwire gateway: warning: ${message}`),
  });
  const inflight = new Map<JsonRpcId, Promise<void>>();
  const cancelled = new Set<JsonRpcId>();
  let remoteLost: Error | undefined;

  const toClient = (message: JsonRpcMessage) => {
    log(`<- ${JSON.stringify(message)}`);
    local.send(message).catch(ignoring("passing a message on"));
  };
  remote.start({
    message: toClient,
    closed: (info) => {
      if (info.error) remoteLost = info.error;
    },
  });

  const forward = (message: JsonRpcMessage) => {
    log(`-> ${JSON.stringify(message)}`);
    if ("method" in message && "id" in message && message.id !== undefined) {
      const id = message.id;
      const sent = remote.send(message).then(
        () => {},
        (error: unknown) => {
          // A cancelled request needs no reply; any other failure becomes the request's error.
          if (cancelled.delete(id)) return;
          toClient({
            jsonrpc: "2.0",
            id,
            error: { code: -32603, message: `gateway: ${describe(error)}` },
          });
        },
      );
      inflight.set(id, sent);
      void sent.finally(() => {
        if (inflight.get(id) === sent) inflight.delete(id);
      });
      return;
    }
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = message.params?.requestId as JsonRpcId | undefined;
      if (id !== undefined && inflight.has(id)) {
        cancelled.add(id);
        // Modern: aborting the POST is the cancellation; legacy wants the notification too.
        if (remote.cancel(id, message.params?.reason as string | undefined)) return;
      }
    }
    remote.send(message).catch((error: unknown) => {
      logLine(`mcpwire gateway: could not forward ${describe(error)}`);
    });
  };

  const done = new Promise<void>((resolve) => {
    local.start({
      message: forward,
      frameError: (error) => {
        // The local client sent something unreadable: answer it as a server would.
        if (error.kind === "invalid") toClient(errorResponseFor(error.failure) as JsonRpcMessage);
        else logLine(`mcpwire gateway: dropped a ${error.size}-byte message from the client`);
      },
      ended: () => resolve(),
      closed: () => resolve(),
    });
    void remote.closed.then(() => resolve());
  });
  await done;
  // EOF from the client: let replies still on their way reach it, then end the session.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...inflight.values()]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, DRAIN_AFTER_EOF_MS);
    }),
  ]);
  clearTimeout(timer);
  await remote.close();
  await local.close();
  if (remoteLost) {
    logLine(`mcpwire gateway: lost ${options.url.href}: ${remoteLost.message}`);
    return 1;
  }
  return 0;
}

/** One line; a 401 explained or a failed OAuth step is said whole, with what to run. */
function describe(error: unknown): string {
  const explained = explain(error);
  return [explained.message.split("\n")[0], ...explained.details].join("; ");
}
