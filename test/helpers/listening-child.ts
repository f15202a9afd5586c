/**
 * A server in a child process that prints "listening on <url>" once it listens (the everything
 * example, the oidc-provider fixture): started, its URL read, and stopped again. Its death before
 * it is stopped is reported with its exit code and stderr (child-watch.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { basename } from "node:path";
import { describeExit, expectExit, watchChild } from "./child-watch.js";

export interface ListeningChild {
  child: ChildProcess;
  url: string;
  /** What it wrote to stderr so far. */
  stderr: () => string;
}

export async function spawnListening(command: string, args: string[]): Promise<ListeningChild> {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const name = basename(args[0] ?? command);
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = /^listening on (\S+)$/m.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once("close", () =>
      reject(new Error(describeExit(name, child, stderr, "before it listened"))),
    );
    child.once("error", reject);
  });
  watchChild(name, child, () => stderr);
  return { child, url, stderr: () => stderr };
}

/** SIGTERM, and resolves once it exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  expectExit(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  return exited;
}
