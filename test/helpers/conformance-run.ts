/**
 * The official server conformance suite (scripts/conformance.mjs, server role) against a server
 * already running at `url` (e.g. a cluster behind nginx), for one requirement set.
 */
import { spawn } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Resolves with the script's exit code and everything it printed. */
export function conformance(
  url: string,
  set: "2025-11-25" | "2026-07-28",
): Promise<{ code: number | null; output: string }> {
  const script = join(ROOT, "scripts", "conformance.mjs");
  const args = [script, "--role", "server", "--set", set, "--url", url];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return new Promise((done) => child.once("exit", (code) => done({ code, output })));
}
