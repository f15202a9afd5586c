/**
 * The little of oidc-provider's API the e2e fixture uses (the package ships no types, and
 * @types/oidc-provider would be a dependency for one test file).
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Client {
    clientId: string;
    grantTypeAllowed(type: string): boolean;
  }
  interface Interaction {
    uid: string;
  }
  interface InteractionDetails {
    grantId?: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId: string };
  }
  class Grant {
    constructor(init: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }
  type Context = unknown;
  export interface Configuration {
    [key: string]: unknown;
    findAccount?: (
      ctx: Context,
      sub: string,
    ) => Promise<{ accountId: string; claims: () => Promise<Record<string, unknown>> }>;
    interactions?: { url: (ctx: Context, interaction: Interaction) => Promise<string> };
    issueRefreshToken?: (ctx: Context, client: Client) => Promise<boolean>;
    features?: {
      [feature: string]: unknown;
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?: (
          ctx: Context,
          client: Client,
          oneOf?: string,
        ) => Promise<string | string[] | undefined>;
        useGrantedResource?: (ctx: Context) => Promise<boolean>;
        getResourceServerInfo: (
          ctx: Context,
          indicator: string,
          client: Client,
        ) => Promise<Record<string, unknown>>;
      };
      revocation?: {
        enabled: boolean;
        allowedPolicy?: (
          ctx: Context,
          client: Client,
          token: { clientId: string },
        ) => Promise<boolean>;
      };
    };
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    Grant: typeof Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (ctx: Context, error: unknown) => void): void;
  }
  export const errors: { InvalidTarget: new () => Error };
}
