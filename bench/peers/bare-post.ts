/**
 * The bare HTTP peers' request reading: a POST's body parsed as JSON and handed on; any other
 * method gets 405. No checks, like a program with no library.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Untyped } from "./bare-protocol.js";

export function onPostedJson(
  handle: (message: Untyped, req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST") {
        res.writeHead(405).end();
        return;
      }
      handle(JSON.parse(Buffer.concat(chunks).toString("utf8")), req, res);
    });
  };
}
