/**
 * The mimeType a skill file is served with, by its extension: SKILL.md and other markdown as
 * text/markdown (SEP-2640, Resource Metadata), the usual script, data and image types, and
 * text/plain or application/octet-stream for the rest, by whether the bytes are UTF-8 text.
 */
const BY_EXTENSION: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  py: "text/x-python",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  sh: "text/x-shellscript",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  xml: "application/xml",
  html: "text/html",
  css: "text/css",
  csv: "text/csv",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  zip: "application/zip",
};

export function mimeTypeOf(fileName: string, isText: boolean): string {
  const dot = fileName.lastIndexOf(".");
  const known = dot > 0 ? BY_EXTENSION[fileName.slice(dot + 1).toLowerCase()] : undefined;
  return known ?? (isText ? "text/plain" : "application/octet-stream");
}
