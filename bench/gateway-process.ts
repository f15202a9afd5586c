/**
 * `mcpwire gateway` over one stdio echo child, as the gateway benches start it (a config file
 * with one entry, served at /servers/echo0/mcp), and the closed-loop echo traffic they drive.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { bareHttpClient } from "./peers/bare-client.js";

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
}

/**
 * Starts `root`'s build of the gateway with its config in `dir`; `prefix` runs it under another
 * program (valgrind), `nodeOptions` go to its node.
 */
export async function startGateway(
  root: string,
  dir: string,
  prefix: string[] = [],
  nodeOptions: string[] = [],
): Promise<GatewayProcess> {
  const echo = join(root, "dist/bench/echo-server.js");
  const config = join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { echo0: { command: process.execPath, args: [echo, "--stdio"] } },
    }),
  );
  const cli = join(root, "dist/pkg/cli/main.js");
  const command = [...prefix, process.execPath, ...nodeOptions, cli, "gateway"];
  const args = ["--listen", "127.0.0.1:0", "--config", config, "--server", "echo0,"];
  const child = spawn(command[0]!, [...command.slice(1), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let seen = "";
  const origin = await new Promise<string>((done, fail) => {
    child.once("exit", (code) => fail(new Error(`gateway exited (${code}): ${seen}`)));
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /^listening on (\S+)$/m.exec(seen);
      if (match) done(match[1]!);
    });
  });
  return { child, url: `${origin}/servers/echo0/mcp` };
}

/** `total` echo calls from `concurrency` callers, each waiting for its answer before the next. */
export async function driveEcho(
  client: ReturnType<typeof bareHttpClient>,
  concurrency: number,
  total: number,
): Promise<void> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < total) {
        sent += 1;
        await client.echo("hello");
      }
    }),
  );
}
