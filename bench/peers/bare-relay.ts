/**
 * The gateway's limit row: the least a program with no library does to put a stdio server
 * behind HTTP. Each POST's JSON-RPC message gets a fresh id (callers' ids may collide), goes
 * to the child as one line, and the child's answer goes back with the caller's id.
 *
 *   node dist/bench/peers/bare-relay.js -- <command> [args...]
 *
 * Prints `listening <url>` on stdout once both the child and the HTTP server are up.
 */
import { spawn } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { onPostedJson } from "./bare-post.js";
import type { Untyped } from "./bare-protocol.js";

const dash = process.argv.indexOf("--");
if (dash < 0 || dash === process.argv.length - 1) throw new Error("usage: bare-relay -- <command>");
const [command, ...args] = process.argv.slice(dash + 1) as [string, ...string[]];
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });

const waiting = new Map<number, { res: ServerResponse; id: Untyped }>();
let nextId = 1;

function answered(line: string): void {
  const message = JSON.parse(line);
  const entry = waiting.get(message.id);
  if (!entry) return;
  waiting.delete(message.id);
  message.id = entry.id;
  entry.res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(message));
}

let pending = "";
child.stdout!.setEncoding("utf8");
child.stdout!.on("data", (chunk: string) => {
  let start = 0;
  for (let newline = chunk.indexOf("\n"); newline >= 0; newline = chunk.indexOf("\n", start)) {
    const line = pending + chunk.slice(start, newline);
    pending = "";
    start = newline + 1;
    if (line.trim() !== "") answered(line);
  }
  pending += chunk.slice(start);
});

const server = createServer(
  onPostedJson((message, _req, res) => {
    if (message.id === undefined) {
      child.stdin!.write(`${JSON.stringify(message)}\n`);
      res.writeHead(202).end();
      return;
    }
    const id = nextId++;
    waiting.set(id, { res, id: message.id });
    message.id = id;
    child.stdin!.write(`${JSON.stringify(message)}\n`);
  }),
);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as AddressInfo;
process.stdout.write(`listening http://127.0.0.1:${port}/mcp\n`);
let stopping = false;
// The child ends on EOF; the relay exits once it has, so nothing outlives the trial.
child.once("exit", () => process.exit(stopping ? 0 : 1));
process.once("SIGTERM", () => {
  stopping = true;
  server.closeAllConnections();
  server.close();
  child.stdin!.end();
});
