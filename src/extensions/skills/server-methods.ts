/**
 * The server's answers, over a catalog: `skills/list`, `skills/get`, `resources/directory/read`
 * and `resources/read` of a skill file. Each takes the request's params and returns the result
 * (or throws -32602 with a message naming the URI, as the specification asks).
 */
import {
  ErrorCode,
  InternalError,
  InvalidParamsError,
  JsonRpcError,
} from "../../jsonrpc/errors.js";
import type { JsonObject } from "../../jsonrpc/types.js";
import type { ReadResourceResult } from "../../protocol/mcp-types.js";
import type { Era } from "../../protocol/versions.js";
import { paginate } from "../../server/registry.js";
import { type SkillCatalog, SkillFileError } from "./catalog.js";
import { fileContents } from "./file-bytes.js";

export function listSkills(
  catalog: SkillCatalog,
  params: JsonObject,
  pageSize?: number,
): JsonObject {
  const { page, nextCursor } = paginate([...catalog.skills], params.cursor, pageSize);
  const result: JsonObject = { skills: page };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return result;
}

export function getSkill(catalog: SkillCatalog, params: JsonObject): JsonObject {
  const uri = requireUri(params, "skills/get");
  const skill = catalog.skill(uri);
  if (!skill) throw new InvalidParamsError(`No skill is served at ${uri}`, { uri });
  return { skill };
}

export function readDirectory(
  catalog: SkillCatalog,
  params: JsonObject,
  pageSize?: number,
): JsonObject {
  const uri = requireUri(params, "resources/directory/read");
  const children = catalog.directory(uri);
  if (!children) {
    const why = catalog.file(uri) ? "is not a directory resource" : "is not a served directory";
    throw new InvalidParamsError(`${uri} ${why}`, { uri });
  }
  const { page, nextCursor } = paginate([...children], params.cursor, pageSize);
  const result: JsonObject = { resources: page };
  if (nextCursor !== undefined) result.nextCursor = nextCursor;
  return result;
}

/**
 * The contents of a served skill file, read now. A URI the catalog does not serve gets the
 * era's resource-not-found error: -32602 (2026-07-28, which the extension targets), -32002 before.
 */
export async function readSkillFile(
  catalog: SkillCatalog,
  uri: string,
  era: Era = "modern",
): Promise<ReadResourceResult> {
  const file = catalog.file(uri);
  if (!file) throw notServed(uri, "", era);
  let bytes: Uint8Array;
  try {
    bytes = await file.read();
  } catch (error) {
    if (error instanceof SkillFileError && error.reason === "gone") {
      throw notServed(uri, `: ${error.message}`, era);
    }
    // Causes such as EACCES name server paths: the client hears only that the read failed.
    throw new InternalError(`Reading ${uri} failed`);
  }
  return { contents: [fileContents(uri, file.mimeType, bytes)] };
}

function notServed(uri: string, why: string, era: Era): JsonRpcError {
  const code = era === "modern" ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
  return new JsonRpcError(code, `No skill file is served at ${uri}${why}`, { uri });
}

function requireUri(params: JsonObject, method: string): string {
  const uri = params.uri;
  if (typeof uri !== "string" || uri === "") {
    throw new InvalidParamsError(`${method} needs a string "uri"`);
  }
  return uri;
}
