/**
 * The bare handler on workerd (the limit of the workerd rows): a Worker whose fetch handler
 * answers the echo call with a hand-built JSON-RPC reply, as the bare server does on Bun.serve.
 * Bundled and served by peers/workerd-server.ts.
 */
import { answerRequest } from "../peers/bare-protocol.js";

export default { fetch: answerRequest };
