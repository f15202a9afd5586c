/**
 * A small MCP server built on mcpwire and served over stdio.
 *
 *   npm run build && npm run example:stdio-server
 *
 * It answers modern (2026-07-28, per-request `_meta`) and legacy (2025-era `initialize`) clients
 * with the same handlers. Try it from an MCP client by launching
 * `node dist/examples/stdio-server.js` as a stdio server.
 *
 * What it shows:
 *   tools      echo {text}, add {a, b} (with an outputSchema and structuredContent),
 *              slow_count {n} (progress and log notifications, honours cancellation),
 *              noisy {} (console.log is safe: the transport sends it to stderr)
 *   resources  example://readme (static) and example://colors/{color} (a template whose
 *              variable completes)
 *   prompts    greet {name} (whose argument completes)
 */
import { setTimeout as delay } from "node:timers/promises";
import { McpServer } from "../src/server/index.js";
import { serveStdio } from "../src/transports/stdio/serve.js";

const COLORS = ["red", "green", "blue", "cyan", "magenta", "yellow", "black", "white"];
const NAMES = ["Ada", "Alan", "Grace", "Barbara", "Edsger", "Margaret"];
const STEP_MS = 20;

function startingWith(values: string[], prefix: string): string[] {
  const lower = prefix.toLowerCase();
  return values.filter((value) => value.toLowerCase().startsWith(lower));
}

const server = new McpServer({
  serverInfo: { name: "mcpwire-example-stdio", version: "1.0.0" },
  instructions: "Call echo or add; slow_count reports progress; read example://readme.",
});

server.tool(
  {
    name: "echo",
    description: "Returns its text unchanged.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", description: "What to echo" } },
      required: ["text"],
    },
  },
  // A string return value becomes a single text content block.
  (args) => String(args.text),
);

server.tool(
  {
    name: "add",
    description: "Adds two numbers.",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
    outputSchema: {
      type: "object",
      properties: { sum: { type: "number" } },
      required: ["sum"],
    },
  },
  (args) => {
    const sum = Number(args.a) + Number(args.b);
    // Structured output for programs, plus the same thing as text for models and older clients.
    return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
  },
);

server.tool(
  {
    name: "slow_count",
    description: "Counts from 1 to n, one step every 20 ms, reporting progress and logging.",
    inputSchema: {
      type: "object",
      properties: { n: { type: "integer", minimum: 1, maximum: 100 } },
      required: ["n"],
    },
  },
  async (args, context) => {
    const n = Number(args.n);
    await context.log.info(`counting to ${n}`, "slow_count");
    for (let step = 1; step <= n; step++) {
      await delay(STEP_MS);
      // The signal aborts when the client cancels or the server shuts down: stop between steps.
      context.signal.throwIfAborted();
      await context.progress(step, n, `counted ${step}`);
      await context.log.debug(`step ${step}`, "slow_count");
    }
    return `counted to ${n}`;
  },
);

server.tool(
  {
    name: "noisy",
    description: "Prints with console.log, which lands on stderr, then answers.",
    inputSchema: { type: "object" },
  },
  () => {
    console.log("noisy: console.log from a tool handler");
    console.info("noisy: console.info from a tool handler");
    return "made some noise on stderr";
  },
);

server.resource(
  {
    uri: "example://readme",
    name: "readme",
    title: "About this server",
    mimeType: "text/markdown",
  },
  (uri) => [
    {
      uri,
      mimeType: "text/markdown",
      text: "# mcpwire example\n\nTools: echo, add, slow_count, noisy.\n",
    },
  ],
  // This text never changes and is the same for everyone: let clients cache it for a minute.
  { cache: { ttlMs: 60_000, cacheScope: "public" } },
);

server.resourceTemplate(
  {
    uriTemplate: "example://colors/{color}",
    name: "color",
    description: "A few words about a color.",
    mimeType: "text/plain",
  },
  (uri, variables) => [{ uri, mimeType: "text/plain", text: `${variables.color} is a fine color` }],
  { complete: { color: (value) => startingWith(COLORS, value) } },
);

server.prompt(
  {
    name: "greet",
    description: "Asks the model to greet someone.",
    arguments: [{ name: "name", description: "Who to greet", required: true }],
  },
  (args) => ({
    description: `Greeting for ${args.name}`,
    messages: [
      { role: "user", content: { type: "text", text: `Please greet ${args.name} warmly.` } },
    ],
  }),
  { complete: { name: (value) => startingWith(NAMES, value) } },
);

// Serves until stdin ends or SIGINT/SIGTERM, then finishes in-flight requests and resolves.
await serveStdio(server);
