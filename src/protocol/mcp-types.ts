/**
 * The MCP shapes the server and client APIs work with. Deliberately loose where the spec is open
 * (extra fields pass through untouched); see ../shared/spec/<revision>/schema.json for the rest.
 */
import type { JsonObject } from "../jsonrpc/types.js";

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: JsonObject;
  elicitation?: JsonObject;
  experimental?: JsonObject;
  extensions?: JsonObject;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  completions?: JsonObject;
  logging?: JsonObject;
  experimental?: JsonObject;
  extensions?: JsonObject;
  [key: string]: unknown;
}

/** What a `subscriptions/listen` stream carries (2026-07-28 basic/patterns/subscriptions.mdx). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** URIs to receive `notifications/resources/updated` for. */
  resourceSubscriptions?: string[];
  /** Task ids to receive `notifications/tasks` for (the tasks extension). */
  taskIds?: string[];
}

export const LOGGING_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return (LOGGING_LEVELS as readonly unknown[]).includes(value);
}

/** Caching hints (2026-07-28 server/utilities/caching.mdx). */
export interface CacheHint {
  ttlMs: number;
  cacheScope: "public" | "private";
}

export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

export type TextContent = {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};
export type ImageContent = {
  type: "image";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};
export type AudioContent = {
  type: "audio";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};
export type ResourceLink = {
  type: "resource_link";
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};
export type EmbeddedResource = {
  type: "resource";
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: JsonObject;
};
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLink
  | EmbeddedResource;

export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
  | { uri: string; mimeType?: string; blob: string; _meta?: JsonObject };

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  icons?: Icon[];
  _meta?: JsonObject;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: JsonObject;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: JsonObject;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [key: string]: unknown;
}

export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: ServerCapabilities;
  instructions?: string;
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  [key: string]: unknown;
}
