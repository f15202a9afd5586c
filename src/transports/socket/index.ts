/**
 * TCP and Unix sockets carrying newline-delimited JSON-RPC: connect, or listen.
 *
 * @module mcpwire/transports/socket
 */
export { type ConnectSocketOptions, connectSocket } from "./client.js";
export { type ListenSocketOptions, listenSocket, type SocketListener } from "./server.js";
export {
  SocketTransport,
  type SocketTransportInit,
  type SocketTransportOptions,
} from "./socket-transport.js";
export { formatSocketTarget, parseSocketTarget, type SocketTarget } from "./target.js";
