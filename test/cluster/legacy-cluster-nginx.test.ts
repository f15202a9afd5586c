/**
 * Legacy sessions (2025-11-25) on three everything instances sharing one Redis, behind a
 * round-robin nginx (no affinity): the official server conformance suite for the legacy
 * revision passes against the balancer, and again after an instance was SIGKILLed; the official
 * SDK clients (v1 and v2) answer elicitation and sampling requests of several instances, their
 * answers going wherever the balancer sends them; a stream broken by killing its instance is
 * resumed on another with Last-Event-ID and ends with the error reply, every event exactly once.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { RESTARTED_BEFORE_REPLY } from "../../src/transports/http/legacy/legacy-session.js";
import { conformance } from "../helpers/conformance-run.js";
import { type EverythingInstance, startCluster } from "../helpers/everything-instances.js";
import { type Nginx, startNginx } from "../helpers/nginx.js";
import { type PrivateRedis, startPrivateRedis } from "../helpers/redis.js";

const WHO = "the legacy cluster test behind nginx";

/** The instance whose cluster id is `id` (each prints "cluster instance <id>" on stderr). */
function instanceWithId(instances: EverythingInstance[], id: string): EverythingInstance {
  const found = instances.find((instance) =>
    instance.stderr().split("\n").includes(`cluster instance ${id}`),
  );
  if (!found) throw new Error(`no instance announced the id ${id}`);
  return found;
}

/** The instance id in a server-to-client request id (`<instance>.<n>`). */
function askingInstance(requestId: unknown): string {
  const text = String(requestId);
  return text.slice(0, text.indexOf("."));
}

/** Reconnecting soon and often enough to reach a live instance while one is dying. */
const RECONNECT = {
  initialReconnectionDelay: 200,
  maxReconnectionDelay: 1_000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 10,
};
const FORM = { username: "ada", email: "ada@example.com" };
const SAMPLED = { role: "assistant", content: { type: "text", text: "hello" }, model: "test" };

describe("legacy sessions on a three-instance cluster behind nginx", { timeout: 240_000 }, () => {
  let redis: PrivateRedis;
  let instances: EverythingInstance[] = [];
  let nginx: Nginx;
  let endpoint: string;
  const killed = new Set<EverythingInstance>();

  before(async () => {
    redis = await startPrivateRedis(WHO);
    const prefix = `legacy-${randomBytes(4).toString("hex")}:`;
    instances = await startCluster(3, redis.url, prefix);
    nginx = await startNginx(
      WHO,
      instances.map((instance) => instance.port),
    );
    endpoint = `${nginx.origin}/mcp`;
  });
  after(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
    await redis?.stop();
  });

  it("passes the official server conformance suite (2025-11-25)", async () => {
    const { code, output } = await conformance(endpoint, "2025-11-25");
    assert.equal(code, 0, output);
  });

  for (const [name, connect] of [
    ["v1", connectV1],
    ["v2", connectV2],
  ] as const) {
    it(`SDK ${name}: elicitation and sampling through the balancer, asked by several instances`, async () => {
      const asked: string[] = [];
      const client = await connect(endpoint, (requestId) => {
        asked.push(askingInstance(requestId));
      });
      try {
        for (let round = 0; round < 3; round++) {
          const elicited = await client.callTool({
            name: "test_elicitation",
            arguments: { message: "Who are you?" },
          });
          assert.equal(
            elicited.content[0]?.text,
            `User response: action=accept, content=${JSON.stringify(FORM)}`,
          );
          const sampled = await client.callTool({
            name: "test_sampling",
            arguments: { prompt: "Say hello" },
          });
          assert.equal(sampled.content[0]?.text, "LLM response: hello");
        }
        // Round-robin spreads the calls, and the answers' POSTs land on whichever instance
        // comes next (the in-process cluster tests pin that an answer on b reaches a).
        assert.equal(asked.length, 6);
        for (const id of asked) assert.ok(instanceWithId(instances, id));
        assert.ok(new Set(asked).size > 1, `every request asked by one instance: ${asked}`);
      } finally {
        await client.close();
      }
    });
  }

  /** SDK `connect` calls a tool whose question comes back after its asking instance died. */
  const killAsking = async (connect: typeof connectV1) => {
    const asked: string[] = [];
    const client = await connect(endpoint, async (requestId) => {
      const id = askingInstance(requestId);
      asked.push(id);
      // The instance asking dies before the answer: its stream breaks mid-call.
      const asking = instanceWithId(instances, id);
      killed.add(asking);
      await asking.kill();
    });
    try {
      await assert.rejects(
        client.callTool({ name: "test_elicitation", arguments: { message: "Still there?" } }),
        (error: { code?: number; message?: string }) =>
          error.code === -32603 && String(error.message).includes(RESTARTED_BEFORE_REPLY),
      );
      // The question went out once: the resumption replayed nothing twice.
      assert.equal(asked.length, 1);
    } finally {
      await client.close();
    }
  };

  it("SDK v1: a stream whose instance is SIGKILLed, resumed elsewhere, ends with the error reply once", () =>
    killAsking(connectV1));

  it("passes the conformance suite again with one instance dead", async () => {
    assert.equal(killed.size, 1);
    const { code, output } = await conformance(endpoint, "2025-11-25");
    assert.equal(code, 0, output);
  });

  it("SDK v2: the same, with two instances left", () => killAsking(connectV2));
});

interface SdkClient {
  callTool(params: {
    name: string;
    arguments: Record<string, unknown>;
  }): Promise<{ content: Array<{ text?: string }> }>;
  close(): Promise<void>;
}

/** `onAsk`: told the id of each server-to-client request before it is answered. */
type OnAsk = (requestId: unknown) => void | Promise<void>;

async function connectV1(url: string, onAsk: OnAsk): Promise<SdkClient> {
  const client = new ClientV1(
    { name: "v1-cluster", version: "1.0.0" },
    { capabilities: { elicitation: {}, sampling: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
    await onAsk(extra.requestId);
    return { action: "accept", content: FORM };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (_request, extra) => {
    await onAsk(extra.requestId);
    return SAMPLED as never;
  });
  const transport = new TransportV1(new URL(url), { reconnectionOptions: RECONNECT });
  await client.connect(transport);
  return client as unknown as SdkClient;
}

async function connectV2(url: string, onAsk: OnAsk): Promise<SdkClient> {
  const client = new ClientV2(
    { name: "v2-cluster", version: "1.0.0" },
    { capabilities: { elicitation: {}, sampling: {} } },
  );
  client.setRequestHandler("elicitation/create", async (_request, context) => {
    await onAsk(context.mcpReq.id);
    return { action: "accept", content: FORM };
  });
  client.setRequestHandler("sampling/createMessage", async (_request, context) => {
    await onAsk(context.mcpReq.id);
    return SAMPLED as never;
  });
  await client.connect(new TransportV2(new URL(url), { reconnectionOptions: RECONNECT }));
  return client as unknown as SdkClient;
}
