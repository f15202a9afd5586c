/** The web build's openBrowser: in a page, the page opens the URL itself (window.open). */
import { nodeOnly } from "../platform/node-only.js";
import type { openBrowser as nodeOpenBrowser } from "./open-browser.js";

export const openBrowser: typeof nodeOpenBrowser = () => {
  throw nodeOnly("openBrowser", "open the authorization URL from the page itself");
};
