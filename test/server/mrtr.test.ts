import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { Session } from "../../src/protocol/session.js";
import { McpServer, type McpServerOptions } from "../../src/server/index.js";
import { createMemoryPair } from "../../src/transports/memory.js";

const ALL_CAPS = { elicitation: {}, sampling: {}, roots: {} };

function meta(capabilities: JsonObject = ALL_CAPS): JsonObject {
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  };
}

const NAME_FORM = {
  mode: "form",
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
};
const SAMPLE = {
  messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
  maxTokens: 50,
};
const ACCEPT_ALICE = { action: "accept", content: { name: "Alice" } };
const SAMPLED = {
  role: "assistant",
  content: { type: "text", text: "Paris" },
  model: "m",
  stopReason: "endTurn",
};
const ROOTS = { roots: [{ uri: "file:///test/root", name: "Test Root" }] };

/** Counts how often each handler ran, to check the re-execution model. */
const runs: Record<string, number> = {};

function mrtrServer(options: Partial<McpServerOptions> = {}): McpServer {
  const server = new McpServer({
    serverInfo: { name: "mrtr", version: "1" },
    onError: () => {},
    ...options,
  });
  server.tool({ name: "greet" }, async (_args, context) => {
    runs.greet = (runs.greet ?? 0) + 1;
    const [answer] = Object.values(
      await context.input({ user_name: { method: "elicitation/create", params: NAME_FORM } }),
    );
    const content = answer!.content as JsonObject;
    return `Hello ${content.name}`;
  });
  server.tool({ name: "ask_model" }, async (_args, context) => {
    const sampled = await context.sample(SAMPLE);
    return `model said ${(sampled.content as JsonObject).text}`;
  });
  server.tool({ name: "roots" }, async (_args, context) => {
    const listed = await context.listRoots();
    return JSON.stringify(listed.roots);
  });
  server.tool({ name: "everything" }, async (_args, context) => {
    const answers = await context.input({
      user_name: { method: "elicitation/create", params: NAME_FORM },
      capital: { method: "sampling/createMessage", params: SAMPLE },
      roots: { method: "roots/list" },
    });
    return JSON.stringify(Object.keys(answers).sort());
  });
  // Round two depends on round one's answer: the state must carry it.
  server.tool({ name: "wizard" }, async (_args, context) => {
    runs.wizard = (runs.wizard ?? 0) + 1;
    const first = await context.elicit(NAME_FORM);
    const name = (first.content as JsonObject).name as string;
    const second = await context.elicit({
      mode: "form",
      message: `Favourite colour, ${name}?`,
      requestedSchema: { type: "object", properties: { colour: { type: "string" } } },
    });
    return `${name} likes ${(second.content as JsonObject).colour}`;
  });
  // Swallows the stop signal: the round must still end with input_required.
  server.tool({ name: "careless" }, async (_args, context) => {
    try {
      await context.elicit(NAME_FORM);
      return "answered";
    } catch {
      return "gave up";
    }
  });
  server.prompt({ name: "personal" }, async (_args, context) => {
    const answer = await context.elicit(NAME_FORM, { key: "who" });
    return {
      messages: [
        {
          role: "user",
          content: { type: "text", text: `Write to ${(answer.content as JsonObject).name}` },
        },
      ],
    };
  });
  server.resource({ uri: "mem://secret", name: "secret" }, async (uri, context) => {
    const answer = await context.elicit({ ...NAME_FORM, message: "Password?" });
    return [{ uri, text: `unlocked by ${(answer.content as JsonObject).name}` }];
  });
  return server;
}

function connect(server: McpServer): Session {
  const [serverSide, clientSide] = createMemoryPair();
  server.connect(serverSide);
  const client = new Session(clientSide);
  client.start();
  return client;
}

function text(result: JsonObject): string {
  return ((result.content as JsonObject[])[0] as { text: string }).text;
}

async function call(client: Session, name: string, extra: JsonObject = {}, caps = ALL_CAPS) {
  return client.request("tools/call", { _meta: meta(caps), name, arguments: {}, ...extra });
}

describe("MRTR on the server, modern era", () => {
  it("asks for a single elicitation and completes on the retry (re-executing the handler)", async () => {
    const client = connect(mrtrServer());
    runs.greet = 0;
    const first = await call(client, "greet");
    assert.equal(first.resultType, "input_required");
    const requests = first.inputRequests as Record<string, JsonObject>;
    assert.deepEqual(requests.user_name, { method: "elicitation/create", params: NAME_FORM });
    assert.equal(typeof first.requestState, "string");
    const done = await call(client, "greet", {
      inputResponses: { user_name: ACCEPT_ALICE },
      requestState: first.requestState,
    });
    assert.equal(done.resultType, "complete");
    assert.equal(text(done), "Hello Alice");
    assert.equal(runs.greet, 2);
    await client.close();
  });

  it("asks for sampling and roots with server-chosen keys", async () => {
    const client = connect(mrtrServer());
    const sampling = await call(client, "ask_model");
    assert.deepEqual(Object.keys(sampling.inputRequests as JsonObject), ["input-1"]);
    assert.equal(
      (sampling.inputRequests as Record<string, JsonObject>)["input-1"]!.method,
      "sampling/createMessage",
    );
    const sampled = await call(client, "ask_model", {
      inputResponses: { "input-1": SAMPLED },
      requestState: sampling.requestState,
    });
    assert.equal(text(sampled), "model said Paris");

    const roots = await call(client, "roots");
    assert.deepEqual((roots.inputRequests as JsonObject)["input-1"], { method: "roots/list" });
    const listed = await call(client, "roots", {
      inputResponses: { "input-1": ROOTS },
      requestState: roots.requestState,
    });
    assert.deepEqual(JSON.parse(text(listed)), ROOTS.roots);
    await client.close();
  });

  it("asks several inputs in one round", async () => {
    const client = connect(mrtrServer());
    const first = await call(client, "everything");
    const requests = first.inputRequests as Record<string, JsonObject>;
    assert.deepEqual(
      Object.entries(requests).map(([key, request]) => [key, request.method]),
      [
        ["user_name", "elicitation/create"],
        ["capital", "sampling/createMessage"],
        ["roots", "roots/list"],
      ],
    );
    const done = await call(client, "everything", {
      inputResponses: { user_name: ACCEPT_ALICE, capital: SAMPLED, roots: ROOTS },
      requestState: first.requestState,
    });
    assert.deepEqual(JSON.parse(text(done)), ["capital", "roots", "user_name"]);
    await client.close();
  });

  it("runs several rounds, replaying earlier answers from the state", async () => {
    const client = connect(mrtrServer());
    runs.wizard = 0;
    const r1 = await call(client, "wizard");
    assert.deepEqual(Object.keys(r1.inputRequests as JsonObject), ["input-1"]);
    const r2 = await call(client, "wizard", {
      inputResponses: { "input-1": ACCEPT_ALICE },
      requestState: r1.requestState,
    });
    assert.equal(r2.resultType, "input_required");
    assert.notEqual(r2.requestState, r1.requestState);
    const second = (r2.inputRequests as Record<string, JsonObject>)["input-2"]!;
    assert.equal((second.params as JsonObject).message, "Favourite colour, Alice?");
    assert.deepEqual(Object.keys(r2.inputRequests as JsonObject), ["input-2"]);
    const r3 = await call(client, "wizard", {
      // Only round two's answer travels; round one's comes from the state.
      inputResponses: { "input-2": { action: "accept", content: { colour: "teal" } } },
      requestState: r2.requestState,
    });
    assert.equal(r3.resultType, "complete");
    assert.equal(text(r3), "Alice likes teal");
    assert.equal(runs.wizard, 3);
    await client.close();
  });

  it("supports prompts/get and resources/read", async () => {
    const client = connect(mrtrServer());
    const prompt = await client.request("prompts/get", { _meta: meta(), name: "personal" });
    assert.equal(prompt.resultType, "input_required");
    assert.ok((prompt.inputRequests as JsonObject).who);
    const got = await client.request("prompts/get", {
      _meta: meta(),
      name: "personal",
      inputResponses: { who: ACCEPT_ALICE },
      requestState: prompt.requestState,
    });
    assert.equal(got.resultType, "complete");
    assert.match(JSON.stringify(got.messages), /Write to Alice/);

    const read = await client.request("resources/read", { _meta: meta(), uri: "mem://secret" });
    assert.equal(read.resultType, "input_required");
    const unlocked = await client.request("resources/read", {
      _meta: meta(),
      uri: "mem://secret",
      inputResponses: { "input-1": ACCEPT_ALICE },
      requestState: read.requestState,
    });
    assert.equal((unlocked.contents as JsonObject[])[0]!.text, "unlocked by Alice");
    await client.close();
  });

  it("rejects tampered, foreign and expired state with -32602", async () => {
    let now = 1_000_000;
    const client = connect(mrtrServer({ mrtr: { ttlMs: 60_000, now: () => now } }));
    const first = await call(client, "greet");
    const state = first.requestState as string;
    const answers = { inputResponses: { user_name: ACCEPT_ALICE } };
    await assert.rejects(call(client, "greet", { ...answers, requestState: `${state}-TAMPERED` }), {
      code: -32602,
      message: /integrity/,
    });
    // A payload altered but keeping the old MAC.
    const [body, mac] = state.split(".");
    const payload = JSON.parse(Buffer.from(body!, "base64url").toString());
    payload.a = { user_name: { action: "accept", content: { name: "Mallory" } } };
    const forged = `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${mac}`;
    await assert.rejects(call(client, "greet", { requestState: forged }), { code: -32602 });
    await assert.rejects(call(client, "wizard", { ...answers, requestState: state }), {
      code: -32602,
      message: /belongs to tools\/call "greet"/,
    });
    await assert.rejects(
      client.request("prompts/get", {
        _meta: meta(),
        name: "greet",
        ...answers,
        requestState: state,
      }),
      { code: -32602 },
    );
    await assert.rejects(call(client, "greet", { ...answers, requestState: 42 }), { code: -32602 });
    now += 60_001;
    await assert.rejects(call(client, "greet", { ...answers, requestState: state }), {
      code: -32602,
      message: /expired/,
    });
    await client.close();
  });

  it("accepts state from another instance sharing a rotated secret, not from a stranger", async () => {
    const oldSecret = "old-secret-0123456789abcdef";
    const newSecret = "new-secret-0123456789abcdef";
    const before = connect(mrtrServer({ mrtr: { secret: oldSecret } }));
    const after = connect(mrtrServer({ mrtr: { secret: [newSecret, oldSecret] } }));
    const stranger = connect(mrtrServer());
    const first = await call(before, "greet");
    const retry = { inputResponses: { user_name: ACCEPT_ALICE }, requestState: first.requestState };
    assert.equal(text(await call(after, "greet", retry)), "Hello Alice");
    await assert.rejects(call(stranger, "greet", retry), { code: -32602 });
    await Promise.all([before.close(), after.close(), stranger.close()]);
  });

  it("caps the size of requestState", async () => {
    const client = connect(mrtrServer({ mrtr: { maxStateBytes: 600 } }));
    const first = await call(client, "greet");
    assert.ok((first.requestState as string).length <= 600);
    await assert.rejects(
      call(client, "greet", { requestState: `${first.requestState}${"x".repeat(600)}` }),
      { code: -32602, message: /too large/ },
    );
    // Answers that would not fit in the next state fail on the server, not on the next retry.
    const big = { action: "accept", content: { name: "A".repeat(1000) } };
    await assert.rejects(
      call(client, "wizard", {
        inputResponses: { "input-1": big },
        requestState: (await call(client, "wizard")).requestState,
      }),
      { code: -32603 },
    );
    await client.close();
  });

  it("binds the state to the principal", async () => {
    const server = mrtrServer();
    const sessions = ["alice", "bob"].map((principal) => {
      const [serverSide, clientSide] = createMemoryPair();
      const wrapped = Object.create(serverSide);
      wrapped.start = (receiver: Parameters<typeof serverSide.start>[0]) =>
        serverSide.start({
          ...receiver,
          message: (message, context) => receiver.message(message, { ...context, principal }),
        });
      server.connect(wrapped);
      const client = new Session(clientSide);
      client.start();
      return client;
    });
    const [alice, bob] = sessions as [Session, Session];
    const first = await call(alice, "greet");
    const retry = { inputResponses: { user_name: ACCEPT_ALICE }, requestState: first.requestState };
    await assert.rejects(call(bob, "greet", retry), { code: -32602, message: /principal/ });
    assert.equal(text(await call(alice, "greet", retry)), "Hello Alice");
    await Promise.all(sessions.map((session) => session.close()));
  });

  it("asks again for missing answers and ignores extra keys", async () => {
    const client = connect(mrtrServer());
    const first = await call(client, "greet");
    const wrong = await call(client, "greet", {
      inputResponses: { wrong_key: ACCEPT_ALICE },
      requestState: first.requestState,
    });
    assert.equal(wrong.resultType, "input_required");
    assert.ok((wrong.inputRequests as JsonObject).user_name);
    const extra = await call(client, "greet", {
      inputResponses: { user_name: ACCEPT_ALICE, surplus: { anything: true } },
      requestState: wrong.requestState,
    });
    assert.equal(text(extra), "Hello Alice");
    // Answers given up front, before any state, serve the keys the handler asks for.
    const upFront = await call(client, "greet", {
      inputResponses: { user_name: ACCEPT_ALICE, surplus: { anything: true } },
    });
    assert.equal(text(upFront), "Hello Alice");
    const unrelated = await call(client, "greet", { inputResponses: { wrong_key: ACCEPT_ALICE } });
    assert.equal(unrelated.resultType, "input_required");
    await client.close();
  });

  it("never completes with malformed answers", async () => {
    const client = connect(mrtrServer());
    const first = await call(client, "greet");
    const state = first.requestState;
    for (const bad of [12345, null, "yes", { action: "maybe" }, { action: "accept", content: 3 }]) {
      await assert.rejects(
        call(client, "greet", { inputResponses: { user_name: bad }, requestState: state }),
        { code: -32602, message: /inputResponses\.user_name/ },
      );
    }
    await assert.rejects(call(client, "greet", { inputResponses: null, requestState: state }), {
      code: -32602,
    });
    await assert.rejects(call(client, "greet", { inputResponses: 7, requestState: state }), {
      code: -32602,
    });
    const sampling = await call(client, "ask_model");
    await assert.rejects(
      call(client, "ask_model", {
        inputResponses: { "input-1": { action: "accept" } },
        requestState: sampling.requestState,
      }),
      { code: -32602 },
    );
    await client.close();
  });

  it("ends with input_required even when the handler swallows the stop signal", async () => {
    const client = connect(mrtrServer());
    const first = await call(client, "careless");
    assert.equal(first.resultType, "input_required");
    const done = await call(client, "careless", {
      inputResponses: { "input-1": ACCEPT_ALICE },
      requestState: first.requestState,
    });
    assert.equal(text(done), "answered");
    await client.close();
  });

  it("never asks for what the client cannot do", async () => {
    const client = connect(mrtrServer());
    // Only sampling declared: the elicitation and roots entries are left out.
    const partial = await call(client, "everything", {}, { sampling: {} } as typeof ALL_CAPS);
    assert.equal(partial.resultType, "input_required");
    assert.deepEqual(Object.keys(partial.inputRequests as JsonObject), ["capital"]);
    const done = await call(
      client,
      "everything",
      { inputResponses: { capital: SAMPLED }, requestState: partial.requestState },
      { sampling: {} } as typeof ALL_CAPS,
    );
    assert.deepEqual(JSON.parse(text(done)), ["capital"]);
    await assert.rejects(call(client, "greet", {}, {} as typeof ALL_CAPS), {
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
    await assert.rejects(
      call(client, "everything", {}, {} as typeof ALL_CAPS),
      (error: JsonObject) => {
        assert.equal(error.code, -32021);
        assert.deepEqual(
          Object.keys((error.data as JsonObject).requiredCapabilities as JsonObject).sort(),
          ["elicitation", "roots", "sampling"],
        );
        return true;
      },
    );
    await client.close();
  });

  it("asks for URL-mode elicitation only from clients that declared elicitation.url", async () => {
    const server = mrtrServer();
    server.tool({ name: "link" }, async (_args, context) => {
      const answer = await context.elicit({
        mode: "url",
        message: "Connect your account",
        url: "https://example.com/connect",
        elicitationId: "link-1",
      });
      return String(answer.action);
    });
    const client = connect(server);
    await assert.rejects(call(client, "link", {}, ALL_CAPS), {
      code: -32021,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
    const urlOnly = { ...ALL_CAPS, elicitation: { url: {} } };
    const asked = await call(client, "link", {}, urlOnly);
    assert.equal(asked.resultType, "input_required");
    // A client that declared URL mode only is never sent a form.
    await assert.rejects(call(client, "greet", {}, urlOnly), {
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    await client.close();
  });

  it("never answers input_required on other methods", async () => {
    const client = connect(mrtrServer());
    for (const method of ["tools/list", "prompts/list", "resources/list", "server/discover"]) {
      const result = await client.request(method, { _meta: meta() });
      assert.equal(result.resultType, "complete", method);
    }
    await client.close();
  });
});

describe("MRTR handlers on legacy connections", () => {
  it("turn input calls into real server-to-client requests", async () => {
    const [serverSide, clientSide] = createMemoryPair();
    mrtrServer().connect(serverSide);
    const client = new Session(clientSide);
    const seen: string[] = [];
    client.setRequestHandler("elicitation/create", (params) => {
      seen.push(`elicit:${params.message}`);
      return { action: "accept", content: { name: "Alice", colour: "teal" } };
    });
    client.setRequestHandler("sampling/createMessage", () => {
      seen.push("sample");
      return SAMPLED;
    });
    client.setRequestHandler("roots/list", () => {
      seen.push("roots");
      return ROOTS;
    });
    client.start();
    await client.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: ALL_CAPS,
      clientInfo: { name: "old", version: "1" },
    });
    await client.notify("notifications/initialized");
    const greeted = await client.request("tools/call", { name: "greet", arguments: {} });
    assert.equal(text(greeted), "Hello Alice");
    assert.equal(greeted.resultType, undefined);
    const all = await client.request("tools/call", { name: "everything", arguments: {} });
    assert.deepEqual(JSON.parse(text(all)), ["capital", "roots", "user_name"]);
    const wizard = await client.request("tools/call", { name: "wizard", arguments: {} });
    assert.equal(text(wizard), "Alice likes teal");
    assert.deepEqual(seen.sort(), [
      "elicit:Favourite colour, Alice?",
      "elicit:Your name?",
      "elicit:Your name?",
      "elicit:Your name?",
      "roots",
      "sample",
    ]);
    await client.close();
  });
});
