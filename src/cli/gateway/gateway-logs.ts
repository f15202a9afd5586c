/**
 * The child's log messages (`notifications/message`), routed to the HTTP clients of the
 * gateway, and the level the child is asked to log at.
 *
 * Where a log goes. Over stdio a log names no request: a modern child may only log for a
 * request that carried a logLevel in `_meta` (2026-07-28 server/utilities/logging.mdx: the log
 * belongs on that request's stream, never on a listen stream), and a legacy child may log at
 * any time. So a modern child's log goes to the one HTTP call in flight that asked for logs,
 * and a legacy child's to the one HTTP call in flight, when there is exactly one, through that
 * call's own request logger (its stream, its level). Otherwise a legacy child's log goes to the
 * legacy sessions that asked for logs with logging/setLevel (on their GET stream, at their
 * level); a modern child's is dropped, since it belongs to one of several calls and no other
 * stream may carry it.
 *
 * The child's level. A modern child is asked per request (the HTTP call's own level goes in
 * `_meta`). A legacy child has one level for everyone: it is set, with logging/setLevel, to the
 * most verbose level any HTTP client currently wants (legacy sessions' setLevel, calls in
 * flight), lowered before a call that needs more, and raised again to what legacy sessions
 * ask for once no such call runs (left as it is when nobody asks: those logs are dropped here).
 */
import type { JsonObject } from "../../jsonrpc/types.js";
import { isLoggingLevel, LOGGING_LEVELS, type LoggingLevel } from "../../protocol/mcp-types.js";
import type { Era } from "../../protocol/versions.js";
import type { HandlerContext } from "../../server/context.js";
import type { LegacySessionView } from "../../server/server-core.js";
import { ignoring } from "../../text/ignored-error.js";

export interface GatewayLogsOptions {
  /** The child's era and whether it declared logging (setLevel is only sent then). */
  child(): { era: Era | undefined; logging: boolean };
  setChildLevel(level: LoggingLevel): Promise<void>;
  legacySessions(): LegacySessionView[];
  report(error: Error): void;
}

const rank = (level: LoggingLevel): number => LOGGING_LEVELS.indexOf(level);
const NOTHING_TO_END = (): void => {};

export class GatewayLogs {
  private readonly options: GatewayLogsOptions;
  /** Calls in flight that want logs, counted per level rank. */
  private readonly callsAt: number[] = LOGGING_LEVELS.map(() => 0);
  private callsWanting = 0;
  /** What the child was last set to; undefined: never set (children then send everything). */
  private childLevel: LoggingLevel | undefined;
  private syncing: Promise<void> = Promise.resolve();

  constructor(options: GatewayLogsOptions) {
    this.options = options;
  }

  /**
   * A call is about to be forwarded. The function to call when it is done: at once, or once the
   * child logs verbosely enough for it.
   */
  begin(context: HandlerContext): (() => void) | Promise<() => void> {
    const level = context.logLevel;
    // Most calls set no level: no promise for them (callers await only a promise).
    if (level === undefined || !this.adjustsChild()) return NOTHING_TO_END;
    return this.beginAt(level);
  }

  private async beginAt(level: LoggingLevel): Promise<() => void> {
    this.callsAt[rank(level)]!++;
    this.callsWanting++;
    const end = () => {
      this.callsAt[rank(level)]!--;
      this.callsWanting--;
      if (this.callsWanting === 0) void this.sync();
    };
    const current = this.childLevel === undefined ? 0 : rank(this.childLevel);
    if (rank(level) < current) await this.sync();
    return end;
  }

  /** A legacy session's setLevel changed, or such a session ended. */
  levelsChanged(): Promise<void> {
    return this.adjustsChild() ? this.sync() : Promise.resolve();
  }

  /** A `notifications/message` from the child, given the HTTP calls in flight. */
  route(params: JsonObject, inFlight: Iterable<HandlerContext>): void {
    const level = params.level;
    if (!isLoggingLevel(level)) return;
    const legacyChild = this.options.child().era === "legacy";
    // A modern child logs only for calls that asked: those are the candidates. A legacy child
    // may log for any call, or none.
    let only: HandlerContext | undefined;
    let count = 0;
    for (const context of inFlight) {
      if (!legacyChild && context.logLevel === undefined) continue;
      only = context;
      if (++count > 1) break;
    }
    if (count === 1) {
      // The request's own logger: its stream, its level (nothing, if it asked for none).
      const logger = typeof params.logger === "string" ? params.logger : undefined;
      void only!.log[level](params.data, logger).catch(ignoring("relaying a log message"));
      return;
    }
    if (!legacyChild) return;
    for (const session of this.options.legacySessions()) {
      if (session.logLevel === undefined || rank(level) < rank(session.logLevel)) continue;
      void session
        .notify("notifications/message", params)
        .catch(ignoring("relaying a log message to a legacy session"));
    }
  }

  private adjustsChild(): boolean {
    const child = this.options.child();
    return child.era === "legacy" && child.logging;
  }

  /** The most verbose level wanted right now, or undefined when nobody wants logs. */
  private wanted(): LoggingLevel | undefined {
    let best = this.callsAt.findIndex((count) => count > 0);
    for (const session of this.options.legacySessions()) {
      if (session.logLevel === undefined) continue;
      const sessionRank = rank(session.logLevel);
      if (best < 0 || sessionRank < best) best = sessionRank;
    }
    return best < 0 ? undefined : LOGGING_LEVELS[best];
  }

  /** Brings the child's level to what is wanted; one setLevel at a time, the latest wins. */
  private sync(): Promise<void> {
    this.syncing = this.syncing.then(async () => {
      const level = this.wanted();
      // Nobody wants logs: the level stays as it is (they are dropped here anyway).
      if (level === undefined || level === (this.childLevel ?? "debug")) return;
      try {
        await this.options.setChildLevel(level);
        this.childLevel = level;
      } catch (error) {
        this.options.report(
          new Error(`could not set the child's log level: ${(error as Error).message}`),
        );
      }
    });
    return this.syncing;
  }
}
