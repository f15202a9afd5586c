/**
 * Skill resource URIs: `skill://<skill-path>/<file-path>`, one percent-encoded segment per
 * directory or file name, so any name a file system allows becomes a valid URI segment (and the
 * first one a valid RFC 3986 reg-name) and the URI maps back to exactly one path.
 */
import { SKILL_FILE, SKILL_URI_SCHEME } from "./wire.js";

const PREFIX = `${SKILL_URI_SCHEME}://`;

/** The URI of a directory (segments empty: none) or file under the skill namespace. */
export function skillUri(segments: readonly string[]): string {
  return PREFIX + segments.map((segment) => encodeURIComponent(segment)).join("/");
}

/**
 * The skill name a SKILL.md URI carries (its segment before `/SKILL.md`), under any scheme, or
 * undefined when the URI does not end in `/SKILL.md` after at least one segment.
 */
export function skillNameOfUri(uri: string): string | undefined {
  const path = afterScheme(uri);
  if (path === undefined || !path.endsWith(`/${SKILL_FILE}`)) return undefined;
  const segments = path.split("/");
  const name = segments[segments.length - 2];
  return name ? name : undefined;
}

/** A skill's root directory URI: its SKILL.md URI without `/SKILL.md`. */
export function skillRootOfUri(uri: string): string | undefined {
  return skillNameOfUri(uri) === undefined ? undefined : uri.slice(0, -(SKILL_FILE.length + 1));
}

/** Whether `uri` is the skill's SKILL.md or a file under its root directory. */
export function isWithinSkill(skillUri: string, uri: string): boolean {
  const root = skillRootOfUri(skillUri);
  return root !== undefined && (uri === skillUri || uri.startsWith(`${root}/`));
}

/**
 * The file path (decoded segments) of a URI inside a skill root, or undefined when it is not
 * under the root or a segment is empty, `.`, `..`, or decodes to a separator.
 */
export function relativeSegments(rootUri: string, uri: string): string[] | undefined {
  if (!uri.startsWith(`${rootUri}/`)) return undefined;
  const segments: string[] = [];
  for (const raw of uri.slice(rootUri.length + 1).split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === "" || segment === "." || segment === ".." || /[/\\\0]/.test(segment)) {
      return undefined;
    }
    segments.push(segment);
  }
  return segments;
}

function afterScheme(uri: string): string | undefined {
  const at = uri.indexOf("://");
  return at < 0 ? undefined : uri.slice(at + 3);
}
