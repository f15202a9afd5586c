/**
 * A "browser" for clients that open the authorization URL themselves (mcp-remote, through the
 * `open` package's xdg-open, which runs $BROWSER): follows oidc-provider's interactions to the
 * redirect URI named in the URL and delivers the answer there, as a browser would.
 *
 *   BROWSER="node headless-browser.js"   (the URL comes as the one argument)
 */
import { followToRedirect } from "./browser-redirect.js";

const url = new URL(process.argv[2] ?? "");
const redirectUri = url.searchParams.get("redirect_uri");
if (redirectUri === null) throw new Error("the authorization URL names no redirect_uri");
const callback = await followToRedirect(url, redirectUri);
const delivered = await fetch(callback);
await delivered.body?.cancel();
process.exit(delivered.ok ? 0 : 1);
