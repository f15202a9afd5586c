import { SkillsClient } from "../../extensions/skills/index.js";
import type { Skill } from "../../extensions/skills/wire.js";
import { printable, printableLine } from "../../text/printable.js";
import {
  expectArgs,
  logLine,
  requestOptions,
  runWithClient,
  type VerbContext,
} from "../connect/session.js";
import { CliError, EXIT_OK, UsageError } from "../core/errors.js";
import { printJson, printText } from "../core/output.js";
import { writeFilesInside } from "./skill-download.js";

const SKILLS_USAGE = `Usage: mcpwire skills <target> [list] [options]
       mcpwire skills <target> show <skill>
       mcpwire skills <target> download <skill>… | --all  --to <dir> [--force]
       (or the same with -- <command> [args…] at the end for a stdio server)

The Skills extension (io.modelcontextprotocol/skills): list the skills a server publishes, show
one's entry (its frontmatter and files with digests), or download skills: every file is checked
against the entry's size and sha256 digest (and SKILL.md's frontmatter against the entry's)
before anything is written, then written under <dir>/<skill path>/ and nowhere else (names from
the server are checked; files are never made executable).
<skill> is a SKILL.md URI (skill://…/SKILL.md) or a skill name from the list.
Options: --to <dir> (download: where), --force (replace files already there), --all,
         --json, and the connection options of every verb (--era, --header, --timeout, …)
`;

const OPTIONS = { to: "value", force: "flag", all: "flag" } as const;

export function runSkills(argv: readonly string[]): Promise<number> {
  return runWithClient(argv, SKILLS_USAGE, OPTIONS, async (context) => {
    const [action = "list", ...names] = context.args;
    const skills = new SkillsClient(context.client);
    if (!skills.capability) {
      throw new CliError(
        "the server does not offer skills (no io.modelcontextprotocol/skills extension)",
      );
    }
    if (action === "list") {
      expectArgs(names, 0, 0, "mcpwire skills <target> list");
      return listSkills(context, skills);
    }
    if (action === "show") {
      expectArgs(names, 1, 1, "mcpwire skills <target> show <skill>");
      const skill = await findSkill(context, skills, names[0] as string);
      if (context.settings.json) printJson(skill);
      else printText(describeSkill(skill, true));
      return EXIT_OK;
    }
    if (action === "download") return download(context, skills, names);
    throw new UsageError(
      `unknown skills action ${JSON.stringify(action)} (list, show or download)`,
    );
  });
}

async function listSkills(context: VerbContext, skills: SkillsClient): Promise<number> {
  const { skills: listed, problems } = await skills.list(requestOptions(context));
  context.progress.done();
  for (const problem of problems) logLine(`mcpwire: left out: ${problem}`);
  if (context.settings.json) {
    printJson(listed);
    return EXIT_OK;
  }
  if (listed.length === 0) {
    // An empty listing does not prove there are none (the specification allows partial ones).
    printText(
      "no skills listed (a skill can still be fetched by its URI: mcpwire skills show <uri>)",
    );
    return EXIT_OK;
  }
  printText(listed.map((skill) => describeSkill(skill, false)).join("\n"));
  return EXIT_OK;
}

/** A skill as text: name, URI, size, description; with `files`, every file and its digest. */
function describeSkill(skill: Skill, files: boolean): string {
  const size =
    skill.resources === "dynamic"
      ? "dynamic content"
      : `${skill.resources.length} file${skill.resources.length === 1 ? "" : "s"}, ${skill.resources.reduce((sum, file) => sum + file.size, 0)} bytes`;
  const lines = [
    `${printableLine(skill.frontmatter.name)}  ${printableLine(skill.uri)}  (${size})`,
    `  ${printableLine(skill.frontmatter.description)}`,
  ];
  if (!files) return lines.join("\n");
  for (const [field, value] of Object.entries(skill.frontmatter)) {
    if (field === "name" || field === "description") continue;
    lines.push(`  ${printableLine(field)}: ${printable(JSON.stringify(value))}`);
  }
  if (skill.resources !== "dynamic") {
    for (const file of skill.resources) {
      lines.push(`  ${printableLine(file.uri)}  ${file.size} bytes  ${printableLine(file.digest)}`);
    }
  }
  return lines.join("\n");
}

/**
 * The skill a name or URI stands for. A URI not in the listing is asked for with skills/get
 * (listings may be partial); a name two skills share is refused, naming both.
 */
async function findSkill(
  context: VerbContext,
  skills: SkillsClient,
  wanted: string,
): Promise<Skill> {
  if (wanted.includes("://")) return skills.get(wanted, requestOptions(context));
  const { skills: listed } = await skills.list(requestOptions(context));
  const matches = listed.filter((skill) => skill.frontmatter.name === wanted);
  if (matches.length === 1) return matches[0] as Skill;
  if (matches.length === 0) {
    throw new CliError(`no listed skill is named ${JSON.stringify(printableLine(wanted))}`);
  }
  const uris = matches.map((skill) => printableLine(skill.uri)).join(", ");
  throw new CliError(
    `${matches.length} skills are named ${JSON.stringify(wanted)}: give the URI (${uris})`,
  );
}

async function download(
  context: VerbContext,
  skills: SkillsClient,
  names: string[],
): Promise<number> {
  const to = context.options.to;
  if (typeof to !== "string" || to === "") throw new UsageError("download needs --to <dir>");
  const all = context.options.all === true;
  if (all === names.length > 0)
    throw new UsageError("download takes skill names or URIs, or --all");
  const chosen = all
    ? (await skills.list(requestOptions(context))).skills
    : await Promise.all(names.map((name) => findSkill(context, skills, name)));
  // Fetch and verify everything first: a bad file stops the download before anything is written.
  const fetched = [];
  for (const skill of chosen) {
    fetched.push({ skill, files: await skills.fetchAll(skill, requestOptions(context)) });
  }
  context.progress.done();
  const report = [];
  const writtenUris = new Set<string>();
  for (const { skill, files } of fetched) {
    // A nested skill's files are also its parent's: each file is written once.
    const fresh = files.filter((file) => !writtenUris.has(file.uri));
    for (const file of fresh) writtenUris.add(file.uri);
    const folder = skillFolder(skill.uri);
    const paths = await writeFilesInside(to, folder, fresh, context.options.force === true);
    report.push({ uri: skill.uri, folder: folder.join("/"), files: paths });
  }
  if (context.settings.json) printJson(report);
  else {
    printText(
      report
        .map(
          (item) =>
            `${printableLine(item.uri)} -> ${printableLine(item.folder)}/ (${item.files.length} file${item.files.length === 1 ? "" : "s"})`,
        )
        .join("\n"),
    );
  }
  return EXIT_OK;
}

/** The skill path of a SKILL.md URI, one decoded name per segment (`acme/billing/refunds`). */
function skillFolder(uri: string): string[] {
  const path = uri
    .slice(uri.indexOf("://") + 3)
    .split("/")
    .slice(0, -1);
  return path.map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
}
