/**
 * Writing answers to a node:http ServerResponse, for both ways a request is served there: a web
 * Response from the handler (streamed out with backpressure), or a PlainReply from the fast
 * path (one writeHead + end). Both send the same header lines in the same order: lowercase
 * names sorted as a web `Headers` lists them.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PlainReply } from "./exchange.js";
import type { HeaderPairs } from "./security.js";

/**
 * Header pairs as the flat [name, value, …] list writeHead takes, in `Headers` order. Made
 * without garbage beyond the list itself (a reply goes through here every time): sized up
 * front, sorted by insertion in place, names lowercased only when they have capitals
 * (toLowerCase makes a new string even when nothing changes).
 */
export function flatHeaders(pairs: HeaderPairs): string[] {
  const flat = new Array<string>(pairs.length * 2);
  for (let p = 0; p < pairs.length; p++) {
    const [name, value] = pairs[p]!;
    const lower = HAS_CAPITALS.test(name) ? name.toLowerCase() : name;
    let at = p * 2;
    while (at > 0 && flat[at - 2]! > lower) {
      flat[at] = flat[at - 2]!;
      flat[at + 1] = flat[at - 1]!;
      at -= 2;
    }
    flat[at] = lower;
    flat[at + 1] = value;
  }
  return flat;
}

const HAS_CAPITALS = /[A-Z]/;

/**
 * The rest of a request body that was never read (refused early, or over the limit) must not
 * be taken for the next request on the connection.
 */
function closeIfUnread(outgoing: string[], req: IncomingMessage, bodyAbandoned: boolean): void {
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  if (bodyAbandoned || (hasBody && !req.complete)) outgoing.push("Connection", "close");
}

/** Writes a whole reply at once: headers and body leave in one socket write. */
export function writePlain(
  req: IncomingMessage,
  res: ServerResponse,
  reply: PlainReply,
  bodyAbandoned = false,
): void {
  if (res.destroyed) return;
  const outgoing = flatHeaders(reply.headers);
  closeIfUnread(outgoing, req, bodyAbandoned);
  res.writeHead(reply.status, outgoing);
  if (reply.body === null) res.end();
  else res.end(reply.body);
}

/** Writes a web Response: headers at once, then the body as it comes, with backpressure. */
export async function writeResponse(
  response: Response,
  req: IncomingMessage,
  res: ServerResponse,
  bodyAbandoned: boolean,
): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  // Headers go straight to writeHead as a flat [name, value, …] list: no per-header setHeader
  // bookkeeping, and repeated names (Set-Cookie) each keep their line.
  const outgoing: string[] = [];
  response.headers.forEach((value, name) => {
    outgoing.push(name, value);
  });
  closeIfUnread(outgoing, req, bodyAbandoned);
  if (!response.body) {
    res.writeHead(response.status, outgoing).end();
    return;
  }
  res.writeHead(response.status, outgoing);
  // Only a stream (SSE) needs its headers on the wire before the body; a finite reply (JSON,
  // plain errors) lets node:http send them with the first body chunk, in one socket write.
  // (Not res.cork(): on Node 22 a corked reply written this way loses its body.)
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) res.flushHeaders();
  await pipeBody(response.body, res);
}

async function pipeBody(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const settle = () => {
            res.off("drain", settle);
            res.off("close", settle);
            resolve();
          };
          res.on("drain", settle);
          res.on("close", settle);
        });
      }
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off("close", onClose);
  }
}
