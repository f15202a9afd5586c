/**
 * The stored tokens as every verb uses them, with other mcpwire processes using the same ones.
 * Authorization servers rotate refresh tokens: two processes refreshing with the same one at
 * once would leave one with `invalid_grant` and, worse, deleting what the other just stored.
 * So a renewal runs under the store's exclusive lock, one process at a time, each starting from
 * what the store holds then: tokens another process renewed meanwhile are taken as they are
 * (a new OAuthClient loads them) instead of being renewed once more with a spent refresh token.
 */
import type { FileTokenStore } from "../../auth/file-token-store.js";
import type { OAuthClient } from "../../auth/oauth-client.js";
import type { StoredTokens, TokenStore } from "../../auth/token-store.js";
import type {
  HttpAuthAnswer,
  HttpAuthChallenge,
  HttpAuthProvider,
  HttpAuthRequest,
} from "../../transports/http/client/auth.js";

/** Renew this long before expiry (the OAuthClient is given the same margin). */
export const REFRESH_LEEWAY_MS = 30_000;

export class SharedTokenAuth implements HttpAuthProvider {
  private readonly store: FileTokenStore;
  private readonly resource: string;
  private readonly make: (store: TokenStore) => OAuthClient;
  private client: OAuthClient;
  /** The tokens the current client holds, as far as the store saw them. */
  private known: StoredTokens | undefined;
  private primed = false;

  constructor(store: FileTokenStore, url: URL, make: (store: TokenStore) => OAuthClient) {
    this.store = store;
    this.resource = url.href;
    this.make = make;
    this.client = this.fresh();
  }

  async headers(request: HttpAuthRequest): Promise<Record<string, string>> {
    if (!this.primed) {
      // Known before the client first loads them: an expiring token is renewed under the lock.
      this.primed = true;
      this.known = await this.store.getTokens(this.resource);
    }
    const known = this.known;
    if (known?.refreshToken === undefined || !expiring(known)) return this.client.headers(request);
    return this.store.exclusive(async () => {
      await this.catchUp();
      return this.client.headers(request);
    });
  }

  async onChallenge(challenge: HttpAuthChallenge): Promise<"retry" | "fail"> {
    return this.store.exclusive(async () => {
      if (!challenge.retried && (await this.catchUp())) {
        const sent = challenge.sent.Authorization ?? "";
        // Answered with other tokens than those stored now: try those first.
        if (this.known && !sent.endsWith(` ${this.known.accessToken}`)) return "retry";
      }
      return this.client.onChallenge(challenge);
    });
  }

  onAnswer(answer: HttpAuthAnswer): void {
    this.client.onAnswer(answer);
  }

  /** Takes the store's tokens when another process renewed them; true when it did. */
  private async catchUp(): Promise<boolean> {
    const latest = await this.store.getTokens(this.resource);
    if (latest === undefined || latest.accessToken === this.known?.accessToken) return false;
    this.client = this.fresh();
    this.known = latest;
    return true;
  }

  /** A client whose store tells us what it holds, and deletes only its own tokens. */
  private fresh(): OAuthClient {
    const store = this.store;
    const watched: TokenStore = {
      getTokens: async (resource) => {
        const tokens = await store.getTokens(resource);
        if (resource === this.resource) this.known = tokens;
        return tokens;
      },
      setTokens: async (resource, tokens) => {
        if (resource === this.resource) this.known = tokens;
        await store.setTokens(resource, tokens);
      },
      deleteTokens: async (resource) => {
        const mine = resource === this.resource ? this.known?.accessToken : undefined;
        if (resource === this.resource) this.known = undefined;
        await store.deleteTokensIf(resource, mine);
      },
      getClient: (issuer) => store.getClient(issuer),
      setClient: (issuer, client) => store.setClient(issuer, client),
      deleteClient: (issuer) => store.deleteClient(issuer),
    };
    return this.make(watched);
  }
}

function expiring(tokens: StoredTokens): boolean {
  return tokens.expiresAt !== undefined && Date.now() >= tokens.expiresAt - REFRESH_LEEWAY_MS;
}
