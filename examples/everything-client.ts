/**
 * The conformance "everything" client: the client contract of the official MCP conformance
 * suite, on McpClient and HttpClientTransport.
 *
 *   npm run --silent example:everything-client -- <server-url>
 *
 * Environment (set by the suite): MCP_CONFORMANCE_SCENARIO names the scenario;
 * MCP_CONFORMANCE_PROTOCOL_VERSION picks the lifecycle (2026-07-28: per-request `_meta`;
 * anything older: initialize); MCP_CONFORMANCE_CONTEXT is JSON with scenario data.
 * Exit code 0 when the scenario ran through, 1 on any error (with a line on stderr).
 */

import { McpClient } from "../src/client/index.js";
import type { McpClientOptions } from "../src/client/types.js";
import type { JsonObject } from "../src/jsonrpc/types.js";
import { type HttpAuthProvider, HttpClientTransport } from "../src/transports/http/client/index.js";

const MODERN = "2026-07-28";
/** The client ID metadata document URL the auth scenarios expect (auth/basic-cimd). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

interface Scenario {
  name: string;
  version: string;
  context: JsonObject;
  url: string;
}

function readScenario(): Scenario {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) {
    throw new Error("usage: everything-client <server-url> (the URL comes last)");
  }
  const rawContext = process.env.MCP_CONFORMANCE_CONTEXT;
  return {
    name: process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize",
    version: process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? MODERN,
    context: rawContext ? (JSON.parse(rawContext) as JsonObject) : {},
    url,
  };
}

/** Accepts every elicitation with no fields of its own: McpClient fills in schema defaults. */
const handlers: McpClientOptions["handlers"] = {
  elicitation: () => ({ action: "accept", content: {} }),
  sampling: () => ({
    role: "assistant",
    content: { type: "text", text: "This is a response from the conformance client." },
    model: "mcpwire-everything-client",
    stopReason: "endTurn",
  }),
  roots: () => [{ uri: "file:///tmp/mcpwire", name: "mcpwire" }],
};

/**
 * The OAuth client for the auth/* scenarios: authorization code headlessly (the mock servers
 * redirect at once), client credentials, JWT bearer (workload identity) or enterprise-managed
 * with what the context carries. DPoP needs no setting: the client binds its tokens when the
 * authorization server offers it and the MCP server challenges with DPoP (auth/dpop*).
 */
async function authFor(scenario: Scenario): Promise<HttpAuthProvider | undefined> {
  if (!scenario.name.startsWith("auth/")) return undefined;
  // Loaded here: the other scenarios never pay for the OAuth dependencies.
  const { firstIssuer, headlessRedirect, importPrivateKey, OAuthClient } = await import(
    "../src/auth/index.js"
  );
  const context = scenario.context as Record<string, string | undefined>;
  // Credentials belong to one authorization server: the one the scenario names, else the first
  // this client is sent to (the suite's scenarios give no other).
  const clientIssuer = context.issuer ?? firstIssuer();
  if (scenario.name === "auth/wif-jwt-bearer") {
    // The workload's identity token, as its platform would hand it over.
    return new OAuthClient({
      grant: "jwt_bearer",
      clientId: context.client_id,
      clientIssuer,
      assertion: () => context.valid_jwt ?? "",
    });
  }
  if (scenario.name === "auth/enterprise-managed-authorization") {
    return new OAuthClient({
      grant: "enterprise",
      clientId: context.client_id,
      clientSecret: context.client_secret,
      clientIssuer,
      enterprise: {
        idpIssuer: context.idp_issuer ?? "",
        idpClientId: context.idp_client_id ?? "",
        idToken: context.idp_id_token ?? "",
      },
    });
  }
  if (scenario.name.startsWith("auth/client-credentials")) {
    const privateKey = context.private_key_pem
      ? await importPrivateKey(context.private_key_pem, context.signing_algorithm ?? "ES256")
      : undefined;
    return new OAuthClient({
      grant: "client_credentials",
      clientId: context.client_id,
      clientSecret: context.client_secret,
      clientIssuer,
      privateKey,
    });
  }
  return new OAuthClient({
    redirect: headlessRedirect(),
    clientName: "mcpwire-everything-client",
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientId: context.client_id,
    clientSecret: context.client_secret,
    clientIssuer,
  });
}

async function connect(scenario: Scenario): Promise<McpClient> {
  const modern = scenario.version === MODERN;
  const client = new McpClient({
    clientInfo: { name: "mcpwire-everything-client", version: "1.0.0" },
    era: modern ? "modern" : "legacy",
    ...(modern
      ? { protocolVersion: scenario.version }
      : { legacyProtocolVersion: scenario.version }),
    handlers,
    // An auth scenario's first request carries a whole OAuth flow; the suite kills us at 30 s.
    requestTimeoutMs: scenario.name.startsWith("auth/") ? 27_000 : 20_000,
    onProtocolError: (error) => process.stderr.write(`protocol: ${error.message}\n`),
  });
  const auth = await authFor(scenario);
  await client.connect(
    () =>
      new HttpClientTransport(scenario.url, {
        onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
        auth,
      }),
  );
  return client;
}

/** Calls each tool the context names, with its arguments (http-custom-headers). */
async function callFromContext(client: McpClient, context: JsonObject): Promise<void> {
  const calls = (context.toolCalls as { name: string; arguments?: JsonObject }[] | undefined) ?? [];
  for (const call of calls) await client.callTool(call.name, call.arguments ?? {});
}

async function run(scenario: Scenario): Promise<void> {
  const client = await connect(scenario);
  try {
    switch (scenario.name) {
      case "tools_call": {
        await client.listAllTools();
        await client.callTool("add_numbers", { a: 5, b: 3 });
        break;
      }
      case "elicitation-sep1034-client-defaults": {
        await client.listAllTools();
        await client.callTool("test_client_elicitation_defaults", {});
        break;
      }
      case "sse-retry": {
        await client.listAllTools();
        await client.callTool("test_reconnection", {});
        break;
      }
      case "sep-2322-client-request-state": {
        for (const name of [
          "test_mrtr_echo_state",
          "test_mrtr_no_state",
          "test_mrtr_unrelated",
          "test_mrtr_no_result_type",
        ]) {
          await client.callTool(name, {});
        }
        break;
      }
      case "http-standard-headers": {
        const tools = await client.listAllTools();
        if (tools[0]) await client.callTool(tools[0].name, {});
        const resources = await client.listAllResources();
        if (resources[0]) await client.readResource(resources[0].uri);
        const prompts = await client.listAllPrompts();
        if (prompts[0]) await client.getPrompt(prompts[0].name, {});
        break;
      }
      case "http-custom-headers": {
        await client.listAllTools();
        await callFromContext(client, scenario.context);
        break;
      }
      case "http-invalid-tool-headers": {
        // The transport drops tools with invalid x-mcp-header annotations from the list.
        const tools = await client.listAllTools();
        if (tools.some((tool) => tool.name === "valid_tool")) {
          await client.callTool("valid_tool", { region: "us-west1" });
        }
        break;
      }
      case "json-schema-2020-12-preservation": {
        const tools = await client.listAllTools();
        const focal = tools.find((tool) => tool.name === "json_schema_2020_12_tool");
        if (!focal) throw new Error("json_schema_2020_12_tool not listed");
        await client.callTool("json_schema_echo", { schema: focal.inputSchema as JsonObject });
        break;
      }
      default: {
        if (scenario.name.startsWith("auth/")) {
          // Two authorized requests: a step-up (tools/call needs more) or a moved authorization
          // server shows on the second.
          await client.listAllTools();
          await client.callTool("test-tool", {});
          break;
        }
        // initialize, request-metadata, json-schema-ref-no-deref and the rest: connect (done
        // above), list the tools and leave.
        await client.listAllTools();
      }
    }
  } finally {
    await client.close();
  }
}

try {
  await run(readScenario());
} catch (error) {
  process.stderr.write(
    `everything-client: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exitCode = 1;
}
