/**
 * A peer's `clientInfo` / `serverInfo` as the handler API promises it. The peer may send
 * anything there, and the value reaches handlers, logs and the CLI's output: a name that is
 * not a string, or an `icons` that is not a list, must not pass for an Implementation.
 */
import type { Icon, Implementation } from "./mcp-types.js";

const OPTIONAL_TEXT = ["title", "description", "websiteUrl"] as const;

function isIcon(value: unknown): value is Icon {
  if (typeof value !== "object" || value === null) return false;
  const icon = value as Record<string, unknown>;
  return (
    typeof icon.src === "string" &&
    (icon.mimeType === undefined || typeof icon.mimeType === "string") &&
    (icon.sizes === undefined ||
      (Array.isArray(icon.sizes) && icon.sizes.every((size) => typeof size === "string"))) &&
    (icon.theme === undefined || icon.theme === "light" || icon.theme === "dark")
  );
}

/**
 * The peer's Implementation, or undefined when it has no string `name` and `version`. Optional
 * fields of the wrong type are dropped (a copy is made only then: the well-formed case, every
 * modern request's `_meta`, costs a few type checks).
 */
export function readImplementation(value: unknown): Implementation | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const info = value as Record<string, unknown>;
  if (typeof info.name !== "string" || typeof info.version !== "string") return undefined;
  // The usual case in plain property reads: a loop over the field names would make each read a
  // megamorphic keyed load, on every modern request's clientInfo.
  if (
    (info.title === undefined || typeof info.title === "string") &&
    (info.description === undefined || typeof info.description === "string") &&
    (info.websiteUrl === undefined || typeof info.websiteUrl === "string") &&
    info.icons === undefined
  ) {
    return value as Implementation;
  }
  const badText = OPTIONAL_TEXT.filter(
    (field) => info[field] !== undefined && typeof info[field] !== "string",
  );
  const icons = info.icons;
  const badIcons = icons !== undefined && !(Array.isArray(icons) && icons.every(isIcon));
  if (badText.length === 0 && !badIcons) return value as Implementation;
  const cleaned: Record<string, unknown> = { ...info };
  for (const field of badText) delete cleaned[field];
  if (badIcons) {
    if (Array.isArray(icons)) cleaned.icons = icons.filter(isIcon);
    else delete cleaned.icons;
  }
  return cleaned as unknown as Implementation;
}
