/**
 * A bare RFC 7662 introspection endpoint on 127.0.0.1 that counts what it is asked: how many
 * calls, how many at once (the most ever), and per token. It can hold its answers until the
 * test releases them (to see what piles up behind them), and answer with a body the test writes.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface IntrospectionEndpoint {
  /** The origin (use it as the issuer) and the endpoint's URL. */
  readonly issuer: string;
  readonly endpoint: string;
  readonly client: { id: string; secret: string };
  readonly stats: { calls: number; running: number; maxRunning: number };
  /** Calls per token. */
  readonly asked: Map<string, number>;
  /** The answer per token; anything else is `{ active: false }`. */
  readonly answers: Map<string, Record<string, unknown>>;
  /** Writes the answer itself instead (a hostile body, say). */
  respond: ((res: ServerResponse) => void) | undefined;
  /** From now on answers wait for release(). */
  hold(): void;
  /** Sends every held answer and stops holding. */
  release(): void;
  /** Resolves once `count` calls are running at once. */
  running(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startIntrospectionEndpoint(): Promise<IntrospectionEndpoint> {
  const stats = { calls: 0, running: 0, maxRunning: 0 };
  const asked = new Map<string, number>();
  const answers = new Map<string, Record<string, unknown>>();
  let held: (() => void)[] | undefined;
  const watchers: { count: number; resolve: () => void }[] = [];
  const client = { id: "rs", secret: "rs-secret" };

  const endpoint: IntrospectionEndpoint = {
    issuer: "",
    endpoint: "",
    client,
    stats,
    asked,
    answers,
    respond: undefined,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const send of waiting) send();
    },
    running: (count) =>
      new Promise((resolve) => {
        if (stats.running >= count) resolve();
        else watchers.push({ count, resolve });
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const basic = (req.headers.authorization ?? "").replace(/^Basic /, "");
      const [id, secret] = Buffer.from(basic, "base64")
        .toString("utf8")
        .split(":")
        .map((part) => decodeURIComponent(part));
      if (id !== client.id || secret !== client.secret) {
        res.writeHead(401, { "Content-Type": "application/json" });
        res.end('{"error":"invalid_client"}');
        return;
      }
      const token = new URLSearchParams(Buffer.concat(chunks).toString("utf8")).get("token") ?? "";
      stats.calls++;
      asked.set(token, (asked.get(token) ?? 0) + 1);
      stats.running++;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      for (const watcher of watchers.filter((w) => stats.running >= w.count)) {
        watchers.splice(watchers.indexOf(watcher), 1);
        watcher.resolve();
      }
      const send = () => {
        stats.running--;
        res.on("error", () => {});
        if (endpoint.respond) return endpoint.respond(res);
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify(answers.get(token) ?? { active: false }));
      };
      if (held) held.push(send);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(endpoint, { issuer: origin, endpoint: `${origin}/introspect` });
}
