import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../src/client/index.js";
import { InputRoundsExceededError } from "../../src/client/mrtr.js";
import { InputRequiredError } from "../../src/client/results.js";
import type { ClientHandlers } from "../../src/client/types.js";
import type { JsonObject, JsonRpcRequest } from "../../src/jsonrpc/types.js";
import {
  discoverResult,
  type FakeServer,
  fakePair,
  initializeResult,
  metaOf,
} from "./fake-server.js";

const clientInfo = { name: "mrtr-client", version: "1" };
/** Characters a careless client might re-encode: the state must come back byte-exact. */
const STATE = 's+/=~ é\u2028"quoted" \\ 😀';

const FORM = {
  mode: "form",
  message: "Name and age?",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string" },
      age: { type: "integer", default: 30 },
      newsletter: { type: "boolean", default: false },
    },
  },
};

function inputRequired(inputRequests: JsonObject, requestState?: string): { result: JsonObject } {
  const result: JsonObject = { resultType: "input_required", inputRequests };
  if (requestState !== undefined) result.requestState = requestState;
  return { result };
}

function done(text: string, extra: JsonObject = {}): { result: JsonObject } {
  return { result: { resultType: "complete", content: [{ type: "text", text }], ...extra } };
}

async function modernClient(
  setup: (server: FakeServer) => void,
  handlers: ClientHandlers,
  options: Partial<ConstructorParameters<typeof McpClient>[0]> = {},
): Promise<{ client: McpClient; server: FakeServer }> {
  const { transport, server } = fakePair();
  server.on("server/discover", discoverResult());
  setup(server);
  const client = new McpClient({ clientInfo, handlers, ...options });
  await client.connect(transport);
  assert.equal(client.era, "modern");
  return { client, server };
}

const elicitation: ClientHandlers["elicitation"] = () => ({
  action: "accept",
  content: { name: "Ada" },
});

describe("the client's multi round-trip loop", () => {
  it("answers, echoes requestState byte-exact under a new id, and fills elicitation defaults", async () => {
    const { client, server } = await modernClient(
      (server) =>
        server.on("tools/call", (request) =>
          request.params?.inputResponses === undefined
            ? inputRequired({ who: { method: "elicitation/create", params: FORM } }, STATE)
            : done("thanks"),
        ),
      { elicitation },
    );
    const result = await client.callTool("test_mrtr_echo_state", { x: 1 });
    assert.deepEqual(result.content, [{ type: "text", text: "thanks" }]);
    const [first, retry] = server.requests("tools/call") as [JsonRpcRequest, JsonRpcRequest];
    assert.notEqual(first.id, retry.id);
    assert.equal(retry.params?.requestState, STATE);
    assert.equal(retry.params?.name, "test_mrtr_echo_state");
    assert.deepEqual(retry.params?.arguments, { x: 1 });
    assert.deepEqual(retry.params?.inputResponses, {
      who: { action: "accept", content: { name: "Ada", age: 30, newsletter: false } },
    });
    assert.deepEqual(metaOf(retry), metaOf(first));
    assert.equal(first.params?.requestState, undefined);
    assert.equal(first.params?.inputResponses, undefined);
    await client.close();
  });

  it("sends no requestState when the server sent none, and none on unrelated calls", async () => {
    let rounds = 0;
    const { client, server } = await modernClient(
      (server) =>
        server.on("tools/call", (request) => {
          if (request.params?.name !== "multi") return done("plain");
          rounds += 1;
          // Round 1 has a state, round 2 none, round 3 completes.
          if (rounds === 1)
            return inputRequired({ a: { method: "elicitation/create", params: FORM } }, "r1");
          if (rounds === 2)
            return inputRequired({ b: { method: "elicitation/create", params: FORM } });
          return done("finished");
        }),
      { elicitation },
    );
    const result = await client.callTool("multi", {});
    assert.deepEqual(result.content, [{ type: "text", text: "finished" }]);
    await client.callTool("unrelated", {});
    const [, second, third, unrelated] = server.requests("tools/call") as JsonRpcRequest[];
    assert.equal(second!.params?.requestState, "r1");
    assert.deepEqual(Object.keys(second!.params?.inputResponses as JsonObject), ["a"]);
    assert.ok(!("requestState" in third!.params!));
    assert.deepEqual(Object.keys(third!.params?.inputResponses as JsonObject), ["b"]);
    assert.ok(!("requestState" in unrelated!.params!));
    assert.ok(!("inputResponses" in unrelated!.params!));
    await client.close();
  });

  it("treats a result without resultType as complete (no retry)", async () => {
    const { client, server } = await modernClient(
      (server) => server.on("tools/call", { result: { content: [{ type: "text", text: "old" }] } }),
      { elicitation },
    );
    const result = await client.callTool("test_mrtr_no_result_type", {});
    assert.deepEqual(result.content, [{ type: "text", text: "old" }]);
    assert.equal(server.requests("tools/call").length, 1);
    await client.close();
  });

  it("answers sampling, roots and elicitation in one round", async () => {
    const { client, server } = await modernClient(
      (server) =>
        server.on("prompts/get", (request) =>
          request.params?.inputResponses === undefined
            ? inputRequired(
                {
                  e: { method: "elicitation/create", params: FORM },
                  s: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } },
                  r: { method: "roots/list" },
                },
                "st",
              )
            : { result: { resultType: "complete", messages: [] } },
        ),
      {
        elicitation,
        sampling: (params) => ({
          role: "assistant",
          content: { type: "text", text: `max ${params.maxTokens}` },
          model: "fake",
        }),
        roots: () => [{ uri: "file:///r", name: "r" }],
      },
    );
    await client.getPrompt("p");
    const retry = server.requests("prompts/get")[1]!;
    const responses = retry.params?.inputResponses as Record<string, JsonObject>;
    assert.deepEqual(responses.s, {
      role: "assistant",
      content: { type: "text", text: "max 5" },
      model: "fake",
    });
    assert.deepEqual(responses.r, { roots: [{ uri: "file:///r", name: "r" }] });
    assert.equal((responses.e!.content as JsonObject).age, 30);
    await client.close();
  });

  it("gives up after maxInputRounds", async () => {
    const { client, server } = await modernClient(
      (server) =>
        server.on(
          "tools/call",
          inputRequired({ q: { method: "elicitation/create", params: FORM } }, "again"),
        ),
      { elicitation },
      { maxInputRounds: 3 },
    );
    await assert.rejects(client.callTool("forever", {}), (error: Error) => {
      assert.ok(error instanceof InputRoundsExceededError);
      assert.match(error.message, /after 3 rounds/);
      return true;
    });
    assert.equal(server.requests("tools/call").length, 4);
    await client.close();
  });

  it("names the missing handler", async () => {
    const { client, server } = await modernClient(
      (server) =>
        server.on(
          "tools/call",
          inputRequired({ s: { method: "sampling/createMessage", params: {} } }, "x"),
        ),
      { elicitation },
    );
    await assert.rejects(client.callTool("needs_model", {}), (error: Error) => {
      assert.ok(error instanceof InputRequiredError);
      assert.match(error.message, /no sampling handler configured for sampling\/createMessage/);
      return true;
    });
    assert.equal(server.requests("tools/call").length, 1);
    await client.close();
  });

  it("never caches a result that took a retry", async () => {
    const { client, server } = await modernClient(
      (server) =>
        server.on("resources/read", (request) =>
          request.params?.inputResponses === undefined
            ? inputRequired({ q: { method: "elicitation/create", params: FORM } }, "st")
            : {
                result: {
                  resultType: "complete",
                  contents: [{ uri: "mem://x", text: "secret" }],
                  ttlMs: 60_000,
                  cacheScope: "private",
                },
              },
        ),
      { elicitation },
    );
    await client.readResource("mem://x");
    await client.readResource("mem://x");
    assert.equal(server.requests("resources/read").length, 4);
    await client.close();
  });

  it("fills elicitation defaults for legacy server-to-client requests too", async () => {
    const { transport, server } = fakePair();
    server.on("initialize", initializeResult());
    const client = new McpClient({ clientInfo, era: "legacy", handlers: { elicitation } });
    await client.connect(transport);
    const response = await server.request("elicitation/create", FORM);
    assert.ok("result" in response);
    assert.deepEqual(response.result, {
      action: "accept",
      content: { name: "Ada", age: 30, newsletter: false },
    });
    await client.close();
  });
});
