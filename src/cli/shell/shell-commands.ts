import type { McpClient } from "../../client/index.js";
import type { Subscription } from "../../client/subscription.js";
import { LocalError } from "../../jsonrpc/errors.js";
import type { JsonObject, JsonRpcMessage } from "../../jsonrpc/types.js";
import type { SubscriptionFilter } from "../../protocol/mcp-types.js";
import type { Progress } from "../../protocol/outgoing.js";
import type { Transport } from "../../protocol/transport.js";
import { ignoring } from "../../text/ignored-error.js";
import { printableLine } from "../../text/printable.js";
import { StdioClientTransport } from "../../transports/stdio/client.js";
import { explain, renderLogMessage } from "../connect/session.js";
import { type ConnectionSettings, openClient, type Target } from "../connect/target.js";
import { parseJsonObject } from "../core/args.js";
import { UsageError } from "../core/errors.js";
import { renderCallResult, renderPromptResult, renderReadResult } from "../core/output.js";
import { jsonText } from "../core/terminal.js";
import { collect, render } from "../verbs/discover.js";
import { shellToolArguments } from "./shell-arguments.js";
import { LIST_CHANGED_KIND, ShellCatalog } from "./shell-completion.js";
import type { ShellConsole } from "./shell-console.js";
import { type ListKind, listOf } from "./shell-lists.js";
import { RawTransport } from "./shell-transport.js";

const SHELL_HELP = `Commands (Tab completes verbs, tool names, resource URIs and prompt names):
  call <tool> [args]            call a tool; args: JSON, @file.json or key=value… (quote a
                                value with spaces: text="hi there")
  tools, resources, prompts     what the server has (names, descriptions, arguments)
  read <uri>                    read a resource
  prompt <name> [json-args]     get a prompt (arguments are strings)
  raw <method> [json-params]    send any request (era-aware), print the JSON result
  {"jsonrpc":"2.0",…}           send this message as typed, print the reply (its id goes out
                                as a unique one, so it never clashes with the shell's own)
  listen [json-filter]          subscribe (default: every list_changed); notifications print
                                as they arrive. unlisten ends every subscription
  discover                      era, versions, capabilities, tools, resources, prompts
  cancel [#job]                 cancel a running request (default: the newest); so does Ctrl-C
  jobs                          requests still running
  .era                          era and protocol version
  .restart                      reconnect (a stdio server is started again)
  .stderr                       the last lines a stdio server wrote to stderr
  help, exit (or .exit, Ctrl-D)
Requests run in the background: the prompt stays usable and results print when they arrive.`;

/** Lines that mean the user is done. */
export const EXIT_WORDS = new Set(["exit", ".exit", "quit"]);

interface Job {
  id: number;
  label: string;
  controller: AbortController;
}

/** A JSON-RPC request wait of last resort when no --timeout is given, for raw `{…}` lines. */
const RAW_REPLY_TIMEOUT_MS = 60_000;

/**
 * What the shell's commands act on: the connection (replaced by .restart), the requests running
 * in the background, the open subscriptions and the completion catalog.
 */
export class ShellCommands {
  readonly catalog = new ShellCatalog();
  private readonly target: Target;
  private readonly settings: ConnectionSettings;
  private readonly console: ShellConsole;
  private client: McpClient | undefined;
  private raw: RawTransport | undefined;
  private base: Transport | undefined;
  private readonly jobs = new Map<number, Job>();
  private nextJob = 1;
  private subscriptions: Subscription[] = [];
  private connectAbort: AbortController | undefined;

  constructor(target: Target, settings: ConnectionSettings, console: ShellConsole) {
    this.target = target;
    this.settings = settings;
    this.console = console;
  }

  /** Opens the connection and fetches the names Tab completes. */
  async connect(): Promise<void> {
    this.connectAbort = new AbortController();
    let client: McpClient;
    try {
      client = await openClient(this.target, this.settings, {
        log: (line) => this.console.err(line),
        signal: this.connectAbort.signal,
        onNotification: (method, params) => this.notification(method, params),
        wrapTransport: (transport, base) => {
          this.base = base;
          this.raw = new RawTransport(transport);
          return this.raw;
        },
      });
    } finally {
      this.connectAbort = undefined;
    }
    this.client = client;
    void client.closed.then(() => {
      if (this.client === client) {
        this.console.err("connection closed (.restart to reconnect, .stderr for the server's log)");
      }
    });
    await this.catalog.refresh(client);
  }

  /**
   * Runs one line. The promise settles when the line's work is done, including a request it
   * started; a terminal shell does not wait for it, a scripted one does.
   */
  async execute(line: string): Promise<void> {
    const text = line.trim();
    if (text === "" || text.startsWith("#")) return;
    try {
      if (text.startsWith("{")) return await this.sendRawLine(text);
      const [verb = "", ...words] = text.split(/\s+/);
      const rest = text.slice(verb.length).trim();
      switch (verb) {
        case "help":
        case "?":
          this.console.out(SHELL_HELP);
          return;
        case "call":
          return await this.call(words[0], afterFirstWord(rest));
        case "tools":
        case "resources":
        case "prompts":
          return await this.list(verb);
        case "read":
          if (!rest) throw new UsageError("usage: read <uri>");
          return await this.job(`read ${rest}`, async (client, options) => {
            const result = await client.readResource(rest, options);
            this.result(result, renderReadResult);
          });
        case "prompt":
          return await this.prompt(words[0], afterFirstWord(rest));
        case "raw":
          return await this.rawRequest(words[0], afterFirstWord(rest));
        case "listen":
          return await this.listen(rest);
        case "unlisten":
          return await this.unlisten();
        case "discover":
          return await this.job("discover", async (client, options) => {
            const report = await collect(client, options.signal);
            if (this.settings.json) this.console.out(jsonText(report, 2));
            else this.console.out(render(report));
          });
        case "cancel":
          this.cancel(words[0]);
          return;
        case "jobs":
          this.listJobs();
          return;
        case ".era":
          this.showEra();
          return;
        case ".stderr":
          this.showStderr();
          return;
        case ".restart":
          return await this.restart();
        default:
          throw new UsageError(`unknown command ${JSON.stringify(verb)} (try help)`);
      }
    } catch (error) {
      this.reportError(error);
    }
  }

  /** Ctrl-C: cancels every running request. Returns false when there was none. */
  interrupt(): boolean {
    if (this.connectAbort) {
      this.connectAbort.abort(new LocalError("aborted", "interrupted (Ctrl-C)"));
      return true;
    }
    if (this.jobs.size === 0) return false;
    for (const job of this.jobs.values()) job.controller.abort(cancelled());
    return true;
  }

  /** Ends everything: running requests, subscriptions, the connection (and a stdio child). */
  async close(): Promise<void> {
    for (const job of this.jobs.values()) job.controller.abort(cancelled());
    const client = this.client;
    this.client = undefined;
    await this.unlisten(true);
    await client?.close().catch(ignoring("closing the connection"));
  }

  private call(name: string | undefined, text: string): Promise<void> {
    if (!name) throw new UsageError("usage: call <tool> [args]");
    return this.job(`call ${name}`, async (client, options) => {
      // key=value words are typed by the tool's input schema, as the command types them.
      const schema = async () =>
        (await client.listAllTools(options)).find((tool) => tool.name === name)?.inputSchema;
      const args = await shellToolArguments(text, schema);
      const result = await client.callTool(name, args, options);
      this.result(result, renderCallResult);
    });
  }

  /** `tools`, `resources` (with templates), `prompts`: the lists discover shows. */
  private list(kind: ListKind): Promise<void> {
    return this.job(kind, async (client, options) => {
      const { found, text } = await listOf(client, kind, options.signal);
      this.console.out(this.settings.json ? jsonText(found, 2) : text);
    });
  }

  private prompt(name: string | undefined, json: string): Promise<void> {
    if (!name) throw new UsageError("usage: prompt <name> [json-args]");
    const args = parseJsonObject(json || undefined, "prompt arguments");
    for (const [key, value] of Object.entries(args ?? {})) {
      if (typeof value !== "string") {
        throw new UsageError(`prompt argument ${JSON.stringify(key)} must be a string`);
      }
    }
    return this.job(`prompt ${name}`, async (client, options) => {
      const result = await client.getPrompt(name, args as Record<string, string>, options);
      this.result(result, renderPromptResult);
    });
  }

  private rawRequest(method: string | undefined, json: string): Promise<void> {
    if (!method) throw new UsageError("usage: raw <method> [json-params]");
    const params = parseJsonObject(json || undefined, "request params") as JsonObject | undefined;
    return this.job(`raw ${method}`, async (client, options) => {
      this.console.out(jsonText(await client.request(method, params, options), 2));
    });
  }

  private sendRawLine(text: string): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`not valid JSON: ${(error as Error).message}`);
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      throw new UsageError("a raw message must be one JSON object");
    }
    this.requireClient();
    const raw = this.raw!;
    return this.job("raw message", async (_client, options) => {
      const timeout = AbortSignal.timeout(this.settings.timeoutMs ?? RAW_REPLY_TIMEOUT_MS);
      const reply = await raw.sendRaw(
        message as JsonRpcMessage,
        AbortSignal.any([options.signal, timeout]),
      );
      this.console.out(reply === undefined ? "sent" : jsonText(reply));
    });
  }

  private async listen(json: string): Promise<void> {
    const client = this.requireClient();
    const filter = (parseJsonObject(json || undefined, "listen filter") ?? {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    }) as SubscriptionFilter;
    const subscription = client.listen(filter);
    this.subscriptions.push(subscription);
    // Notifications print as they arrive (see notification()); the queue only needs emptying.
    void (async () => {
      for await (const _ of subscription) {
        // printed by the connection's notification hook
      }
    })().catch(() => {});
    void subscription.ended.then((end) => {
      this.subscriptions = this.subscriptions.filter((s) => s !== subscription);
      if (end.reason !== "closed" && this.client === client) {
        const why = end.error ? `: ${explain(end.error).message}` : "";
        this.console.err(`listen ended (${end.reason})${why}`);
      }
    });
    const acknowledged = await subscription.acknowledged;
    this.console.out(`listening: ${jsonText(acknowledged)}`);
  }

  private async unlisten(quiet = false): Promise<void> {
    const open = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(
      open.map((subscription) => subscription.close().catch(ignoring("closing a subscription"))),
    );
    if (!quiet) this.console.out(`closed ${open.length} subscription(s)`);
  }

  private cancel(which: string | undefined): void {
    let job: Job | undefined;
    if (which === undefined) job = [...this.jobs.values()].pop();
    else job = this.jobs.get(Number(which.replace(/^#/, "")));
    if (!job) {
      this.console.err(which === undefined ? "nothing is running" : `no running job ${which}`);
      return;
    }
    job.controller.abort(cancelled());
  }

  private listJobs(): void {
    if (this.jobs.size === 0) this.console.out("nothing is running");
    for (const job of this.jobs.values()) this.console.out(`#${job.id} ${job.label}`);
  }

  private showEra(): void {
    const client = this.requireClient();
    const info = client.serverInfo;
    const server = info
      ? `; server ${printableLine(String(info.name))} ${printableLine(String(info.version ?? ""))}`.trimEnd()
      : "";
    const speaks = client.supportedVersions?.map(printableLine).join(", ") ?? "?";
    const version = printableLine(String(client.protocolVersion));
    this.console.out(`era ${client.era}, protocol ${version} (server speaks ${speaks})${server}`);
  }

  private showStderr(): void {
    if (!(this.base instanceof StdioClientTransport)) {
      this.console.err(".stderr: only a stdio server (-- <command>) has a stderr to show");
      return;
    }
    const tail = this.base.stderrTail();
    this.console.out(tail === "" ? "(the server has written nothing to stderr)" : tail);
  }

  private async restart(): Promise<void> {
    await this.close();
    this.console.out(
      `reconnecting to ${this.target.kind === "stdio" ? "a fresh server" : "the server"}…`,
    );
    await this.connect();
    this.showEra();
  }

  /** Runs one request as a cancellable background job; its outcome is printed, never thrown. */
  private async job(
    label: string,
    work: (
      client: McpClient,
      options: {
        signal: AbortSignal;
        onProgress: (progress: Progress) => void;
        resetTimeoutOnProgress: true;
      },
    ) => Promise<void>,
  ): Promise<void> {
    const client = this.requireClient();
    const job: Job = { id: this.nextJob++, label, controller: new AbortController() };
    this.jobs.set(job.id, job);
    const onProgress = (progress: Progress): void => {
      const count =
        progress.total === undefined
          ? `${progress.progress}`
          : `${progress.progress}/${progress.total}`;
      const message = progress.message ? ` ${printableLine(progress.message)}` : "";
      this.console.err(`#${job.id} progress ${count}${message}`);
    };
    try {
      await work(client, {
        signal: job.controller.signal,
        onProgress,
        resetTimeoutOnProgress: true,
      });
    } catch (error) {
      if (job.controller.signal.aborted) this.console.err(`#${job.id} ${label}: cancelled`);
      else this.reportError(error);
    } finally {
      this.jobs.delete(job.id);
    }
  }

  private result<T>(result: T, readable: (result: JsonObject) => string): void {
    if (this.settings.json) this.console.out(jsonText(result, 2));
    else this.console.out(readable(result as unknown as JsonObject));
  }

  private notification(method: string, params: JsonObject): void {
    const kind = LIST_CHANGED_KIND[method];
    if (kind && this.client) void this.catalog.refresh(this.client, [kind]);
    if (method === "notifications/message") {
      this.console.out(renderLogMessage(params));
      return;
    }
    const shown = Object.keys(params).length === 0 ? "" : ` ${jsonText(params)}`;
    this.console.out(`<- ${printableLine(method)}${shown}`);
  }

  /** An error line, and the lines of a crashed server's stderr under it. */
  private reportError(error: unknown): void {
    const failure = explain(error);
    this.console.err([`error: ${failure.message}`, ...failure.details].join("\n"));
  }

  private requireClient(): McpClient {
    if (!this.client) throw new LocalError("closed", "not connected (.restart to reconnect)");
    return this.client;
  }
}

function afterFirstWord(text: string): string {
  const match = /^\S+\s*/.exec(text);
  return match ? text.slice(match[0].length).trim() : "";
}

function cancelled(): LocalError {
  return new LocalError("aborted", "cancelled");
}
