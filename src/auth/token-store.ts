/**
 * Where the OAuth client keeps what it obtained: tokens per protected resource and client
 * registrations per authorization server (keyed by its `issuer`, as the spec's "Authorization
 * Server Binding" asks). Async so a file or shared store can replace the in-memory default.
 */
import type { StoredDpopKey } from "./dpop.js";

export interface StoredTokens {
  readonly accessToken: string;
  /** "bearer" or "dpop" (as the token endpoint said, lower-cased). */
  readonly tokenType: string;
  /** The key a DPoP-bound token (and its refresh token) is bound to. */
  readonly dpopKey?: StoredDpopKey;
  readonly refreshToken?: string;
  /** Milliseconds since the epoch; absent when the server gave no lifetime. */
  readonly expiresAt?: number;
  /** The scopes asked for (what a step-up adds to). */
  readonly requestedScopes?: readonly string[];
  /** The authorization server that issued them: tokens from another one are never sent. */
  readonly issuer: string;
}

export interface StoredClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  /** As registered (DCR's answer); otherwise chosen from the server's metadata. */
  readonly tokenEndpointAuthMethod?: string;
  /** Unix seconds; 0 or absent: never. */
  readonly clientSecretExpiresAt?: number;
  /** How the client id came to be: absent means a dynamic registration. */
  readonly source?: "pre-registered" | "metadata-document" | "registered";
}

export interface TokenStore {
  getTokens(resource: string): Promise<StoredTokens | undefined>;
  setTokens(resource: string, tokens: StoredTokens): Promise<void>;
  deleteTokens(resource: string): Promise<void>;
  getClient(issuer: string): Promise<StoredClient | undefined>;
  setClient(issuer: string, client: StoredClient): Promise<void>;
  deleteClient(issuer: string): Promise<void>;
}

export class InMemoryTokenStore implements TokenStore {
  private readonly tokens = new Map<string, StoredTokens>();
  private readonly clients = new Map<string, StoredClient>();

  async getTokens(resource: string): Promise<StoredTokens | undefined> {
    return this.tokens.get(resource);
  }
  async setTokens(resource: string, tokens: StoredTokens): Promise<void> {
    this.tokens.set(resource, tokens);
  }
  async deleteTokens(resource: string): Promise<void> {
    this.tokens.delete(resource);
  }
  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return this.clients.get(issuer);
  }
  async setClient(issuer: string, client: StoredClient): Promise<void> {
    this.clients.set(issuer, client);
  }
  async deleteClient(issuer: string): Promise<void> {
    this.clients.delete(issuer);
  }
}
