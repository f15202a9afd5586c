/**
 * The tasks extension through the gateway, beyond the official scenarios: a task belongs to the
 * HTTP client that made it, although the child sees one principal (the gateway). Another
 * principal asking for it gets the child's "not found", and its listen stream is not
 * acknowledged for it; the owner's listen stream gets the child's notifications/tasks. The
 * gateway runs in-process over real HTTP, each client named by a header; its child is a modern
 * McpServer on a memory pair.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GatewayServer } from "../../src/cli/gateway/gateway-server.js";
import { McpClient } from "../../src/client/index.js";
import { JsonRpcError } from "../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { McpServer } from "../../src/server/index.js";
import { HttpClientTransport } from "../../src/transports/http/client/client-transport.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { createMemoryPair } from "../../src/transports/memory.js";

describe("mcpwire gateway: a relayed task is its maker's", () => {
  let served: ServedHttp;
  let gatewayClient: McpClient;
  const finish = new Map<string, () => void>();
  const clients: McpClient[] = [];

  before(async () => {
    const child = new McpServer({ serverInfo: { name: "tasks-child", version: "1" } });
    child.tool(
      { name: "job", inputSchema: { type: "object", properties: { label: { type: "string" } } } },
      (args) =>
        new Promise<string>((resolve) => {
          const label = String((args as JsonObject).label);
          finish.set(label, () => resolve(`done ${label}`));
        }),
      { task: { support: "required", pollIntervalMs: 50 } },
    );
    const [childSide, gatewaySide] = createMemoryPair();
    child.connect(childSide);
    gatewayClient = new McpClient({
      clientInfo: { name: "gateway", version: "1" },
      cache: false,
      tasks: true,
    });
    await gatewayClient.connect(gatewaySide);
    const gateway = new GatewayServer(() => gatewayClient, {
      serverInfo: { name: "gw", version: "1" },
    });
    gateway.start();
    served = await serveHttp(gateway, {
      authenticate: (request) => request.headers.get("x-user") ?? undefined,
    });
  });

  after(async () => {
    for (const client of clients) await client.close();
    await served.close();
    await gatewayClient.close();
  });

  async function as(user: string): Promise<McpClient> {
    const client = new McpClient({ clientInfo: { name: user, version: "1" }, cache: false });
    await client.connect(
      () =>
        new HttpClientTransport(served.url, {
          headers: { "x-user": user },
          flavourCache: new Map(),
        }),
    );
    clients.push(client);
    return client;
  }

  it("answers only its maker's tasks/get, tasks/update and tasks/cancel", async () => {
    const alice = await as("alice");
    const bob = await as("bob");
    const created = await alice.callTool("job", { label: "a" }, { returnTaskHandle: true });
    assert.equal(created.resultType, "task");
    const taskId = created.taskId as string;
    for (const attempt of [
      () => bob.tasks.get(taskId),
      () => bob.tasks.update(taskId, {}),
      () => bob.tasks.cancel(taskId),
    ]) {
      await assert.rejects(attempt(), (error) => {
        assert.ok(error instanceof JsonRpcError);
        assert.equal(error.code, -32602);
        return true;
      });
    }
    assert.equal((await alice.tasks.get(taskId)).status, "working");
    finish.get("a")!();
  });

  it("relays notifications/tasks to its maker's listen stream only", async () => {
    const alice = await as("alice");
    const bob = await as("bob");
    const created = await alice.callTool("job", { label: "b" }, { returnTaskHandle: true });
    const taskId = created.taskId as string;
    const mine = alice.listen({ taskIds: [taskId] });
    const theirs = bob.listen({ taskIds: [taskId] });
    assert.deepEqual((await mine.acknowledged).taskIds, [taskId]);
    assert.deepEqual((await theirs.acknowledged).taskIds ?? [], []);
    finish.get("b")!();
    for await (const notification of mine) {
      assert.equal(notification.method, "notifications/tasks");
      assert.equal(notification.params.taskId, taskId);
      if (notification.params.status !== "completed") continue;
      assert.deepEqual(notification.params.result, {
        content: [{ type: "text", text: "done b" }],
      });
      break;
    }
    await mine.close();
    await theirs.close();
  });
});
