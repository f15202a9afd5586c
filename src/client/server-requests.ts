import { ErrorCode, JsonRpcError } from "../jsonrpc/errors.js";
import type { ClientCapabilities } from "../protocol/mcp-types.js";
import type { Session } from "../protocol/session.js";
import { withElicitationDefaults } from "./mrtr.js";
import type { ClientHandlers } from "./types.js";

function missing(method: string, option: string): never {
  throw new JsonRpcError(
    ErrorCode.MethodNotFound,
    `This client does not handle ${method} (no ${option} handler configured)`,
  );
}

/**
 * Answers the requests a legacy server sends its client: ping, sampling, elicitation, roots.
 * Without a handler the server gets -32601 with a message naming what is missing.
 */
export function installServerRequestHandlers(session: Session, handlers: ClientHandlers): void {
  session.setRequestHandler("ping", () => ({}));
  session.setRequestHandler("sampling/createMessage", (params, context) =>
    handlers.sampling
      ? handlers.sampling(params, { signal: context.signal })
      : missing(context.method, "sampling"),
  );
  session.setRequestHandler("elicitation/create", async (params, context) =>
    handlers.elicitation
      ? withElicitationDefaults(
          params,
          await handlers.elicitation(params, { signal: context.signal }),
        )
      : missing(context.method, "elicitation"),
  );
  session.setRequestHandler("roots/list", async (_params, context) => {
    if (!handlers.roots) missing(context.method, "roots");
    return { roots: await handlers.roots({ signal: context.signal }) };
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
