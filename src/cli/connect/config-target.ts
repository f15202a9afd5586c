/**
 * The target `--server NAME` picks from `--config FILE` (default ./.mcp.json), with the
 * variables of that entry alone filled in. What only the user can give is asked on a terminal
 * and otherwise taken from flags: `${input:id}` (`--input id=VALUE` or MCPWIRE_INPUT_<ID>), and
 * consent for an environment variable to leave in a remote entry's URL or headers
 * (`--send-env NAME`).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { printableLine } from "../../text/printable.js";
import type { OptionKind, ParsedArgs } from "../core/args.js";
import { askLine, askSecret } from "../core/ask.js";
import { CliError, UsageError } from "../core/errors.js";
import { writeErr } from "../core/terminal.js";
import {
  DEFAULT_CONFIG,
  findServer,
  type InputDeclaration,
  readServerConfig,
  type ServerConfig,
  type ServerEntry,
} from "./config-file.js";
import {
  describeField,
  expandEntry,
  type FieldReference,
  referencesIn,
  sentFromEnvironment,
} from "./config-variables.js";
import { isInteractive } from "./input-answers.js";
import type { Target } from "./target-kind.js";

export const CONFIG_OPTIONS: Record<string, OptionKind> = {
  config: "value",
  server: "value",
  input: "list",
  "send-env": "list",
};

export const CONFIG_USAGE = `Servers from a config file:
  --config <file>          an MCP config file (default ./.mcp.json with --server)
  --server <name>          the entry to use
  --input <id>=<value>     a value for the entry's \${input:id} (or MCPWIRE_INPUT_<ID>; asked on a terminal)
  --send-env <NAME>        let a remote entry's URL or headers carry $NAME (asked on a terminal)`;

/** What the chosen entry still needs from the user. */
interface Plan {
  config: ServerConfig;
  entry: ServerEntry;
  inputs: Map<string, string>;
  missingInputs: InputDeclaration[];
  sendable: Set<string>;
  /** Environment variables the entry would send that the user has not allowed. */
  unconsented: FieldReference[];
}

/** The entry the options name, with what the flags and environment already answer. */
function plan(options: ParsedArgs["options"], env: NodeJS.ProcessEnv): Plan {
  const path = (options.config as string | undefined) ?? DEFAULT_CONFIG;
  const config = readServerConfig(path);
  const name = options.server as string | undefined;
  let entry: ServerEntry;
  if (name !== undefined) entry = findServer(config, name);
  else if (config.entries.length === 1) entry = config.entries[0]!;
  else {
    const known = config.entries.map((item) => printableLine(item.name)).join(", ");
    throw new UsageError(
      `${printableLine(path)} has several servers: pick one with --server (${known})`,
    );
  }
  const inputs = inputFlags(options);
  const missingInputs: InputDeclaration[] = [];
  for (const { reference } of referencesIn(entry)) {
    if (reference.kind !== "input" || inputs.has(reference.id)) continue;
    const fromEnv = env[inputVariable(reference.id)];
    if (fromEnv !== undefined) inputs.set(reference.id, fromEnv);
    else if (!missingInputs.some((input) => input.id === reference.id)) {
      missingInputs.push(config.inputs.get(reference.id) ?? declared(reference.id));
    }
  }
  const sendable = new Set((options["send-env"] as string[] | undefined) ?? []);
  const unconsented = sentFromEnvironment(entry, env).filter(
    ({ reference }) => reference.kind === "env" && !sendable.has(reference.name),
  );
  return { config, entry, inputs, missingInputs, sendable, unconsented };
}

/**
 * The target, never asking: what is missing is a usage error saying how to give it. The
 * gateway (`forVerb` false) has neither --input nor --send-env, and serves stdio entries only.
 */
export function configTarget(
  options: ParsedArgs["options"],
  env: NodeJS.ProcessEnv = process.env,
  forVerb = false,
): Target {
  const planned = plan(options, env);
  if (!forVerb && planned.entry.kind !== "stdio") {
    throw new UsageError(`${where(planned)} has a URL: the gateway serves a stdio server`);
  }
  const [input] = planned.missingInputs;
  if (input !== undefined) throw missingInput(planned, input, forVerb);
  if (planned.unconsented.length > 0) throw withoutConsent(planned);
  return finish(planned, env);
}

/** The target, asking on a terminal for inputs and consent the flags do not give. */
export async function resolveConfigTarget(
  options: ParsedArgs["options"],
  env: NodeJS.ProcessEnv = process.env,
  interactive = isInteractive(),
): Promise<Target> {
  const planned = plan(options, env);
  if (!interactive) return configTarget(options, env, true);
  for (const input of planned.missingInputs) {
    planned.inputs.set(input.id, await askInput(input));
  }
  if (planned.unconsented.length > 0) {
    const names = [...new Set(planned.unconsented.map(variableName))];
    writeErr(
      `${where(planned)} puts variables of your environment into what it sends to ${destination(planned.entry)}:`,
    );
    for (const sent of planned.unconsented) {
      writeErr(`  $${variableName(sent)} → ${printableLine(describeField(sent.field))}`);
    }
    const answer = (await askLine(`Send ${names.length > 1 ? "them" : "it"}? [y/N] `)).trim();
    if (!/^y(es)?$/i.test(answer)) {
      throw new CliError(`not sent: ${names.map((name) => `$${name}`).join(", ")} (declined)`, 1);
    }
    for (const name of names) planned.sendable.add(name);
  }
  return finish(planned, env);
}

function finish(planned: Plan, env: NodeJS.ProcessEnv): Target {
  const { config, entry } = planned;
  const fail = (what: string): never => {
    throw new UsageError(`${where(planned)}: ${what}`);
  };
  const expanded = expandEntry(
    entry,
    {
      env,
      inputs: planned.inputs,
      workspaceFolder: config.workspaceFolder,
      sendable: planned.sendable,
    },
    fail,
  );
  if (expanded.kind === "stdio") {
    const { command, args, env: childEnv } = expanded;
    const cwd = expanded.cwd === undefined ? undefined : resolve(config.folder, expanded.cwd);
    if (cwd !== undefined) checkDirectory(cwd, fail);
    return { kind: "stdio", command, args, env: childEnv, cwd };
  }
  let url: URL;
  try {
    url = new URL(expanded.url);
  } catch {
    return fail('"url" is not a valid URL');
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail('"url" must be http(s)');
  return { kind: "http", url, headers: expanded.headers, sse: expanded.kind === "sse" };
}

/** A `cwd` that is not there is said so (spawn would blame the command). */
function checkDirectory(cwd: string, fail: (what: string) => never): void {
  const stat = statSync(cwd, { throwIfNoEntry: false });
  if (stat === undefined) fail(`its "cwd" ${printableLine(cwd)} does not exist`);
  if (!stat.isDirectory()) fail(`its "cwd" ${printableLine(cwd)} is not a directory`);
}

function inputFlags(options: ParsedArgs["options"]): Map<string, string> {
  const inputs = new Map<string, string>();
  for (const item of (options.input as string[] | undefined) ?? []) {
    const equals = item.indexOf("=");
    // Never quote the item: the part after = is likely a secret.
    if (equals <= 0) throw new UsageError("--input needs id=VALUE");
    inputs.set(item.slice(0, equals), item.slice(equals + 1));
  }
  return inputs;
}

/** `api-key` → MCPWIRE_INPUT_API_KEY. */
function inputVariable(id: string): string {
  return `MCPWIRE_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;
}

function declared(id: string): InputDeclaration {
  return { id, description: undefined, password: false, options: undefined, default: undefined };
}

async function askInput(input: InputDeclaration): Promise<string> {
  const about = input.description ?? `input "${input.id}"`;
  if (input.options !== undefined) {
    for (;;) {
      const fallback = input.default === undefined ? "" : ` [${input.default}]`;
      const answer = (await askLine(`${about} (${input.options.join(", ")})${fallback}: `)).trim();
      if (answer === "" && input.default !== undefined) return input.default;
      if (input.options.includes(answer)) return answer;
      writeErr(`choose one of: ${input.options.join(", ")}`);
    }
  }
  const fallback = input.default === undefined || input.password ? "" : ` [${input.default}]`;
  const answer = input.password
    ? await askSecret(`${about}: `)
    : await askLine(`${about}${fallback}: `);
  return answer === "" && input.default !== undefined ? input.default : answer;
}

function missingInput(planned: Plan, input: InputDeclaration, forVerb: boolean): UsageError {
  const about = input.description === undefined ? "" : ` (${printableLine(input.description)})`;
  const variable = `${inputVariable(input.id)}=VALUE in the environment`;
  return new UsageError(
    `${where(planned)} uses \${input:${printableLine(input.id)}}${about}: give it with ` +
      (forVerb
        ? `--input ${printableLine(input.id)}=VALUE or ${variable}, or run on a terminal to be asked`
        : variable),
  );
}

function withoutConsent(planned: Plan): UsageError {
  const sent = planned.unconsented
    .map((item) => `$${variableName(item)} (${printableLine(describeField(item.field))})`)
    .join(", ");
  const flags = [...new Set(planned.unconsented.map(variableName))]
    .map((name) => `--send-env ${name}`)
    .join(" ");
  return new UsageError(
    `${where(planned)} would send ${sent} from your environment to ${destination(planned.entry)}: ` +
      `allow it with ${flags}, or run on a terminal to be asked`,
  );
}

function variableName(sent: FieldReference): string {
  return sent.reference.kind === "env" ? sent.reference.name : "";
}

function where(planned: Plan): string {
  return `${printableLine(planned.config.path)}: server ${JSON.stringify(printableLine(planned.entry.name))}`;
}

/** The URL as the file writes it (no value of ours in it). */
function destination(entry: ServerEntry): string {
  return entry.kind === "stdio" ? "its command" : printableLine(entry.url);
}
