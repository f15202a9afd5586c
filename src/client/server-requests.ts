import { ErrorCode, JsonRpcError } from "../jsonrpc/errors.js";
import type { JsonRpcId } from "../jsonrpc/types.js";
import type { ClientCapabilities } from "../protocol/mcp-types.js";
import type { IncomingRequestContext, Session } from "../protocol/session.js";
import { withElicitationDefaults } from "./mrtr.js";
import type { ClientHandlers, ServerRequestContext } from "./types.js";

function missing(method: string, option: string): never {
  throw new JsonRpcError(
    ErrorCode.MethodNotFound,
    `This client does not handle ${method} (no ${option} handler configured)`,
  );
}

/**
 * Answers the requests a legacy server sends its client: ping, sampling, elicitation, roots.
 * Without a handler the server gets -32601 with a message naming what is missing. `originOf`
 * gives the CallOptions.origin of the call a request came with (HTTP: the call whose answer
 * stream carried it).
 */
export function installServerRequestHandlers(
  session: Session,
  handlers: ClientHandlers,
  originOf: (id: JsonRpcId | undefined) => unknown = () => undefined,
): void {
  const asked = (context: IncomingRequestContext): ServerRequestContext => {
    const origin = originOf(context.transport.relatedRequestId);
    return origin === undefined ? { signal: context.signal } : { signal: context.signal, origin };
  };
  session.setRequestHandler("ping", () => ({}));
  session.setRequestHandler("sampling/createMessage", (params, context) =>
    handlers.sampling
      ? handlers.sampling(params, asked(context))
      : missing(context.method, "sampling"),
  );
  session.setRequestHandler("elicitation/create", async (params, context) =>
    handlers.elicitation
      ? withElicitationDefaults(params, await handlers.elicitation(params, asked(context)))
      : missing(context.method, "elicitation"),
  );
  session.setRequestHandler("roots/list", async (_params, context) => {
    if (!handlers.roots) missing(context.method, "roots");
    return { roots: await handlers.roots(asked(context)) };
  });
}

/** Capabilities to declare when the caller gave none: one per handler supplied. */
export function capabilitiesFromHandlers(handlers: ClientHandlers): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (handlers.roots) capabilities.roots = {};
  if (handlers.sampling) capabilities.sampling = {};
  if (handlers.elicitation) capabilities.elicitation = {};
  return capabilities;
}
