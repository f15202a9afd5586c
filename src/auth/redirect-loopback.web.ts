/** The web build's loopbackRedirect: a Worker or a page cannot listen on a loopback port. */
import { nodeOnly } from "../platform/node-only.js";
import type { loopbackRedirect as nodeLoopbackRedirect } from "./redirect-loopback.js";

export const loopbackRedirect: typeof nodeLoopbackRedirect = async () => {
  throw nodeOnly(
    "loopbackRedirect",
    "give a RedirectHandler of your own that receives the redirect at your page's URL",
  );
};
