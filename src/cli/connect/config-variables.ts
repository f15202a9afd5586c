import { printableLine } from "../../text/printable.js";
import type { ServerEntry } from "./config-file.js";

/**
 * The `${…}` variables of a config file entry, as the hosts spell them: `${NAME}`,
 * `${env:NAME}` and `${NAME:-default}` from the environment, VS Code's `${workspaceFolder}` and
 * `${input:id}` (a value the user gives). A variable in a remote entry's URL or headers leaves
 * the machine: one from the environment goes there only with the user's consent (a hostile
 * `.mcp.json` could otherwise send any secret of ours to a server of its choosing).
 */
export type Reference =
  | { kind: "env"; name: string; fallback: string | undefined }
  | { kind: "input"; id: string }
  | { kind: "workspaceFolder" };

export interface FieldReference {
  /** Where in the entry: `args`, `env.KEY`, `url`, `headers.Name`, … */
  field: string;
  reference: Reference;
  /** In a remote entry's URL or headers: sent to the server. */
  remote: boolean;
}

/** What the variables stand for when the entry is used. */
export interface Values {
  env: NodeJS.ProcessEnv;
  inputs: ReadonlyMap<string, string>;
  workspaceFolder: string;
  /** Environment variables the user let go into a remote entry's URL and headers. */
  sendable: ReadonlySet<string>;
}

const VARIABLE = /\$\{(?:(env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?|input:([^}]+))\}/g;

function referenceOf(groups: (string | undefined)[]): Reference {
  const [prefix, name, fallback, input] = groups;
  if (input !== undefined) return { kind: "input", id: input };
  if (prefix === undefined && name === "workspaceFolder" && fallback === undefined) {
    return { kind: "workspaceFolder" };
  }
  return { kind: "env", name: name!, fallback };
}

/** Every string of an entry that may hold variables, with where it is. */
function fieldsOf(entry: ServerEntry): [field: string, text: string, remote: boolean][] {
  if (entry.kind === "stdio") {
    return [
      ["command", entry.command, false],
      ...entry.args.map((arg) => ["args", arg, false] as [string, string, boolean]),
      ...Object.entries(entry.env).map(
        ([key, value]) => [`env.${key}`, value, false] as [string, string, boolean],
      ),
      ...(entry.cwd === undefined ? [] : [["cwd", entry.cwd, false] as [string, string, boolean]]),
    ];
  }
  return [
    ["url", entry.url, true],
    ...Object.entries(entry.headers).map(
      ([name, value]) => [`headers.${name}`, value, true] as [string, string, boolean],
    ),
  ];
}

export function referencesIn(entry: ServerEntry): FieldReference[] {
  return fieldsOf(entry).flatMap(([field, text, remote]) =>
    [...text.matchAll(VARIABLE)].map((match) => ({
      field,
      reference: referenceOf(match.slice(1)),
      remote,
    })),
  );
}

/** Environment variables a remote entry would send (set ones only: the rest use defaults). */
export function sentFromEnvironment(entry: ServerEntry, env: NodeJS.ProcessEnv): FieldReference[] {
  return referencesIn(entry).filter(
    ({ reference, remote }) =>
      remote && reference.kind === "env" && (env[reference.name] ?? "") !== "",
  );
}

/** The entry with its variables filled in; `fail` says what is missing (never a value). */
export function expandEntry(
  entry: ServerEntry,
  values: Values,
  fail: (what: string) => never,
): ServerEntry {
  const expand = (text: string, field: string, remote: boolean): string =>
    text.replace(VARIABLE, (...match: unknown[]) => {
      const reference = referenceOf(match.slice(1, 5) as (string | undefined)[]);
      if (reference.kind === "workspaceFolder") return values.workspaceFolder;
      if (reference.kind === "input") {
        const value = values.inputs.get(reference.id);
        if (value === undefined)
          return fail(`${printableLine(field)} needs input "${reference.id}"`);
        return value;
      }
      const value = values.env[reference.name];
      if (value !== undefined && value !== "") {
        if (remote && !values.sendable.has(reference.name)) {
          return fail(`${printableLine(field)} would send \${${reference.name}} without consent`);
        }
        return value;
      }
      if (reference.fallback !== undefined) return reference.fallback;
      return fail(
        `${printableLine(field)} uses \${${reference.name}}, which is not set in this environment`,
      );
    });
  const map = (record: Record<string, string>, prefix: string, remote: boolean) =>
    Object.fromEntries(
      Object.entries(record).map(([key, value]) => [
        key,
        expand(value, `${prefix}.${key}`, remote),
      ]),
    );
  if (entry.kind === "stdio") {
    return {
      ...entry,
      command: expand(entry.command, "command", false),
      args: entry.args.map((arg) => expand(arg, "args", false)),
      env: map(entry.env, "env", false),
      cwd: entry.cwd === undefined ? undefined : expand(entry.cwd, "cwd", false),
    };
  }
  return {
    ...entry,
    url: expand(entry.url, "url", true),
    headers: map(entry.headers, "headers", true),
  };
}

/** How `mcpwire servers` names a variable: `$NAME`, `input "id"`, `${workspaceFolder}`. */
export function describeReference(reference: Reference): string {
  if (reference.kind === "env") return `$${reference.name}`;
  if (reference.kind === "input") return `input "${reference.id}"`;
  return `\${workspaceFolder}`;
}

/** Where a field's value goes: `env TOKEN`, `header Authorization`, `the URL`, `args`. */
export function describeField(field: string): string {
  if (field.startsWith("env.")) return `env ${field.slice(4)}`;
  if (field.startsWith("headers.")) return `header ${field.slice(8)}`;
  if (field === "url") return "the URL";
  return field;
}
