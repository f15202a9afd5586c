/**
 * A tool the HTTP client drops for invalid x-mcp-header annotations is reported in a warning
 * (2026-07-28 streamable-http.mdx "Schema Extension": SHOULD log the tool name and reason). The
 * name and the header value come from the server: they are shown escaped, never raw.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { McpClient } from "../../../src/client/index.js";
import { HttpClientTransport } from "../../../src/transports/http/client/client-transport.js";
import { DISCOVER_RESULT, result, scriptedServer, sendJson } from "./client-scripted-server.js";

const ESC = String.fromCharCode(0x1b);
const BEL = String.fromCharCode(0x07);
const hasControl = (text: string) => [...text].some((char) => char.charCodeAt(0) < 0x20);

describe("dropped-tool warnings", () => {
  it("name the tool and the reason, with the server's control characters escaped", async () => {
    const evilName = `evil${ESC}]0;owned${BEL}`;
    const server = await scriptedServer((request, res) => {
      const method = request.json?.method;
      if (method === "server/discover") return sendJson(res, 200, result(request, DISCOVER_RESULT));
      return sendJson(
        res,
        200,
        result(request, {
          tools: [
            {
              name: evilName,
              inputSchema: {
                type: "object",
                properties: { a: { type: "string", "x-mcp-header": `X${ESC}[2J` } },
              },
            },
            { name: "fine", inputSchema: { type: "object" } },
          ],
        }),
      );
    });
    const warnings: string[] = [];
    const client = new McpClient({ clientInfo: { name: "c", version: "1" } });
    try {
      await client.connect(
        new HttpClientTransport(server.url, {
          flavourCache: new Map(),
          onWarning: (message) => warnings.push(message),
        }),
      );
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ["fine"],
      );
      assert.equal(warnings.length, 1);
      const [warning] = warnings as [string];
      assert.ok(!hasControl(warning), JSON.stringify(warning));
      assert.ok(warning.includes("evil\\x1b]0;owned\\x07"), warning);
      assert.ok(warning.includes("X\\x1b[2J"), warning);
      assert.match(warning, /is not an HTTP token/);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
