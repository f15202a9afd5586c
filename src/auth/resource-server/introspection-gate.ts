/**
 * What stands between incoming tokens and the authorization server's introspection endpoint,
 * so that a flood of made-up tokens cannot become a flood of requests there: a refusal is
 * remembered briefly (one bad token is not asked about on every request), identical questions
 * in flight share one request, and at most `maxConcurrent` requests run at once while a bounded
 * queue waits (beyond it, or after waiting too long, the answer is "cannot check now": 503).
 */
import { InvalidTokenError, type VerifiedToken } from "./principal.js";
import { TokenCache } from "./token-cache.js";

interface IntrospectionGateOptions {
  maxConcurrent: number;
  maxQueued: number;
  /** Longest a request waits in the queue (ms). */
  maxWaitMs: number;
  /** How long a refusal is remembered (ms); 0: not at all. */
  negativeCacheMs: number;
  /** Refusals remembered at once (the oldest forgotten first). */
  maxRemembered: number;
}

/** Too many introspections at once: the token is not known to be bad, it cannot be checked now. */
class IntrospectionBusyError extends Error {
  override readonly name = "IntrospectionBusyError";
}

export class IntrospectionGate {
  private readonly refused: TokenCache<string>;
  private readonly inFlight = new Map<string, Promise<VerifiedToken>>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: IntrospectionGateOptions) {
    this.refused = new TokenCache(options.maxRemembered);
  }

  /** `ask()`'s verdict on `key` (the resource and the token), asked as little as possible. */
  check(key: string, ask: () => Promise<VerifiedToken>): Promise<VerifiedToken> {
    const refusal = this.refused.get(key);
    if (refusal !== undefined) return Promise.reject(new InvalidTokenError(refusal));
    let verdict = this.inFlight.get(key);
    if (verdict === undefined) {
      verdict = this.limited(ask)
        .catch((error: unknown) => {
          const { negativeCacheMs } = this.options;
          if (error instanceof InvalidTokenError && negativeCacheMs > 0) {
            this.refused.set(key, error.message, Date.now() + negativeCacheMs);
          }
          throw error;
        })
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, verdict);
    }
    return verdict;
  }

  private async limited<T>(run: () => Promise<T>): Promise<T> {
    if (this.running >= this.options.maxConcurrent) await this.turn();
    else this.running++;
    try {
      return await run();
    } finally {
      // Hand the slot to the next in line, else give it back.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Resolves when a running request hands over its slot; refuses a full or too long wait. */
  private turn(): Promise<void> {
    if (this.waiting.length >= this.options.maxQueued) {
      return Promise.reject(
        new IntrospectionBusyError(
          `over ${this.options.maxConcurrent} introspection requests running and ${this.options.maxQueued} waiting`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(
          new IntrospectionBusyError(
            `no introspection slot came free within ${this.options.maxWaitMs} ms`,
          ),
        );
      }, this.options.maxWaitMs);
      this.waiting.push(go);
    });
  }
}
