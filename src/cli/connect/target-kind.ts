/** The kinds of target a verb can reach (apart from target.ts, which config-target.ts also feeds). */
import type { SocketTarget } from "../../transports/socket/target.js";

/** Where a verb finds its server. */
export type Target =
  | {
      kind: "http";
      url: URL;
      /** From a config file; --header wins over them. */
      headers?: Record<string, string>;
      /** A config file's `"type": "sse"`: the 2024-11-05 HTTP+SSE transport, legacy era. */
      sse?: boolean;
    }
  | { kind: "socket"; address: SocketTarget; text: string }
  | {
      kind: "stdio";
      command: string;
      args: string[];
      /** Added to the allowlisted environment (from -e, --env-from or a config file). */
      env?: Record<string, string>;
      inheritEnv?: boolean;
      cwd?: string;
    };
