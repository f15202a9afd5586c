/**
 * The everything example as real subprocesses over HTTP, for cluster tests: each started with
 * `--http --port 0` plus the given arguments (e.g. --redis), its URL read from its
 * "listening on" line, killable with SIGKILL (an instance dying) or stopped for cleanup.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describeExit, expectExit, watchChild } from "./child-watch.js";

const SERVER = fileURLToPath(new URL("../../examples/everything-server.js", import.meta.url));

export interface EverythingInstance {
  /** The MCP endpoint, http://127.0.0.1:<port>/mcp */
  url: string;
  port: number;
  pid: number;
  /** Its stderr so far (for assertion messages). */
  stderr(): string;
  /** SIGKILL: dies on the spot, as a crashed instance would. */
  kill(): Promise<void>;
  /** SIGTERM (graceful), then SIGKILL if it lingers; for cleanup. */
  stop(): Promise<void>;
}

export async function startEverything(args: string[]): Promise<EverythingInstance> {
  const child: ChildProcess = spawn(process.execPath, [SERVER, "--http", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = async (name: NodeJS.Signals) => {
    expectExit(child);
    if (gone()) return;
    child.kill(name);
    await exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = /^listening on (\S+)$/m.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once("close", () =>
      reject(new Error(describeExit("everything-server", child, stderr, "before it listened"))),
    );
    child.once("error", reject);
  });
  watchChild("everything-server", child, () => stderr);
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    stderr: () => stderr,
    kill: () => signal("SIGKILL"),
    async stop() {
      const late = setTimeout(() => child.kill("SIGKILL"), 5000);
      await signal("SIGTERM");
      clearTimeout(late);
    },
  };
}

/** `count` instances of one cluster: the same Redis URL and key prefix. */
export function startCluster(
  count: number,
  redisUrl: string,
  prefix: string,
): Promise<EverythingInstance[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      startEverything(["--redis", redisUrl, "--redis-prefix", prefix]),
    ),
  );
}
