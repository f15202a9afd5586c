/**
 * `read --out FILE`: a resource's bytes in a file, for what a terminal cannot show (an image, a
 * PDF). A blob is decoded from base64, a text written as UTF-8; a result with other than one
 * contents item is refused rather than guessed at.
 */
import type { JsonObject } from "../../jsonrpc/types.js";
import { printableLine } from "../../text/printable.js";
import { CliError } from "../core/errors.js";
import { openOwnFile } from "../core/own-file.js";

/** Standard or URL-safe base64, padded or not, as a server may send it. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

interface WrittenResource {
  file: string;
  uri: string;
  mimeType: string | undefined;
  bytes: number;
}

export async function writeResource(
  result: JsonObject,
  uri: string,
  path: string,
): Promise<WrittenResource> {
  const contents = Array.isArray(result.contents) ? (result.contents as JsonObject[]) : [];
  if (contents.length !== 1) {
    throw new CliError(
      `${printableLine(uri)} came as ${contents.length} contents items; --out writes exactly one (--json shows them all)`,
    );
  }
  const [item] = contents as [JsonObject];
  let bytes: Buffer;
  if (typeof item.blob === "string") {
    if (!BASE64.test(item.blob)) {
      throw new CliError(`the server's blob for ${printableLine(uri)} is not base64`);
    }
    bytes = Buffer.from(item.blob, "base64");
  } else if (typeof item.text === "string") {
    bytes = Buffer.from(item.text, "utf8");
  } else {
    throw new CliError(`${printableLine(uri)} came with neither text nor blob`);
  }
  const file = await openOwnFile(path);
  try {
    await file.writeFile(bytes);
  } catch (error) {
    throw new CliError(`cannot write ${path}: ${(error as Error).message}`);
  } finally {
    await file.close();
  }
  const mimeType = typeof item.mimeType === "string" ? item.mimeType : undefined;
  return { file: path, uri, mimeType, bytes: bytes.length };
}
