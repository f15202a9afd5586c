/**
 * TCP and Unix sockets carrying newline-delimited JSON-RPC: connect, or listen.
 *
 * @module mcpwire/transports/socket
 */
export { type ConnectSocketOptions, connectSocket } from "./client.js";
export { type ListenSocketOptions, listenSocket, type SocketListener } from "./server.js";
// A type only: sockets are made by connectSocket and listenSocket, never with `new`.
export type { SocketTransport, SocketTransportOptions } from "./socket-transport.js";
export type { SocketTarget } from "./target.js";
