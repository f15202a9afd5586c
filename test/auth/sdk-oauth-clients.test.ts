/**
 * The official SDK clients' own OAuth (v1 `@modelcontextprotocol/sdk`, v2
 * `@modelcontextprotocol/client`: protected resource metadata, dynamic registration, the
 * authorization code flow with PKCE and a resource indicator) against oidc-provider, completed
 * headlessly, reaching mcpwire's protected endpoints: the gateway (`--auth-issuer --auth-scopes
 * --legacy-sse`) over Streamable HTTP and over the HTTP+SSE transport at /sse, the everything
 * example. The SDKs ask for the scopes the challenge names (oidc-provider refuses a
 * request for none with access_denied) and accept metadata only when its `resource` covers the
 * URL they connect to.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client as ClientV2,
  SSEClientTransport as SseV2,
  StreamableHTTPClientTransport as StreamableV2,
  UnauthorizedError as UnauthorizedV2,
} from "@modelcontextprotocol/client";
import { UnauthorizedError as UnauthorizedV1 } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport as SseV1 } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport as StreamableV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { OUR_EVERYTHING, type RunningGateway, startGateway } from "../cli/gateway-run.js";
import { stop } from "../cli/run-cli.js";
import { type ListeningChild, spawnListening, stopChild } from "../helpers/listening-child.js";
import {
  type AuthorizingTransport,
  connectWithOAuth,
  HeadlessOAuthProvider,
} from "./headless-oauth-provider.js";
import { type OidcProvider, startOidcProvider } from "./oidc-provider-process.js";

const SERVER = new URL("../../examples/everything-server.js", import.meta.url).pathname;
const SCOPES = ["mcp:tools"];

let op: OidcProvider;
let gateway: RunningGateway;
let everything: ListeningChild;

before(async () => {
  // One resource per path the endpoints below are reached at.
  op = await startOidcProvider({
    resources: { "/mcp": SCOPES, "/sse": SCOPES },
    clients: [],
    accessTokenTtl: 300,
  });
  const auth = ["--auth-issuer", op.issuer, "--auth-scopes", SCOPES.join(" ")];
  // One after the other: a start that fails leaves nothing running that after() cannot stop.
  gateway = await startGateway(OUR_EVERYTHING, [...auth, "--legacy-sse"]);
  everything = await spawnListening(process.execPath, [SERVER, "--http", "--port", "0", ...auth]);
});
after(async () => {
  await Promise.all([gateway && stop(gateway.gateway), everything && stopChild(everything.child)]);
  await op?.close();
});

const mcpUrl = () => gateway.url;
const sseUrl = () => new URL("/sse", gateway.url).href;
/** The everything example names http://localhost:<port>/mcp as its resource. */
const everythingUrl = () => `http://localhost:${new URL(everything.url).port}/mcp`;

interface Outcome {
  text: string;
  provider: HeadlessOAuthProvider;
}

const textOf = (result: unknown) =>
  ((result as { content: { text: string }[] }).content[0] as { text: string }).text;

/** What differs between the two SDKs for this flow: their classes and finishAuth's argument. */
interface Sdk {
  name: string;
  unauthorized: abstract new (...args: never[]) => Error;
  answer: "code" | "params";
  client(): {
    connect(transport: never): Promise<void>;
    close(): Promise<void>;
    callTool(params: { name: string; arguments: Record<string, never> }): Promise<unknown>;
  };
  transport(
    kind: "streamable" | "sse",
    url: URL,
    authProvider: HeadlessOAuthProvider,
  ): AuthorizingTransport;
}

const V1: Sdk = {
  name: "sdk-v1",
  unauthorized: UnauthorizedV1,
  answer: "code",
  client: () => new ClientV1({ name: "sdk-v1", version: "1.0.0" }),
  transport: (kind, url, authProvider) =>
    kind === "sse" ? new SseV1(url, { authProvider }) : new StreamableV1(url, { authProvider }),
};

const V2: Sdk = {
  name: "sdk-v2",
  unauthorized: UnauthorizedV2,
  answer: "params",
  client: () => new ClientV2({ name: "sdk-v2", version: "1.0.0" }),
  transport: (kind, url, authProvider) =>
    kind === "sse" ? new SseV2(url, { authProvider }) : new StreamableV2(url, { authProvider }),
};

/** The SDK's client signs in on its own and calls test_simple_text at `url`. */
async function through(sdk: Sdk, url: string, kind: "streamable" | "sse"): Promise<Outcome> {
  const provider = new HeadlessOAuthProvider(sdk.name);
  const client = sdk.client();
  // A client whose connection failed for want of a token is closed before the next one.
  const connect = async (transport: AuthorizingTransport) => {
    await client.close();
    await client.connect(transport as never);
  };
  try {
    await connectWithOAuth(
      sdk,
      connect,
      () => sdk.transport(kind, new URL(url), provider),
      provider,
    );
    const text = textOf(await client.callTool({ name: "test_simple_text", arguments: {} }));
    return { text, provider };
  } finally {
    await client.close();
  }
}

/** The client went through one authorization, for `resource`, asking for our scopes. */
function assertAuthorized(outcome: Outcome, resource: string): void {
  assert.equal(outcome.provider.opened.length, 1);
  const asked = outcome.provider.opened[0]!.searchParams;
  assert.equal(asked.get("resource"), resource);
  // The challenge's scopes (the SDKs add offline_access, which oidc-provider offers).
  const scopes = (asked.get("scope") ?? "").split(" ");
  for (const scope of SCOPES) assert.ok(scopes.includes(scope), `scope ${asked.get("scope")}`);
  assert.equal(asked.get("code_challenge_method"), "S256");
  assert.equal(outcome.provider.callback?.searchParams.get("error"), null);
}

describe("the official SDK v1 client's own OAuth", () => {
  it("reaches the gateway over Streamable HTTP", async () => {
    const outcome = await through(V1, mcpUrl(), "streamable");
    assert.match(outcome.text, /\S/);
    assertAuthorized(outcome, mcpUrl());
  });

  it("reaches the gateway over HTTP+SSE (/sse, a resource of its own)", async () => {
    const outcome = await through(V1, sseUrl(), "sse");
    assert.match(outcome.text, /\S/);
    assertAuthorized(outcome, sseUrl());
  });

  it("reaches the everything example", async () => {
    const outcome = await through(V1, everythingUrl(), "streamable");
    assert.match(outcome.text, /\S/);
    assertAuthorized(outcome, everythingUrl());
  });
});

describe("the official SDK v2 client's own OAuth", () => {
  it("reaches the gateway over Streamable HTTP", async () => {
    const outcome = await through(V2, mcpUrl(), "streamable");
    assert.match(outcome.text, /\S/);
    assertAuthorized(outcome, mcpUrl());
  });

  it("reaches the gateway over HTTP+SSE (/sse, a resource of its own)", async () => {
    const outcome = await through(V2, sseUrl(), "sse");
    assert.match(outcome.text, /\S/);
    assertAuthorized(outcome, sseUrl());
  });

  it("reaches the everything example", async () => {
    const outcome = await through(V2, everythingUrl(), "streamable");
    assert.match(outcome.text, /\S/);
    assertAuthorized(outcome, everythingUrl());
  });
});
