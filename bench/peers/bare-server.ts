/**
 * The bare Node echo server (the limit row):
 *   --stdio            newline-delimited JSON-RPC on stdin/stdout
 *   --http [--sse]     plain node:http handler, JSON (or one-event SSE) replies
 *   --http --legacy    plus a 2025-style session table: initialize hands out Mcp-Session-Id
 *   --http --native    (Bun) a plain fetch handler on Bun.serve, JSON replies
 * HTTP modes print `listening <url>` first on stdout.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serveNative } from "../../test/helpers/native-serve.js";
import { onPostedJson } from "./bare-post.js";
import { answer, answerRequest } from "./bare-protocol.js";
import { installGcHook } from "./gc-hook.js";

const argv = process.argv.slice(2);

function serveStdio(): void {
  let pending: Buffer[] = [];
  process.stdin.on("data", (chunk: Buffer) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, newline));
      const line = Buffer.concat(pending).toString("utf8");
      pending = [];
      start = newline + 1;
      if (line.trim() === "") continue;
      const reply = answer(JSON.parse(line));
      if (reply) process.stdout.write(`${JSON.stringify(reply)}\n`);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  process.stdin.on("end", () => process.exit(0));
}

async function serveHttp(): Promise<void> {
  installGcHook();
  const sse = argv.includes("--sse");
  const sessions = argv.includes("--legacy") ? new Map<string, { created: number }>() : undefined;
  const server = createServer(
    onPostedJson((message, req, res) => {
      const headers: Record<string, string> = {};
      // A session table's least: a request must name a session it handed out.
      const named = req.headers["mcp-session-id"];
      if (sessions && message.method !== "initialize" && !sessions.has(String(named))) {
        res.writeHead(404).end();
        return;
      }
      const reply = answer(message);
      if (sessions && message.method === "initialize") {
        const id = randomUUID();
        sessions.set(id, { created: Date.now() });
        headers["mcp-session-id"] = id;
      }
      if (!reply) {
        res.writeHead(202, headers).end();
      } else if (sse) {
        headers["content-type"] = "text/event-stream";
        res.writeHead(200, headers).end(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
      } else {
        headers["content-type"] = "application/json";
        res.writeHead(200, headers).end(JSON.stringify(reply));
      }
    }),
  );
  const portIndex = argv.indexOf("--port");
  await new Promise<void>((resolve) =>
    server.listen(portIndex >= 0 ? Number(argv[portIndex + 1]) : 0, "127.0.0.1", resolve),
  );
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
  process.once("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

/** --native: the same modern JSON echo as a plain fetch handler on Bun's own server. */
async function serveNativeHttp(): Promise<void> {
  const portIndex = argv.indexOf("--port");
  const served = await serveNative(answerRequest, portIndex >= 0 ? Number(argv[portIndex + 1]) : 0);
  process.stdout.write(`listening ${served.url}\n`);
  process.once("SIGTERM", () => void served.close().then(() => process.exit(0)));
}

if (argv.includes("--stdio")) serveStdio();
else if (argv.includes("--native")) await serveNativeHttp();
else await serveHttp();
