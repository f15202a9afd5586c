/**
 * server.tool() returns a handle (enable, disable, update, remove), over a real TCP socket in
 * both eras: a disabled tool is gone from tools/list and refused like an unknown one, and each
 * change reaches a legacy session as notifications/tools/list_changed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { JsonObject } from "../../src/jsonrpc/types.js";
import { Session } from "../../src/protocol/session.js";
import { LATEST_MODERN_VERSION } from "../../src/protocol/versions.js";
import { McpServer } from "../../src/server/index.js";
import {
  connectSocket,
  listenSocket,
  type SocketListener,
} from "../../src/transports/socket/index.js";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": LATEST_MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "handle-test", version: "1" },
};

const server = new McpServer({ serverInfo: { name: "handles", version: "1" }, onError: () => {} });
server.tool({ name: "stays", inputSchema: { type: "object" } }, () => "stays");
let listener: SocketListener;

before(async () => {
  listener = await listenSocket("tcp://127.0.0.1:0", (transport) => server.connect(transport));
});
after(async () => {
  await listener.close();
});

interface Changes {
  count: number;
  /** Resolves once `count` list changes have arrived in all. */
  reach(count: number): Promise<void>;
}

async function open(): Promise<{ client: Session; changes: Changes }> {
  const client = new Session(await connectSocket(listener.address));
  const waiting: { count: number; resolve: () => void }[] = [];
  const changes: Changes = {
    count: 0,
    reach: (count) =>
      changes.count >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ count, resolve })),
  };
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    changes.count++;
    for (const wait of waiting) if (changes.count >= wait.count) wait.resolve();
  });
  client.start();
  return { client, changes };
}

const names = (listed: JsonObject) => (listed.tools as JsonObject[]).map((tool) => tool.name);

for (const era of ["modern", "legacy"] as const) {
  describe(`tool handles, ${era} era over TCP`, () => {
    let client: Session;
    let changes: Changes;
    const params = (extra: JsonObject = {}): JsonObject =>
      era === "modern" ? { ...extra, _meta: MODERN_META } : extra;
    const list = async () => names(await client.request("tools/list", params()));
    const call = (name: string) => client.request("tools/call", params({ name, arguments: {} }));

    before(async () => {
      ({ client, changes } = await open());
      if (era === "legacy") {
        await client.request("initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "handle-test", version: "1" },
        });
        await client.notify("notifications/initialized");
        // A round trip, so the server has read `initialized` before any change is made.
        await client.request("ping");
      }
    });
    after(async () => {
      await client.close();
    });

    it("disables, enables, updates and removes a tool", async () => {
      const handle = server.tool(
        { name: `flip_${era}`, inputSchema: { type: "object" } },
        () => "first",
      );
      assert.equal(handle.enabled, true);
      assert.deepEqual(await list(), ["stays", `flip_${era}`]);

      handle.disable();
      assert.equal(handle.enabled, false);
      assert.deepEqual(await list(), ["stays"]);
      const unknown = await call("never_registered").catch((error: unknown) => error);
      const refused = await call(`flip_${era}`).catch((error: unknown) => error);
      assert.equal((refused as { code?: number }).code, (unknown as { code?: number }).code);
      assert.ok((refused as { code?: number }).code !== undefined, "refused with a JSON-RPC error");

      handle.update({ handler: () => "second", definition: { description: "updated" } });
      assert.deepEqual(await list(), ["stays"], "updating a disabled tool does not enable it");
      handle.enable();
      const listed = await client.request("tools/list", params());
      const flipped = (listed.tools as JsonObject[]).find((tool) => tool.name === `flip_${era}`);
      assert.equal(flipped?.description, "updated");
      assert.deepEqual((await call(`flip_${era}`)).content, [{ type: "text", text: "second" }]);

      handle.update({ definition: { name: `renamed_${era}` } });
      assert.equal(handle.name, `renamed_${era}`);
      assert.deepEqual(await list(), ["stays", `renamed_${era}`]);

      handle.remove();
      assert.deepEqual(await list(), ["stays"]);
      assert.throws(() => handle.enable(), /was removed/);
      if (era === "legacy") {
        // register, disable, enable, rename (the new name, then the old one gone), remove; the
        // update while disabled sent none. The socket keeps order: all came before the last reply.
        await changes.reach(6);
        assert.equal(changes.count, 6);
      }
    });

    it("refuses an invalid update and keeps the tool as it was", async () => {
      const handle = server.tool({ name: `keep_${era}` }, () => "kept");
      assert.throws(
        () => handle.update({ definition: { name: "bad name!" } }),
        /Invalid tool name/,
      );
      assert.equal(handle.name, `keep_${era}`);
      assert.deepEqual((await call(`keep_${era}`)).content, [{ type: "text", text: "kept" }]);
      handle.remove();
    });
  });
}
