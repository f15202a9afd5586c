/**
 * stdio: start a server as a subprocess (supervised, with its process tree), or serve on this process's stdin/stdout.
 *
 * @module mcpwire/transports/stdio
 */
export {
  DEFAULT_SIGTERM_WAIT_MS,
  DEFAULT_STDERR_TAIL_BYTES,
  DEFAULT_STDIN_CLOSE_WAIT_MS,
  type ExitStatus,
  ServerExitedError,
  type StdioClientOptions,
  StdioClientTransport,
  type StdioShutdownOptions,
} from "./client.js";
export {
  type ChildEnvironmentOptions,
  childEnvironment,
  defaultEnvironment,
  POSIX_ENV_ALLOWLIST,
  WINDOWS_ENV_ALLOWLIST,
} from "./env.js";
export { serveStdio } from "./serve.js";
export { StdioServerTransport, type StdioServerTransportOptions } from "./server.js";
export {
  type RestartDecision,
  type RestartOptions,
  RestartPolicy,
  type SupervisedStdioOptions,
  SupervisedStdioTransport,
} from "./supervisor.js";
