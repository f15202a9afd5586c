/**
 * An MCP client built on mcpwire: launches the example server over stdio, finds its era, and
 * uses every kind of feature once.
 *
 *   npm run build && npm run example
 *
 * Pass `--era legacy` (or modern, auto) to choose how it talks to the server; pass a different
 * server command after `--` to point it elsewhere.
 */
import { fileURLToPath } from "node:url";
import { McpClient } from "../src/client/index.js";
import { StdioClientTransport } from "../src/transports/stdio/client.js";

const argv = process.argv.slice(2);
const separator = argv.indexOf("--");
const eraFlag = argv.indexOf("--era");
const era = (eraFlag >= 0 ? argv[eraFlag + 1] : "auto") as "auto" | "modern" | "legacy";
const [command, ...args] =
  separator >= 0
    ? argv.slice(separator + 1)
    : [process.execPath, fileURLToPath(new URL("./stdio-server.js", import.meta.url))];

const client = new McpClient({
  clientInfo: { name: "mcpwire-example-client", version: "1.0.0" },
  era,
  logLevel: "info",
  onNotification: (method, params) => {
    if (method === "notifications/message")
      console.error(`[server log] ${JSON.stringify(params.data)}`);
  },
});

await client.connect(new StdioClientTransport({ command: command!, args, stderr: "inherit" }));
console.log(`connected: ${client.serverInfo?.name} (${client.era}, ${client.protocolVersion})`);

const tools = await client.listAllTools();
console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);

const echoed = await client.callTool("echo", { text: "hello over stdio" });
console.log(`echo → ${JSON.stringify(echoed.content)}`);

const counted = await client.callTool(
  "slow_count",
  { n: 3 },
  { onProgress: ({ progress, total }) => console.log(`progress ${progress}/${total}`) },
);
console.log(`slow_count → ${JSON.stringify(counted.content)}`);

const readme = await client.readResource("example://readme");
console.log(`readme → ${JSON.stringify(readme.contents[0])}`);

const prompt = await client.getPrompt("greet", { name: "Ada" });
console.log(`greet → ${JSON.stringify(prompt.messages[0])}`);

await client.close();
