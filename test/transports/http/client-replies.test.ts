import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { afterEach, describe, it } from "node:test";
import { JsonRpcError, LocalError } from "../../../src/jsonrpc/errors.js";
import type { JsonObject } from "../../../src/jsonrpc/types.js";
import { Session } from "../../../src/protocol/session.js";
import { HttpClientTransport } from "../../../src/transports/http/client/client-transport.js";
import { HttpStatusError } from "../../../src/transports/http/client/era.js";
import { until } from "../../helpers/poll.js";
import {
  type Captured,
  result,
  rpcError,
  type ScriptedServer,
  scriptedServer,
  sendJson,
  startSse,
} from "./client-scripted-server.js";

const META = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } };

let server: ScriptedServer | undefined;
let session: Session | undefined;

async function open(
  script: (request: Captured, res: ServerResponse) => void | Promise<void>,
  requestTimeoutMs?: number,
) {
  server = await scriptedServer(script);
  const transport = new HttpClientTransport(server.url, { flavourCache: new Map() });
  const notifications: Array<{ method: string; params: JsonObject }> = [];
  session = new Session(
    transport,
    { requestTimeoutMs },
    { handleNotification: (method, params) => notifications.push({ method, params }) },
  );
  session.start();
  return { server, session, transport, notifications };
}

afterEach(async () => {
  await session?.close();
  await server?.close();
  session = undefined;
  server = undefined;
});

describe("modern replies", () => {
  it("delivers an application/json reply", async () => {
    const { session } = await open((request, res) =>
      sendJson(res, 200, result(request, { value: 1 })),
    );
    assert.deepEqual(await session.request("ping", META), { value: 1 });
  });

  it("delivers notifications and the reply from an SSE stream, then stops reading", async () => {
    let gone: Promise<void> | undefined;
    const { session, notifications } = await open((request, res) => {
      const write = startSse(res);
      res.write(": keep-alive comment\n\n");
      const token = (request.json!.params as JsonObject)._meta as JsonObject;
      write({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token.progressToken, progress: 1, total: 2 },
      });
      write({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "hi" },
      });
      write(result(request, { done: true }));
      // The stream stays open: the client must not wait for its end.
      gone = request.clientGone;
    });
    const progress: number[] = [];
    const reply = await session.request(
      "tools/call",
      { name: "slow", ...META },
      {
        onProgress: (update) => progress.push(update.progress),
      },
    );
    assert.deepEqual(reply, { done: true });
    assert.deepEqual(progress, [1]);
    assert.deepEqual(
      notifications.map((n) => n.method),
      ["notifications/message"],
    );
    await gone; // the client closed the finished stream
  });

  it("a notification POST gets 202 and resolves", async () => {
    const { session, server } = await open((_request, res) => {
      res.writeHead(202).end();
    });
    await session.notify("notifications/something", META);
    assert.equal(server.requests[0]?.headers["mcp-method"], "notifications/something");
    assert.equal(server.requests[0]?.headers["mcp-protocol-version"], "2026-07-28");
  });

  it("an HTTP error with a JSON-RPC error body rejects with that JsonRpcError", async () => {
    const { session } = await open((request, res) =>
      sendJson(res, 404, rpcError(request, -32601, "Method not found")),
    );
    await assert.rejects(session.request("nope", META), (error: unknown) => {
      assert.ok(error instanceof JsonRpcError);
      assert.equal(error.code, -32601);
      return true;
    });
  });

  it("an id-less JSON-RPC error body is still this request's reply", async () => {
    const { session } = await open((_request, res) =>
      sendJson(res, 400, rpcError(undefined, -32022, "Unsupported", { supported: ["2026-07-28"] })),
    );
    await assert.rejects(session.request("ping", META), (error: unknown) => {
      assert.ok(error instanceof JsonRpcError);
      assert.equal(error.code, -32022);
      return true;
    });
  });

  it("an HTTP failure without a JSON-RPC body is a local error, never a peer error", async () => {
    const { session } = await open((_request, res) => {
      res.writeHead(502, { "Content-Type": "text/plain" }).end("bad gateway");
    });
    await assert.rejects(session.request("ping", META), (error: unknown) => {
      assert.ok(error instanceof HttpStatusError);
      assert.ok(error instanceof LocalError);
      assert.equal(error.status, 502);
      assert.equal(error.eraSignal, undefined);
      return true;
    });
  });

  it("401 with a JSON-RPC body is still a local HttpStatusError (auth, not a reply)", async () => {
    const { session } = await open((request, res) =>
      sendJson(res, 401, rpcError(request, -32001, "Unauthorized"), {
        "WWW-Authenticate": 'Bearer resource_metadata="x"',
      }),
    );
    await assert.rejects(session.request("ping", META), (error: unknown) => {
      assert.ok(error instanceof HttpStatusError);
      assert.equal(error.status, 401);
      assert.equal(error.headers.get("www-authenticate"), 'Bearer resource_metadata="x"');
      return true;
    });
  });

  it("a stream that ends before the reply fails that request with a LocalError", async () => {
    const { session } = await open((request, res) => {
      const write = startSse(res);
      write({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: 1 },
      });
      res.end();
      void request;
    });
    await assert.rejects(
      session.request("tools/call", { name: "x", ...META }),
      (error: unknown) => {
        assert.ok(error instanceof LocalError);
        assert.equal(error.kind, "transport");
        assert.match(error.message, /ended before the reply/);
        return true;
      },
    );
  });

  it("a stream broken mid-way (connection reset) fails that request with a LocalError", async () => {
    const { session } = await open((_request, res) => {
      startSse(res);
      res.write('data: {"jsonrpc":"2.0","method":"notif');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await assert.rejects(
      session.request("tools/call", { name: "x", ...META }),
      (error: unknown) => {
        assert.ok(error instanceof LocalError);
        assert.ok(!(error instanceof JsonRpcError));
        return true;
      },
    );
  });

  it("the user's headers (static or computed) go on every request; MCP headers win", async () => {
    server = await scriptedServer((request, res) => sendJson(res, 200, result(request, {})));
    let n = 0;
    const transport = new HttpClientTransport(server.url, {
      flavourCache: new Map(),
      headers: () => ({ Authorization: `Bearer t${++n}`, "Mcp-Method": "forged" }),
    });
    session = new Session(transport);
    session.start();
    await session.request("ping", META);
    await session.request("ping", META);
    assert.equal(server.requests[0]?.headers.authorization, "Bearer t1");
    assert.equal(server.requests[1]?.headers.authorization, "Bearer t2");
    assert.equal(server.requests[1]?.headers["mcp-method"], "ping");
  });
});

describe("cancellation and timeouts abort the fetch", () => {
  it("aborting a request closes its connection; nothing else is sent", async () => {
    const { session, server } = await open(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = session.request(
      "tools/call",
      { name: "slow", ...META },
      { signal: controller.signal },
    );
    await until(() => server.requests.length === 1);
    controller.abort("user gave up");
    await assert.rejects(pending, (error: unknown) => {
      assert.ok(error instanceof LocalError);
      assert.equal(error.kind, "aborted");
      return true;
    });
    await server.requests[0]!.clientGone;
    // No notifications/cancelled POST on modern HTTP: closing the stream is the signal.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(server.requests.length, 1);
  });

  it("a timeout rejects with LocalError timeout and closes the connection", async () => {
    const { session, server } = await open((_request, res) => {
      startSse(res); // headers sent, reply never comes
    }, 200);
    await assert.rejects(
      session.request("tools/call", { name: "slow", ...META }),
      (error: unknown) => {
        assert.ok(error instanceof LocalError);
        assert.equal(error.kind, "timeout");
        return true;
      },
    );
    await server.requests[0]!.clientGone;
    assert.equal(server.requests.length, 1);
  });

  it("close() aborts every request in flight and later sends fail as closed", async () => {
    const { session, server, transport } = await open(() => {});
    const pending = session.request("tools/call", { name: "slow", ...META });
    await until(() => server.requests.length === 1);
    await session.close();
    await assert.rejects(pending, LocalError);
    await server.requests[0]!.clientGone;
    await assert.rejects(
      transport.send({ jsonrpc: "2.0", id: 9, method: "ping" }),
      (error: unknown) => {
        assert.ok(error instanceof LocalError);
        assert.equal(error.kind, "closed");
        return true;
      },
    );
  });
});
