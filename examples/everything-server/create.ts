/**
 * The everything server itself, apart from how it is served: everything-server.ts serves it
 * over stdio or serveHttp, the runtime tests' fixture with createHttpHandler on Bun.serve and
 * Deno.serve.
 */
import { fileURLToPath } from "node:url";
import { skillsFromDirectory } from "../../src/extensions/skills/index.js";
import { McpServer } from "../../src/server/index.js";
import type { McpServerOptions } from "../../src/server/server-core.js";
import { registerPrompts, registerResources } from "./catalog.js";
import { registerDiagnosticTools } from "./diagnostics.js";
import { registerTaskTools } from "./tasks.js";
import { registerBasicTools, registerInputTools } from "./tools.js";

/** The skills the Skills extension serves: examples/skills (from dist/examples/everything-server). */
const SKILLS_FOLDER = fileURLToPath(new URL("../../../examples/skills", import.meta.url));

/** `shared`: what a cluster shares (clusterOptions), merged into the server's options. */
export async function createEverythingServer(
  shared: Partial<McpServerOptions> = {},
): Promise<McpServer> {
  const server = new McpServer({
    serverInfo: { name: "mcpwire-everything-server", version: "1.0.0" },
    instructions: "The mcpwire conformance fixture: every feature the MCP conformance suite calls.",
    ...shared,
  });
  registerBasicTools(server);
  registerInputTools(server);
  registerDiagnosticTools(server);
  registerTaskTools(server);
  registerResources(server);
  registerPrompts(server);
  // The Skills extension (SEP-2640), on the extension seam: skills/list, skills/get,
  // resources/directory/read and the skill files as resources.
  const skills = await skillsFromDirectory(SKILLS_FOLDER);
  for (const problem of skills.problems) process.stderr.write(`skills: ${problem}\n`);
  server.install(skills);
  return server;
}
