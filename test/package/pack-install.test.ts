/**
 * The package as a user gets it: `npm pack`, installed into a fresh directory, a strict
 * TypeScript app compiled against every subpath export and run, and the `mcpwire` bin run
 * through npx. Dependencies come from the npm cache when it has them (the registry otherwise).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startOtlpReceiver } from "../helpers/otlp-receiver.js";

const run = promisify(execFile);
const REPO = resolve(fileURLToPath(import.meta.url), "../../../..");
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";

interface Manifest {
  name: string;
  version: string;
  license?: string;
  engines?: { node?: string };
  exports: Record<string, { types: string; default: string }>;
  scripts: Record<string, string>;
  bin: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

async function manifest(path: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(path, "package.json"), "utf8")) as Manifest;
}

/** The lowest Node version a `>=X[.Y[.Z]]` range admits; other range forms are refused. */
function lowestNode(range: string, who: string): number[] {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  assert.ok(
    match,
    `${who}: engines.node ${JSON.stringify(range)} is not a >= range; check it by hand`,
  );
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

function atLeast(a: number[], b: number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
}

/** A strict app that imports every subpath export and uses the main ones for real. */
function appSource(subpaths: string[]): string {
  const imports = subpaths.map((sub, i) => `import * as entry${i} from "${sub}";`);
  const counts = subpaths.map(
    (sub, i) => `  ${JSON.stringify(sub)}: Object.keys(entry${i}).length,`,
  );
  return `${imports.join("\n")}
import { McpClient } from "mcpwire/client";
import { McpServer } from "mcpwire/server";
import { createMemoryPair } from "mcpwire/transports/memory";
import { HttpClientTransport, serveHttp } from "mcpwire/transports/http";
import { JsonRpcError } from "mcpwire/jsonrpc";
import * as root from "mcpwire";
// @ts-expect-error files outside "exports" are not importable
import type * as Internal from "mcpwire/dist/src/server/features.js";

export type Unused = typeof Internal;

const exportCounts: Record<string, number> = {
${counts.join("\n")}
};

const server = new McpServer({ serverInfo: { name: "app", version: "1.0.0" } });
server.tool(
  {
    name: "add",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  (args) => String(Number(args.a) + Number(args.b)),
);
// A class is one class across subpaths: the shipped build bundles them in one pass.
server.resource({ uri: "app://refused", name: "refused" }, () => {
  throw new JsonRpcError(-32050, "refused on purpose");
});
server.tool(
  { name: "slow", inputSchema: { type: "object" } },
  () => "done",
  { task: { support: "optional" } },
);
const [serverSide, clientSide] = createMemoryPair();
server.connect(serverSide);
const client = new McpClient({ clientInfo: { name: "app", version: "1.0.0" } });
await client.connect(clientSide);
const result = await client.callTool("add", { a: 2, b: 3 });
const first = result.content[0];
const refusal = await client.readResource("app://refused").catch((error: unknown) => error);
await client.close();

// The same server over HTTP, served and called through other subpaths.
const served = await serveHttp(server);
const overHttp = new McpClient({ clientInfo: { name: "app", version: "1.0.0" } });
await overHttp.connect(new HttpClientTransport(served.url));
const tools = await overHttp.listTools();
await overHttp.close();
await served.close();

console.log(JSON.stringify({
  era: client.era,
  sum: first?.type === "text" ? first.text : null,
  refusal: refusal instanceof JsonRpcError ? refusal.code : String(refusal),
  sameClass: root.McpServer === McpServer && root.JsonRpcError === JsonRpcError,
  httpTools: tools.tools.map((tool) => tool.name).sort(),
  exportCounts,
}));
`;
}

describe("the packed package, installed into a fresh directory", { timeout: 120_000 }, () => {
  let work: string;
  let app: string;
  let repoManifest: Manifest;

  before(async () => {
    work = await mkdtemp(join(tmpdir(), "mcpwire-pack-"));
    app = join(work, "app");
    repoManifest = await manifest(REPO);
    // dist/ is already built (this test runs from it); prepack would only rebuild it.
    const packed = await run(
      NPM,
      ["pack", "--ignore-scripts", "--json", "--pack-destination", work],
      {
        cwd: REPO,
      },
    );
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    await run("mkdir", [app]);
    await writeFile(
      join(app, "package.json"),
      JSON.stringify({ name: "app", private: true, type: "module" }),
    );
    await run(
      NPM,
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        join(work, filename),
        // mcpwire/otel's optional peer: an app that imports the subpath installs it.
        `@opentelemetry/api@${repoManifest.peerDependencies?.["@opentelemetry/api"]}`,
      ],
      { cwd: app },
    );
  });

  after(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("ships a LICENSE, builds on prepack, and declares an engines.node every runtime dependency accepts", async () => {
    const installed = join(app, "node_modules", "mcpwire");
    const license = await readFile(join(installed, "LICENSE"), "utf8");
    assert.equal(repoManifest.license, "MIT");
    assert.match(license, /^MIT License\n\nCopyright \(c\) \d{4} mcpwire contributors\n/);
    assert.match(repoManifest.scripts.prepack ?? "", /npm run build/);
    // Install-time scripts would run (or, under npm's allowScripts, warn) on every user's install.
    const scripts = (await manifest(installed)).scripts ?? {};
    for (const hook of ["preinstall", "install", "postinstall", "prepare"]) {
      assert.equal(scripts[hook], undefined, `the published package has a ${hook} script`);
    }
    const own = lowestNode(repoManifest.engines?.node ?? "", "mcpwire");
    // Every installed package but the app itself: mcpwire and its runtime dependency tree.
    const listed = await run(NPM, ["ls", "--all", "--omit=dev", "--parseable"], { cwd: app });
    const runtime = listed.stdout
      .trim()
      .split("\n")
      .filter((path) => path.includes("node_modules"));
    assert.ok(runtime.some((path) => path.endsWith("eventsource-parser")));
    for (const path of runtime) {
      const dependency = await manifest(path);
      const range = dependency.engines?.node;
      if (range === undefined) continue;
      const needs = lowestNode(range, dependency.name);
      assert.ok(
        atLeast(own, needs),
        `mcpwire says engines.node ${repoManifest.engines?.node} but ${dependency.name}@${dependency.version} needs ${range}`,
      );
    }
  });

  it("ships a bundle whose source maps lead back to the TypeScript sources", async () => {
    const script =
      'const { McpServer } = await import("mcpwire/server");' +
      'new McpServer({ serverInfo: { name: "a", version: "1" } }).tool({ name: "bad name!" }, () => "");';
    const failed = await run(
      process.execPath,
      ["--enable-source-maps", "--input-type=module", "-e", script],
      { cwd: app },
    ).then(
      () => assert.fail("an invalid tool name was accepted"),
      (error: { stderr: string }) => error.stderr,
    );
    assert.match(failed, /Invalid tool name/);
    assert.match(failed, /at Features\.addTool \(.*src\/server\/features\.ts:\d+:\d+\)/);
  });

  it("loads a stdio server from three ASCII files, none holding client, HTTP or auth code", async () => {
    // A module hook reports each file Node loads; a stdio server imports mcpwire/server only.
    await writeFile(
      join(app, "report-loads.mjs"),
      'export async function load(url, context, next) { if (url.includes("/mcpwire/")) process.stderr.write(url + "\\n"); return next(url, context); }',
    );
    await writeFile(
      join(app, "register.mjs"),
      'import { register } from "node:module"; register("./report-loads.mjs", import.meta.url);',
    );
    const { stderr } = await run(
      process.execPath,
      [
        "--import",
        "./register.mjs",
        "--input-type=module",
        "-e",
        'await import("mcpwire/server");',
      ],
      { cwd: app },
    );
    const files = stderr
      .trim()
      .split("\n")
      .map((url) => fileURLToPath(url));
    assert.ok(files.length >= 2 && files.length <= 3, `mcpwire/server loaded ${files.join(", ")}`);
    for (const file of files) {
      const code = await readFile(file, "utf8");
      // ASCII only: V8 scans a file holding any other character as a slower two-byte string.
      assert.doesNotMatch(code, /[^\t\n\r -~]/, `${file} is not plain ASCII`);
      for (const foreign of [
        /class McpClient\b/,
        /function serveHttp\(/,
        /function protectResource\(/,
      ]) {
        assert.doesNotMatch(code, foreign, `${file} holds ${foreign}`);
      }
    }
  });

  it("compiles a strict TypeScript app against every subpath export and runs it", async () => {
    const subpaths = Object.keys(repoManifest.exports).map((key) =>
      join("mcpwire", key).replace(/\\/g, "/"),
    );
    assert.ok(subpaths.length >= 12, "every export is listed");
    await writeFile(join(app, "app.ts"), appSource(subpaths));
    await writeFile(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023"],
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          typeRoots: [join(REPO, "node_modules/@types")],
          types: ["node"],
        },
        files: ["app.ts"],
      }),
    );
    const tsc = join(REPO, "node_modules/typescript/bin/tsc");
    await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app }).catch((error) => {
      assert.fail(`the app does not typecheck:\n${error.stdout}${error.stderr}`);
    });
    const { stdout } = await run(process.execPath, ["app.js"], { cwd: app });
    const output = JSON.parse(stdout) as {
      era: string;
      sum: string;
      refusal: number | string;
      sameClass: boolean;
      httpTools: string[];
      exportCounts: Record<string, number>;
    };
    assert.equal(output.era, "modern");
    assert.equal(output.sum, "5");
    assert.equal(output.refusal, -32050, "a JsonRpcError from mcpwire/jsonrpc keeps its code");
    assert.equal(output.sameClass, true, "mcpwire and its subpaths share classes");
    assert.deepEqual(output.httpTools, ["add", "slow"]);
    for (const sub of subpaths)
      assert.ok(output.exportCounts[sub]! > 0, `${sub} exports something`);
  });

  it("--otel names the SDK packages to install, and once they are, exports the command's trace", async () => {
    const everything = join(REPO, "dist/examples/everything-server.js");
    const call = ["--no", "--", "mcpwire", "call", "--otel", "test_simple_text", "--"];
    const missing = await run(NPX, [...call, process.execPath, everything, "--stdio"], {
      cwd: app,
    }).then(
      () => assert.fail("--otel without the SDK should fail"),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(missing.code, 1);
    const hint =
      /^mcpwire: --otel: OpenTelemetry is not installed; to use --otel, run: npm install (.+)$/m.exec(
        missing.stderr,
      );
    assert.ok(hint, missing.stderr);
    await run(
      NPM,
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        ...hint[1]!.split(" "),
      ],
      {
        cwd: app,
      },
    );
    const receiver = await startOtlpReceiver();
    try {
      const { stderr } = await run(NPX, [...call, process.execPath, everything, "--stdio"], {
        cwd: app,
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
      });
      const traceId = /^mcpwire: trace ([0-9a-f]{32})$/m.exec(stderr)?.[1];
      assert.ok(traceId, stderr);
      const names = receiver.spans
        .filter((span) => span.traceId === traceId)
        .map((span) => span.name);
      assert.ok(names.includes("mcpwire call"), names.join(", "));
      assert.ok(names.includes("tools/call test_simple_text"), names.join(", "));
    } finally {
      await receiver.close();
    }
  });

  it("runs the mcpwire bin through npx", async () => {
    const { stdout } = await run(NPX, ["--no", "--", "mcpwire", "--help"], { cwd: app });
    assert.match(stdout, /^mcpwire — Model Context Protocol/);
    assert.match(stdout, /Usage:/);
  });
});
