/**
 * McpClient in a web page: a page script that imports `mcpwire/client` and
 * `mcpwire/transports/http` by package name is bundled for the browser (the `browser` export
 * condition), served from one 127.0.0.1 port, and run in headless Chromium (Debian's, driven by
 * playwright-core), where it calls an mcpwire server on another port: a cross-origin call that
 * only CORS lets through. Both eras: modern requests, and a legacy session (its Mcp-Session-Id
 * read from an exposed header, the server's sampling request on an SSE reply). The server names
 * the page's origin as the one allowed; a page from any other origin gets nothing.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { McpServer } from "../../src/server/index.js";
import { type ServedHttp, serveHttp } from "../../src/transports/http/node-adapter.js";
import { BROWSER_CONDITIONS, bundleForWeb, nodeOnlyTraces, REPO } from "../helpers/web-bundle.js";

/** The page's script: one global function the test calls through page.evaluate. */
const PAGE_SCRIPT = `
import { McpClient } from "mcpwire/client";
import { HttpClientTransport } from "mcpwire/transports/http";

globalThis.callServer = async (url, era) => {
  const client = new McpClient({
    clientInfo: { name: "browser-page", version: "1.0.0" },
    era,
    handlers: {
      sampling: () => ({ model: "page-model", role: "assistant", content: { type: "text", text: "Paris" } }),
    },
  });
  await client.connect(new HttpClientTransport(url));
  try {
    const tools = await client.listAllTools();
    const greeted = await client.callTool("greet", { name: "Ada" });
    const refused = await client.callTool("greet", { name: 42 });
    const asked = await client.callTool("ask_model", {});
    return {
      era: client.era,
      protocolVersion: client.protocolVersion,
      tools: tools.map((tool) => tool.name),
      greeted: greeted.content[0].text,
      refused: { isError: refused.isError, text: refused.content[0].text },
      asked: asked.content[0].text,
    };
  } finally {
    await client.close();
  }
};
`;

/** Chromium as root on a machine without a network: flags that keep it from phoning out. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

function chromiumPath(): string {
  const path = process.env.CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: npm test installs Debian's chromium (or set CHROMIUM)`);
  }
  return path;
}

function buildServer(): McpServer {
  const server = new McpServer({ serverInfo: { name: "cors-server", version: "1.0.0" } });
  server.tool(
    {
      name: "greet",
      inputSchema: {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
      },
    },
    (args) => `Hello, ${String(args.name)}`,
  );
  server.tool({ name: "ask_model", inputSchema: { type: "object" } }, async (_args, context) => {
    const answer = await context.sample({
      messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
      maxTokens: 10,
    });
    return `The model said ${String((answer.content as { text?: unknown }).text)}`;
  });
  return server;
}

/** Serves the page and its bundled script on 127.0.0.1; resolves with its origin. */
async function servePage(script: string): Promise<{ origin: string; server: Server }> {
  const html =
    '<!doctype html><title>mcpwire</title><script type="module" src="/page.js"></script>';
  const server = createServer((req, res) => {
    if (req.url === "/page.js") {
      res.writeHead(200, { "Content-Type": "text/javascript" }).end(script);
    } else if (req.url === "/") {
      res.writeHead(200, { "Content-Type": "text/html" }).end(html);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, server };
}

interface PageAnswer {
  era: string;
  protocolVersion: string;
  tools: string[];
  greeted: string;
  refused: { isError: boolean; text: string };
  asked: string;
}

describe("McpClient in headless Chromium, cross-origin to a CORS-enabled server", () => {
  let browser: Browser;
  let page: Page;
  let pageServer: Server;
  let mcp: ServedHttp;
  let pageOrigin: string;

  before(async () => {
    const { code: script, unresolved } = await bundleForWeb(PAGE_SCRIPT, REPO, BROWSER_CONDITIONS);
    assert.deepEqual(unresolved, [], "every import resolves for the browser");
    assert.deepEqual(nodeOnlyTraces(script), [], "nothing Node-only is left in the page");
    ({ origin: pageOrigin, server: pageServer } = await servePage(script));
    mcp = await serveHttp(buildServer(), { cors: true, allowedOrigins: [pageOrigin] });
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${pageOrigin}/`);
    await page.waitForFunction(() => "callServer" in globalThis);
    assert.deepEqual(errors, []);
  });
  after(async () => {
    await browser?.close();
    await mcp?.close();
    if (pageServer) await new Promise((resolve) => pageServer.close(resolve));
  });

  for (const [era, version] of [
    ["modern", "2026-07-28"],
    ["legacy", "2025-11-25"],
  ] as const) {
    it(`calls tools in the ${era} era (${version}), the server asking the page back`, async () => {
      const answer = (await page.evaluate(
        ([url, chosen]) =>
          (
            globalThis as unknown as { callServer(u: string, e: string): Promise<unknown> }
          ).callServer(url, chosen),
        [mcp.url, era] as const,
      )) as PageAnswer;
      assert.equal(answer.era, era);
      assert.equal(answer.protocolVersion, version);
      assert.deepEqual(answer.tools, ["greet", "ask_model"]);
      assert.equal(answer.greeted, "Hello, Ada");
      assert.equal(answer.refused.isError, true);
      assert.match(answer.refused.text, /^Invalid arguments for tool greet/);
      assert.equal(answer.asked, "The model said Paris");
    });
  }

  it("gets nothing from a page of an origin the server does not allow", async () => {
    // localhost is another origin than 127.0.0.1, though the same page server answers it.
    const other = await browser.newPage();
    try {
      await other.goto(`${pageOrigin.replace("127.0.0.1", "localhost")}/`);
      await other.waitForFunction(() => "callServer" in globalThis);
      const outcome = await other.evaluate(async (url) => {
        try {
          await (
            globalThis as unknown as { callServer(u: string, e: string): Promise<unknown> }
          ).callServer(url, "modern");
          return "answered";
        } catch (error) {
          return `refused: ${String(error)}`;
        }
      }, mcp.url);
      assert.match(outcome, /^refused: /);
    } finally {
      await other.close();
    }
  });
});
