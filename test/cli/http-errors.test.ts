/**
 * An HTTP target that is not an MCP endpoint at that URL fails with one line that says what to
 * do: a wrong path on a real MCP server, a web server that is no MCP server (its page never
 * shown), TLS against a plain-http port.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import {
  EVERYTHING_SERVER,
  listeningAddress,
  type Running,
  runCli,
  startProcess,
  stop,
} from "./run-cli.js";

const PAGE = "<!DOCTYPE html><html><body><h1>Welcome to my blog</h1></body></html>";

describe("HTTP targets that are not an MCP endpoint", () => {
  let everything: Running;
  let mcpUrl: URL;
  let web = "";
  const website = createServer((request, response) => {
    request.resume();
    // A page for GET, "not implemented" (as Python's http.server says) for anything else.
    response.writeHead(request.method === "GET" ? 200 : 501, { "content-type": "text/html" });
    response.end(PAGE);
  });

  before(async () => {
    everything = startProcess(process.execPath, [EVERYTHING_SERVER, "--http", "--port", "0"]);
    mcpUrl = new URL(await listeningAddress(everything, "stdout"));
    await new Promise<void>((resolve) => website.listen(0, "127.0.0.1", resolve));
    web = `http://127.0.0.1:${(website.address() as AddressInfo).port}`;
  });
  after(async () => {
    await stop(everything);
    await new Promise((resolve) => website.close(resolve));
  });

  const oneLine = async (url: string, expected: string) => {
    const run = await runCli(["discover", url]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `mcpwire: ${expected}\n`);
  };

  it("a wrong path on a real MCP server: no endpoint there, servers usually serve /mcp", async () => {
    const wrong = new URL("/api", mcpUrl).href;
    await oneLine(wrong, `no MCP endpoint at ${wrong} (HTTP 404); servers usually serve /mcp`);
  });

  it("a web server that is no MCP server: the status and type, never its page", async () => {
    await oneLine(
      `${web}/mcp`,
      `${web}/mcp answered HTTP 501 (text/html), not MCP; is it the server's MCP endpoint?`,
    );
    await oneLine(
      `${web}/`,
      `${web}/ answered HTTP 501 (text/html), not MCP; servers usually serve /mcp`,
    );
  });

  it("a 2xx web page where a reply was expected is said the same way", async () => {
    const accepting = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    });
    await new Promise<void>((resolve) => accepting.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(accepting.address() as AddressInfo).port}/mcp`;
    try {
      await oneLine(
        url,
        `${url} answered HTTP 200 (text/html), not MCP; is it the server's MCP endpoint?`,
      );
    } finally {
      await new Promise((resolve) => accepting.close(resolve));
    }
  });

  it("https:// against a plain-http port says so and offers the http:// URL", async () => {
    const tls = new URL(mcpUrl.href);
    tls.protocol = "https:";
    await oneLine(
      tls.href,
      `${tls.href}: the port does not speak TLS (plain HTTP?); try ${mcpUrl.href}`,
    );
  });
});
