import type { JsonObject } from "../jsonrpc/types.js";
import type { MethodMiddleware, Middleware, MiddlewareContext } from "./middleware.js";
import type { Era } from "./versions.js";

/** A request handler an extension adds for a method of its own (`skills/list`, say). */
export type ExtensionMethod<HandlerContext> = (
  params: JsonObject,
  context: HandlerContext,
) => JsonObject | Promise<JsonObject>;

/**
 * An extension (SEP-2133: `capabilities.extensions[id]`) as one object: the capability it
 * declares, the methods it answers, the middleware it runs and, optionally, a setup step that
 * registers ordinary features on its host. Installed with `server.install(extension)` or
 * `client.install(extension)`; the server and client sides use their own aliases of this type
 * (ServerExtension, ClientExtension), which fill in the host and contexts.
 */
export interface Extension<Host, HandlerContext, Context extends MiddlewareContext> {
  /** The extension identifier, e.g. "io.modelcontextprotocol/skills". */
  readonly id: string;
  /**
   * What goes in `capabilities.extensions[id]`, in both eras (server: discover and initialize
   * results; client: each modern request's `_meta` and the legacy initialize). A function is
   * asked whenever the capabilities are rebuilt; returning undefined leaves the extension out
   * (not offered right now). Default `{}`.
   */
  readonly capability?: JsonObject | ((era: Era) => JsonObject | undefined);
  /**
   * Methods the extension answers. Server: requests from clients, in both eras, behind the
   * same middleware as every other method. Client: requests from the server.
   */
  readonly methods?: Readonly<Record<string, ExtensionMethod<HandlerContext>>>;
  /** Middleware, added in order after whatever was added before install(). */
  readonly middleware?: readonly (Middleware<Context> | MethodMiddleware<Context>)[];
  /**
   * Called once by install(), last: register tools, resources or prompts on the host. (A method,
   * so that an extension may name a subclass of the host, such as mcpwire/server's McpServer.)
   */
  setup?(host: Host): void;
}

/** The capability an extension declares for `era`, or undefined when it offers none now. */
export function extensionCapability(
  extension: { readonly capability?: JsonObject | ((era: Era) => JsonObject | undefined) },
  era: Era,
): JsonObject | undefined {
  const { capability } = extension;
  if (capability === undefined) return {};
  return typeof capability === "function" ? capability(era) : capability;
}

/** Refuses an extension whose shape cannot work, before anything of it is installed. */
export function checkExtension(
  extension: {
    readonly id?: unknown;
    readonly methods?: Readonly<Record<string, unknown>>;
  },
  installed: ReadonlyMap<string, unknown>,
): void {
  const { id } = extension;
  if (typeof id !== "string" || id.length === 0) {
    throw new TypeError("an extension needs a non-empty string id");
  }
  if (installed.has(id)) throw new Error(`extension ${id} is already installed`);
  for (const [method, handler] of Object.entries(extension.methods ?? {})) {
    if (typeof handler !== "function") {
      throw new TypeError(`extension ${id}: the handler of ${method} is not a function`);
    }
  }
}
