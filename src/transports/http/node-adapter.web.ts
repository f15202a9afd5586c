/** The web build's node:http adapter: none; a Worker or a page serves createHttpHandler's handler. */
import { nodeOnly } from "../../platform/node-only.js";
import type * as node from "./node-adapter.js";

const useHandler = "export createHttpHandler(server).handle as the runtime's fetch handler";

export const createNodeListener: typeof node.createNodeListener = () => {
  throw nodeOnly("createNodeListener", useHandler);
};

export const serveHttp: typeof node.serveHttp = async () => {
  throw nodeOnly("serveHttp", useHandler);
};
