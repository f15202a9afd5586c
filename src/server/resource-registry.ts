import { ErrorCode, InvalidParamsError, JsonRpcError } from "../jsonrpc/errors.js";
import type { JsonObject } from "../jsonrpc/types.js";
import type {
  CacheHint,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
} from "../protocol/mcp-types.js";
import type { Era } from "../protocol/versions.js";
import { checkCacheHint } from "./cache-hints.js";
import type { Completer } from "./completion.js";
import type { HandlerContext } from "./context.js";
import { paginate, Registry, withCursor } from "./registry.js";
import { checkScopes, scopesOrNone } from "./scopes.js";
import { UriTemplate } from "./uri-template.js";

export type ReadHandler = (
  uri: string,
  context: HandlerContext,
) => ReadResourceResult | ResourceContents[] | Promise<ReadResourceResult | ResourceContents[]>;

export type TemplateReadHandler = (
  uri: string,
  variables: Record<string, string | string[]>,
  context: HandlerContext,
) => ReadResourceResult | ResourceContents[] | Promise<ReadResourceResult | ResourceContents[]>;

export interface ResourceOptions {
  /** Caching hint for reads of this resource; overrides the server default. */
  cache?: CacheHint;
  /**
   * OAuth scopes a caller's access token must carry to read (or subscribe to) it; enforced
   * like ToolOptions.scopes.
   */
  scopes?: readonly string[];
}

export interface TemplateOptions extends ResourceOptions {
  complete?: Record<string, Completer>;
}

interface RegisteredResource {
  resource: Resource;
  read: ReadHandler;
  options: ResourceOptions;
}
interface RegisteredTemplate {
  template: ResourceTemplate;
  matcher: UriTemplate;
  read: TemplateReadHandler;
  options: TemplateOptions;
}

/** The server's resources by uri: resources/list, and the direct half of resources/read. */
export class ResourceRegistry extends Registry<RegisteredResource> {
  add(resource: Resource, read: ReadHandler, options: ResourceOptions = {}): () => void {
    checkScopes(options.scopes, `resource ${JSON.stringify(resource.uri)}`);
    if (options.cache !== undefined) {
      checkCacheHint(options.cache, `resource ${JSON.stringify(resource.uri)}: cache`);
    }
    return this.set(resource.uri, { resource, read, options });
  }

  list(params: JsonObject, pageSize?: number): JsonObject {
    const all = [...this.values()].map((entry) => entry.resource);
    const { page, nextCursor } = paginate(all, params.cursor, pageSize);
    return withCursor({ resources: page }, nextCursor);
  }
}

/** The server's resource templates: resources/templates/list, and reads of uris no resource has. */
export class TemplateRegistry extends Registry<RegisteredTemplate> {
  add(
    template: ResourceTemplate,
    read: TemplateReadHandler,
    options: TemplateOptions = {},
  ): () => void {
    checkScopes(options.scopes, `resource template ${JSON.stringify(template.uriTemplate)}`);
    if (options.cache !== undefined) {
      checkCacheHint(
        options.cache,
        `resource template ${JSON.stringify(template.uriTemplate)}: cache`,
      );
    }
    const matcher = new UriTemplate(template.uriTemplate);
    return this.set(template.uriTemplate, { template, matcher, read, options });
  }

  list(params: JsonObject, pageSize?: number): JsonObject {
    const all = [...this.values()].map((entry) => entry.template);
    const { page, nextCursor } = paginate(all, params.cursor, pageSize);
    return withCursor({ resourceTemplates: page }, nextCursor);
  }
}

/** Returns the result and the caching hint that applies to it, if the resource set one. */
export async function readResource(
  params: JsonObject,
  context: HandlerContext,
  resources: ResourceRegistry,
  templates: TemplateRegistry,
): Promise<{ result: JsonObject; cache?: CacheHint }> {
  const uri = params.uri;
  if (typeof uri !== "string") throw new InvalidParamsError('resources/read needs a string "uri"');
  const direct = resources.get(uri);
  if (direct) {
    const result = normaliseRead(await direct.read(uri, context));
    return { result, cache: direct.options.cache };
  }
  for (const entry of templates.values()) {
    const variables = entry.matcher.match(uri);
    if (variables) {
      const result = normaliseRead(await entry.read(uri, variables, context));
      return { result, cache: entry.options.cache };
    }
  }
  throw resourceNotFound(uri, context.era);
}

/** The scopes of the resource `uri` names, directly or through the first template matching it. */
export function resourceScopes(
  uri: string,
  resources: ResourceRegistry,
  templates: TemplateRegistry,
): readonly string[] | undefined {
  const direct = resources.get(uri);
  if (direct) return scopesOrNone(direct.options.scopes);
  for (const entry of templates.values()) {
    if (entry.matcher.match(uri)) return scopesOrNone(entry.options.scopes);
  }
  return undefined;
}

function resourceNotFound(uri: string, era: Era): JsonRpcError {
  // 2026-07-28 uses -32602 with data.uri; earlier revisions defined -32002.
  const code = era === "modern" ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
  return new JsonRpcError(code, `Resource not found: ${uri}`, { uri });
}

function normaliseRead(value: ReadResourceResult | ResourceContents[]): JsonObject {
  return (Array.isArray(value) ? { contents: value } : value) as JsonObject;
}
