/**
 * The official SDKs' OAuthClientProvider (v1 `@modelcontextprotocol/sdk` and v2
 * `@modelcontextprotocol/client` ask for the same shape) with everything in memory and a
 * browser with nobody at it: the SDK registers, starts the authorization code flow with PKCE
 * and hands the authorization URL to redirectToAuthorization, which follows oidc-provider's
 * interactions to the redirect URI and keeps what arrives there. The application's part of the
 * flow (finishAuth with the code, then connect again) is connectWithOAuth's.
 */
import { followToRedirect } from "./browser-redirect.js";

const REDIRECT_URI = "http://127.0.0.1:33419/callback";

/** Loose shapes: the two SDKs' types differ in details the flow does not touch. */
type Stored = object;

export class HeadlessOAuthProvider {
  private client: Stored | undefined;
  private stored: Stored | undefined;
  private verifier = "";
  private discovered: Stored | undefined;
  /** What the authorization server sent to the redirect URI, once the flow reached it. */
  callback: URL | undefined;
  /** The authorization URLs the SDK opened (its scope and resource parameters are checked). */
  readonly opened: URL[] = [];

  constructor(private readonly name: string) {}

  get redirectUrl(): string {
    return REDIRECT_URI;
  }

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation(): never {
    return this.client as never;
  }
  saveClientInformation(information: Stored): void {
    this.client = information;
  }
  tokens(): never {
    return this.stored as never;
  }
  saveTokens(tokens: Stored): void {
    this.stored = tokens;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  /** v2 binds the callback to the authorization server it discovered (SEP-2352). */
  saveDiscoveryState(state: Stored): void {
    this.discovered = state;
  }
  discoveryState(): never {
    return this.discovered as never;
  }
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.opened.push(authorizationUrl);
    this.callback = await followToRedirect(authorizationUrl, REDIRECT_URI);
  }
}

/** A transport of either SDK that can finish an authorization. */
export interface AuthorizingTransport {
  finishAuth(answer: never): Promise<void>;
}

/**
 * Connects the SDK's client (`connect`) with a transport from `open`; when that ends in the SDK's
 * UnauthorizedError (`sdk.unauthorized`) after the provider went through the authorization (the SDK's way of saying
 * "come back with the code"), finishes it on that transport (v1 takes the code, v2 the callback
 * parameters, `iss` included) and connects again with a fresh transport.
 */
export async function connectWithOAuth<T extends AuthorizingTransport>(
  sdk: { unauthorized: abstract new (...args: never[]) => Error; answer: "code" | "params" },
  connect: (transport: T) => Promise<void>,
  open: () => T,
  provider: HeadlessOAuthProvider,
): Promise<void> {
  const first = open();
  try {
    await connect(first);
    return;
  } catch (error) {
    const callback = provider.callback;
    if (callback === undefined || !(error instanceof sdk.unauthorized)) throw error;
    const error_ = callback.searchParams.get("error");
    if (error_ !== null) {
      throw new Error(`the authorization server refused: ${error_} ${callback.searchParams}`);
    }
    await first.finishAuth(
      (sdk.answer === "code" ? callback.searchParams.get("code") : callback.searchParams) as never,
    );
  }
  await connect(open());
}
