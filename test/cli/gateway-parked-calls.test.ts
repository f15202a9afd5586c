/**
 * A child's call held open across a modern HTTP client's input rounds (gateway-rounds.ts):
 * resumed by the retry that answers it, given up on (the child's question fails, its call is
 * cancelled) when the client never comes back or when too many wait, and never resumed by a
 * retry of a different request. The gateway runs in-process over real HTTP; its child is a
 * legacy McpServer over Streamable HTTP, so its question is a real request that stays pending,
 * and comes on the answer stream of the call it belongs to (which is how the gateway tells
 * several parked calls' questions apart).
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { GatewayServer } from "../../src/cli/gateway/gateway-server.js";
import { McpClient } from "../../src/client/index.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { json, meta, post, type Wire } from "../transports/http/http-helpers.js";
import { waitFor } from "./run-cli.js";

const FORM = {
  mode: "form",
  message: "Name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};

interface Setup {
  url: string;
  /** What the child's tool saw: its answers, its failures, its cancellations. */
  events: string[];
  /** The calls of the child's hang tool that have begun. */
  hangs: string[];
  close(): Promise<void>;
}

let setup: Setup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function start(options: {
  parkedCallMs: number;
  maxParkedCalls?: number;
  childTimeoutMs?: number;
}): Promise<Setup> {
  const events: string[] = [];
  const hangs: string[] = [];
  const child = new McpServer({
    serverInfo: { name: "asking-child", version: "1" },
    eras: "legacy",
  });
  child.tool({ name: "ask", inputSchema: { type: "object" } }, async (args, context) => {
    const label = String((args as JsonObject).label ?? "");
    context.signal.addEventListener("abort", () => events.push(`${label} cancelled`));
    try {
      const answer = await context.elicit(FORM);
      events.push(`${label} answered ${JSON.stringify(answer.content)}`);
      return `hello ${(answer.content as JsonObject).name}`;
    } catch (error) {
      events.push(`${label} failed: ${(error as Error).message}`);
      throw error;
    }
  });
  child.tool({ name: "hang", inputSchema: { type: "object" } }, (_args, context) => {
    hangs.push("hang");
    return new Promise<string>((resolve) => {
      context.signal.addEventListener("abort", () => {
        events.push("hang cancelled");
        resolve("late");
      });
    });
  });
  const childHttp = await serveHttp(child);
  let gateway: GatewayServer | undefined;
  const client = new McpClient({
    clientInfo: { name: "gateway", version: "1" },
    cache: false,
    handlers: {
      elicitation: (params, asked) => gateway!.childHandlers().elicitation!(params, asked),
    },
  });
  await client.connect(new HttpClientTransport(childHttp.url));
  gateway = new GatewayServer(() => client, {
    serverInfo: { name: "gw", version: "1" },
    ...options,
  });
  gateway.start();
  const served: ServedHttp = await serveHttp(gateway, {});
  return {
    url: served.url,
    events,
    hangs,
    close: async () => {
      await served.close();
      await client.close();
      await childHttp.close();
    },
  };
}

const reasonOnly = (event: string) => event.replace("failed: tools/call cancelled: ", "failed: ");

function callAsk(
  url: string,
  label: string,
  retry?: { requestState: string; inputResponses: Wire },
) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "ask",
      arguments: { label },
      ...retry,
      _meta: meta({ "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } }),
    },
  };
  return post(url, body).then(json);
}

describe("gateway: a child's call parked between input rounds", () => {
  it("the retry resumes the same call: the child is asked once and gets the answer", async () => {
    setup = await start({ parkedCallMs: 60_000 });
    const first = await callAsk(setup.url, "a");
    assert.equal(first.result.resultType, "input_required");
    const [key] = Object.keys(first.result.inputRequests);
    assert.ok(key);
    const second = await callAsk(setup.url, "a", {
      requestState: first.result.requestState,
      inputResponses: { [key]: { action: "accept", content: { name: "Ada" } } },
    });
    assert.equal(second.result.content[0].text, "hello Ada");
    assert.deepEqual(setup.events, ['a answered {"name":"Ada"}']);
  });

  it("a retry of another request does not resume it", async () => {
    setup = await start({ parkedCallMs: 60_000 });
    const first = await callAsk(setup.url, "a");
    const [key] = Object.keys(first.result.inputRequests);
    // Same answers, other arguments: the requestState does not fit either, so -32602.
    const other = await callAsk(setup.url, "b", {
      requestState: first.result.requestState,
      inputResponses: { [key!]: { action: "accept", content: { name: "Eve" } } },
    });
    assert.ok(other.error, JSON.stringify(other));
    assert.deepEqual(setup.events, []);
  });

  it("gives up after the wait: the child's question fails and its call is cancelled", async () => {
    setup = await start({ parkedCallMs: 200 });
    const first = await callAsk(setup.url, "a");
    assert.equal(first.result.resultType, "input_required");
    const events = setup.events;
    await waitFor("the child to be told", () => (events.length >= 2 ? true : undefined));
    // The cancellation may reach the question first: the reason is the same.
    assert.deepEqual(events.sort().map(reasonOnly), [
      "a cancelled",
      "a failed: its client did not come back with the answers",
    ]);
  });

  it("keeps only so many: the oldest parked call is given up for a new one", async () => {
    setup = await start({ parkedCallMs: 60_000, maxParkedCalls: 1 });
    await callAsk(setup.url, "a");
    const events = setup.events;
    await callAsk(setup.url, "b");
    await waitFor("the oldest to be given up", () => (events.length >= 2 ? true : undefined));
    assert.deepEqual(events.sort().map(reasonOnly), [
      "a cancelled",
      "a failed: too many calls wait for their clients' answers",
    ]);
  });

  it("a question waiting for the client does not count against the child's timeout", async () => {
    // 1 s for the child to work: a loaded machine can take longer than 0.2 s for one answer.
    setup = await start({ parkedCallMs: 60_000, childTimeoutMs: 1000 });
    const first = await callAsk(setup.url, "a");
    const [key] = Object.keys(first.result.inputRequests);
    // The person takes longer to answer than the child may take to work.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const second = await callAsk(setup.url, "a", {
      requestState: first.result.requestState,
      inputResponses: { [key!]: { action: "accept", content: { name: "Slow" } } },
    });
    assert.equal(second.result?.content[0].text, "hello Slow", JSON.stringify(second));
  });

  it("a child that does not answer within the timeout is cancelled, the client told why", async () => {
    setup = await start({ parkedCallMs: 60_000, childTimeoutMs: 200 });
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "hang", arguments: {}, _meta: meta() },
    };
    const answer = await post(setup.url, body).then(json);
    assert.match(answer.error.message, /did not answer within 0\.2 s/);
    const events = setup.events;
    await waitFor("the child's cancellation", () => (events.length > 0 ? true : undefined));
    assert.deepEqual(events, ["hang cancelled"]);
  });

  it("a client that goes away mid-call has the child's call cancelled", async () => {
    setup = await start({ parkedCallMs: 60_000 });
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "hang", arguments: {}, _meta: meta() },
    };
    const leaving = new AbortController();
    const call = post(setup.url, body, {}, leaving.signal).catch(() => undefined);
    const { hangs } = setup;
    await waitFor("the child's call", () => (hangs.length > 0 ? true : undefined));
    leaving.abort();
    await call;
    const events = setup.events;
    await waitFor("the child's cancellation", () => (events.length > 0 ? true : undefined));
    assert.deepEqual(events, ["hang cancelled"]);
  });
});
